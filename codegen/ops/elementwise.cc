// Elementwise operators.
//
// Binary (Add, Sub, Mul, Div, Pow) with multidirectional (numpy) broadcasting:
// the emitter walks the output in C order through a collapsed loop nest
// (broadcast.h) with per-operand strides fixed at codegen time, so same-shape
// operands give one flat loop and a scalar operand is read as `in1[0]`.
//
// Integer semantics (the same in evaluate() and in the generated C, and free
// of undefined behaviour in C):
//   - Add, Sub, Mul, Neg, Abs wrap modulo 2^bits (computed in uint32_t or
//     uint64_t, then converted back);
//   - Div truncates toward zero (C and ONNX Runtime); x / 0 is 0 and
//     INT_MIN / -1 wraps to INT_MIN instead of trapping;
//   - Pow with an integer exponent is exact by repeated squaring (wrapping);
//     a negative exponent gives the truncated value of 1 / x^-e (1 for x = 1,
//     +-1 for x = -1, else 0); with a float exponent the result is computed in
//     double and converted with truncation, saturating at the type's limits
//     (NaN gives 0).
// Unary: Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Abs, Neg, Erf, Clip, LeakyRelu,
// HardSigmoid, HardSwish, Identity, Dropout (inference). Float results follow
// the C float functions (expf, ...) for float32; NaN propagates through Relu,
// Clip, HardSigmoid and HardSwish as in numpy.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <type_traits>

#include "codegen/ops/activation.h"
#include "codegen/ops/broadcast.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

template <typename T>
using WrapT = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

// The C type name and literals of a dtype.
std::string CT(DType d) { return CType(d); }
std::string Lit(DType d, double v) { return CLiteral(d, v); }

Status MissingInputs(const ir::Node& node) {
  return Internal(node.Describe() + ": evaluate() called without its inputs");
}

// ---------------------------------------------------------------------------
// Binary operators

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow };

BinOp ParseBinOp(const std::string& op) {
  if (op == "Add") return BinOp::kAdd;
  if (op == "Sub") return BinOp::kSub;
  if (op == "Mul") return BinOp::kMul;
  if (op == "Div") return BinOp::kDiv;
  return BinOp::kPow;
}

Result<std::vector<int64_t>> BinaryShape(const ir::Node& node, const std::vector<int64_t>& a,
                                         const std::vector<int64_t>& b) {
  Result<std::vector<int64_t>> shape = BroadcastShapes(a, b);
  if (!shape.ok()) return NodeError(node, shape.status().message());
  return shape;
}

Status InferBinary(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_RETURN_IF_ERROR(CheckPresent(node, 1, "B"));
  const ir::Value& a = graph.value(node.inputs[0]);
  const ir::Value& b = graph.value(node.inputs[1]);
  const bool pow = ParseBinOp(node.op) == BinOp::kPow;
  MLF_RETURN_IF_ERROR(CheckDType(node, a.dtype, kNumericDTypes, pow ? "base (input 0)" : "input A"));
  if (pow) {
    MLF_RETURN_IF_ERROR(CheckDType(node, b.dtype, kNumericDTypes, "exponent (input 1)"));
  } else if (a.dtype != b.dtype) {
    return NodeError(node, std::string("inputs A and B have different dtypes (") +
                               DTypeName(a.dtype) + " and " + DTypeName(b.dtype) + ")");
  }
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BinaryShape(node, a.shape, b.shape));
  if (HasFusedActivation(node)) {
    if (pow || a.dtype != DType::kFloat32) {
      return NodeUnsupported(node, std::string("a fused activation needs a float32 Add, Sub, Mul or Div, got ") +
                                       DTypeName(a.dtype));
    }
    MLF_RETURN_IF_ERROR(FusedActivation(node).status());
  }
  SetOutput(node, graph, 0, a.dtype, shape);
  return Status::Ok();
}

