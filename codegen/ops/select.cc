// Operators that select or accumulate along one axis, with the input viewed
// as [outer, dim, inner] around it:
//
//   ArgMax, ArgMin  int64 index of the largest / smallest element; attributes
//                   axis (default 0), keepdims (1), select_last_index (0);
//   Hardmax         1 at the first largest element along axis (default -1,
//                   the opset-13 form; older models are rewritten by the
//                   front end), 0 elsewhere;
//   TopK            the k largest (largest=1) or smallest elements along axis
//                   (default -1) and their int64 indices, k a constant
//                   (input 1, or attribute k before opset 10); always sorted,
//                   which also satisfies sorted=0;
//   CumSum          running sums along the constant axis of input 1;
//                   attributes exclusive and reverse.
//
// Orders (evaluate() and the generated code agree): NaN counts as larger
// than every number, so ArgMax, Hardmax and TopK(largest) pick it first and
// ArgMin and TopK(smallest) last, as numpy's argmax and sort do; among equal
// values the lower index comes first (ArgMax/ArgMin select_last_index=1: the
// higher one). Integer CumSum wraps modulo 2^bits; float CumSum adds in the
// element type, in order.
#include <cmath>
#include <cstring>
#include <type_traits>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct AxisView {
  size_t axis = 0;
  int64_t outer = 1, dim = 0, inner = 1;
};

AxisView ViewAround(const Shape& x, size_t axis) {
  return {axis, Product(x, 0, axis), x[axis], Product(x, axis + 1, x.size())};
}

// Whether a comes before b: larger first (`largest`) or smaller first, NaN
// larger than every number.
template <typename T>
bool Before(T a, T b, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return largest ? std::isnan(a) && !std::isnan(b) : std::isnan(b) && !std::isnan(a);
  }
  return largest ? a > b : a < b;
}

// The same as a C expression over `a` and `b` of `dtype`.
std::string BeforeC(DType dtype, const std::string& a, const std::string& b, bool largest) {
  const std::string cmp = a + (largest ? " > " : " < ") + b;
  if (!IsFloatDType(dtype)) return "(" + cmp + ")";
  if (largest) return "(" + cmp + " || (" + a + " != " + a + " && " + b + " == " + b + "))";
  return "(" + cmp + " || (" + b + " != " + b + " && " + a + " == " + a + "))";
}

Result<size_t> AxisAttr(const ir::Node& node, const Shape& x, int64_t fallback) {
  MLF_ASSIGN_OR_RETURN(int64_t axis, node.Int("axis", fallback));
  return NormalizeAxis(node, axis, x.size(), "axis");
}

// The index of element (o, i, e) of an [outer, dim, inner] view as C text.
std::string At(const AxisView& v, const std::string& o, const std::string& i, const std::string& e) {
  return "(" + o + " * " + Num(v.dim) + " + " + i + ") * " + Num(v.inner) + " + " + e;
}

// ---- ArgMax, ArgMin, Hardmax ----

struct ArgPlan {
  AxisView v;
  Shape out;
  bool largest = true, last = false;
};

Result<ArgPlan> PlanArg(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const Shape& x = in[0].shape;
  ArgPlan p;
  p.largest = node.op != "ArgMin";
  if (node.op == "Hardmax") {
    MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, kFloatDTypes, "input 0"));
    if (x.empty()) return NodeError(node, "input 0 must have rank 1 or more");
    MLF_ASSIGN_OR_RETURN(size_t axis, AxisAttr(node, x, -1));
    p.v = ViewAround(x, axis);
    p.out = x;
    return p;
  }
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, kNumericDTypes, "input 0"));
  if (x.empty()) return NodeError(node, "input 0 must have rank 1 or more");
  MLF_ASSIGN_OR_RETURN(size_t axis, AxisAttr(node, x, 0));
  MLF_ASSIGN_OR_RETURN(int64_t keepdims, node.Int("keepdims", 1));
  MLF_ASSIGN_OR_RETURN(int64_t last, node.Int("select_last_index", 0));
  p.last = last != 0;
  p.v = ViewAround(x, axis);
  if (p.v.dim == 0 && p.v.outer * p.v.inner > 0) {
    return NodeError(node, "cannot pick an index along axis " + std::to_string(axis) + " of size 0");
  }
  for (size_t k = 0; k < x.size(); ++k) {
    if (k != axis) p.out.push_back(x[k]);
    else if (keepdims != 0) p.out.push_back(1);
  }
  return p;
}

