// Cast / CastLike between every dtype of artifact/format/dtype.h.
//
// Semantics (evaluate and generated code agree):
//   - integer -> integer: C conversion (wraps modulo 2^bits);
//   - float -> integer: truncation towards zero; NaN gives 0, values beyond
//     the target's range saturate (C leaves them undefined);
//   - anything -> bool: value != 0 (NaN is true);
//   - -> float16 / bfloat16: via float32, rounded to nearest even; NaN stays
//     NaN, overflow gives infinity.
#include <cmath>
#include <cstring>
#include <limits>

#include "artifact/format/tensor_values.h"
#include "codegen/ops/op.h"
#include "codegen/ops/half_c.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

enum class Kind { kBool, kSigned, kUnsigned, kReal, kHalf, kBFloat16 };

Kind KindOf(DType t) {
  switch (t) {
    case DType::kBool: return Kind::kBool;
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64: return Kind::kSigned;
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64: return Kind::kUnsigned;
    case DType::kFloat16: return Kind::kHalf;
    case DType::kBFloat16: return Kind::kBFloat16;
    case DType::kFloat32:
    case DType::kFloat64: return Kind::kReal;
  }
  return Kind::kReal;
}

// ONNX TensorProto.DataType codes.
Result<DType> OnnxDType(const ir::Node& node, int64_t code) {
  switch (code) {
    case 1: return DType::kFloat32;
    case 2: return DType::kUInt8;
    case 3: return DType::kInt8;
    case 4: return DType::kUInt16;
    case 5: return DType::kInt16;
    case 6: return DType::kInt32;
    case 7: return DType::kInt64;
    case 9: return DType::kBool;
    case 10: return DType::kFloat16;
    case 11: return DType::kFloat64;
    case 12: return DType::kUInt32;
    case 13: return DType::kUInt64;
    case 16: return DType::kBFloat16;
    case 8: return NodeUnsupported(node, "Cast to string is not supported");
    case 14:
    case 15: return NodeUnsupported(node, "Cast to a complex type is not supported");
    default:
      return NodeUnsupported(node, "Cast to ONNX data type " + std::to_string(code) +
                                       " is not supported (float8, int4 and unknown types)");
  }
}

Result<DType> CastTarget(const ir::Node& node, const std::vector<InputInfo>& in) {
  if (node.op == "CastLike") {
    MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
    MLF_ASSIGN_OR_RETURN(const InputInfo* like, RequiredInput(node, in, 1, "target_type"));
    return like->dtype;
  }
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  if (!node.HasAttr("to")) return NodeError(node, "attribute 'to' is required");
  MLF_ASSIGN_OR_RETURN(int64_t to, node.Int("to", 0));
  return OnnxDType(node, to);
}

Status CastInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(DType to, CastTarget(node, in));
  SetOutput(node, graph, 0, to, in[0].shape);
  return Status::Ok();
}

// One element on its way from one dtype to another.
struct Scalar {
  Kind kind;  // kSigned, kUnsigned or kReal
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
};