template <typename X>
X BinaryEval(BinOp op, X x, X y) {
  if constexpr (std::is_floating_point_v<X>) {
    switch (op) {
      case BinOp::kAdd: return x + y;
      case BinOp::kSub: return x - y;
      case BinOp::kMul: return x * y;
      default: return x / y;
    }
  } else {
    using W = WrapT<X>;
    switch (op) {
      case BinOp::kAdd: return static_cast<X>(static_cast<W>(x) + static_cast<W>(y));
      case BinOp::kSub: return static_cast<X>(static_cast<W>(x) - static_cast<W>(y));
      case BinOp::kMul: return static_cast<X>(static_cast<W>(x) * static_cast<W>(y));
      default:
        if (y == 0) return 0;
        if constexpr (std::is_signed_v<X>) {
          if (y == -1) return static_cast<X>(W{0} - static_cast<W>(x));
        }
        return static_cast<X>(x / y);
    }
  }
}

// Integer power by squaring; see the file comment for negative exponents.
template <typename B, typename E>
B IntPow(B x, E e) {
  if constexpr (std::is_signed_v<E>) {
    if (e < 0) {
      if (x == 1) return 1;
      if constexpr (std::is_signed_v<B>) {
        if (x == -1) return (e & 1) ? static_cast<B>(-1) : static_cast<B>(1);
      }
      return 0;
    }
  }
  using W = WrapT<B>;
  W r = 1, b = static_cast<W>(x);
  auto n = static_cast<std::make_unsigned_t<E>>(e);
  for (size_t k = 0; k < sizeof(E) * 8 && n != 0; ++k) {
    if (n & 1u) r *= b;
    b *= b;
    n = static_cast<decltype(n)>(n >> 1);
  }
  return static_cast<B>(r);
}

// Truncating, saturating double -> integer conversion (NaN -> 0).
template <typename B>
B SaturateToInt(double d) {
  constexpr int bits = sizeof(B) * 8;
  const double hi = std::ldexp(1.0, std::is_signed_v<B> ? bits - 1 : bits);
  const double lo = std::is_signed_v<B> ? -hi : -1.0;
  if (d != d) return 0;
  if (d >= hi) return std::numeric_limits<B>::max();
  if (d <= lo) return std::numeric_limits<B>::min();
  return static_cast<B>(d);
}

template <typename B, typename E>
B PowEval(B x, E e) {
  if constexpr (std::is_floating_point_v<B>) {
    if constexpr (std::is_floating_point_v<E>) {
      if constexpr (std::is_same_v<B, float> && std::is_same_v<E, float>) {
        return std::pow(x, e);
      } else {
        return static_cast<B>(std::pow(static_cast<double>(x), static_cast<double>(e)));
      }
    } else {
      return std::pow(x, static_cast<B>(e));
    }
  } else if constexpr (std::is_floating_point_v<E>) {
    return SaturateToInt<B>(std::pow(static_cast<double>(x), static_cast<double>(e)));
  } else {
    return IntPow<B>(x, e);
  }
}

Status EvaluateBinary(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  if (inputs.size() < 2 || !inputs[0] || !inputs[1]) return MissingInputs(node);
  const ir::HostTensor& a = *inputs[0];
  const ir::HostTensor& b = *inputs[1];
  const BinOp op = ParseBinOp(node.op);
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> shape, BinaryShape(node, a.shape, b.shape));
  ir::HostTensor out = ir::HostTensor::Zeros(a.dtype, shape);
  const auto offsets = LoopNest::Collapse(shape, {ContiguousStrides(shape), BroadcastStrides(a.shape, shape),
                                                  BroadcastStrides(b.shape, shape)})
                           .Offsets();
  MLF_ASSIGN_OR_RETURN(std::function<float(float)> act, FusedActivation(node));
  const size_t n = offsets[0].size();
  bool ok = false;
  if (op == BinOp::kPow) {
    VisitNumeric(a.dtype, [&](auto btag) {
      using B = typename decltype(btag)::type;
      ok = VisitNumeric(b.dtype, [&](auto etag) {
        using E = typename decltype(etag)::type;
        for (size_t i = 0; i < n; ++i) {
          out.data<B>()[offsets[0][i]] = PowEval<B, E>(a.data<B>()[offsets[1][i]], b.data<E>()[offsets[2][i]]);
        }
      });
    });
  } else if (a.dtype == b.dtype) {
    ok = VisitNumeric(a.dtype, [&](auto tag) {
      using X = typename decltype(tag)::type;
      for (size_t i = 0; i < n; ++i) {
        X v = BinaryEval<X>(op, a.data<X>()[offsets[1][i]], b.data<X>()[offsets[2][i]]);
        if constexpr (std::is_same_v<X, float>) v = act(v);
        out.data<X>()[offsets[0][i]] = v;
      }
    });
  }
  if (!ok) {
    return NodeUnsupported(node, std::string("cannot evaluate dtypes ") + DTypeName(a.dtype) + " and " +
                                     DTypeName(b.dtype));
  }
  outputs->clear();
  outputs->push_back(std::move(out));
  return Status::Ok();
}