Status ArgInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(ArgPlan p, PlanArg(node, in));
  SetOutput(node, graph, 0, node.op == "Hardmax" ? in[0].dtype : DType::kInt64, p.out);
  return Status::Ok();
}

template <typename T>
void ArgEvaluateT(const ArgPlan& p, bool hardmax, const ir::HostTensor& in, ir::HostTensor* out) {
  const T* x = in.data<T>();
  for (int64_t o = 0; o < p.v.outer; ++o) {
    for (int64_t e = 0; e < p.v.inner; ++e) {
      int64_t best = 0;
      auto at = [&](int64_t i) { return x[(o * p.v.dim + i) * p.v.inner + e]; };
      for (int64_t i = 1; i < p.v.dim; ++i) {
        const bool take = p.last ? !Before(at(best), at(i), p.largest) : Before(at(i), at(best), p.largest);
        if (take) best = i;
      }
      if (hardmax) {
        if (p.v.dim > 0) out->data<T>()[(o * p.v.dim + best) * p.v.inner + e] = 1;
      } else {
        out->data<int64_t>()[o * p.v.inner + e] = best;
      }
    }
  }
}

Status ArgEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ArgPlan p, PlanArg(node, TensorInputs(inputs)));
  const bool hardmax = node.op == "Hardmax";
  ir::HostTensor y = ir::HostTensor::Zeros(hardmax ? inputs[0]->dtype : DType::kInt64, p.out);
  VisitNumeric(inputs[0]->dtype,
               [&](auto tag) { ArgEvaluateT<typename decltype(tag)::type>(p, hardmax, *inputs[0], &y); });
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ArgEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ArgPlan p, PlanArg(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const bool hardmax = ctx.node.op == "Hardmax";
  const DType d = ctx.input(0).dtype;
  std::string& s = *body;
  if (p.v.outer * p.v.inner * p.v.dim > 0) {
    const std::string t = CType(d);
    if (hardmax) s += "  memset(out0, 0, " + Num(static_cast<int64_t>(Elements(p.out))) + " * sizeof(*out0));\n";
    s += "  for (size_t o = 0; o < " + Num(p.v.outer) + "; ++o) {\n";
    s += "    for (size_t e = 0; e < " + Num(p.v.inner) + "; ++e) {\n";
    s += "      size_t best = 0;\n";
    s += "      " + t + " b = in0[" + At(p.v, "o", "0", "e") + "];\n";
    s += "      for (size_t i = 1; i < " + Num(p.v.dim) + "; ++i) {\n";
    s += "        const " + t + " v = in0[" + At(p.v, "o", "i", "e") + "];\n";
    const std::string take = p.last ? "!" + BeforeC(d, "b", "v", p.largest) : BeforeC(d, "v", "b", p.largest);
    s += "        if (" + take + ") { best = i; b = v; }\n";
    s += "      }\n";
    if (hardmax) {
      s += "      out0[" + At(p.v, "o", "best", "e") + "] = 1;\n";
    } else {
      s += "      out0[o * " + Num(p.v.inner) + " + e] = (int64_t)best;\n";
    }
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- TopK ----

struct TopKPlan {
  AxisView v;
  Shape out;
  int64_t k = 0;
  bool largest = true;
};

Result<TopKPlan> PlanTopK(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2, 2, 2));
  const Shape& x = in[0].shape;
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, kNumericDTypes, "input X"));
  if (x.empty()) return NodeError(node, "input 0 (X) must have rank 1 or more");
  TopKPlan p;
  if (Has(in, 1)) {
    MLF_ASSIGN_OR_RETURN(Shape k, ConstantInts(node, in, 1, "K"));
    if (k.size() != 1) return NodeError(node, "input 1 (K) must hold one value, got " + std::to_string(k.size()));
    p.k = k[0];
  } else {
    if (!node.HasAttr("k")) return NodeError(node, "input 1 (K) is required");
    MLF_ASSIGN_OR_RETURN(p.k, node.Int("k", 0));
  }
  MLF_ASSIGN_OR_RETURN(size_t axis, AxisAttr(node, x, -1));
  MLF_ASSIGN_OR_RETURN(int64_t largest, node.Int("largest", 1));
  p.largest = largest != 0;
  p.v = ViewAround(x, axis);
  if (p.k < 0 || p.k > p.v.dim) {
    return NodeError(node, "k " + std::to_string(p.k) + " is out of range for axis " + std::to_string(axis) +
                               " of size " + std::to_string(p.v.dim));
  }
  p.out = x;
  p.out[axis] = p.k;
  return p;
}

