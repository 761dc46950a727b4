#include "codegen/frontend/tensor_proto.h"

#include <climits>
#include <cstring>
#include <exception>
#include <utility>
#include <vector>

namespace mlf::frontend {
namespace {

using onnx::TensorProto;

std::string Describe(const std::string& name) {
  return name.empty() ? std::string("unnamed tensor") : "tensor '" + name + "'";
}

// The typed field an ONNX dtype stores its values in (onnx.proto).
enum class Field { kFloat, kInt32, kInt64, kDouble, kUInt64 };

Field FieldOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return Field::kFloat;
    case DType::kFloat64: return Field::kDouble;
    case DType::kInt64: return Field::kInt64;
    case DType::kUInt32:
    case DType::kUInt64: return Field::kUInt64;
    default: return Field::kInt32;
  }
}

const char* FieldName(Field f) {
  switch (f) {
    case Field::kFloat: return "float_data";
    case Field::kInt32: return "int32_data";
    case Field::kInt64: return "int64_data";
    case Field::kDouble: return "double_data";
    case Field::kUInt64: return "uint64_data";
  }
  return "?";
}

int FieldSize(const TensorProto& p, Field f) {
  switch (f) {
    case Field::kFloat: return p.float_data_size();
    case Field::kInt32: return p.int32_data_size();
    case Field::kInt64: return p.int64_data_size();
    case Field::kDouble: return p.double_data_size();
    case Field::kUInt64: return p.uint64_data_size();
  }
  return 0;
}

// The range of integer values int32_data / uint64_data may hold for `dtype`.
void IntRange(DType dtype, int64_t* lo, uint64_t* hi) {
  *lo = 0;
  switch (dtype) {
    case DType::kBool: *hi = 1; break;
    case DType::kInt8: *lo = -128; *hi = 127; break;
    case DType::kUInt8: *hi = 255; break;
    case DType::kInt16: *lo = -32768; *hi = 32767; break;
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16: *hi = 65535; break;
    case DType::kInt32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case DType::kUInt32: *hi = UINT32_MAX; break;
    default: *lo = INT64_MIN; *hi = UINT64_MAX; break;
  }
}

template <typename T>
void Store(ir::HostTensor* t, uint64_t i, T v) {
  std::memcpy(t->bytes.data() + i * sizeof(T), &v, sizeof(T));
}

// Writes integer `v` (from int32_data or uint64_data) as element i.
void StoreInt(ir::HostTensor* t, uint64_t i, uint64_t bits) {
  switch (DTypeSize(t->dtype)) {
    case 1: Store(t, i, static_cast<uint8_t>(bits)); break;
    case 2: Store(t, i, static_cast<uint16_t>(bits)); break;
    case 4: Store(t, i, static_cast<uint32_t>(bits)); break;
    default: Store(t, i, bits); break;
  }
}

