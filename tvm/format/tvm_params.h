// TVM's `.params` format (`parameters/<mod>.params` in TVM archives): a
// dictionary of named CPU tensors, read from untrusted archives and written
// for compatibility. Layout, all little-endian (docs/archive-format.md, "The .params layout"):
//
//   u64 magic 0xF7E58D4F05049CB7, u64 reserved,
//   u64 n, n x (u64 length, name bytes),
//   u64 n, n x NDArray
//   NDArray: u64 magic 0xDD5E40F096B4A13F, u64 reserved, i32 device_type (1),
//            i32 device_id, i32 ndim, u8 code, u8 bits, u16 lanes,
//            i64 shape[ndim], i64 nbytes, nbytes of data
//
// An empty dictionary is 32 bytes. Name i belongs to array i.
//
// Reading trusts nothing: every count and length is checked against the
// bytes that remain before anything is allocated. Like TVM, the reader
// ignores the reserved fields and device_id. Errors start with ".params:",
// name the tensor (index and name) and the byte offset, and use
//   kDataLoss        when the file ends before a declared length or count,
//   kInvalidArgument for everything else (magic, device, ndim, dtype, nbytes
//                    not matching the shape, name/array count mismatch,
//                    duplicate names, trailing bytes).
#ifndef MLFKIT_TVM_FORMAT_TVM_PARAMS_H_
#define MLFKIT_TVM_FORMAT_TVM_PARAMS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"

namespace mlf {

// The largest ndim the reader accepts.
inline constexpr int32_t kTvmParamsMaxNdim = 32;

// One entry of the dictionary. `data` holds the elements row-major and
// little-endian, DTypeSize(dtype) bytes each.
struct NamedTensor {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // empty for a 0-d scalar
  std::string data;
};

// Parses a whole file; the tensors come back in file order. Duplicate names
// and trailing bytes are errors.
Result<std::vector<NamedTensor>> ReadTvmParams(std::string_view bytes);

// Serialises tensors in the given order with device CPU (1, 0). Writes
// nbytes as data.size(): the caller keeps data.size() == ByteSize(dtype,
// shape) and names unique, or ReadTvmParams will refuse the result.
std::string WriteTvmParams(const std::vector<NamedTensor>& tensors);

}  // namespace mlf

#endif  // MLFKIT_TVM_FORMAT_TVM_PARAMS_H_
