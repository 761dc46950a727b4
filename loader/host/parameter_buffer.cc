#include "loader/host/parameter_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace mlf {

Result<std::unique_ptr<ParameterBuffer>> ParameterBuffer::Map(int fd, uint64_t offset,
                                                              uint64_t size,
                                                              const std::string& name) {
  std::unique_ptr<ParameterBuffer> b(new ParameterBuffer());
  b->name_ = name;
  b->size_ = size;
  if (size == 0) return b;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / page * page;
  b->mapping_size_ = static_cast<size_t>(offset - start + size);
  void* p = mmap(nullptr, b->mapping_size_, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (p == MAP_FAILED) return ErrnoError("cannot map parameters '" + name + "'");
  b->mapping_ = p;
  b->data_ = static_cast<char*>(p) + (offset - start);
  return b;
}

Result<std::unique_ptr<ParameterBuffer>> ParameterBuffer::Allocate(uint64_t size,
                                                                   const std::string& name) {
  std::unique_ptr<ParameterBuffer> b(new ParameterBuffer());
  b->name_ = name;
  b->size_ = size;
  const uint64_t rounded = (size + 63) / 64 * 64;
  b->owned_ = static_cast<char*>(std::aligned_alloc(64, rounded > 0 ? rounded : 64));
  if (b->owned_ == nullptr) {
    return OutOfRange("cannot allocate " + std::to_string(size) + " bytes for parameters '" +
                      name + "'");
  }
  b->data_ = b->owned_;
  return b;
}

ParameterBuffer::~ParameterBuffer() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
  std::free(owned_);
}

Status ParameterBuffer::Append(const void* data, size_t size) {
  if (owned_ == nullptr || filled_ + size > size_) {
    return Internal("parameters '" + name_ + "': more data than the " + std::to_string(size_) +
                    " bytes announced");
  }
  std::memcpy(owned_ + filled_, data, size);
  filled_ += size;
  return Status::Ok();
}

}  // namespace mlf
