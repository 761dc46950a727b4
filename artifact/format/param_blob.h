// The mlfkit parameter container: one raw blob per module
// (`parameters/<mod>.bin`) plus an index recorded in metadata.json.
//
// Each tensor's bytes (little-endian elements, row-major) start at an offset
// that is a multiple of kParamAlignment; the gaps between tensors are zero.
// The blob ends right after the last tensor (no trailing padding); an empty
// index has an empty blob. Because a loader may point straight into an
// mmapped blob, ValidateParamIndex must pass before any tensor is used.
//
//   ParamBlobBuilder b;
//   MLF_RETURN_IF_ERROR(b.Add("w0", DType::kFloat32, {10, 784}, w0_bytes));
//   std::vector<ParamTensor> index = b.index();
//   MLF_ASSIGN_OR_RETURN(std::string blob, b.Finish());
#ifndef MLFKIT_ARTIFACT_FORMAT_PARAM_BLOB_H_
#define MLFKIT_ARTIFACT_FORMAT_PARAM_BLOB_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"

namespace mlf {

// Every tensor offset in a blob is a multiple of this.
inline constexpr uint64_t kParamAlignment = 64;

// One entry of metadata's `parameters.tensors`.
struct ParamTensor {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  uint64_t offset = 0;      // from the start of the blob
  uint64_t size_bytes = 0;  // == DTypeSize(dtype) * element count
};

// Lays tensors out in the order they are added, each at the next aligned
// offset, and builds the matching index.
class ParamBlobBuilder {
 public:
  // Appends a tensor. Fails, naming the tensor, if the name is empty or
  // already added, the shape is invalid, or bytes.size() differs from
  // ByteSize(dtype, shape). A failed Add leaves the builder unchanged.
  Status Add(std::string name, DType dtype, std::vector<int64_t> shape, std::string_view bytes);

  // The index of the tensors added so far.
  const std::vector<ParamTensor>& index() const { return index_; }

  // The blob size (the end of the last tensor); still valid after Finish.
  uint64_t size() const { return size_; }

  // Returns the blob and leaves the builder finished: a second Finish or a
  // later Add gives kFailedPrecondition. Read index() before or after.
  Result<std::string> Finish();

 private:
  std::vector<ParamTensor> index_;
  std::unordered_set<std::string> names_;
  std::string blob_;
  uint64_t size_ = 0;
  bool finished_ = false;
};

// Checks an index (typically read from metadata) against a blob of
// `blob_size` bytes: names non-empty and unique, offsets aligned, size_bytes
// consistent with dtype and shape, every range inside the blob, no two
// non-empty ranges overlapping. Returns kInvalidArgument naming the tensor,
// e.g. "parameter 'w0': offset 70 is not 64-byte aligned".
Status ValidateParamIndex(const std::vector<ParamTensor>& index, uint64_t blob_size);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_PARAM_BLOB_H_