// C statements computing out0[o] from `a` and `b` for Add..Div.
Result<std::string> BinaryStatement(const EmitContext& ctx, BinOp op, DType d, const std::string& o) {
  const std::string t = CT(d);
  std::string expr;
  if (IsFloatDType(d)) {
    const char* sym = op == BinOp::kAdd ? " + " : op == BinOp::kSub ? " - " : op == BinOp::kMul ? " * " : " / ";
    expr = std::string("a") + sym + "b";
    if (d == DType::kFloat32 && HasFusedActivation(ctx.node)) {
      MLF_ASSIGN_OR_RETURN(std::string act, ctx.Activation("v"));
      return "const float v = " + expr + ";\nout0[" + o + "] = " + act + ";";
    }
  } else {
    const std::string w = WrapCType(d);
    const std::string wa = "(" + w + ")a", wb = "(" + w + ")b";
    switch (op) {
      case BinOp::kAdd: expr = "(" + t + ")(" + wa + " + " + wb + ")"; break;
      case BinOp::kSub: expr = "(" + t + ")(" + wa + " - " + wb + ")"; break;
      case BinOp::kMul: expr = "(" + t + ")(" + wa + " * " + wb + ")"; break;
      default:
        expr = "b == 0 ? (" + t + ")0 : ";
        if (IsSignedIntDType(d)) expr += "b == -1 ? (" + t + ")((" + w + ")0 - " + wa + ") : ";
        expr += "(" + t + ")(a / b)";
    }
  }
  return "out0[" + o + "] = " + expr + ";";
}

