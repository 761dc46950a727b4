// Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// ReduceSumSquare, ReduceL1 (every numeric dtype) and ReduceL2, ReduceLogSum,
// ReduceLogSumExp (float32, float64) in their canonical form (axes as an
// optional constant integer input 1, which the front end makes of the
// attribute of older opsets; attributes keepdims, default 1, and
// noop_with_empty_axes, default 0; negative axes count from the back).
//
// Results (evaluate() and the generated C agree):
//   - empty axes: every axis is reduced, or with noop_with_empty_axes=1 the
//     input is copied unchanged;
//   - an empty reduction gives 0 for ReduceSum, ReduceSumSquare, ReduceL1 and
//     ReduceL2, 1 for ReduceProd, -inf for ReduceLogSum and ReduceLogSumExp,
//     -inf (floats) or the type's minimum (integers) for ReduceMax, +inf or
//     the type's maximum for ReduceMin, NaN (floats) or 0 (integers) for
//     ReduceMean (ONNX leaves it undefined);
//   - ReduceMax and ReduceMin propagate NaN (numpy);
//   - integer ReduceSum, ReduceProd, ReduceSumSquare and ReduceL1 wrap modulo
//     2^bits (|INT_MIN| is INT_MIN); integer ReduceMean sums in 64 bits and
//     truncates the quotient toward zero;
//   - ReduceLogSumExp is max + log(sum(exp(x - max))) (no overflow), and the
//     maximum itself when that is infinite.
// evaluate() accumulates floats in double; the generated code accumulates in
// the element type and walks the input once, contiguously, in C order, so
// reducing leading axes gives a vectorisable innermost loop over the kept
// ones.
#include <cmath>
#include <limits>
#include <type_traits>

#include "codegen/ops/broadcast.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

enum class Kind { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

Kind KindOf(const std::string& op) {
  if (op == "ReduceSum") return Kind::kSum;
  if (op == "ReduceMean") return Kind::kMean;
  if (op == "ReduceMin") return Kind::kMin;
  if (op == "ReduceProd") return Kind::kProd;
  if (op == "ReduceSumSquare") return Kind::kSumSquare;
  if (op == "ReduceL1") return Kind::kL1;
  if (op == "ReduceL2") return Kind::kL2;
  if (op == "ReduceLogSum") return Kind::kLogSum;
  if (op == "ReduceLogSumExp") return Kind::kLogSumExp;
  return Kind::kMax;
}

// The kinds whose result is a float function of a sum: float dtypes only.
bool FloatOnly(Kind kind) { return kind == Kind::kL2 || kind == Kind::kLogSum || kind == Kind::kLogSumExp; }

struct Plan {
  std::vector<int64_t> in_shape;
  std::vector<int64_t> out_shape;
  std::vector<bool> reduced;  // per input axis
  bool copy = false;          // noop_with_empty_axes with empty axes
  uint64_t count = 1;         // elements per reduction

