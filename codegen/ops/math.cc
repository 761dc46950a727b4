// Unary math and activation operators: one element in, one element out, the
// shape unchanged. Rounding (Reciprocal, Sign, Floor, Ceil, Round), the
// trigonometric and hyperbolic functions and their inverses, the tests IsNaN
// and IsInf (bool output), logical Not, and the activations Elu, Selu, Celu,
// Softplus, Softsign, ThresholdedRelu, Shrink and Mish. (Relu, Sigmoid, Tanh,
// Exp, Log, ... are in elementwise.cc, with the fusable activations.)
//
// Semantics (evaluate() and the generated C compute the same expressions in
// the same dtype, so they agree bit for bit):
//   - Round is to nearest, ties to even (nearbyint in the default rounding
//     mode);
//   - Sign gives 1, -1, or x itself for zeros and NaN (so -0 stays -0 and NaN
//     stays NaN); for integers it is exact;
//   - Softplus is log1p(exp(-|x|)) + max(x, 0), which does not overflow for
//     large x; Elu and Celu use expm1;
//   - NaN propagates through every float function except Shrink (NaN gives 0,
//     as in ONNX's reference) and IsNaN/IsInf;
//   - Not reads any non-zero byte as true and writes 0 or 1.
//
// The shape of gather.cc: PlanMath checks the node once for infer, evaluate
// and emit; the expression of each operator is written twice, side by side,
// as C++ (MathEval) and as C (MathC).
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Fn {
  kReciprocal, kSign, kFloor, kCeil, kRound,
  kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kAsinh, kAcosh, kAtanh,
  kIsNaN, kIsInf, kNot,
  kElu, kSelu, kCelu, kSoftplus, kSoftsign, kThresholdedRelu, kShrink, kMish,
};

const std::vector<DType> kBoolOnly = {DType::kBool};

struct MathSpec {
  const char* name;
  Fn fn;
  const std::vector<DType>* dtypes;  // of the input
  bool bool_output;                  // else the output has the input's dtype
};

const MathSpec kMath[] = {
    {"Reciprocal", Fn::kReciprocal, &kFloatDTypes, false},
    {"Sign", Fn::kSign, &kNumericDTypes, false},
    {"Floor", Fn::kFloor, &kFloatDTypes, false},
    {"Ceil", Fn::kCeil, &kFloatDTypes, false},
    {"Round", Fn::kRound, &kFloatDTypes, false},
    {"Sin", Fn::kSin, &kFloatDTypes, false},
    {"Cos", Fn::kCos, &kFloatDTypes, false},
    {"Tan", Fn::kTan, &kFloatDTypes, false},
    {"Asin", Fn::kAsin, &kFloatDTypes, false},
    {"Acos", Fn::kAcos, &kFloatDTypes, false},
    {"Atan", Fn::kAtan, &kFloatDTypes, false},
    {"Sinh", Fn::kSinh, &kFloatDTypes, false},
    {"Cosh", Fn::kCosh, &kFloatDTypes, false},
    {"Asinh", Fn::kAsinh, &kFloatDTypes, false},
    {"Acosh", Fn::kAcosh, &kFloatDTypes, false},
    {"Atanh", Fn::kAtanh, &kFloatDTypes, false},
    {"IsNaN", Fn::kIsNaN, &kFloatDTypes, true},
    {"IsInf", Fn::kIsInf, &kFloatDTypes, true},
    {"Not", Fn::kNot, &kBoolOnly, true},
    {"Elu", Fn::kElu, &kFloatDTypes, false},
    {"Selu", Fn::kSelu, &kFloatDTypes, false},
    {"Celu", Fn::kCelu, &kFloatDTypes, false},
    {"Softplus", Fn::kSoftplus, &kFloatDTypes, false},
    {"Softsign", Fn::kSoftsign, &kFloatDTypes, false},
    {"ThresholdedRelu", Fn::kThresholdedRelu, &kFloatDTypes, false},
    {"Shrink", Fn::kShrink, &kFloatDTypes, false},
    {"Mish", Fn::kMish, &kFloatDTypes, false},
};

// The C library name of the plain functions (float32 adds the 'f').
const char* LibmName(Fn fn) {
  switch (fn) {
    case Fn::kFloor: return "floor";
    case Fn::kCeil: return "ceil";
    case Fn::kRound: return "nearbyint";
    case Fn::kSin: return "sin";
    case Fn::kCos: return "cos";
    case Fn::kTan: return "tan";
    case Fn::kAsin: return "asin";
    case Fn::kAcos: return "acos";
    case Fn::kAtan: return "atan";
    case Fn::kSinh: return "sinh";
    case Fn::kCosh: return "cosh";
    case Fn::kAsinh: return "asinh";
    case Fn::kAcosh: return "acosh";
    case Fn::kAtanh: return "atanh";
    default: return nullptr;
  }
}