template <typename T>
T Get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void Put(char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

Scalar Load(DType t, const char* p) {
  switch (t) {
    case DType::kBool:
    case DType::kUInt8: return {Kind::kUnsigned, 0, Get<uint8_t>(p)};
    case DType::kUInt16: return {Kind::kUnsigned, 0, Get<uint16_t>(p)};
    case DType::kUInt32: return {Kind::kUnsigned, 0, Get<uint32_t>(p)};
    case DType::kUInt64: return {Kind::kUnsigned, 0, Get<uint64_t>(p)};
    case DType::kInt8: return {Kind::kSigned, Get<int8_t>(p)};
    case DType::kInt16: return {Kind::kSigned, Get<int16_t>(p)};
    case DType::kInt32: return {Kind::kSigned, Get<int32_t>(p)};
    case DType::kInt64: return {Kind::kSigned, Get<int64_t>(p)};
    case DType::kFloat16: return {Kind::kReal, 0, 0, HalfToFloat(Get<uint16_t>(p))};
    case DType::kBFloat16: {
      const uint32_t bits = static_cast<uint32_t>(Get<uint16_t>(p)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return {Kind::kReal, 0, 0, f};
    }
    case DType::kFloat32: return {Kind::kReal, 0, 0, Get<float>(p)};
    case DType::kFloat64: return {Kind::kReal, 0, 0, Get<double>(p)};
  }
  return {Kind::kReal};
}

template <typename T>
T ToInteger(const Scalar& s) {
  if (s.kind == Kind::kSigned) return static_cast<T>(s.i);
  if (s.kind == Kind::kUnsigned) return static_cast<T>(s.u);
  if (std::isnan(s.d)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
  if (s.d <= lo) return std::numeric_limits<T>::min();
  if (s.d >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(s.d);
}

template <typename T>
T ToReal(const Scalar& s) {
  if (s.kind == Kind::kSigned) return static_cast<T>(s.i);
  if (s.kind == Kind::kUnsigned) return static_cast<T>(s.u);
  return static_cast<T>(s.d);
}

uint16_t FloatToBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

void Store(DType t, char* p, const Scalar& s) {
  switch (t) {
    case DType::kBool: {
      const bool nonzero = s.kind == Kind::kSigned ? s.i != 0 : s.kind == Kind::kUnsigned ? s.u != 0 : s.d != 0;
      Put<uint8_t>(p, nonzero ? 1 : 0);
      return;
    }
    case DType::kInt8: Put(p, ToInteger<int8_t>(s)); return;
    case DType::kInt16: Put(p, ToInteger<int16_t>(s)); return;
    case DType::kInt32: Put(p, ToInteger<int32_t>(s)); return;
    case DType::kInt64: Put(p, ToInteger<int64_t>(s)); return;
    case DType::kUInt8: Put(p, ToInteger<uint8_t>(s)); return;
    case DType::kUInt16: Put(p, ToInteger<uint16_t>(s)); return;
    case DType::kUInt32: Put(p, ToInteger<uint32_t>(s)); return;
    case DType::kUInt64: Put(p, ToInteger<uint64_t>(s)); return;
    case DType::kFloat16: Put(p, FloatToHalf(ToReal<float>(s))); return;
    case DType::kBFloat16: Put(p, FloatToBFloat16(ToReal<float>(s))); return;
    case DType::kFloat32: Put(p, ToReal<float>(s)); return;
    case DType::kFloat64: Put(p, ToReal<double>(s)); return;
  }
}

Status CastEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(DType to, CastTarget(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  if (to == x.dtype) {  // bit for bit, like the generated memcpy (NaN payloads too)
    outputs->assign(1, x);
    return Status::Ok();
  }
  ir::HostTensor y = ir::HostTensor::Zeros(to, x.shape);
  const size_t in_size = DTypeSize(x.dtype), out_size = DTypeSize(to);
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    Store(to, &y.bytes[i * out_size], Load(x.dtype, &x.bytes[i * in_size]));
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// C statements defining `x` (the source element as its C type, or float
// for float16/bfloat16) from in0[i].
std::string DecodeSource(DType from, const std::string& ind) {
  switch (KindOf(from)) {
    case Kind::kHalf:
      return ind + "const uint32_t h = in0[i], e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n" +
             ind + "float x = (float)m * 5.96046448e-08f; /* zero or subnormal: m * 2^-24 */\n" +
             ind + "if (e != 0) {\n" +
             ind + "  const uint32_t b = e == 0x1fu ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13);\n" +
             ind + "  memcpy(&x, &b, 4);\n" +
             ind + "}\n" +
             ind + "if (h & 0x8000u) x = -x;\n";
    case Kind::kBFloat16:
      return ind + "const uint32_t b = (uint32_t)in0[i] << 16;\n" + ind + "float x;\n" + ind +
             "memcpy(&x, &b, 4);\n";
    default:
      return ind + "const " + CType(from) + " x = in0[i];\n";
  }
}

// C statements storing `x` into out0[i].
std::string EncodeTarget(DType from, DType to, const std::string& ind) {
  const Kind src = KindOf(from);
  const bool real_src = src == Kind::kReal || src == Kind::kHalf || src == Kind::kBFloat16;
  const std::string t = CType(to);
  switch (KindOf(to)) {
    case Kind::kBool: return ind + "out0[i] = (uint8_t)(x != 0);\n";
    case Kind::kSigned:
    case Kind::kUnsigned: {
      if (!real_src) return ind + "out0[i] = (" + t + ")x;\n";
      const DType real = from == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
      const bool is_signed = KindOf(to) == Kind::kSigned;
      const int bits = static_cast<int>(DTypeSize(to)) * 8;
      const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
      const double hi = std::ldexp(1.0, is_signed ? bits - 1 : bits);
      std::string min, max;
      switch (to) {
        case DType::kInt8: min = "INT8_MIN", max = "INT8_MAX"; break;
        case DType::kInt16: min = "INT16_MIN", max = "INT16_MAX"; break;
        case DType::kInt32: min = "INT32_MIN", max = "INT32_MAX"; break;
        case DType::kInt64: min = "INT64_MIN", max = "INT64_MAX"; break;
        case DType::kUInt8: min = "0", max = "UINT8_MAX"; break;
        case DType::kUInt16: min = "0", max = "UINT16_MAX"; break;
        case DType::kUInt32: min = "0", max = "UINT32_MAX"; break;
        default: min = "0", max = "UINT64_MAX"; break;
      }
      return ind + "/* NaN gives 0, out of range saturates */\n" + ind + "out0[i] = x != x ? 0 : x <= " +
             CLiteral(real, lo) + " ? " + min + " : x >= " + CLiteral(real, hi) + " ? " + max + " : (" + t +
             ")x;\n";
    }
    case Kind::kReal: return ind + "out0[i] = (" + t + ")x;\n";
    case Kind::kHalf:
      return ind + "const float f = (float)x;\n" + FloatToHalfC("out0[i]", "f", ind);
    case Kind::kBFloat16:
      return ind + "const float f = (float)x;\n" +
             ind + "uint32_t fb;\n" +
             ind + "memcpy(&fb, &f, 4);\n" +
             ind + "out0[i] = (uint16_t)((fb & 0x7fffffffu) > 0x7f800000u ? (fb >> 16) | 0x40u\n" +
             ind + "                                                  : (fb + 0x7fffu + ((fb >> 16) & 1u)) >> 16);\n";
  }
  return "";
}

Status CastEmit(const EmitContext& ctx, std::string* body) {
  const DType from = ctx.input(0).dtype, to = ctx.output(0).dtype;
  const int64_t n = Product(ctx.input(0).shape, 0, ctx.input(0).shape.size());
  if (n > 0 && from == to) {
    *body += "  memcpy(out0, in0, " + Num(n) + " * sizeof(*out0));\n";
  } else if (n > 0) {
    *body += "  for (size_t i = 0; i < " + Num(n) + "; ++i) {\n" + DecodeSource(from, "    ") +
             EncodeTarget(from, to, "    ") + "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterCastOps(std::vector<OpDef>* table) {
  table->push_back({"Cast", CastInfer, CastEvaluate, CastEmit});
  table->push_back({"CastLike", CastInfer, CastEvaluate, CastEmit});
}

}  // namespace mlf::ops
