// NumPy .npy files: one array per file, read from untrusted input (`mlf run
// --input NAME=FILE.npy`, `--expect-dir`) and written exactly as numpy.save
// writes them (`--output-dir`).
//
// Layout (numpy.lib.format):
//
//   "\x93NUMPY", u8 major, u8 minor,
//   header length: u16 little-endian (1.0) or u32 little-endian (2.0, 3.0),
//   header: a Python dict literal, padded with spaces and ended by '\n',
//   data:   the elements in C order, no padding, nothing after them.
//
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 10), }
//
// Version 3.0 only differs from 2.0 in allowing UTF-8 in the header; both are
// read. Accepted descrs, one per DType: '<f2' '<f4' '<f8' '<i2' '<i4' '<i8'
// '<u2' '<u4' '<u8', and for the 1-byte types '|b1' '|i1' '|u1' (any byte
// order character is accepted there: '<i1' means the same). bfloat16 has no
// NumPy descr and cannot be stored in .npy.
//
// The header is parsed strictly by hand: only the three keys, in any order,
// each once; single- or double-quoted strings without escapes; True/False;
// a tuple of decimal integers ("()", "(3,)", "(2, 3,)"); whitespace between
// tokens and trailing commas as Python allows. Every length is checked
// against the bytes that are present before anything is allocated.
//
// Errors from ParseNpy, by kind (ReadNpyFile prefixes "'<path>': "):
//   kInvalidArgument    not an .npy file (bad magic), header not a dict,
//                       malformed header, missing / unknown / repeated key,
//                       wrongly typed value, negative dimension, trailing
//                       bytes after the data
//   kDataLoss           file ends inside the preamble, header length bigger
//                       than the file, data shorter than the shape needs
//   kFailedPrecondition unsupported format version
//   kUnimplemented      big-endian data, unsupported or structured descr,
//                       fortran_order True
//   kOutOfRange         a dimension beyond int64, more than kNpyMaxNdim
//                       dimensions, element count or byte size beyond uint64,
//                       (ReadNpyFile) a file larger than max_bytes
#ifndef MLFKIT_ARTIFACT_FORMAT_NPY_H_
#define MLFKIT_ARTIFACT_FORMAT_NPY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"

namespace mlf {

// The most dimensions a .npy shape may have (NumPy 2's NPY_MAXDIMS).
inline constexpr size_t kNpyMaxNdim = 64;

// One array. `data` holds the elements in C (row-major) order, little-endian,
// DTypeSize(dtype) bytes each.
struct NpyArray {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // empty for a 0-d scalar
  std::string data;
};

// The descr numpy writes for `dtype`: "<f4", "|u1", "|b1", ...
// kUnimplemented for bfloat16, which has none.
Result<std::string> NpyDescr(DType dtype);

// Parses a whole .npy file held in memory (see the file comment).
Result<NpyArray> ParseNpy(std::string_view bytes);

// Reads and parses the file at `path` (regular file or pipe). A file larger
// than `max_bytes` is refused (kOutOfRange) before its content is read; a
// missing file gives kNotFound, other system errors kIoError. The file is read
// once, and the array's data reuses that buffer.
Result<NpyArray> ReadNpyFile(const std::string& path, uint64_t max_bytes = 4ull << 30);

// Checks that `array` can be written as a .npy file that ParseNpy accepts:
// the dtype has a descr (not bfloat16), at most kNpyMaxNdim dimensions, none
// negative, and data.size() == ByteSize(dtype, shape).
Status ValidateNpyArray(const NpyArray& array);

// The preamble and header numpy.save writes for a C-order array: version 1.0,
// or 2.0 when the header would exceed 65535 bytes; keys sorted, shape written
// as Python's repr of a tuple ("()", "(3,)", "(2, 3, 4)"), then NumPy 2's
// spare spaces (21 minus the digits of shape[0], for in-place growth), then
// spaces and '\n' so that the data starts at a multiple of 64 bytes (a full
// 64 spaces when it would already be aligned, as numpy does).
// bfloat16 is written with descr '<V2' (opaque 2-byte records).
std::string SerializeNpyHeader(DType dtype, const std::vector<int64_t>& shape);

// SerializeNpyHeader(array.dtype, array.shape) followed by array.data. Call
// ValidateNpyArray first: this writes whatever it is given.
std::string SerializeNpy(const NpyArray& array);

// Validates `array` (ValidateNpyArray's errors) and writes it to `path`
// atomically (see artifact/base/atomic_file.h), header and data streamed without
// building the whole file in memory.
Status WriteNpyFile(const std::string& path, const NpyArray& array);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_NPY_H_
