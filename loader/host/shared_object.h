// A dlopen'ed shared library, closed when the object is destroyed.
//
// Libraries from archives are loaded from memory: the bytes go into a sealed
// memfd (memfd_create + F_SEAL_WRITE), which is dlopen'ed through
// /proc/self/fd/N. Nothing is extracted to disk and nothing is left behind.
#ifndef MLFKIT_LOADER_HOST_SHARED_OBJECT_H_
#define MLFKIT_LOADER_HOST_SHARED_OBJECT_H_

#include <memory>
#include <string>

#include "artifact/status.h"

namespace mlf {

class SharedObject {
 public:
  // dlopen(RTLD_NOW | RTLD_LOCAL) of a file. `display_name` names it in errors.
  static Result<std::unique_ptr<SharedObject>> OpenFile(const std::string& path,
                                                        const std::string& display_name);
  // Loads a library from a memfd holding its bytes (see MemoryFile).
  static Result<std::unique_ptr<SharedObject>> OpenMemoryFile(int memfd,
                                                              const std::string& display_name);
  ~SharedObject();
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  // The address of `symbol`, or kNotFound naming the library and the symbol.
  Result<void*> Symbol(const std::string& symbol) const;

 private:
  SharedObject(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_;
  std::string name_;
};

// An anonymous in-memory file (memfd) that collects bytes, then is sealed.
class MemoryFile {
 public:
  static Result<std::unique_ptr<MemoryFile>> Create(const std::string& name);
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  Status Append(const void* data, size_t size);
  // Forbids further writes (F_SEAL_WRITE, F_SEAL_GROW, F_SEAL_SHRINK).
  Status Seal();
  int fd() const { return fd_; }

 private:
  explicit MemoryFile(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_SHARED_OBJECT_H_
