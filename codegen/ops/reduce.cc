// Reductions: ReduceSum, ReduceMean, ReduceMax in their canonical form (axes
// as an optional constant integer input 1; attributes keepdims, default 1,
// and noop_with_empty_axes, default 0; negative axes count from the back).
//
// Results (evaluate() and the generated C agree):
//   - empty axes: every axis is reduced, or with noop_with_empty_axes=1 the
//     input is copied unchanged;
//   - an empty reduction gives 0 for ReduceSum, -inf (floats) or the type's
//     minimum (integers) for ReduceMax, NaN (floats) or 0 (integers) for
//     ReduceMean (ONNX leaves it undefined);
//   - ReduceMax propagates NaN (numpy);
//   - integer ReduceSum wraps modulo 2^bits; integer ReduceMean sums in 64
//     bits and truncates the quotient toward zero.
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

enum class Kind { kSum, kMean, kMax };

Kind KindOf(const std::string& op) {
  if (op == "ReduceSum") return Kind::kSum;
  if (op == "ReduceMean") return Kind::kMean;
  return Kind::kMax;
}

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
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kNumericDTypes, "input data"));
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
    std::vector<double> acc(n_out, kind == Kind::kMax ? -INFINITY : 0.0);
    for (size_t it = 0; it < offsets[0].size(); ++it) {
      const double v = x[offsets[0][it]];
      double& a = acc[offsets[1][it]];
      if (kind == Kind::kMax) {
        if (v > a || std::isnan(v)) a = v;
      } else {
        a += v;
      }
    }
    for (uint64_t i = 0; i < n_out; ++i) {
      y[i] = static_cast<X>(kind == Kind::kMean ? acc[i] / static_cast<double>(plan.count) : acc[i]);
    }
  } else {
    using Acc = std::conditional_t<std::is_signed_v<X>, int64_t, uint64_t>;
    std::vector<Acc> acc(n_out, kind == Kind::kMax ? static_cast<Acc>(std::numeric_limits<X>::min()) : 0);
    for (size_t it = 0; it < offsets[0].size(); ++it) {
      const X v = x[offsets[0][it]];
      Acc& a = acc[offsets[1][it]];
      if (kind == Kind::kMax) {
        if (v > a) a = v;
      } else {
        a = static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(static_cast<Acc>(v)));
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

uint64_t Scratch(const ir::Node& node, const ir::Graph& graph) {
  Result<Plan> plan = PlanOf(node, graph);
  if (!plan.ok()) return 0;
  const DType dtype = graph.value(node.inputs[0]).dtype;
  return MeanNeedsScratch(KindOf(node.op), dtype, *plan) ? Elements(plan->out_shape) * 8 : 0;
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

  // Initial values.
  std::string init;
  if (kind == Kind::kMax) {
    init = IsFloatDType(d) ? CLiteral(d, -INFINITY)
           : IsSignedIntDType(d) ? "INT" + std::to_string(DTypeBits(d)) + "_MIN"
                                 : "0";
  } else if (kind == Kind::kMean && plan.count == 0) {
    init = IsFloatDType(d) ? CLiteral(d, NAN) : "0";
  } else {
    init = wide ? "0" : CLiteral(d, 0);
  }
  s += "  for (size_t i = 0; i < " + std::to_string(n_out) + "; ++i) " + acc + "[i] = " + init + ";\n";
  if (n_in == 0) {
    s += "  (void)in0;\n";
    return Status::Ok();
  }

  const LoopNest nest = LoopNest::Collapse(plan.in_shape, {ContiguousStrides(plan.in_shape), plan.OutStrides()});
  s += nest.Emit([&](const std::vector<std::string>& index) {
    const std::string x = "in0[" + index[0] + "]";
    const std::string a = acc + "[" + index[1] + "]";
    if (kind == Kind::kMax) {
      if (IsFloatDType(d)) return "const " + t + " v = " + x + ";\n" + a + " = (v > " + a + " || v != v) ? v : " + a + ";";
      return "const " + t + " v = " + x + ";\n" + a + " = v > " + a + " ? v : " + a + ";";
    }
    if (IsFloatDType(d)) return a + " += " + x + ";";
    if (wide) {
      if (acc_t == "uint64_t") return a + " += " + x + ";";
      return a + " = (int64_t)((uint64_t)" + a + " + (uint64_t)" + x + ");";
    }
    const std::string w = WrapCType(d);
    return a + " = (" + t + ")((" + w + ")" + a + " + (" + w + ")" + x + ");";
  });

  if (kind == Kind::kMean && plan.count > 1) {
    const std::string loop = "  for (size_t i = 0; i < " + std::to_string(n_out) + "; ++i) ";
    if (IsFloatDType(d)) {
      s += loop + "out0[i] = out0[i] / " + CLiteral(d, static_cast<double>(plan.count)) + ";\n";
    } else {
      s += loop + "out0[i] = (" + t + ")(acc[i] / " + std::to_string(plan.count) + ");\n";
    }
  } else if (wide) {
    s += "  for (size_t i = 0; i < " + std::to_string(n_out) + "; ++i) out0[i] = (" + t + ")acc[i];\n";
  }
  return Status::Ok();
}

}  // namespace

void RegisterReduceOps(std::vector<OpDef>* table) {
  for (const char* name : {"ReduceSum", "ReduceMean", "ReduceMax"}) {
    table->push_back(OpDef{name, Infer, Evaluate, Emit, nullptr, Scratch, false});
  }
}

}  // namespace mlf::ops