  // Strides of the output in the input's iteration space (0 on reduced axes).
  std::vector<int64_t> OutStrides() const {
    std::vector<int64_t> kept = in_shape;
    for (size_t k = 0; k < kept.size(); ++k) {
      if (reduced[k]) kept[k] = 1;
    }
    std::vector<int64_t> strides = ContiguousStrides(kept);
    for (size_t k = 0; k < kept.size(); ++k) {
      if (reduced[k]) strides[k] = 0;
    }
    return strides;
  }
};

Result<Plan> MakePlan(const ir::Node& node, const std::vector<int64_t>& in_shape, const ir::HostTensor* axes) {
  if (node.HasAttr("axes")) {
    return NodeError(node, "attribute 'axes' is not the canonical form; pass axes as constant input 1");
  }
  MLF_ASSIGN_OR_RETURN(int64_t keepdims, node.Int("keepdims", 1));
  MLF_ASSIGN_OR_RETURN(int64_t noop, node.Int("noop_with_empty_axes", 0));
  Plan plan;
  plan.in_shape = in_shape;
  plan.reduced.assign(in_shape.size(), false);
  std::vector<int64_t> list;
  if (axes != nullptr) {
    if (axes->dtype != DType::kInt64 && axes->dtype != DType::kInt32) {
      return NodeError(node, std::string("axes (input 1) has dtype ") + DTypeName(axes->dtype) +
                                 ", expected int64");
    }
    if (axes->shape.size() > 1) {
      return NodeError(node, "axes (input 1) must be 1-D, got shape " + FormatShape(axes->shape));
    }
    list = axes->ToInts();
  }
  if (list.empty()) {
    if (noop != 0) {
      plan.copy = true;
      plan.out_shape = in_shape;
      return plan;
    }
    plan.reduced.assign(in_shape.size(), true);
  }
  for (int64_t a : list) {
    MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, a, in_shape.size(), "axis"));
    if (plan.reduced[axis]) {
      return NodeError(node, "axis " + std::to_string(axis) + " appears more than once in axes");
    }
    plan.reduced[axis] = true;
  }
  for (size_t k = 0; k < in_shape.size(); ++k) {
    if (plan.reduced[k]) {
      plan.count *= static_cast<uint64_t>(in_shape[k]);
      if (keepdims != 0) plan.out_shape.push_back(1);
    } else {
      plan.out_shape.push_back(in_shape[k]);
    }
  }
  return plan;
}

Status Infer(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2));
  const ir::Value& x = graph.value(node.inputs[0]);
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, FloatOnly(KindOf(node.op)) ? kFloatDTypes : kNumericDTypes, "input data"));
  const ir::HostTensor* axes = nullptr;
  if (node.HasInput(1)) {
    const ir::Value& a = graph.value(node.inputs[1]);
    if (!a.is_constant()) return NodeError(node, "axes (input 1) must be a constant");
    axes = &*a.constant;
  }
  MLF_ASSIGN_OR_RETURN(Plan plan, MakePlan(node, x.shape, axes));
  SetOutput(node, graph, 0, x.dtype, plan.out_shape);
  return Status::Ok();
}

// The accumulator's start value (integers: of the 64-bit accumulator).
template <typename A, typename X>
A InitialValue(Kind kind) {
  if constexpr (std::is_floating_point_v<X>) {
    if (kind == Kind::kMax) return static_cast<A>(-INFINITY);
    if (kind == Kind::kMin) return static_cast<A>(INFINITY);
  } else {
    if (kind == Kind::kMax) return static_cast<A>(std::numeric_limits<X>::min());
    if (kind == Kind::kMin) return static_cast<A>(std::numeric_limits<X>::max());
  }
  return kind == Kind::kProd ? 1 : 0;
}

// |v| modulo 2^64 (|INT_MIN| wraps to INT_MIN once truncated to X).
template <typename X>
uint64_t Magnitude(X v) {
  if constexpr (std::is_signed_v<X>) {
    return v < 0 ? 0 - static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
  } else {
    return static_cast<uint64_t>(v);
  }
}

