// Normalisations over groups of elements (float32, float64):
//
//   InstanceNormalization      per (n, c) over the spatial axes of
//                              [N, C, ...]: (x - mean) / sqrt(var + epsilon)
//                              * scale[c] + B[c]; attribute epsilon (1e-5);
//   MeanVarianceNormalization  over attribute axes (default [0, 2, 3]):
//                              (x - mean) / (sqrt(var) + 1e-9), as ONNX's
//                              function body;
//   LpNormalization            over attribute axis (default -1): x / ||x||_p,
//                              p 1 or 2 (default 2); a zero norm divides by 0;
//   LRN                        across channels of [N, C, ...]: x / (bias +
//                              alpha / size * sum of x^2 over channels
//                              c - floor((size-1)/2) .. c + ceil((size-1)/2))
//                              ^ beta.
//
// var is the mean squared deviation from the mean (two passes). evaluate()
// computes in double, the generated code in the element type (tests compare
// within a tolerance). The group statistics live in the scratch buffer.
#include <algorithm>
#include <cmath>

#include "codegen/ops/broadcast.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Kind { kInstance, kMvn, kLp, kLrn };

Kind KindOf(const std::string& op) {
  if (op == "InstanceNormalization") return Kind::kInstance;
  if (op == "MeanVarianceNormalization") return Kind::kMvn;
  if (op == "LpNormalization") return Kind::kLp;
  return Kind::kLrn;
}

struct NormPlan {
  Kind kind = Kind::kInstance;
  Shape x;
  std::vector<bool> reduced;  // per axis (not LRN)
  uint64_t groups = 0, count = 1;
  double epsilon = 1e-5;
  int64_t p = 2;
  // LRN
  int64_t size = 1;
  double alpha = 1e-4, beta = 0.75, bias = 1.0;

  // Strides of the group statistics in x's iteration space (0 on reduced axes).
  Shape GroupStrides() const {
    Shape kept = x;
    for (size_t k = 0; k < kept.size(); ++k) {
      if (reduced[k]) kept[k] = 1;
    }
    Shape strides = ContiguousStrides(kept);
    for (size_t k = 0; k < kept.size(); ++k) {
      if (reduced[k]) strides[k] = 0;
    }
    return strides;
  }
  // Strides of per-channel parameters (axis 1).
  Shape ChannelStrides() const {
    Shape s(x.size(), 0);
    s[1] = 1;
    return s;
  }
  LoopNest Nest() const {
    return LoopNest::Collapse(x, {ContiguousStrides(x), GroupStrides(),
                                  kind == Kind::kInstance ? ChannelStrides() : Shape(x.size(), 0)});
  }
};

Result<NormPlan> PlanNorm(const ir::Node& node, const std::vector<InputInfo>& in) {
  NormPlan p;
  p.kind = KindOf(node.op);
  const bool instance = p.kind == Kind::kInstance;
  MLF_RETURN_IF_ERROR(CheckArity(node, instance ? 3 : 1, instance ? 3 : 1));
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, kFloatDTypes, "input 0"));
  p.x = in[0].shape;
  const size_t rank = p.x.size();
  p.reduced.assign(rank, false);
  switch (p.kind) {
    case Kind::kInstance: {
      if (rank < 3) return NodeError(node, "input 0 must have rank 3 or more (N, C, D1, ...), got shape " + FormatShape(p.x));
      for (size_t i = 1; i < 3; ++i) {
        const std::string what = i == 1 ? "scale" : "B";
        MLF_ASSIGN_OR_RETURN(const InputInfo* v, RequiredInput(node, in, i, what));
        if (v->shape != Shape{p.x[1]} || v->dtype != in[0].dtype) {
          return NodeError(node, "input " + std::to_string(i) + " (" + what + ") must be " + DTypeName(in[0].dtype) +
                                     " of shape [" + std::to_string(p.x[1]) + "], got " + DTypeName(v->dtype) + " " +
                                     FormatShape(v->shape));
        }
      }
      for (size_t k = 2; k < rank; ++k) p.reduced[k] = true;
      MLF_ASSIGN_OR_RETURN(p.epsilon, node.Float("epsilon", 1e-5));
      break;
    }
    case Kind::kMvn: {
      MLF_ASSIGN_OR_RETURN(Shape axes, node.Ints("axes", {0, 2, 3}));
      for (int64_t a : axes) {
        MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, a, rank, "axis"));
        p.reduced[axis] = true;
      }
      break;
    }
    case Kind::kLp: {
      if (rank == 0) return NodeError(node, "input 0 must have rank 1 or more");
      MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", -1));
      MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, rank, "axis"));
      p.reduced[axis] = true;
      MLF_ASSIGN_OR_RETURN(p.p, node.Int("p", 2));
      if (p.p != 1 && p.p != 2) return NodeError(node, "p must be 1 or 2, got " + std::to_string(p.p));
      break;
    }
    case Kind::kLrn: {
      if (rank < 2) return NodeError(node, "input 0 must have rank 2 or more (N, C, ...), got shape " + FormatShape(p.x));
      if (!node.HasAttr("size")) return NodeError(node, "attribute 'size' is required");
      MLF_ASSIGN_OR_RETURN(p.size, node.Int("size", 1));
      if (p.size < 1) return NodeError(node, "size must be at least 1, got " + std::to_string(p.size));
      MLF_ASSIGN_OR_RETURN(p.alpha, node.Float("alpha", 1e-4));
      MLF_ASSIGN_OR_RETURN(p.beta, node.Float("beta", 0.75));
      MLF_ASSIGN_OR_RETURN(p.bias, node.Float("bias", 1.0));
      return p;
    }
  }
  p.groups = 1;
  for (size_t k = 0; k < rank; ++k) (p.reduced[k] ? p.count : p.groups) *= static_cast<uint64_t>(p.x[k]);
  return p;
}

