#include "loader/host/shared_object.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace mlf {

Result<std::unique_ptr<SharedObject>> SharedObject::OpenFile(const std::string& path,
                                                             const std::string& display_name) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return FailedPrecondition("cannot load host library " + display_name + ": " +
                              (why ? why : "unknown dlopen error"));
  }
  return std::unique_ptr<SharedObject>(new SharedObject(handle, display_name));
}

Result<std::unique_ptr<SharedObject>> SharedObject::OpenMemoryFile(
    int memfd, const std::string& display_name) {
  return OpenFile("/proc/self/fd/" + std::to_string(memfd), display_name);
}

SharedObject::~SharedObject() { dlclose(handle_); }

Result<void*> SharedObject::Symbol(const std::string& symbol) const {
  dlerror();
  void* address = dlsym(handle_, symbol.c_str());
  if (dlerror() != nullptr || address == nullptr) {
    return NotFound("host library " + name_ + " has no symbol '" + symbol + "'");
  }
  return address;
}

Result<std::unique_ptr<MemoryFile>> MemoryFile::Create(const std::string& name) {
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) return ErrnoError("memfd_create for " + name);
  return std::unique_ptr<MemoryFile>(new MemoryFile(fd));
}

MemoryFile::~MemoryFile() { close(fd_); }

Status MemoryFile::Append(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd_, p, size);
    if (n < 0) return ErrnoError("writing to memfd");
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status MemoryFile::Seal() {
  if (fcntl(fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
    return ErrnoError("sealing memfd");
  }
  return Status::Ok();
}

}  // namespace mlf