template <typename X>
void Reduce(Kind kind, const Plan& plan, const ir::HostTensor& in, ir::HostTensor* out) {
  const uint64_t n_out = out->element_count();
  X* y = out->data<X>();
  const X* x = in.data<X>();
  if (plan.copy) {
    for (uint64_t i = 0; i < n_out; ++i) y[i] = x[i];
    return;
  }
  const LoopNest nest = LoopNest::Collapse(plan.in_shape, {ContiguousStrides(plan.in_shape), plan.OutStrides()});
  const auto offsets = nest.Offsets();
  if constexpr (std::is_floating_point_v<X>) {
    // LogSumExp: the maximum first, then the sum about it.
    std::vector<double> max(n_out, -INFINITY);
    if (kind == Kind::kLogSumExp) {
      for (size_t it = 0; it < offsets[0].size(); ++it) {
        const double v = x[offsets[0][it]];
        double& m = max[offsets[1][it]];
        if (v > m || std::isnan(v)) m = v;
      }
    }
    std::vector<double> acc(n_out, InitialValue<double, X>(kind));
    for (size_t it = 0; it < offsets[0].size(); ++it) {
      const double v = x[offsets[0][it]];
      double& a = acc[offsets[1][it]];
      switch (kind) {
        case Kind::kMax: if (v > a || std::isnan(v)) a = v; break;
        case Kind::kMin: if (v < a || std::isnan(v)) a = v; break;
        case Kind::kProd: a *= v; break;
        case Kind::kSumSquare:
        case Kind::kL2: a += v * v; break;
        case Kind::kL1: a += std::fabs(v); break;
        case Kind::kLogSumExp: a += std::exp(v - max[offsets[1][it]]); break;
        default: a += v; break;
      }
    }
    for (uint64_t i = 0; i < n_out; ++i) {
      double v = acc[i];
      if (kind == Kind::kMean) v /= static_cast<double>(plan.count);
      if (kind == Kind::kL2) v = std::sqrt(v);
      if (kind == Kind::kLogSum) v = std::log(v);
      if (kind == Kind::kLogSumExp) v = std::isinf(max[i]) || std::isnan(max[i]) ? max[i] : max[i] + std::log(v);
      y[i] = static_cast<X>(v);
    }
  } else {
    using Acc = std::conditional_t<std::is_signed_v<X>, int64_t, uint64_t>;
    // Wrapping arithmetic: computed on uint64_t, exact modulo 2^bits.
    auto wrap = [](uint64_t v) { return static_cast<Acc>(v); };
    std::vector<Acc> acc(n_out, InitialValue<Acc, X>(kind));
    for (size_t it = 0; it < offsets[0].size(); ++it) {
      const X v = x[offsets[0][it]];
      const auto u = static_cast<uint64_t>(static_cast<Acc>(v));
      Acc& a = acc[offsets[1][it]];
      const auto au = static_cast<uint64_t>(a);
      switch (kind) {
        case Kind::kMax: if (v > a) a = v; break;
        case Kind::kMin: if (v < a) a = v; break;
        case Kind::kProd: a = wrap(au * u); break;
        case Kind::kSumSquare: a = wrap(au + u * u); break;
        case Kind::kL1: a = wrap(au + Magnitude(v)); break;
        default: a = wrap(au + u); break;
      }
    }
    for (uint64_t i = 0; i < n_out; ++i) {
      Acc v = acc[i];
      if (kind == Kind::kMean) v = plan.count == 0 ? 0 : v / static_cast<Acc>(plan.count);
      y[i] = static_cast<X>(v);
    }
  }
}

Status Evaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                std::vector<ir::HostTensor>* outputs) {
  if (inputs.empty() || inputs[0] == nullptr) {
    return Internal(node.Describe() + ": evaluate() called without its inputs");
  }
  const ir::HostTensor& x = *inputs[0];
  MLF_ASSIGN_OR_RETURN(Plan plan, MakePlan(node, x.shape, inputs.size() > 1 ? inputs[1] : nullptr));
  ir::HostTensor out = ir::HostTensor::Zeros(x.dtype, plan.out_shape);
  const Kind kind = KindOf(node.op);
  if (!VisitNumeric(x.dtype, [&](auto tag) { Reduce<typename decltype(tag)::type>(kind, plan, x, &out); })) {
    return NodeUnsupported(node, std::string("cannot evaluate dtype ") + DTypeName(x.dtype));
  }
  outputs->clear();
  outputs->push_back(std::move(out));
  return Status::Ok();
}

Result<Plan> PlanOf(const ir::Node& node, const ir::Graph& graph) {
  const ir::HostTensor* axes = nullptr;
  if (node.HasInput(1)) {
    const ir::Value& a = graph.value(node.inputs[1]);
    if (!a.is_constant()) return NodeError(node, "axes (input 1) must be a constant");
    axes = &*a.constant;
  }
  return MakePlan(node, graph.value(node.inputs[0]).shape, axes);
}