// C statements computing out0[o] = Pow(a, b).
std::string PowStatement(DType bd, DType ed, const std::string& o) {
  const std::string tb = CT(bd);
  if (IsFloatDType(bd)) {
    if (bd == DType::kFloat32 && ed == DType::kFloat32) return "out0[" + o + "] = powf(a, b);";
    if (IsFloatDType(ed)) return "out0[" + o + "] = (" + tb + ")pow((double)a, (double)b);";
    return "out0[" + o + "] = " + MathFn(bd, "pow") + "(a, (" + tb + ")b);";
  }
  const int bits = DTypeBits(bd);
  const bool sb = IsSignedIntDType(bd);
  if (IsFloatDType(ed)) {
    char hi[64];
    std::snprintf(hi, sizeof hi, "%.1f", std::ldexp(1.0, sb ? bits - 1 : bits));
    const std::string prefix = std::string(sb ? "INT" : "UINT") + std::to_string(bits);
    const std::string lo = sb ? std::string("-") + hi : "-1.0";
    return "const double d = pow((double)a, (double)b);\n"
           "out0[" + o + "] = d != d ? (" + tb + ")0 : d >= " + hi + " ? " + prefix + "_MAX : d <= " + lo +
           " ? " + (sb ? prefix + "_MIN" : "(" + tb + ")0") + " : (" + tb + ")d;";
  }
  const std::string w = WrapCType(bd);
  const std::string ue = std::string("uint") + std::to_string(DTypeBits(ed)) + "_t";
  std::string s;
  std::string positive = w + " r = 1u, p = (" + w + ")a;\n" + ue + " n = (" + ue + ")b;\n" +
                         "for (int k = 0; k < " + std::to_string(DTypeBits(ed)) +
                         " && n != 0; ++k) {\n"
                         "  if (n & 1u) r *= p;\n"
                         "  p *= p;\n"
                         "  n = (" + ue + ")(n >> 1);\n"
                         "}\n"
                         "out0[" + o + "] = (" + tb + ")r;";
  if (!IsSignedIntDType(ed)) return positive;
  std::string negative = "a == 1 ? (" + tb + ")1 : ";
  if (sb) negative += "a == -1 ? ((b & 1) ? (" + tb + ")-1 : (" + tb + ")1) : ";
  negative += "(" + tb + ")0";
  std::string indented;
  for (size_t start = 0; start < positive.size();) {
    size_t end = positive.find('\n', start);
    if (end == std::string::npos) end = positive.size();
    indented += "  " + positive.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return "if (b < 0) {\n  out0[" + o + "] = " + negative + ";\n} else {\n" + indented + "}";
}

Status EmitBinary(const EmitContext& ctx, std::string* body) {
  const ir::Value& a = ctx.input(0);
  const ir::Value& b = ctx.input(1);
  const ir::Value& y = ctx.output(0);
  const BinOp op = ParseBinOp(ctx.node.op);
  if (Elements(y.shape) == 0) {
    *body += "  (void)in0;\n  (void)in1;\n  (void)out0;\n";
    return Status::Ok();
  }
  const LoopNest nest = LoopNest::Collapse(
      y.shape, {ContiguousStrides(y.shape), BroadcastStrides(a.shape, y.shape), BroadcastStrides(b.shape, y.shape)});
  Status status;
  *body += nest.Emit([&](const std::vector<std::string>& index) {
    std::string s = "const " + CT(a.dtype) + " a = in0[" + index[1] + "];\nconst " + CT(b.dtype) + " b = in1[" +
                    index[2] + "];\n";
    if (op == BinOp::kPow) return s + PowStatement(a.dtype, b.dtype, index[0]);
    Result<std::string> stmt = BinaryStatement(ctx, op, a.dtype, index[0]);
    if (!stmt.ok()) {
      status = stmt.status();
      return std::string();
    }
    return s + *stmt;
  });
  return status;
}

// ---------------------------------------------------------------------------
// Unary operators

enum class UnOp { kRelu, kSigmoid, kTanh, kExp, kLog, kSqrt, kAbs, kNeg, kErf, kClip, kLeakyRelu, kHardSigmoid, kHardSwish };

struct UnarySpec {
  const char* name;
  UnOp op;
  const std::vector<DType>* dtypes;
};

const UnarySpec kUnary[] = {
    {"Relu", UnOp::kRelu, &kSignedDTypes},
    {"Sigmoid", UnOp::kSigmoid, &kFloatDTypes},
    {"Tanh", UnOp::kTanh, &kFloatDTypes},
    {"Exp", UnOp::kExp, &kFloatDTypes},
    {"Log", UnOp::kLog, &kFloatDTypes},
    {"Sqrt", UnOp::kSqrt, &kFloatDTypes},
    {"Abs", UnOp::kAbs, &kNumericDTypes},
    {"Neg", UnOp::kNeg, &kSignedDTypes},
    {"Erf", UnOp::kErf, &kFloatDTypes},
    {"Clip", UnOp::kClip, &kNumericDTypes},
    {"LeakyRelu", UnOp::kLeakyRelu, &kFloatDTypes},
    {"HardSigmoid", UnOp::kHardSigmoid, &kFloatDTypes},
    {"HardSwish", UnOp::kHardSwish, &kFloatDTypes},
};

const UnarySpec& FindUnary(const std::string& op) {
  for (const UnarySpec& s : kUnary) {
    if (op == s.name) return s;
  }
  return kUnary[0];
}

struct UnaryParams {
  double alpha = 0;
  double beta = 0;
};

Result<UnaryParams> GetUnaryParams(const ir::Node& node, UnOp op) {
  UnaryParams p;
  if (op == UnOp::kLeakyRelu) {
    MLF_ASSIGN_OR_RETURN(p.alpha, node.Float("alpha", 0.01));
  } else if (op == UnOp::kHardSigmoid) {
    MLF_ASSIGN_OR_RETURN(p.alpha, node.Float("alpha", 0.2));
    MLF_ASSIGN_OR_RETURN(p.beta, node.Float("beta", 0.5));
  } else if (op == UnOp::kHardSwish) {
    p.alpha = 1.0 / 6.0;
    p.beta = 0.5;
  }
  return p;
}

Status InferUnary(const ir::Node& node, ir::Graph& graph) {
  const UnarySpec& spec = FindUnary(node.op);
  if (spec.op == UnOp::kClip) {
    MLF_RETURN_IF_ERROR(CheckArity(node, 1, 3));
    // Opset 6's attributes: the front end turns ONNX's into inputs; one left
    // here (a YAML model) would otherwise be ignored.
    for (const char* bound : {"min", "max"}) {
      if (node.HasAttr(bound)) {
        return NodeError(node, std::string("attribute '") + bound +
                                   "' is not supported; give min and max as inputs 1 and 2");
      }
    }
  } else {
    MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  }
  const ir::Value& x = graph.value(node.inputs[0]);
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, *spec.dtypes, "input X"));
  for (size_t i = 1; i < 3; ++i) {
    if (!node.HasInput(i)) continue;
    const ir::Value& bound = graph.value(node.inputs[i]);
    const std::string what = std::string(i == 1 ? "min" : "max") + " (input " + std::to_string(i) + ")";
    if (bound.dtype != x.dtype) {
      return NodeError(node, what + " has dtype " + DTypeName(bound.dtype) + ", expected " + DTypeName(x.dtype) +
                                 " like the input");
    }
    if (Elements(bound.shape) != 1) {
      return NodeError(node, what + " must be a scalar, got shape " + FormatShape(bound.shape));
    }
  }
  MLF_RETURN_IF_ERROR(GetUnaryParams(node, spec.op).status());
  SetOutput(node, graph, 0, x.dtype, x.shape);
  return Status::Ok();
}

