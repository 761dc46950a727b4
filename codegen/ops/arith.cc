// Broadcast arithmetic beyond elementwise.cc's Add..Pow: the variadic Min,
// Max, Mean and Sum (1 to N inputs broadcast together), Mod, PRelu (slope
// broadcast to X) and BitShift.
//
// Semantics (the same in evaluate() and the generated C, free of undefined
// behaviour in C):
//   - Sum and Mean (float32, float64) add the inputs left to right; Mean then
//     divides by N;
//   - Min and Max (every numeric dtype, and float16 compared as float) keep
//     the earlier input on ties and propagate NaN (a NaN input gives NaN, as
//     numpy's minimum/maximum);
//   - Mod with fmod=0 (integers only, as ONNX requires) is the floored
//     remainder: the result has the divisor's sign (Python's %); fmod=1 is the
//     truncated remainder: the dividend's sign (C's fmod and %). For integers
//     x mod 0 is 0 and INT_MIN mod -1 is 0; for floats fmod(x, 0) is NaN;
//     float16 (fmod=1) is computed in float32 and rounded back (the
//     remainder is exact, so only the last rounding to float16 is inexact);
//   - PRelu is x < 0 ? x * slope : x (integers wrap as Mul does);
//   - BitShift (unsigned integers) shifts by amounts of the bit width or
//     more give 0.
//
// The shape of gather.cc: PlanArith checks the node once for infer, evaluate
// and emit; each operator's element is written as C++ (the *Eval functions)
// and as C (ArithC) side by side.
#include <cmath>
#include <type_traits>

#include "artifact/format/tensor_values.h"
#include "codegen/ops/broadcast.h"
#include "codegen/ops/half_c.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

template <typename T>
using WrapT = std::conditional_t<(sizeof(T) > 4), uint64_t, uint32_t>;

enum class Ar { kMin, kMax, kMean, kSum, kMod, kPRelu, kBitShift };

struct ArithSpec {
  const char* name;
  Ar op;
};

const ArithSpec kArith[] = {
    {"Min", Ar::kMin}, {"Max", Ar::kMax}, {"Mean", Ar::kMean}, {"Sum", Ar::kSum},
    {"Mod", Ar::kMod}, {"PRelu", Ar::kPRelu}, {"BitShift", Ar::kBitShift},
};

const std::vector<DType> kUnsignedDTypes = {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64};

bool IsVariadic(Ar op) { return op == Ar::kMin || op == Ar::kMax || op == Ar::kMean || op == Ar::kSum; }

struct ArithPlan {
  Ar op = Ar::kMin;
  DType dtype = DType::kFloat32;  // of every input and the output
  bool fmod = false;              // Mod
  bool left = true;               // BitShift direction
  BroadcastPlan shape;            // operand 0 the output, k + 1 input k
};

Result<ArithPlan> PlanArith(const ir::Node& node, const std::vector<InputInfo>& in) {
  ArithPlan p;
  const ArithSpec* spec = nullptr;
  for (const ArithSpec& s : kArith) {
    if (node.op == s.name) spec = &s;
  }
  if (spec == nullptr) return Internal(node.Describe() + ": not an arithmetic operator");
  p.op = spec->op;
  if (IsVariadic(p.op)) {
    MLF_RETURN_IF_ERROR(CheckArity(node, 1, kNoMax));
    for (size_t i = 1; i < in.size(); ++i) MLF_RETURN_IF_ERROR(CheckPresent(node, i, "data_" + std::to_string(i)));
  } else {
    MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
    MLF_RETURN_IF_ERROR(CheckPresent(node, 1, p.op == Ar::kPRelu ? "slope" : "B"));
  }
  p.dtype = in[0].dtype;
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].dtype != p.dtype) {
      return NodeError(node, "input " + std::to_string(i) + " has dtype " + DTypeName(in[i].dtype) + ", expected " +
                                 DTypeName(p.dtype) + " like input 0");
    }
  }
  switch (p.op) {
    case Ar::kMin:
    case Ar::kMax: {
      std::vector<DType> allowed = kNumericDTypes;
      allowed.push_back(DType::kFloat16);  // compared as float; the result keeps the input's bits
      MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype, allowed, "input 0"));
      break;
    }
    case Ar::kMean:
    case Ar::kSum: MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype, kFloatDTypes, "input 0")); break;
    case Ar::kPRelu: MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype, kSignedDTypes, "input X")); break;
    case Ar::kBitShift: {
      MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype, kUnsignedDTypes, "input X"));
      MLF_ASSIGN_OR_RETURN(std::string direction, node.String("direction", ""));
      if (direction != "LEFT" && direction != "RIGHT") {
        return NodeError(node, "attribute 'direction' must be LEFT or RIGHT, got '" + direction + "'");
      }
      p.left = direction == "LEFT";
      break;
    }
    case Ar::kMod: {
      std::vector<DType> allowed = kNumericDTypes;
      allowed.push_back(DType::kFloat16);  // computed in float32
      MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype, allowed, "input A"));
      MLF_ASSIGN_OR_RETURN(int64_t fmod, node.Int("fmod", 0));
      if (fmod != 0 && fmod != 1) return NodeError(node, "attribute 'fmod' must be 0 or 1, got " + Num(fmod));
      if (fmod == 0 && (IsFloatDType(p.dtype) || p.dtype == DType::kFloat16)) {
        return NodeError(node, std::string("fmod=0 is only defined for integers; set fmod=1 for ") +
                                   DTypeName(p.dtype) + " inputs");
      }
      p.fmod = fmod == 1;
      break;
    }
  }
  std::vector<Shape> shapes;
  for (const InputInfo& i : in) shapes.push_back(i.shape);
  Result<BroadcastPlan> shape = PlanBroadcast(shapes);
  if (!shape.ok()) return NodeError(node, shape.status().message());
  p.shape = std::move(*shape);
  if (p.op == Ar::kPRelu && p.shape.out != in[0].shape) {
    return NodeError(node, "slope of shape " + FormatShape(in[1].shape) + " does not broadcast to input X's shape " +
                               FormatShape(in[0].shape));
  }
  return p;
}

