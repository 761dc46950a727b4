// Loading host code: the bytes dlopen maps are the bytes that were hashed.
//
// A CodeImage collects a library's bytes and hashes them as they are written
// into an anonymous memory file (memfd_create). Seal() compares the digest
// with the one the caller trusts (from metadata.json, or the digest recorded
// when a compiled library entered the private cache) and only then seals the
// memfd against any further change (F_SEAL_WRITE, GROW, SHRINK, SEAL). No
// path names the memfd and nobody else holds it, so nothing can change the
// bytes between the hash and the mapping.
//
// SharedObject::Load dlopens the sealed memfd through /proc/self/fd/N. Where
// the kernel refuses to map a memfd executable (vm.memfd_noexec, a security
// module), it copies the sealed bytes, hashing them again as they are
// written, into a new file (O_EXCL, O_NOFOLLOW) in a private directory made
// for the purpose (mkdtemp, mode 0700), loads that copy and removes it.
#ifndef MLFKIT_LOADER_HOST_SHARED_OBJECT_H_
#define MLFKIT_LOADER_HOST_SHARED_OBJECT_H_

#include <memory>
#include <string>

#include "artifact/base/digest.h"
#include "artifact/base/status.h"

namespace mlf {

class CodeImage {
 public:
  // A new, empty image; `name` labels the memfd (seen in /proc/PID/maps).
  static Result<std::unique_ptr<CodeImage>> Create(const std::string& name);
  ~CodeImage();
  CodeImage(const CodeImage&) = delete;
  CodeImage& operator=(const CodeImage&) = delete;

  // Writes and hashes more of the library. Refused once sealed.
  Status Append(const void* data, size_t size);
  // Seals the image when the SHA-256 of everything appended is
  // `expected_sha256`; otherwise kDataLoss naming `what` and both digests,
  // and the image can never be loaded.
  Status Seal(const std::string& expected_sha256, const std::string& what);

  bool sealed() const { return sealed_; }
  // The digest of the sealed bytes (empty before Seal succeeded).
  const std::string& sha256() const { return sha256_; }
  uint64_t size() const { return size_; }
  int fd() const { return fd_; }

 private:
  explicit CodeImage(int fd) : fd_(fd) {}
  int fd_;
  Sha256 hash_;
  uint64_t size_ = 0;
  bool sealed_ = false;
  std::string sha256_;
};

class SharedObject {
 public:
  // dlopen(RTLD_NOW | RTLD_LOCAL) of a sealed image (see above).
  // `display_name` names the library in errors.
  static Result<std::unique_ptr<SharedObject>> Load(const CodeImage& image,
                                                    const std::string& display_name);
  // The fallback of Load, used directly where a memfd cannot be mapped
  // executable: a private copy, checked against the image's digest.
  static Result<std::unique_ptr<SharedObject>> LoadPrivateCopy(const CodeImage& image,
                                                               const std::string& display_name);
  ~SharedObject();
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;

  // The address of `symbol`, or kNotFound naming the library and the symbol.
  Result<void*> Symbol(const std::string& symbol) const;

 private:
  SharedObject(void* handle, std::string name, int fd)
      : handle_(handle), name_(std::move(name)), fd_(fd) {}
  // dlopen of /proc/self/fd/<fd>; takes `fd`, which stays open as long as
  // the library is loaded: the dynamic linker recognises a loaded library
  // by its path name, so no other library may be given the same
  // /proc/self/fd/N while this one is loaded.
  static Result<std::unique_ptr<SharedObject>> Open(int fd, const std::string& display_name);
  void* handle_;
  std::string name_;
  int fd_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_SHARED_OBJECT_H_