template <typename X>
X Clamp01(X t) {
  return t < X(0) ? X(0) : (t > X(1) ? X(1) : t);
}

template <typename X>
X UnaryEval(UnOp op, X x, const UnaryParams& p) {
  if constexpr (std::is_floating_point_v<X>) {
    const X alpha = static_cast<X>(p.alpha), beta = static_cast<X>(p.beta);
    switch (op) {
      case UnOp::kRelu: return x < X(0) ? X(0) : x;
      case UnOp::kSigmoid: return X(1) / (X(1) + std::exp(-x));
      case UnOp::kTanh: return std::tanh(x);
      case UnOp::kExp: return std::exp(x);
      case UnOp::kLog: return std::log(x);
      case UnOp::kSqrt: return std::sqrt(x);
      case UnOp::kAbs: return std::fabs(x);
      case UnOp::kNeg: return -x;
      case UnOp::kErf: return std::erf(x);
      case UnOp::kLeakyRelu: return x < X(0) ? x * alpha : x;
      case UnOp::kHardSigmoid: return Clamp01<X>(x * alpha + beta);
      case UnOp::kHardSwish: return x * Clamp01<X>(x * alpha + beta);
      default: return x;
    }
  } else {
    using W = WrapT<X>;
    switch (op) {
      case UnOp::kRelu:
        if constexpr (std::is_signed_v<X>) return x < X(0) ? X(0) : x;
        return x;
      case UnOp::kAbs:
        if constexpr (std::is_signed_v<X>) {
          return static_cast<X>(x < 0 ? W{0} - static_cast<W>(x) : static_cast<W>(x));
        }
        return x;
      case UnOp::kNeg: return static_cast<X>(W{0} - static_cast<W>(x));
      default: return x;
    }
  }
}

Status EvaluateUnary(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  if (inputs.empty() || !inputs[0]) return MissingInputs(node);
  const UnarySpec& spec = FindUnary(node.op);
  MLF_ASSIGN_OR_RETURN(UnaryParams params, GetUnaryParams(node, spec.op));
  const ir::HostTensor& x = *inputs[0];
  const ir::HostTensor* lo = inputs.size() > 1 ? inputs[1] : nullptr;
  const ir::HostTensor* hi = inputs.size() > 2 ? inputs[2] : nullptr;
  for (const ir::HostTensor* bound : {lo, hi}) {
    if (bound && (bound->dtype != x.dtype || bound->element_count() != 1)) {
      return NodeError(node, "min and max must be scalars of the input's dtype");
    }
  }
  ir::HostTensor out = ir::HostTensor::Zeros(x.dtype, x.shape);
  const uint64_t n = x.element_count();
  const bool ok = VisitNumeric(x.dtype, [&](auto tag) {
    using X = typename decltype(tag)::type;
    const X* in = x.data<X>();
    X* y = out.data<X>();
    for (uint64_t i = 0; i < n; ++i) {
      X v = in[i];
      if (spec.op == UnOp::kClip) {
        if (lo && v < lo->data<X>()[0]) v = lo->data<X>()[0];
        if (hi && v > hi->data<X>()[0]) v = hi->data<X>()[0];
      } else {
        v = UnaryEval<X>(spec.op, v, params);
      }
      y[i] = v;
    }
  });
  if (!ok) return NodeUnsupported(node, std::string("cannot evaluate dtype ") + DTypeName(x.dtype));
  outputs->clear();
  outputs->push_back(std::move(out));
  return Status::Ok();
}