// Min/Max/Sum/Mean's step: the running value `acc` combined with input `v`.
template <typename X>
X Combine(Ar op, X acc, X v) {
  bool nan = false;
  if constexpr (std::is_floating_point_v<X>) nan = v != v;
  switch (op) {
    case Ar::kMin: return (v < acc || nan) ? v : acc;
    case Ar::kMax: return (v > acc || nan) ? v : acc;
    default: return acc + v;  // Sum, Mean (float only)
  }
}

// Min/Max of float16 bit patterns: Combine on their float values, keeping
// the chosen input's bits.
uint16_t CombineHalf(Ar op, uint16_t acc, uint16_t v) {
  const float a = HalfToFloat(acc), b = HalfToFloat(v);
  const bool take = (op == Ar::kMin ? b < a : b > a) || b != b;
  return take ? v : acc;
}

template <typename X>
X ModEval(X a, X b, bool fmod) {
  if constexpr (std::is_floating_point_v<X>) {
    return std::fmod(a, b);  // fmod=1: PlanArith refuses fmod=0 for floats
  } else {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<X>) {
      if (b == -1) return 0;
      const X r = static_cast<X>(a % b);
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) return static_cast<X>(r + b);
      return r;
    } else {
      return static_cast<X>(a % b);
    }
  }
}

template <typename X>
X PReluEval(X x, X slope) {
  if constexpr (std::is_floating_point_v<X>) {
    return x < X(0) ? x * slope : x;
  } else {
    using W = WrapT<X>;
    return x < 0 ? static_cast<X>(static_cast<W>(x) * static_cast<W>(slope)) : x;
  }
}

template <typename X>
X ShiftEval(X x, X amount, bool left) {
  if (amount >= sizeof(X) * 8) return 0;
  using W = WrapT<X>;
  return static_cast<X>(left ? static_cast<W>(x) << amount : static_cast<W>(x) >> amount);
}