// Everything the three entry points need: the operator, its attributes
// (a, b: alpha/gamma, lambd/bias; detect_positive/negative) and the output.
struct MathPlan {
  const MathSpec* spec = nullptr;
  double a = 0, b = 0;
  bool positive = true, negative = true;
  DType in = DType::kFloat32, out = DType::kFloat32;
  Shape shape;
};

std::string Decimal(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

Result<MathPlan> PlanMath(const ir::Node& node, const std::vector<InputInfo>& in) {
  MathPlan p;
  for (const MathSpec& s : kMath) {
    if (node.op == s.name) p.spec = &s;
  }
  if (p.spec == nullptr) return Internal(node.Describe() + ": not a math operator");
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, *p.spec->dtypes, "input X"));
  p.in = in[0].dtype;
  p.out = p.spec->bool_output ? DType::kBool : p.in;
  p.shape = in[0].shape;
  switch (p.spec->fn) {
    case Fn::kElu:
    case Fn::kThresholdedRelu: {
      MLF_ASSIGN_OR_RETURN(p.a, node.Float("alpha", 1.0));
      break;
    }
    case Fn::kCelu: {
      MLF_ASSIGN_OR_RETURN(p.a, node.Float("alpha", 1.0));
      // alpha > 0 makes max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) the
      // two-branch form computed here.
      if (!(p.a > 0)) {
        return NodeUnsupported(node, "alpha " + Decimal(p.a) + " is not supported (it must be positive)");
      }
      break;
    }
    case Fn::kSelu: {
      MLF_ASSIGN_OR_RETURN(p.a, node.Float("alpha", 1.67326319217681884765625));
      MLF_ASSIGN_OR_RETURN(p.b, node.Float("gamma", 1.05070102214813232421875));
      break;
    }
    case Fn::kShrink: {
      MLF_ASSIGN_OR_RETURN(p.a, node.Float("lambd", 0.5));
      MLF_ASSIGN_OR_RETURN(p.b, node.Float("bias", 0.0));
      break;
    }
    case Fn::kIsInf: {
      MLF_ASSIGN_OR_RETURN(int64_t pos, node.Int("detect_positive", 1));
      MLF_ASSIGN_OR_RETURN(int64_t neg, node.Int("detect_negative", 1));
      p.positive = pos != 0;
      p.negative = neg != 0;
      break;
    }
    default: break;
  }
  return p;
}

template <typename X>
X Softplus(X x) {
  return std::log1p(std::exp(-std::fabs(x))) + (x > X(0) ? x : X(0));
}

// One element of a float operator (X float or double), as the C of MathC.
template <typename X>
X MathFloat(const MathPlan& p, X x) {
  const X a = static_cast<X>(p.a), b = static_cast<X>(p.b);
  switch (p.spec->fn) {
    case Fn::kReciprocal: return X(1) / x;
    case Fn::kSign: return x > X(0) ? X(1) : (x < X(0) ? X(-1) : x);
    case Fn::kFloor: return std::floor(x);
    case Fn::kCeil: return std::ceil(x);
    case Fn::kRound: return std::nearbyint(x);
    case Fn::kSin: return std::sin(x);
    case Fn::kCos: return std::cos(x);
    case Fn::kTan: return std::tan(x);
    case Fn::kAsin: return std::asin(x);
    case Fn::kAcos: return std::acos(x);
    case Fn::kAtan: return std::atan(x);
    case Fn::kSinh: return std::sinh(x);
    case Fn::kCosh: return std::cosh(x);
    case Fn::kAsinh: return std::asinh(x);
    case Fn::kAcosh: return std::acosh(x);
    case Fn::kAtanh: return std::atanh(x);
    case Fn::kElu: return x < X(0) ? a * std::expm1(x) : x;
    case Fn::kSelu: return x > X(0) ? b * x : b * (a * std::exp(x) - a);
    case Fn::kCelu: return x > X(0) ? x : a * std::expm1(x / a);
    case Fn::kSoftplus: return Softplus(x);
    case Fn::kSoftsign: return x / (X(1) + std::fabs(x));
    case Fn::kThresholdedRelu: return (x > a || x != x) ? x : X(0);
    case Fn::kShrink: return x < -a ? x + b : (x > a ? x - b : X(0));
    // NaN passes through as it came: x * tanh(...) would multiply two NaNs
    // (tanh's of -|x|), and which one the product keeps (its sign) depends on
    // the compiler's operand order (an -O0 build and the generated C at -O2
    // differed).
    case Fn::kMish: return x != x ? x : x * std::tanh(Softplus(x));
    default: return x;
  }
}

