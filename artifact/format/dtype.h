// DType: the element types mlfkit knows, shared by metadata, parameter
// containers, code generation and both loaders.
//
// Each dtype has a canonical lower-case name (the spelling used in
// metadata.json: "float32", "bfloat16", ...), an element size in bytes and a
// DLPack encoding.
//
//   MLF_ASSIGN_OR_RETURN(DType t, ParseDType("float32"));
//   MLF_ASSIGN_OR_RETURN(uint64_t n, ByteSize(t, {1, 28, 28, 1}));  // 3136
//
// Bool and DLPack: the installed dlpack.h (DLPACK_VERSION 60) has no kDLBool,
// and TVM encodes bool as {kDLUInt, bits 1, lanes 1} with one byte of storage
// per element. ToDLPack(kBool) therefore returns {kDLUInt, 1, 1}, which keeps
// bool distinct from uint8 ({kDLUInt, 8, 1}) and matches TVM's .params files.
// FromDLPack also accepts DLPack >= 0.8's {kDLBool (6), 8, 1} as bool.
//
// DTypeValue is a dtype as an archive states it (the metadata model's
// TensorInfo, ParamTensorInfo and TvmOperatorBuffer hold one): known, or a
// text this build does not know, kept for display.
#ifndef MLFKIT_ARTIFACT_FORMAT_DTYPE_H_
#define MLFKIT_ARTIFACT_FORMAT_DTYPE_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"

namespace mlf {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
};

// Every DType, in declaration order (for tests and help texts).
inline constexpr DType kAllDTypes[] = {
    DType::kBool,     DType::kInt8,    DType::kInt16,   DType::kInt32,  DType::kInt64,
    DType::kUInt8,    DType::kUInt16,  DType::kUInt32,  DType::kUInt64, DType::kFloat16,
    DType::kBFloat16, DType::kFloat32, DType::kFloat64,
};

// Parses a canonical name. Unknown names give kInvalidArgument listing the
// accepted names.
Result<DType> ParseDType(std::string_view name);

// The canonical name, e.g. "float32".
const char* DTypeName(DType dtype);

// Bytes per element in memory and in files (1 for bool).
size_t DTypeSize(DType dtype);

// The DLPack encoding (lanes is always 1). See the file comment for bool.
DLDataType ToDLPack(DType dtype);

// Maps a DLPack type back. Vector types (lanes != 1) and codes or bit widths
// mlfkit does not support give kInvalidArgument naming code, bits and lanes.
Result<DType> FromDLPack(DLDataType type);

// A dtype read from metadata: parsed once where metadata is read
// (ParseMetadata, the TVM normaliser) and printed back by the serializer.
// Version 8 metadata holds known dtypes only (its schema lists them); TVM
// archives come from the wild and may name one mlfkit does not know
// ("float32x4", "custom[posit]32", "int4"), or none at all (no memory section
// and no Relay text): the value is then unknown and keeps the text as written
// (empty when the archive states none), so `mlf inspect` and `mlf verify`
// still show the archive and the loaders refuse the tensor.
//
// Why a class and not EnumValue<DType> with a kUnknown member: DType is what
// sizes, DLPack codes and C types are computed from all over mlfkit, and an
// unknown member there would reach DTypeSize and ByteSize unnoticed. Here the
// DType is only reachable through known() or Known(), which make the caller
// handle the unknown case; there is no implicit conversion to DType.
//
//   DTypeValue v = DTypeValue::Read("float32x4");  // !v.known(), ToString(v) == "float32x4"
//   MLF_ASSIGN_OR_RETURN(DType t, v.Known());      // the ParseDType error for unknown text
class DTypeValue {
 public:
  // No dtype stated: unknown, with empty text.
  DTypeValue() = default;
  DTypeValue(DType known) : known_(known) {}  // NOLINT: implicit, so known dtypes assign directly

  // A canonical name gives a known value; any other text (including the
  // empty text, "not stated") an unknown value keeping that text.
  static DTypeValue Read(std::string_view text);

  // The DType when known, else nullopt.
  const std::optional<DType>& known() const { return known_; }
  // The DType, or for unknown text ParseDType's error (naming the text and
  // the accepted names), or for no text kInvalidArgument "no dtype stated".
  Result<DType> Known() const;
  // False only for the default value (the archive states no dtype).
  bool stated() const { return known_.has_value() || !text_.empty(); }
  // For unknown values: the text as read ("" when not stated).
  const std::string& text() const { return text_; }

  friend bool operator==(const DTypeValue& a, DType b) { return a.known_ == b; }
  friend bool operator!=(const DTypeValue& a, DType b) { return !(a == b); }
  friend bool operator==(const DTypeValue& a, const DTypeValue& b) {
    return a.known_ == b.known_ && a.text_ == b.text_;
  }
  friend bool operator!=(const DTypeValue& a, const DTypeValue& b) { return !(a == b); }

 private:
  std::optional<DType> known_;
  std::string text_;  // empty for known values
};

// The canonical name of a known value, else the text as read. Serialising
// and displaying metadata print this; Read(ToString(v)) == v.
std::string ToString(const DTypeValue& dtype);

// "[1, 28, 28, 1]"; "[]" for a scalar. For error messages.
std::string FormatShape(const std::vector<int64_t>& shape);

// The product of the dimensions; 1 for a 0-d scalar. A negative dimension
// gives kInvalidArgument, a product beyond uint64 gives kOutOfRange.
Result<uint64_t> ElementCount(const std::vector<int64_t>& shape);

// ElementCount(shape) * DTypeSize(dtype), with the same errors.
Result<uint64_t> ByteSize(DType dtype, const std::vector<int64_t>& shape);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_DTYPE_H_
