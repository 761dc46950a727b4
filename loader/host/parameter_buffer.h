// Read-only parameter memory shared by all executors of a library: either a
// mapping of the archive file or an owned, 64-byte aligned copy.
#ifndef MLFKIT_LOADER_HOST_PARAMETER_BUFFER_H_
#define MLFKIT_LOADER_HOST_PARAMETER_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "artifact/base/status.h"

namespace mlf {

class ParameterBuffer {
 public:
  // Maps bytes [offset, offset + size) of `fd` read-only (MAP_PRIVATE: clean,
  // file-backed pages that cost no private memory). `offset` need not be
  // page-aligned; data() is then offset within the first page.
  static Result<std::unique_ptr<ParameterBuffer>> Map(int fd, uint64_t offset, uint64_t size,
                                                      const std::string& name);
  // An owned buffer of `size` bytes, 64-byte aligned, to be filled by Append().
  static Result<std::unique_ptr<ParameterBuffer>> Allocate(uint64_t size, const std::string& name);
  ~ParameterBuffer();
  ParameterBuffer(const ParameterBuffer&) = delete;
  ParameterBuffer& operator=(const ParameterBuffer&) = delete;

  // Copies more bytes into an allocated buffer; refuses to overflow it.
  Status Append(const void* data, size_t size);

  const void* data() const { return data_; }
  uint64_t size() const { return size_; }
  bool is_mapped() const { return mapping_ != nullptr; }

 private:
  ParameterBuffer() = default;
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  char* owned_ = nullptr;
  const void* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t filled_ = 0;
  std::string name_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_PARAMETER_BUFFER_H_