// One element as the C expression over `x` (dtype p.in), for MathFloat's
// operators and the integer, bool and predicate ones.
std::string MathC(const MathPlan& p) {
  const DType d = p.in;
  const std::string zero = CLiteral(d, 0), one = CLiteral(d, 1), a = CLiteral(d, p.a), b = CLiteral(d, p.b);
  auto fn = [d](const char* base) { return MathFn(d, base); };
  auto softplus = [&] {
    return "(" + fn("log1p") + "(" + fn("exp") + "(-" + fn("fabs") + "(x))) + (x > " + zero + " ? x : " + zero + "))";
  };
  switch (p.spec->fn) {
    case Fn::kReciprocal: return one + " / x";
    case Fn::kSign:
      if (IsFloatDType(d)) return "x > " + zero + " ? " + one + " : (x < " + zero + " ? " + CLiteral(d, -1) + " : x)";
      if (IsSignedIntDType(d)) return "(" + std::string(CType(d)) + ")((x > 0) - (x < 0))";
      return "(" + std::string(CType(d)) + ")(x > 0)";
    case Fn::kIsNaN: return "(uint8_t)(x != x)";
    case Fn::kIsInf: {
      std::string e;
      if (p.positive) e = "x == INFINITY";
      if (p.negative) e += std::string(e.empty() ? "" : " || ") + "x == -INFINITY";
      return e.empty() ? "(uint8_t)((void)x, 0)" : "(uint8_t)(" + e + ")";
    }
    case Fn::kNot: return "(uint8_t)(x == 0)";
    case Fn::kElu: return "x < " + zero + " ? " + a + " * " + fn("expm1") + "(x) : x";
    case Fn::kSelu: return "x > " + zero + " ? " + b + " * x : " + b + " * (" + a + " * " + fn("exp") + "(x) - " + a + ")";
    case Fn::kCelu: return "x > " + zero + " ? x : " + a + " * " + fn("expm1") + "(x / " + a + ")";
    case Fn::kSoftplus: return softplus();
    case Fn::kSoftsign: return "x / (" + one + " + " + fn("fabs") + "(x))";
    case Fn::kThresholdedRelu: return "(x > " + a + " || x != x) ? x : " + zero;
    case Fn::kShrink:
      return "x < " + CLiteral(d, -p.a) + " ? x + " + b + " : (x > " + a + " ? x - " + b + " : " + zero + ")";
    case Fn::kMish: return "x != x ? x : x * " + fn("tanh") + "(" + softplus() + ")";
    default: return fn(LibmName(p.spec->fn)) + "(x)";
  }
}

Status MathInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(MathPlan p, PlanMath(node, in));
  SetOutput(node, graph, 0, p.out, p.shape);
  return Status::Ok();
}

Status MathEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(MathPlan p, PlanMath(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, p.shape);
  const uint64_t n = x.element_count();
  const Fn fn = p.spec->fn;
  if (fn == Fn::kNot) {
    for (uint64_t i = 0; i < n; ++i) y.data<uint8_t>()[i] = x.data<uint8_t>()[i] == 0 ? 1 : 0;
  } else {
    VisitNumeric(p.in, [&](auto tag) {
      using X = typename decltype(tag)::type;
      const X* in = x.data<X>();
      for (uint64_t i = 0; i < n; ++i) {
        const X v = in[i];
        if constexpr (std::is_floating_point_v<X>) {
          if (fn == Fn::kIsNaN) {
            y.data<uint8_t>()[i] = v != v;
          } else if (fn == Fn::kIsInf) {
            const X inf = std::numeric_limits<X>::infinity();
            y.data<uint8_t>()[i] = (p.positive && v == inf) || (p.negative && v == -inf);
          } else {
            y.data<X>()[i] = MathFloat<X>(p, v);
          }
        } else if constexpr (std::is_signed_v<X>) {  // Sign, the only integer operator
          y.data<X>()[i] = static_cast<X>((v > 0) - (v < 0));
        } else {
          y.data<X>()[i] = static_cast<X>(v > 0);
        }
      }
    });
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status MathEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(MathPlan p, PlanMath(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const uint64_t n = Elements(p.shape);
  if (n > 0) {
    *body += "  for (size_t i = 0; i < " + Num(static_cast<int64_t>(n)) + "; ++i) {\n";
    *body += "    const " + std::string(CType(p.in)) + " x = in0[i];\n";
    *body += "    out0[i] = " + MathC(p) + ";\n";
    *body += "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterMathOps(std::vector<OpDef>* table) {
  for (const MathSpec& s : kMath) table->push_back({s.name, MathInfer, MathEvaluate, MathEmit});
}

}  // namespace mlf::ops