// Statements computing out0[i] from `x` (of dtype d).
std::string UnaryStatement(UnOp op, DType d, const UnaryParams& p, bool has_lo, bool has_hi) {
  const std::string t = CT(d);
  const std::string zero = Lit(d, 0), one = Lit(d, 1);
  auto assign = [](const std::string& e) { return "out0[i] = " + e + ";"; };
  const std::string clamp01 = "t < " + zero + " ? " + zero + " : (t > " + one + " ? " + one + " : t)";
  const std::string affine = "const " + t + " t = x * " + Lit(d, p.alpha) + " + " + Lit(d, p.beta) + ";\n";
  switch (op) {
    case UnOp::kRelu: return assign("x < " + zero + " ? " + zero + " : x");
    case UnOp::kSigmoid: return assign(one + " / (" + one + " + " + MathFn(d, "exp") + "(-x))");
    case UnOp::kTanh: return assign(MathFn(d, "tanh") + "(x)");
    case UnOp::kExp: return assign(MathFn(d, "exp") + "(x)");
    case UnOp::kLog: return assign(MathFn(d, "log") + "(x)");
    case UnOp::kSqrt: return assign(MathFn(d, "sqrt") + "(x)");
    case UnOp::kErf: return assign(MathFn(d, "erf") + "(x)");
    case UnOp::kAbs:
      if (IsFloatDType(d)) return assign(MathFn(d, "fabs") + "(x)");
      if (IsSignedIntDType(d)) {
        const std::string w = WrapCType(d);
        return assign("(" + t + ")(x < 0 ? (" + w + ")0 - (" + w + ")x : (" + w + ")x)");
      }
      return assign("x");
    case UnOp::kNeg:
      if (IsFloatDType(d)) return assign("-x");
      return assign("(" + t + ")((" + std::string(WrapCType(d)) + ")0 - (" + WrapCType(d) + ")x)");
    case UnOp::kLeakyRelu:
      // x * (x < 0 ? alpha : 1) without a branch gcc would not if-convert
      // (under -ftrapping-math it sinks the multiply into the branch); NaN
      // gives NaN * 0 = NaN.
      return assign("x * ((" + t + ")(x < " + zero + ") * " + Lit(d, p.alpha) + " + (" + t + ")(x >= " + zero + "))");
    case UnOp::kHardSigmoid: return affine + assign(clamp01);
    case UnOp::kHardSwish: return affine + assign(clamp01);  // times x in a second loop, see EmitUnary
    case UnOp::kClip: {
      std::string e = "x";
      if (has_hi) e = "x > hi ? hi : " + e;
      if (has_lo) e = "x < lo ? lo : " + (has_hi ? "(" + e + ")" : e);
      return assign(e);
    }
  }
  return assign("x");
}