// Integer ReduceMean accumulates in 64 bits in the scratch buffer.
bool MeanNeedsScratch(Kind kind, DType dtype, const Plan& plan) {
  return kind == Kind::kMean && !IsFloatDType(dtype) && !plan.copy && plan.count > 0 &&
         Elements(plan.out_shape) > 0;
}

// ReduceLogSumExp keeps the maximum in the output and the sum about it in
// the scratch buffer (one element per output).
bool LogSumExpNeedsScratch(Kind kind, const Plan& plan) {
  return kind == Kind::kLogSumExp && !plan.copy && Elements(plan.out_shape) > 0;
}

uint64_t Scratch(const ir::Node& node, const ir::Graph& graph) {
  Result<Plan> plan = PlanOf(node, graph);
  if (!plan.ok()) return 0;
  const DType dtype = graph.value(node.inputs[0]).dtype;
  const Kind kind = KindOf(node.op);
  if (LogSumExpNeedsScratch(kind, *plan)) return Elements(plan->out_shape) * DTypeSize(dtype);
  return MeanNeedsScratch(kind, dtype, *plan) ? Elements(plan->out_shape) * 8 : 0;
}

// The accumulator's start value as C text.
std::string InitialValueC(Kind kind, DType d, const Plan& plan, bool wide) {
  const std::string bits = std::to_string(DTypeBits(d));
  switch (kind) {
    case Kind::kMax:
    case Kind::kLogSumExp:  // its first pass takes the maximum
      return IsFloatDType(d) ? CLiteral(d, -INFINITY) : IsSignedIntDType(d) ? "INT" + bits + "_MIN" : "0";
    case Kind::kMin:
      return IsFloatDType(d) ? CLiteral(d, INFINITY) : IsSignedIntDType(d) ? "INT" + bits + "_MAX" : "UINT" + bits + "_MAX";
    case Kind::kProd: return CLiteral(d, 1);
    case Kind::kMean:
      if (plan.count == 0) return IsFloatDType(d) ? CLiteral(d, NAN) : "0";
      return wide ? "0" : CLiteral(d, 0);
    default: return CLiteral(d, 0);
  }
}

// The statement folding element `x` into accumulator `a`.
std::string UpdateC(Kind kind, DType d, const std::string& a, const std::string& x, bool wide) {
  const std::string t = CType(d);
  const bool real = IsFloatDType(d);
  if (kind == Kind::kMax || kind == Kind::kMin || kind == Kind::kLogSumExp) {
    const std::string cmp = kind == Kind::kMin ? " < " : " > ";
    if (real) return "const " + t + " v = " + x + ";\n" + a + " = (v" + cmp + a + " || v != v) ? v : " + a + ";";
    return "const " + t + " v = " + x + ";\n" + a + " = v" + cmp + a + " ? v : " + a + ";";
  }
  if (real) {
    switch (kind) {
      case Kind::kProd: return a + " *= " + x + ";";
      case Kind::kSumSquare:
      case Kind::kL2: return "const " + t + " v = " + x + ";\n" + a + " += v * v;";
      case Kind::kL1: return a + " += " + MathFn(d, "fabs") + "(" + x + ");";
      default: return a + " += " + x + ";";
    }
  }
  if (wide) {
    if (!IsSignedIntDType(d)) return a + " += " + x + ";";
    return a + " = (int64_t)((uint64_t)" + a + " + (uint64_t)" + x + ");";
  }
  const std::string w = WrapCType(d);
  const std::string v = "(" + w + ")" + x;
  switch (kind) {
    case Kind::kProd: return a + " = (" + t + ")((" + w + ")" + a + " * " + v + ");";
    case Kind::kSumSquare: return "const " + w + " v = " + v + ";\n" + a + " = (" + t + ")((" + w + ")" + a + " + v * v);";
    case Kind::kL1:
      if (!IsSignedIntDType(d)) return a + " = (" + t + ")((" + w + ")" + a + " + " + v + ");";
      return "const " + t + " v = " + x + ";\n" + a + " = (" + t + ")((" + w + ")" + a + " + (v < 0 ? (" + w +
             ")0 - (" + w + ")v : (" + w + ")v));";
    default: return a + " = (" + t + ")((" + w + ")" + a + " + " + v + ");";
  }
}