// C statements computing out0[o] from in0[at[1]], in1[at[2]], ... as the
// functions above do.
std::string ArithC(const ArithPlan& p, const std::vector<std::string>& at) {
  const DType d = p.dtype;
  const std::string t = CType(d);
  const std::string o = "out0[" + at[0] + "] = ";
  if (IsVariadic(p.op)) {
    std::string s = t + " acc = in0[" + at[1] + "];\n";
    for (size_t k = 2; k < at.size(); ++k) {
      const std::string v = "in" + std::to_string(k - 1) + "[" + at[k] + "]";
      if (d == DType::kFloat16) {
        // Without converting: a NaN test on the bits, and a signed integer
        // key (the magnitude, negated for negative values) that orders the
        // other values as floats do (both zeros are 0).
        auto nan = [](const std::string& h) { return "((" + h + " & 0x7fffu) > 0x7c00u)"; };
        auto key = [](const std::string& h) {
          return "((" + h + " & 0x8000u) ? -(int32_t)(" + h + " & 0x7fffu) : (int32_t)" + h + ")";
        };
        const char* cmp = p.op == Ar::kMin ? " < " : " > ";
        s += "{\n  const uint16_t v = " + v + ";\n  if (" + nan("v") + " || (!" + nan("acc") + " && " + key("v") + cmp +
             key("acc") + ")) acc = v;\n}\n";
      } else if (p.op == Ar::kMin || p.op == Ar::kMax) {
        const char* cmp = p.op == Ar::kMin ? " < " : " > ";
        const std::string nan = IsFloatDType(d) ? " || v != v" : "";
        s += "{\n  const " + t + " v = " + v + ";\n  acc = (v" + cmp + "acc" + nan + ") ? v : acc;\n}\n";
      } else {
        s += "acc = acc + " + v + ";\n";
      }
    }
    if (p.op == Ar::kMean) return s + o + "acc / " + CLiteral(d, static_cast<double>(at.size() - 1)) + ";";
    return s + o + "acc;";
  }
  std::string s = "const " + t + " a = in0[" + at[1] + "];\nconst " + t + " b = in1[" + at[2] + "];\n";
  const std::string w = WrapCType(d);
  switch (p.op) {
    case Ar::kMod:
      if (d == DType::kFloat16) {
        return HalfToFloatC("a", "in0[" + at[1] + "]", "") + HalfToFloatC("b", "in1[" + at[2] + "]", "") +
               "const float rem = fmodf(a, b);\n" + FloatToHalfC("out0[" + at[0] + "]", "rem", "");
      }
      if (IsFloatDType(d)) return s + o + MathFn(d, "fmod") + "(a, b);";
      if (!IsSignedIntDType(d)) return s + o + "b == 0 ? (" + t + ")0 : (" + t + ")(a % b);";
      s += "const " + t + " r = (b == 0 || b == -1) ? (" + t + ")0 : (" + t + ")(a % b);\n";
      if (p.fmod) return s + o + "r;";
      return s + o + "(r != 0 && (r < 0) != (b < 0)) ? (" + t + ")(r + b) : r;";
    case Ar::kPRelu:
      if (IsFloatDType(d)) return s + o + "a < " + CLiteral(d, 0) + " ? a * b : a;";
      return s + o + "a < 0 ? (" + t + ")((" + w + ")a * (" + w + ")b) : a;";
    default:  // BitShift
      return s + o + "b >= " + Num(DTypeBits(d)) + " ? (" + t + ")0 : (" + t + ")((" + w + ")a " +
             (p.left ? "<<" : ">>") + " b);";
  }
}

Status ArithInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(ArithPlan p, PlanArith(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, p.shape.out);
  return Status::Ok();
}

Status ArithEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ArithPlan p, PlanArith(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, p.shape.out);
  const std::vector<std::vector<uint64_t>> at = p.shape.nest.Offsets();
  const size_t n = Elements(p.shape.out) == 0 ? 0 : at[0].size();
  if (p.dtype == DType::kFloat16 && p.op == Ar::kMod) {
    for (size_t i = 0; i < n; ++i) {
      const float a = HalfToFloat(inputs[0]->data<uint16_t>()[at[1][i]]);
      const float b = HalfToFloat(inputs[1]->data<uint16_t>()[at[2][i]]);
      y.data<uint16_t>()[at[0][i]] = FloatToHalf(std::fmod(a, b));
    }
  } else if (p.dtype == DType::kFloat16) {  // Min, Max
    for (size_t i = 0; i < n; ++i) {
      uint16_t v = inputs[0]->data<uint16_t>()[at[1][i]];
      for (size_t k = 1; k < inputs.size(); ++k) v = CombineHalf(p.op, v, inputs[k]->data<uint16_t>()[at[k + 1][i]]);
      y.data<uint16_t>()[at[0][i]] = v;
    }
  }
  VisitNumeric(p.dtype, [&](auto tag) {
    using X = typename decltype(tag)::type;
    auto in = [&](size_t k, size_t i) { return inputs[k]->data<X>()[at[k + 1][i]]; };
    for (size_t i = 0; i < n; ++i) {
      X v = in(0, i);
      if (IsVariadic(p.op)) {
        for (size_t k = 1; k < inputs.size(); ++k) v = Combine<X>(p.op, v, in(k, i));
        if (p.op == Ar::kMean) v = static_cast<X>(v / static_cast<X>(inputs.size()));
      } else if (p.op == Ar::kMod) {
        v = ModEval<X>(v, in(1, i), p.fmod);
      } else if (p.op == Ar::kPRelu) {
        if constexpr (std::is_signed_v<X>) v = PReluEval<X>(v, in(1, i));  // PlanArith: signed dtypes only
      } else if constexpr (std::is_unsigned_v<X>) {
        v = ShiftEval<X>(v, in(1, i), p.left);  // BitShift: PlanArith allows unsigned dtypes only
      }
      y.data<X>()[at[0][i]] = v;
    }
  });
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ArithEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ArithPlan p, PlanArith(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (Elements(p.shape.out) > 0) {
    *body += p.shape.nest.Emit([&](const std::vector<std::string>& at) { return ArithC(p, at); });
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterArithOps(std::vector<OpDef>* table) {
  for (const ArithSpec& s : kArith) table->push_back({s.name, ArithInfer, ArithEvaluate, ArithEmit});
}

}  // namespace mlf::ops