Status TopKInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(TopKPlan p, PlanTopK(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  SetOutput(node, graph, 1, DType::kInt64, p.out);
  return Status::Ok();
}

template <typename T>
void TopKEvaluateT(const TopKPlan& p, const ir::HostTensor& in, ir::HostTensor* values, ir::HostTensor* indices) {
  const T* x = in.data<T>();
  for (int64_t o = 0; o < p.v.outer; ++o) {
    for (int64_t e = 0; e < p.v.inner; ++e) {
      // Every index, stably sorted by the order: equal values keep index order.
      std::vector<int64_t> order;
      for (int64_t i = 0; i < p.v.dim; ++i) {
        const T v = x[(o * p.v.dim + i) * p.v.inner + e];
        size_t at = order.size();
        while (at > 0 && Before(v, x[(o * p.v.dim + order[at - 1]) * p.v.inner + e], p.largest)) --at;
        order.insert(order.begin() + static_cast<int64_t>(at), i);
      }
      for (int64_t j = 0; j < p.k; ++j) {
        const int64_t dst = (o * p.k + j) * p.v.inner + e;
        values->data<T>()[dst] = x[(o * p.v.dim + order[static_cast<size_t>(j)]) * p.v.inner + e];
        indices->data<int64_t>()[dst] = order[static_cast<size_t>(j)];
      }
    }
  }
}

Status TopKEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(TopKPlan p, PlanTopK(node, TensorInputs(inputs)));
  ir::HostTensor values = ir::HostTensor::Zeros(inputs[0]->dtype, p.out);
  ir::HostTensor indices = ir::HostTensor::Zeros(DType::kInt64, p.out);
  VisitNumeric(inputs[0]->dtype,
               [&](auto tag) { TopKEvaluateT<typename decltype(tag)::type>(p, *inputs[0], &values, &indices); });
  outputs->clear();
  outputs->push_back(std::move(values));
  outputs->push_back(std::move(indices));
  return Status::Ok();
}

// Insertion into the sorted first k outputs of each (o, e): an element enters
// when fewer than k are held or it comes before the last one held, and moves
// up past those it comes before (strictly: ties keep index order).
Status TopKEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(TopKPlan p, PlanTopK(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType d = ctx.input(0).dtype;
  std::string& s = *body;
  if (p.v.outer * p.v.inner * p.k > 0) {
    const std::string t = CType(d), in = Num(p.v.inner);
    auto out = [&](const std::string& j) { return "(o * " + Num(p.k) + " + " + j + ") * " + in + " + e"; };
    s += "  for (size_t o = 0; o < " + Num(p.v.outer) + "; ++o) {\n";
    s += "    for (size_t e = 0; e < " + in + "; ++e) {\n";
    s += "      size_t held = 0;\n";
    s += "      for (size_t i = 0; i < " + Num(p.v.dim) + "; ++i) {\n";
    s += "        const " + t + " v = in0[" + At(p.v, "o", "i", "e") + "];\n";
    s += "        size_t j;\n";
    s += "        if (held < " + Num(p.k) + ") {\n          j = held++;\n";
    s += "        } else {\n";
    s += "          const " + t + " w = out0[" + out(Num(p.k - 1)) + "];\n";
    s += "          if (!" + BeforeC(d, "v", "w", p.largest) + ") continue;\n";
    s += "          j = " + Num(p.k - 1) + ";\n        }\n";
    s += "        while (j > 0) {\n";
    s += "          const " + t + " w = out0[" + out("j - 1") + "];\n";
    s += "          if (!" + BeforeC(d, "v", "w", p.largest) + ") break;\n";
    s += "          out0[" + out("j") + "] = w;\n";
    s += "          out1[" + out("j") + "] = out1[" + out("j - 1") + "];\n";
    s += "          --j;\n        }\n";
    s += "        out0[" + out("j") + "] = v;\n";
    s += "        out1[" + out("j") + "] = (int64_t)i;\n";
    s += "      }\n    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- CumSum ----

struct CumSumPlan {
  AxisView v;
  bool exclusive = false, reverse = false;
};

Result<CumSumPlan> PlanCumSum(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  const Shape& x = in[0].shape;
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, kNumericDTypes, "input x"));
  MLF_ASSIGN_OR_RETURN(const InputInfo* a, RequiredInput(node, in, 1, "axis"));
  if (a->data == nullptr) return NodeError(node, "input 1 (axis) must be a constant");
  if (a->dtype != DType::kInt32 && a->dtype != DType::kInt64) {
    return NodeError(node, std::string("input 1 (axis) must be int64 or int32, got ") + DTypeName(a->dtype));
  }
  if (Elements(a->shape) != 1) {
    return NodeError(node, "input 1 (axis) must hold one value, got shape " + FormatShape(a->shape));
  }
  if (x.empty()) return NodeError(node, "input 0 (x) must have rank 1 or more");
  MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, a->data->ToInts()[0], x.size(), "axis"));
  CumSumPlan p;
  p.v = ViewAround(x, axis);
  MLF_ASSIGN_OR_RETURN(int64_t exclusive, node.Int("exclusive", 0));
  MLF_ASSIGN_OR_RETURN(int64_t reverse, node.Int("reverse", 0));
  p.exclusive = exclusive != 0;
  p.reverse = reverse != 0;
  return p;
}