Status EmitUnary(const EmitContext& ctx, std::string* body) {
  const UnarySpec& spec = FindUnary(ctx.node.op);
  MLF_ASSIGN_OR_RETURN(UnaryParams params, GetUnaryParams(ctx.node, spec.op));
  const ir::Value& x = ctx.input(0);
  const uint64_t n = Elements(x.shape);
  const bool has_lo = ctx.node.HasInput(1), has_hi = ctx.node.HasInput(2);
  if (n == 0) {
    *body += "  (void)in0;\n" + UnusedParams(ctx.node, {1, 2}) + "  (void)out0;\n";
    return Status::Ok();
  }
  const std::string t = CT(x.dtype);
  if (has_lo) *body += "  const " + t + " lo = in1[0];\n";
  if (has_hi) *body += "  const " + t + " hi = in2[0];\n";
  *body += "  for (size_t i = 0; i < " + std::to_string(n) + "; ++i) {\n";
  const std::string stmt = "const " + t + " x = in0[i];\n" + UnaryStatement(spec.op, x.dtype, params, has_lo, has_hi);
  for (size_t start = 0; start < stmt.size();) {
    size_t end = stmt.find('\n', start);
    if (end == std::string::npos) end = stmt.size();
    *body += "    " + stmt.substr(start, end - start) + "\n";
    start = end + 1;
  }
  *body += "  }\n";
  if (spec.op == UnOp::kHardSwish) {
    // A separate pass, so both loops vectorise (x * clamp(...) in one loop
    // becomes a branch gcc does not if-convert).
    *body += "  for (size_t i = 0; i < " + std::to_string(n) + "; ++i) out0[i] = in0[i] * out0[i];\n";
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Identity and Dropout

Status InferIdentity(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const ir::Value& x = graph.value(node.inputs[0]);
  SetOutput(node, graph, 0, x.dtype, x.shape);
  return Status::Ok();
}

// Whether a constant training_mode input is true (then Dropout is refused).
Status CheckTrainingMode(const ir::Node& node, const ir::HostTensor* mode) {
  if (mode == nullptr) return Status::Ok();
  for (uint64_t i = 0; i < mode->element_count(); ++i) {
    if (mode->GetDouble(i) != 0) {
      return NodeUnsupported(node, "training_mode (input 2) is true; mlfkit compiles inference only");
    }
  }
  return Status::Ok();
}

Status InferDropout(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 3, 1, 2));
  if (node.HasInput(2)) {
    // A training_mode fed at run time could be true, and the generated code
    // (a copy) would then silently compute the wrong thing: refuse it.
    const ir::Value& mode = graph.value(node.inputs[2]);
    if (!mode.is_constant()) {
      return Unimplemented(node.Describe() +
                           ": training_mode (input 2) must be a constant false; mlfkit compiles "
                           "inference only");
    }
    MLF_RETURN_IF_ERROR(CheckTrainingMode(node, &*mode.constant));
  }
  const ir::Value& x = graph.value(node.inputs[0]);
  SetOutput(node, graph, 0, x.dtype, x.shape);
  if (node.outputs.size() > 1) SetOutput(node, graph, 1, DType::kBool, x.shape);
  return Status::Ok();
}

Status EvaluateCopy(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  if (inputs.empty() || !inputs[0]) return MissingInputs(node);
  if (node.op == "Dropout") MLF_RETURN_IF_ERROR(CheckTrainingMode(node, inputs.size() > 2 ? inputs[2] : nullptr));
  outputs->clear();
  outputs->push_back(*inputs[0]);
  if (node.outputs.size() > 1) {
    ir::HostTensor mask = ir::HostTensor::Zeros(DType::kBool, inputs[0]->shape);
    std::memset(mask.bytes.data(), 1, mask.bytes.size());
    outputs->push_back(std::move(mask));
  }
  return Status::Ok();
}

Status EmitCopy(const EmitContext& ctx, std::string* body) {
  const ir::Value& x = ctx.input(0);
  const uint64_t n = Elements(x.shape);
  const bool mask = ctx.node.outputs.size() > 1;
  *body += UnusedParams(ctx.node, {1, 2});
  if (n == 0) {
    *body += "  (void)in0;\n  (void)out0;\n";
    if (mask) *body += "  (void)out1;\n";
    return Status::Ok();
  }
  *body += "  memcpy(out0, in0, " + std::to_string(n * DTypeSize(x.dtype)) + "u);\n";
  if (mask) *body += "  memset(out1, 1, " + std::to_string(n) + "u);\n";
  return Status::Ok();
}

}  // namespace

void RegisterElementwiseOps(std::vector<OpDef>* table) {
  for (const char* name : {"Add", "Sub", "Mul", "Div"}) {
    table->push_back(OpDef{name, InferBinary, EvaluateBinary, EmitBinary, nullptr, nullptr, true});
  }
  table->push_back(OpDef{"Pow", InferBinary, EvaluateBinary, EmitBinary, nullptr, nullptr, false});
  for (const UnarySpec& s : kUnary) {
    table->push_back(OpDef{s.name, InferUnary, EvaluateUnary, EmitUnary, nullptr, nullptr, false});
  }
  table->push_back(OpDef{"Identity", InferIdentity, EvaluateCopy, EmitCopy, nullptr, nullptr, false});
  table->push_back(OpDef{"Dropout", InferDropout, EvaluateCopy, EmitCopy, nullptr, nullptr, false});
}

}  // namespace mlf::ops