Status NormInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_RETURN_IF_ERROR(PlanNorm(node, in).status());
  SetOutput(node, graph, 0, in[0].dtype, in[0].shape);
  return Status::Ok();
}

// LRN's channel window [c - lo, c + hi].
void LrnWindow(const NormPlan& p, int64_t* lo, int64_t* hi) {
  *lo = (p.size - 1) / 2;
  *hi = p.size - 1 - *lo;
}

Status NormEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(NormPlan p, PlanNorm(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, x.shape);
  if (p.kind == Kind::kLrn) {
    const int64_t n = p.x[0], c = p.x[1], inner = Product(p.x, 2, p.x.size());
    int64_t lo, hi;
    LrnWindow(p, &lo, &hi);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        for (int64_t e = 0; e < inner; ++e) {
          double sq = 0;
          for (int64_t k = std::max<int64_t>(0, ch - lo); k <= std::min(c - 1, ch + hi); ++k) {
            const double v = x.GetDouble(static_cast<uint64_t>((b * c + k) * inner + e));
            sq += v * v;
          }
          const auto at = static_cast<uint64_t>((b * c + ch) * inner + e);
          y.SetDouble(at, x.GetDouble(at) / std::pow(p.bias + p.alpha / static_cast<double>(p.size) * sq, p.beta));
        }
      }
    }
    outputs->assign(1, std::move(y));
    return Status::Ok();
  }
  const auto offsets = p.Nest().Offsets();
  const size_t iterations = offsets[0].size();
  std::vector<double> a(p.groups, 0), b(p.groups, 0);
  const auto n = static_cast<double>(p.count);
  for (size_t it = 0; it < iterations; ++it) {
    const double v = x.GetDouble(offsets[0][it]);
    a[offsets[1][it]] += p.kind == Kind::kLp ? (p.p == 1 ? std::fabs(v) : v * v) : v;
  }
  if (p.kind == Kind::kLp) {
    for (uint64_t g = 0; g < p.groups; ++g) a[g] = p.p == 1 ? a[g] : std::sqrt(a[g]);
    for (size_t it = 0; it < iterations; ++it) {
      y.SetDouble(offsets[0][it], x.GetDouble(offsets[0][it]) / a[offsets[1][it]]);
    }
  } else {
    for (double& m : a) m /= n;
    for (size_t it = 0; it < iterations; ++it) {
      const double d = x.GetDouble(offsets[0][it]) - a[offsets[1][it]];
      b[offsets[1][it]] += d * d;
    }
    for (double& v : b) v = p.kind == Kind::kInstance ? 1 / std::sqrt(v / n + p.epsilon) : 1 / (std::sqrt(v / n) + 1e-9);
    for (size_t it = 0; it < iterations; ++it) {
      const uint64_t g = offsets[1][it], at = offsets[0][it];
      double v = (x.GetDouble(at) - a[g]) * b[g];
      if (p.kind == Kind::kInstance) v = v * inputs[1]->GetDouble(offsets[2][it]) + inputs[2]->GetDouble(offsets[2][it]);
      y.SetDouble(at, v);
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

uint64_t NormScratch(const ir::Node& node, const ir::Graph& graph) {
  Result<NormPlan> p = PlanNorm(node, GraphInputs(node, graph));
  if (!p.ok() || p->kind == Kind::kLrn || Elements(p->x) == 0) return 0;
  return 2 * p->groups * DTypeSize(graph.value(node.inputs[0]).dtype);
}

Status LrnEmit(const EmitContext& ctx, const NormPlan& p, std::string* body) {
  const DType d = ctx.input(0).dtype;
  const std::string t = CType(d);
  const int64_t c = p.x[1], inner = Product(p.x, 2, p.x.size());
  int64_t lo, hi;
  LrnWindow(p, &lo, &hi);
  std::string& s = *body;
  if (Elements(p.x) > 0) {
    s += "  for (size_t b = 0; b < " + Num(p.x[0]) + "; ++b) {\n";
    s += "    for (int64_t ch = 0; ch < " + Num(c) + "; ++ch) {\n";
    s += "      const int64_t first = ch - " + Num(lo) + " < 0 ? 0 : ch - " + Num(lo) + ";\n";
    s += "      const int64_t last = ch + " + Num(hi) + " > " + Num(c - 1) + " ? " + Num(c - 1) + " : ch + " + Num(hi) + ";\n";
    s += "      for (size_t e = 0; e < " + Num(inner) + "; ++e) {\n";
    s += "        " + t + " sq = 0;\n";
    s += "        for (int64_t k = first; k <= last; ++k) {\n";
    s += "          const " + t + " v = in0[(b * " + Num(c) + " + (size_t)k) * " + Num(inner) + " + e];\n";
    s += "          sq += v * v;\n        }\n";
    s += "        const size_t at = (b * " + Num(c) + " + (size_t)ch) * " + Num(inner) + " + e;\n";
    s += "        out0[at] = in0[at] / " + MathFn(d, "pow") + "(" + CLiteral(d, p.bias) + " + " +
         CLiteral(d, p.alpha / static_cast<double>(p.size)) + " * sq, " + CLiteral(d, p.beta) + ");\n";
    s += "      }\n    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

Status NormEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(NormPlan p, PlanNorm(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (p.kind == Kind::kLrn) return LrnEmit(ctx, p, body);
  std::string& s = *body;
  if (Elements(p.x) == 0) {
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  const DType d = ctx.input(0).dtype;
  const std::string t = CType(d), groups = Num(static_cast<int64_t>(p.groups)), n = CLiteral(d, static_cast<double>(p.count));
  const std::string loop = "  for (size_t g = 0; g < " + groups + "; ++g) ";
  const LoopNest nest = p.Nest();
  s += "  " + t + "* restrict a = (" + t + "*)scratch;\n";
  s += "  " + t + "* restrict b = a + " + groups + ";\n";
  s += loop + "a[g] = 0;\n";
  s += nest.Emit([&](const std::vector<std::string>& i) {
    const std::string x = "in0[" + i[0] + "]", a = "a[" + i[1] + "]";
    if (p.kind != Kind::kLp) return a + " += " + x + ";";
    if (p.p == 1) return a + " += " + MathFn(d, "fabs") + "(" + x + ");";
    return "const " + t + " v = " + x + ";\n" + a + " += v * v;";
  });
  if (p.kind == Kind::kLp) {
    if (p.p == 2) s += loop + "a[g] = " + MathFn(d, "sqrt") + "(a[g]);\n";
    s += nest.Emit([&](const std::vector<std::string>& i) {
      return "out0[" + i[0] + "] = in0[" + i[0] + "] / a[" + i[1] + "];";
    });
    s += "  (void)b;\n";
  } else {
    s += loop + "{\n    a[g] = a[g] / " + n + ";\n    b[g] = 0;\n  }\n";
    s += nest.Emit([&](const std::vector<std::string>& i) {
      return "const " + t + " dev = in0[" + i[0] + "] - a[" + i[1] + "];\nb[" + i[1] + "] += dev * dev;";
    });
    const std::string sqrt = MathFn(d, "sqrt");
    if (p.kind == Kind::kInstance) {
      s += loop + "b[g] = " + CLiteral(d, 1) + " / " + sqrt + "(b[g] / " + n + " + " + CLiteral(d, p.epsilon) + ");\n";
    } else {
      s += loop + "b[g] = " + CLiteral(d, 1) + " / (" + sqrt + "(b[g] / " + n + ") + " + CLiteral(d, 1e-9) + ");\n";
    }
    s += nest.Emit([&](const std::vector<std::string>& i) {
      std::string v = "(in0[" + i[0] + "] - a[" + i[1] + "]) * b[" + i[1] + "]";
      if (p.kind == Kind::kInstance) v += " * in1[" + i[2] + "] + in2[" + i[2] + "]";
      return "out0[" + i[0] + "] = " + v + ";";
    });
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterNormalizeOps(std::vector<OpDef>* table) {
  for (const char* name : {"InstanceNormalization", "MeanVarianceNormalization", "LpNormalization", "LRN"}) {
    table->push_back(OpDef{name, NormInfer, NormEvaluate, NormEmit, nullptr, NormScratch, false});
  }
}

}  // namespace mlf::ops