Status Emit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(Plan plan, PlanOf(ctx.node, ctx.graph));
  const Kind kind = KindOf(ctx.node.op);
  const DType d = ctx.input(0).dtype;
  const std::string t = CType(d);
  const uint64_t n_out = Elements(plan.out_shape);
  const uint64_t n_in = Elements(plan.in_shape);
  std::string& s = *body;
  s += UnusedParams(ctx.node, {1});
  if (n_out == 0) {
    s += "  (void)in0;\n  (void)out0;\n";
    return Status::Ok();
  }
  if (plan.copy) {
    s += "  memcpy(out0, in0, " + std::to_string(n_out * DTypeSize(d)) + "u);\n";
    return Status::Ok();
  }
  const bool wide = MeanNeedsScratch(kind, d, plan);
  const std::string acc_t = IsSignedIntDType(d) ? "int64_t" : "uint64_t";
  const std::string acc = wide ? "acc" : "out0";
  if (wide) s += "  " + acc_t + "* restrict acc = (" + acc_t + "*)scratch;\n";
  const std::string loop = "  for (size_t i = 0; i < " + std::to_string(n_out) + "; ++i) ";
  s += loop + acc + "[i] = " + InitialValueC(kind, d, plan, wide) + ";\n";
  if (n_in == 0) {
    s += "  (void)in0;\n";
    if (kind == Kind::kLogSum) s += loop + "out0[i] = " + CLiteral(d, -INFINITY) + ";\n";
    if (LogSumExpNeedsScratch(kind, plan)) s += "  (void)scratch;\n";
    return Status::Ok();
  }

  const LoopNest nest = LoopNest::Collapse(plan.in_shape, {ContiguousStrides(plan.in_shape), plan.OutStrides()});
  s += nest.Emit([&](const std::vector<std::string>& index) {
    return UpdateC(kind, d, acc + "[" + index[1] + "]", "in0[" + index[0] + "]", wide);
  });

  if (kind == Kind::kLogSumExp) {
    s += "  " + t + "* restrict sum = (" + t + "*)scratch;\n";
    s += loop + "sum[i] = 0;\n";
    s += nest.Emit([&](const std::vector<std::string>& index) {
      return "sum[" + index[1] + "] += " + MathFn(d, "exp") + "(in0[" + index[0] + "] - out0[" + index[1] + "]);";
    });
    s += loop + "{\n    const " + t + " m = out0[i];\n";
    s += "    /* An infinite or NaN maximum is the result (inf - inf would give NaN). */\n";
    s += "    if (m - m == 0) out0[i] = m + " + MathFn(d, "log") + "(sum[i]);\n  }\n";
  } else if (kind == Kind::kL2 || kind == Kind::kLogSum) {
    s += loop + "out0[i] = " + MathFn(d, kind == Kind::kL2 ? "sqrt" : "log") + "(out0[i]);\n";
  } else if (kind == Kind::kMean && plan.count > 1) {
    if (IsFloatDType(d)) {
      s += loop + "out0[i] = out0[i] / " + CLiteral(d, static_cast<double>(plan.count)) + ";\n";
    } else {
      s += loop + "out0[i] = (" + t + ")(acc[i] / " + std::to_string(plan.count) + ");\n";
    }
  } else if (wide) {
    s += loop + "out0[i] = (" + t + ")acc[i];\n";
  }
  return Status::Ok();
}

}  // namespace

void RegisterReduceOps(std::vector<OpDef>* table) {
  for (const char* name : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                           "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    table->push_back(OpDef{name, Infer, Evaluate, Emit, nullptr, Scratch, false});
  }
}

}  // namespace mlf::ops
