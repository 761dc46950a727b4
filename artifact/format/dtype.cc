#include "artifact/format/dtype.h"

#include <limits>

namespace mlf {
namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  uint8_t code;  // DLDataTypeCode
  uint8_t bits;
  uint8_t size;  // bytes per element
};

// One row per DType, in enum order, so kTable[static_cast<int>(t)] is t's row.
constexpr DTypeInfo kTable[] = {
    {DType::kBool, "bool", kDLUInt, 1, 1},
    {DType::kInt8, "int8", kDLInt, 8, 1},
    {DType::kInt16, "int16", kDLInt, 16, 2},
    {DType::kInt32, "int32", kDLInt, 32, 4},
    {DType::kInt64, "int64", kDLInt, 64, 8},
    {DType::kUInt8, "uint8", kDLUInt, 8, 1},
    {DType::kUInt16, "uint16", kDLUInt, 16, 2},
    {DType::kUInt32, "uint32", kDLUInt, 32, 4},
    {DType::kUInt64, "uint64", kDLUInt, 64, 8},
    {DType::kFloat16, "float16", kDLFloat, 16, 2},
    {DType::kBFloat16, "bfloat16", kDLBfloat, 16, 2},
    {DType::kFloat32, "float32", kDLFloat, 32, 4},
    {DType::kFloat64, "float64", kDLFloat, 64, 8},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == sizeof(kAllDTypes) / sizeof(kAllDTypes[0]));

// kDLBool as defined by DLPack >= 0.8; the installed header predates it.
constexpr uint8_t kDLPackBoolCode = 6;

const DTypeInfo& Info(DType dtype) { return kTable[static_cast<size_t>(dtype)]; }

std::string AcceptedNames() {
  std::string names;
  for (const DTypeInfo& info : kTable) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

}  // namespace

Result<DType> ParseDType(std::string_view name) {
  for (const DTypeInfo& info : kTable) {
    if (name == info.name) return info.dtype;
  }
  return InvalidArgument("unknown dtype '" + std::string(name) +
                         "' (expected one of: " + AcceptedNames() + ")");
}

const char* DTypeName(DType dtype) { return Info(dtype).name; }

DTypeValue DTypeValue::Read(std::string_view text) {
  for (const DTypeInfo& info : kTable) {
    if (text == info.name) return info.dtype;
  }
  DTypeValue unknown;
  unknown.text_ = std::string(text);
  return unknown;
}

Result<DType> DTypeValue::Known() const {
  if (known_) return *known_;
  if (text_.empty()) return InvalidArgument("no dtype stated");
  return ParseDType(text_);
}

std::string ToString(const DTypeValue& dtype) {
  return dtype.known() ? DTypeName(*dtype.known()) : dtype.text();
}

size_t DTypeSize(DType dtype) { return Info(dtype).size; }

DLDataType ToDLPack(DType dtype) {
  const DTypeInfo& info = Info(dtype);
  return DLDataType{info.code, info.bits, 1};
}

Result<DType> FromDLPack(DLDataType type) {
  const std::string spelled = "(code " + std::to_string(type.code) + ", bits " +
                              std::to_string(type.bits) + ", lanes " + std::to_string(type.lanes) +
                              ")";
  if (type.lanes != 1) {
    return InvalidArgument("vector DLPack dtype " + spelled + " is not supported; lanes must be 1");
  }
  if (type.code == kDLPackBoolCode && type.bits == 8) return DType::kBool;
  for (const DTypeInfo& info : kTable) {
    if (info.code == type.code && info.bits == type.bits) return info.dtype;
  }
  return InvalidArgument("unsupported DLPack dtype " + spelled);
}

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

Result<uint64_t> ElementCount(const std::vector<int64_t>& shape) {
  bool has_zero = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return InvalidArgument("shape " + FormatShape(shape) + ": dimension " + std::to_string(i) +
                             " is negative");
    }
    has_zero = has_zero || shape[i] == 0;
  }
  // An empty tensor has 0 elements however large its other dimensions are.
  if (has_zero) return uint64_t{0};
  uint64_t count = 1;
  for (int64_t dim : shape) {
    const uint64_t d = static_cast<uint64_t>(dim);
    if (count > std::numeric_limits<uint64_t>::max() / d) {
      return OutOfRange("shape " + FormatShape(shape) + ": element count overflows 64 bits");
    }
    count *= d;
  }
  return count;
}

Result<uint64_t> ByteSize(DType dtype, const std::vector<int64_t>& shape) {
  MLF_ASSIGN_OR_RETURN(const uint64_t count, ElementCount(shape));
  const uint64_t size = DTypeSize(dtype);
  if (count > std::numeric_limits<uint64_t>::max() / size) {
    return OutOfRange(std::string(DTypeName(dtype)) + " " + FormatShape(shape) +
                      ": byte size overflows 64 bits");
  }
  return count * size;
}

}  // namespace mlf
