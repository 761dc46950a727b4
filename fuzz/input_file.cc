#include "fuzz/input_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace mlf::fuzz {

std::string InputFile(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("mlf-fuzz-input", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 0) != 0) {
    std::perror("mlf fuzz: memfd");
    std::abort();
  }
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) {
      std::perror("mlf fuzz: pwrite");
      std::abort();
    }
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace mlf::fuzz