Status ReadTypedField(const TensorProto& p, const std::string& what, ir::HostTensor* t) {
  const Field want = FieldOf(t->dtype);
  for (Field f : {Field::kFloat, Field::kInt32, Field::kInt64, Field::kDouble, Field::kUInt64}) {
    if (f != want && FieldSize(p, f) > 0) {
      return InvalidArgument(what + ": " + OnnxDTypeName(p.data_type()) + " values belong in " +
                             FieldName(want) + " or raw_data, but " + FieldName(f) + " is set");
    }
  }
  const uint64_t n = t->element_count();
  const uint64_t have = static_cast<uint64_t>(FieldSize(p, want));
  if (have != n) {
    if (have == 0) {
      return InvalidArgument(what + ": has no data (expected " + std::to_string(n) +
                             " elements for shape " + FormatShape(t->shape) + ")");
    }
    return InvalidArgument(what + ": " + FieldName(want) + " has " + std::to_string(have) +
                           " elements, the shape " + FormatShape(t->shape) + " needs " +
                           std::to_string(n));
  }
  int64_t lo;
  uint64_t hi;
  IntRange(t->dtype, &lo, &hi);
  auto out_of_range = [&](uint64_t i, const std::string& v) {
    return InvalidArgument(what + ": value " + v + " at index " + std::to_string(i) +
                           " does not fit " + DTypeName(t->dtype));
  };
  for (uint64_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(i);
    switch (want) {
      case Field::kFloat: Store(t, i, p.float_data(k)); break;
      case Field::kDouble: Store(t, i, p.double_data(k)); break;
      case Field::kInt64: Store(t, i, p.int64_data(k)); break;
      case Field::kInt32: {
        const int32_t v = p.int32_data(k);
        if (v < lo || (v > 0 && static_cast<uint64_t>(v) > hi)) return out_of_range(i, std::to_string(v));
        StoreInt(t, i, static_cast<uint64_t>(static_cast<int64_t>(v)));
        break;
      }
      case Field::kUInt64: {
        const uint64_t v = p.uint64_data(k);
        if (v > hi) return out_of_range(i, std::to_string(v));
        StoreInt(t, i, v);
        break;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

// The element types ONNX added after 1.12 (this build's ONNX): float8 in
// 1.14 (codes 17-20), 4-bit integers in 1.16 (21-22). Named so that a model
// using them hears what it uses rather than "unknown".
const char* NewerOnnxDTypeName(int32_t elem_type) {
  switch (elem_type) {
    case 17: return "FLOAT8E4M3FN";
    case 18: return "FLOAT8E4M3FNUZ";
    case 19: return "FLOAT8E5M2";
    case 20: return "FLOAT8E5M2FNUZ";
    case 21: return "UINT4";
    case 22: return "INT4";
    default: return nullptr;
  }
}

Result<DType> DTypeFromOnnx(int32_t elem_type) {
  if (const char* newer = NewerOnnxDTypeName(elem_type)) {
    return Unimplemented("ONNX dtype " + std::string(newer) + " (code " +
                         std::to_string(elem_type) + ", ONNX " + (elem_type < 21 ? "1.14" : "1.16") +
                         ") is not supported: mlfkit reads ONNX 1.12's types; quantize to int8 or "
                         "uint8");
  }
  switch (elem_type) {
    case TensorProto::FLOAT: return DType::kFloat32;
    case TensorProto::UINT8: return DType::kUInt8;
    case TensorProto::INT8: return DType::kInt8;
    case TensorProto::UINT16: return DType::kUInt16;
    case TensorProto::INT16: return DType::kInt16;
    case TensorProto::INT32: return DType::kInt32;
    case TensorProto::INT64: return DType::kInt64;
    case TensorProto::BOOL: return DType::kBool;
    case TensorProto::FLOAT16: return DType::kFloat16;
    case TensorProto::DOUBLE: return DType::kFloat64;
    case TensorProto::UINT32: return DType::kUInt32;
    case TensorProto::UINT64: return DType::kUInt64;
    case TensorProto::BFLOAT16: return DType::kBFloat16;
    case TensorProto::STRING:
    case TensorProto::COMPLEX64:
    case TensorProto::COMPLEX128:
      return Unimplemented("ONNX dtype " + OnnxDTypeName(elem_type) + " is not supported");
    default:
      return InvalidArgument("ONNX dtype " + OnnxDTypeName(elem_type) + " is not a tensor type");
  }
}

int32_t OnnxDType(DType dtype) {
  switch (dtype) {
    case DType::kBool: return TensorProto::BOOL;
    case DType::kInt8: return TensorProto::INT8;
    case DType::kInt16: return TensorProto::INT16;
    case DType::kInt32: return TensorProto::INT32;
    case DType::kInt64: return TensorProto::INT64;
    case DType::kUInt8: return TensorProto::UINT8;
    case DType::kUInt16: return TensorProto::UINT16;
    case DType::kUInt32: return TensorProto::UINT32;
    case DType::kUInt64: return TensorProto::UINT64;
    case DType::kFloat16: return TensorProto::FLOAT16;
    case DType::kBFloat16: return TensorProto::BFLOAT16;
    case DType::kFloat32: return TensorProto::FLOAT;
    case DType::kFloat64: return TensorProto::DOUBLE;
  }
  return TensorProto::UNDEFINED;
}

std::string OnnxDTypeName(int32_t elem_type) {
  if (elem_type != TensorProto::UNDEFINED && onnx::TensorProto_DataType_IsValid(elem_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type));
  }
  if (elem_type == TensorProto::UNDEFINED) return "UNDEFINED";
  if (const char* newer = NewerOnnxDTypeName(elem_type)) return newer;
  return "<unknown " + std::to_string(elem_type) + ">";
}

Result<ir::HostTensor> FromTensorProto(const TensorProto& p, const TensorLimits& limits) {
  const std::string what = Describe(p.name());
  if (p.data_location() == TensorProto::EXTERNAL || p.external_data_size() > 0) {
    return Unimplemented(what + ": its data is stored externally; mlfkit reads only "
                         "self-contained models (save the model without external data)");
  }
  if (p.has_segment()) {
    return Unimplemented(what + ": segmented tensors are not supported");
  }
  if (p.data_type() == TensorProto::UNDEFINED) {
    return InvalidArgument(what + ": data_type is not set");
  }
  Result<DType> dtype = DTypeFromOnnx(p.data_type());
  if (!dtype.ok()) return dtype.status().WithContext(what);
  std::vector<int64_t> shape(p.dims().begin(), p.dims().end());
  MLF_RETURN_IF_ERROR(CheckShape(what, shape, limits));
  ir::HostTensor t = ir::HostTensor::Zeros(*dtype, shape);
  if (p.has_raw_data()) {
    for (Field f : {Field::kFloat, Field::kInt32, Field::kInt64, Field::kDouble, Field::kUInt64}) {
      if (FieldSize(p, f) > 0) {
        return InvalidArgument(what + ": has both raw_data and " + FieldName(f));
      }
    }
    if (p.raw_data().size() != t.bytes.size()) {
      return InvalidArgument(what + ": raw_data has " + std::to_string(p.raw_data().size()) +
                             " bytes, " + DTypeName(*dtype) + " " + FormatShape(shape) +
                             " needs " + std::to_string(t.bytes.size()));
    }
    t.bytes = p.raw_data();
    if (t.dtype == DType::kBool) {
      for (char& c : t.bytes) c = c != 0 ? 1 : 0;
    }
    return t;
  }
  MLF_RETURN_IF_ERROR(ReadTypedField(p, what, &t));
  return t;
}

Result<ir::HostTensor> ParseTensorProto(std::string_view bytes, const TensorLimits& limits,
                                        std::string* name) {
  try {
    TensorProto p;
    if (bytes.size() > static_cast<size_t>(INT_MAX) ||
        !p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return InvalidArgument("not an ONNX TensorProto: the bytes do not parse as one");
    }
    if (name != nullptr) *name = p.name();
    return FromTensorProto(p, limits);
  } catch (const std::exception& e) {
    return Internal(std::string("reading a TensorProto failed: ") + e.what());
  }
}

TensorProto ToTensorProto(const ir::HostTensor& tensor, const std::string& name) {
  TensorProto p;
  p.set_name(name);
  p.set_data_type(OnnxDType(tensor.dtype));
  for (int64_t d : tensor.shape) p.add_dims(d);
  p.set_raw_data(tensor.bytes);
  return p;
}

std::string SerializeTensorProto(const ir::HostTensor& tensor, const std::string& name) {
  return ToTensorProto(tensor, name).SerializeAsString();
}

}  // namespace mlf::frontend
