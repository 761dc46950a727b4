#include "loader/host/shared_object.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "artifact/base/scratch_dir.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

namespace mlf {
namespace {

Status WriteAll(int fd, const char* p, size_t size, const std::string& what) {
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("writing " + what);
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Whether the kernel lets this process map the memfd executable, as dlopen
// will (vm.memfd_noexec and security modules may refuse it).
bool CanMapExecutable(int fd) {
  void* p = mmap(nullptr, 1, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return false;
  munmap(p, 1);
  return true;
}

}  // namespace

Result<std::unique_ptr<CodeImage>> CodeImage::Create(const std::string& name) {
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  // With vm.memfd_noexec = 2 only non-executable memfds may be made; Load()
  // then goes through a private copy.
  if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EINVAL)) {
    fd = memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
  }
  if (fd < 0) return ErrnoError("cannot create an in-memory file for " + name);
  return std::unique_ptr<CodeImage>(new CodeImage(fd));
}

CodeImage::~CodeImage() { close(fd_); }

Status CodeImage::Append(const void* data, size_t size) {
  if (sealed_) return Internal("host library image appended to after sealing");
  hash_.Update(data, size);
  size_ += size;
  return WriteAll(fd_, static_cast<const char*>(data), size, "an in-memory host library");
}

Status CodeImage::Seal(const std::string& expected_sha256, const std::string& what) {
  if (sealed_) return Internal("host library image sealed twice");
  const std::string actual = hash_.FinishHex();
  if (actual != expected_sha256) {
    return DataLoss(what + ": SHA-256 mismatch (the bytes to load have " + actual +
                    ", expected " + expected_sha256 + ")");
  }
  if (fcntl(fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    return ErrnoError("cannot seal the in-memory host library " + what);
  }
  sha256_ = actual;
  sealed_ = true;
  return Status::Ok();
}

Result<std::unique_ptr<SharedObject>> SharedObject::Open(int fd, const std::string& display_name) {
  // A library that outlived its dlclose (the dynamic linker may keep one)
  // still answers to its /proc/self/fd/N: move to a number no loaded
  // library has, holding the numbers tried so they are not handed out again.
  std::vector<int> tried;
  for (int i = 0; i < 64; ++i) {
    void* loaded = dlopen(("/proc/self/fd/" + std::to_string(fd)).c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (loaded == nullptr) break;
    dlclose(loaded);
    tried.push_back(fd);
    fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) break;
  }
  for (int t : tried) close(t);
  if (fd < 0) return ErrnoError("cannot load host library " + display_name);
  dlerror();
  // The one /proc/self/fd path in mlfkit's archive handling: dlopen takes
  // only a path, and the sealed memfd has no other. Archives themselves are
  // carried by ArchiveSource (artifact/archive/archive_source.h), never by
  // such paths.
  void* handle = dlopen(("/proc/self/fd/" + std::to_string(fd)).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    close(fd);
    return FailedPrecondition("cannot load host library " + display_name + ": " +
                              (why ? why : "unknown dlopen error"));
  }
  return std::unique_ptr<SharedObject>(new SharedObject(handle, display_name, fd));
}

Result<std::unique_ptr<SharedObject>> SharedObject::Load(const CodeImage& image,
                                                         const std::string& display_name) {
  if (!image.sealed()) return Internal("host library " + display_name + " loaded before sealing");
  if (!CanMapExecutable(image.fd())) return LoadPrivateCopy(image, display_name);
  const int fd = fcntl(image.fd(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("cannot load host library " + display_name);
  return Open(fd, display_name);
}

Result<std::unique_ptr<SharedObject>> SharedObject::LoadPrivateCopy(
    const CodeImage& image, const std::string& display_name) {
  if (!image.sealed()) return Internal("host library " + display_name + " loaded before sealing");
  // Removed with the copy when this returns: the mapping outlives both.
  MLF_ASSIGN_OR_RETURN(ScratchDir dir, ScratchDir::CreateInTemp("mlf-code-"));
  const int out = openat(dir.fd(), "lib.so", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                         0700);
  if (out < 0) return ErrnoError("cannot create a private copy of host library " + display_name);
  Sha256 hash;
  char buffer[1 << 16];
  Status written = Status::Ok();
  for (off_t offset = 0; written.ok();) {
    const ssize_t n = pread(image.fd(), buffer, sizeof buffer, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) written = ErrnoError("reading the in-memory host library " + display_name);
    if (n <= 0) break;
    hash.Update(buffer, static_cast<size_t>(n));
    written = WriteAll(out, buffer, static_cast<size_t>(n), "a private copy of " + display_name);
    offset += n;
  }
  struct stat made {};
  if (written.ok() && fstat(out, &made) != 0) written = ErrnoError("fstat of a private copy");
  close(out);
  MLF_RETURN_IF_ERROR(written);
  const std::string copied = hash.FinishHex();
  if (copied != image.sha256()) {
    return DataLoss("host library " + display_name + ": its private copy has SHA-256 " + copied +
                    ", expected " + image.sha256());
  }
  // Loaded through a descriptor of the very file written (same inode).
  const int in = openat(dir.fd(), "lib.so", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat opened {};
  if (in < 0 || fstat(in, &opened) != 0 || opened.st_ino != made.st_ino ||
      opened.st_dev != made.st_dev) {
    if (in >= 0) close(in);
    return DataLoss("host library " + display_name + ": its private copy was replaced");
  }
  return Open(in, display_name);
}

SharedObject::~SharedObject() {
  dlclose(handle_);
  close(fd_);
}

Result<void*> SharedObject::Symbol(const std::string& symbol) const {
  dlerror();
  void* address = dlsym(handle_, symbol.c_str());
  if (dlerror() != nullptr || address == nullptr) {
    return NotFound("host library " + name_ + " has no symbol '" + symbol + "'");
  }
  return address;
}

}  // namespace mlf