Status CumSumInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_RETURN_IF_ERROR(PlanCumSum(node, in).status());
  SetOutput(node, graph, 0, in[0].dtype, in[0].shape);
  return Status::Ok();
}

template <typename T>
void CumSumEvaluateT(const CumSumPlan& p, const ir::HostTensor& in, ir::HostTensor* out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>;  // integers wrap
  const T* x = in.data<T>();
  T* y = out->data<T>();
  for (int64_t o = 0; o < p.v.outer; ++o) {
    for (int64_t e = 0; e < p.v.inner; ++e) {
      Acc acc = 0;
      for (int64_t n = 0; n < p.v.dim; ++n) {
        const int64_t i = p.reverse ? p.v.dim - 1 - n : n;
        const int64_t at = (o * p.v.dim + i) * p.v.inner + e;
        if (p.exclusive) y[at] = static_cast<T>(acc);
        acc = static_cast<Acc>(acc + static_cast<Acc>(x[at]));
        if (!p.exclusive) y[at] = static_cast<T>(acc);
      }
    }
  }
}

Status CumSumEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(CumSumPlan p, PlanCumSum(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(inputs[0]->dtype, inputs[0]->shape);
  VisitNumeric(inputs[0]->dtype, [&](auto tag) { CumSumEvaluateT<typename decltype(tag)::type>(p, *inputs[0], &y); });
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status CumSumEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(CumSumPlan p, PlanCumSum(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType d = ctx.input(0).dtype;
  std::string& s = *body;
  if (p.v.outer * p.v.inner * p.v.dim > 0) {
    const bool real = IsFloatDType(d);
    const std::string t = CType(d), acc_t = real ? t : "uint64_t";
    s += "  for (size_t o = 0; o < " + Num(p.v.outer) + "; ++o) {\n";
    s += "    for (size_t e = 0; e < " + Num(p.v.inner) + "; ++e) {\n";
    s += "      " + acc_t + " acc = 0;\n";
    s += "      for (size_t n = 0; n < " + Num(p.v.dim) + "; ++n) {\n";
    s += "        const size_t at = " + At(p.v, "o", p.reverse ? Num(p.v.dim - 1) + " - n" : "n", "e") + ";\n";
    const std::string add = real ? "acc += in0[at];\n" : "acc += (uint64_t)in0[at];\n";
    if (p.exclusive) s += "        out0[at] = (" + t + ")acc;\n";
    s += "        " + add;
    if (!p.exclusive) s += "        out0[at] = (" + t + ")acc;\n";
    s += "      }\n    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterSelectOps(std::vector<OpDef>* table) {
  table->push_back({"ArgMax", ArgInfer, ArgEvaluate, ArgEmit});
  table->push_back({"ArgMin", ArgInfer, ArgEvaluate, ArgEmit});
  table->push_back({"Hardmax", ArgInfer, ArgEvaluate, ArgEmit});
  table->push_back({"TopK", TopKInfer, TopKEvaluate, TopKEmit});
  table->push_back({"CumSum", CumSumInfer, CumSumEvaluate, CumSumEmit});
}

}  // namespace mlf::ops
