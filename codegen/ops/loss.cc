// The losses in inference form (opsets 12-13):
//
//   NegativeLogLikelihoodLoss  input (N, C, d1..dk) of log-probabilities,
//                              target (N, d1..dk) of class indices, optional
//                              weight (C): loss[n, d] = -input[n, t, d] * w[t]
//                              with t = target[n, d] (w = 1 without weight);
//   SoftmaxCrossEntropyLoss    the same on the log-softmax of scores along
//                              axis 1, whose values are the optional second
//                              output log_prob (the shape of scores).
//
// Attributes: reduction 'none' (the loss per element, target's shape), 'sum'
// or 'mean' (default; a scalar: sum(loss) / sum(w) over the elements that
// count), ignore_index (an element whose target equals it counts nothing:
// loss 0, weight 0). mean of nothing (every element ignored, every weight 0,
// or no element) is 0/0 = NaN.
//
// Targets are int32/int64 data, constant or computed at run time. A target
// outside [0, C) that is not ignore_index is undefined in ONNX: constant ones
// are refused at export; at run time evaluate() and the generated code clamp it to
// [0, C - 1] (never reading out of bounds), as ONNX's reference clips the
// weight it gathers.
//
// Sums and the reduction are in double (evaluate() and the generated code
// alike, in the same order, so NLL agrees bit for bit); the log-softmax of
// SoftmaxCrossEntropyLoss is computed in the element type by the generated
// code (max + log(sum(exp(x - max)))) and in double by evaluate().
#include <algorithm>
#include <cmath>
#include <limits>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Reduction { kNone, kSum, kMean };

// The input viewed as [n, c, d] (d = prod(d1..dk)), the target as [n, d].
struct LossPlan {
  bool softmax = false;  // SoftmaxCrossEntropyLoss
  int64_t n = 0, c = 0, d = 1;
  Reduction reduction = Reduction::kMean;
  // Whether targets can equal ignore_index (the attribute is set, and fits
  // the target's dtype).
  bool ignores = false;
  int64_t ignore_index = 0;
  bool weighted = false;
  Shape out;  // target's shape (none) or a scalar
};

// The input names of each operator, for errors.
const char* InputName(bool softmax, size_t i) {
  static const char* const kNll[] = {"input", "target", "weight"};
  static const char* const kSce[] = {"scores", "labels", "weights"};
  return (softmax ? kSce : kNll)[i];
}

std::string Named(bool softmax, size_t i) {
  return "input " + std::to_string(i) + " (" + InputName(softmax, i) + ")";
}

Result<Reduction> ReductionOf(const ir::Node& node) {
  MLF_ASSIGN_OR_RETURN(std::string r, node.String("reduction", "mean"));
  if (r == "none") return Reduction::kNone;
  if (r == "sum") return Reduction::kSum;
  if (r == "mean") return Reduction::kMean;
  return NodeError(node, "reduction '" + r + "' is invalid (none, sum, mean)");
}

Result<LossPlan> PlanLoss(const ir::Node& node, const std::vector<InputInfo>& in) {
  LossPlan p;
  p.softmax = node.op == "SoftmaxCrossEntropyLoss";
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 3, 1, p.softmax ? 2 : 1));
  const InputInfo& x = in[0];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, Named(p.softmax, 0)));
  if (x.shape.size() < 2) {
    return NodeError(node, Named(p.softmax, 0) + " must have rank 2 or more (N, C, ...), got rank " +
                               std::to_string(x.shape.size()));
  }
  MLF_ASSIGN_OR_RETURN(const InputInfo* target, RequiredInput(node, in, 1, InputName(p.softmax, 1)));
  if (target->dtype != DType::kInt32 && target->dtype != DType::kInt64) {
    return NodeError(node, Named(p.softmax, 1) + " must be int32 or int64, got " + DTypeName(target->dtype));
  }
  p.n = x.shape[0];
  p.c = x.shape[1];
  p.d = Product(x.shape, 2, x.shape.size());
  Shape expected = {p.n};
  expected.insert(expected.end(), x.shape.begin() + 2, x.shape.end());
  if (target->shape != expected) {
    return NodeError(node, Named(p.softmax, 1) + " has shape " + FormatShape(target->shape) + ", expected " +
                               FormatShape(expected) + " (" + InputName(p.softmax, 0) + "'s shape without axis 1)");
  }
  if (p.c == 0 && p.n * p.d > 0) {
    return NodeError(node, Named(p.softmax, 0) + " has no classes (axis 1 of size 0)");
  }
  if (Has(in, 2)) {
    p.weighted = true;
    if (in[2].dtype != x.dtype) {
      return NodeError(node, Named(p.softmax, 2) + " has dtype " + DTypeName(in[2].dtype) + ", expected " +
                                 DTypeName(x.dtype) + " as " + InputName(p.softmax, 0));
    }
    if (in[2].shape != Shape{p.c}) {
      return NodeError(node, Named(p.softmax, 2) + " has shape " + FormatShape(in[2].shape) + ", expected " +
                                 FormatShape({p.c}) + " (one per class)");
    }
  }
  MLF_ASSIGN_OR_RETURN(p.reduction, ReductionOf(node));
  if (node.HasAttr("ignore_index")) {
    MLF_ASSIGN_OR_RETURN(p.ignore_index, node.Int("ignore_index", 0));
    // An int32 target never equals an index beyond int32 (and C compilers
    // warn about a comparison that is always false).
    p.ignores = target->dtype == DType::kInt64 ||
                (p.ignore_index >= std::numeric_limits<int32_t>::min() &&
                 p.ignore_index <= std::numeric_limits<int32_t>::max());
  }
  if (p.reduction == Reduction::kNone) p.out = target->shape;
  return p;
}

// Constant targets must be classes or ignore_index (run-time ones are clamped).
Status CheckConstantTargets(const ir::Node& node, const LossPlan& p, const InputInfo& target) {
  if (target.data == nullptr) return Status::Ok();
  for (int64_t t : target.data->ToInts()) {
    if ((p.ignores && t == p.ignore_index) || (t >= 0 && t < p.c)) continue;
    return NodeError(node, Named(p.softmax, 1) + " holds class " + std::to_string(t) + ", out of range for " +
                               std::to_string(p.c) + " classes" +
                               (node.HasAttr("ignore_index") ? " and not ignore_index" : ""));
  }
  return Status::Ok();
}

Status LossInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(LossPlan p, PlanLoss(node, in));
  MLF_RETURN_IF_ERROR(CheckConstantTargets(node, p, in[1]));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  if (node.outputs.size() > 1) SetOutput(node, graph, 1, in[0].dtype, in[0].shape);
  return Status::Ok();
}

// A target's class: clamped to [0, c - 1] (see the top of the file).
int64_t ClassOf(int64_t t, int64_t c) { return std::min(std::max<int64_t>(t, 0), c - 1); }

Status LossEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(LossPlan p, PlanLoss(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const std::vector<int64_t> target = inputs[1]->ToInts();
  const ir::HostTensor* weight = p.weighted ? inputs[2] : nullptr;
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  ir::HostTensor log_prob = ir::HostTensor::Zeros(x.dtype, x.shape);
  const auto at = [&](int64_t n, int64_t c, int64_t d) { return static_cast<uint64_t>((n * p.c + c) * p.d + d); };
  double loss_sum = 0, weight_sum = 0;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t d = 0; d < p.d; ++d) {
      double lse = 0;  // log(sum(exp(x))) along the classes
      if (p.softmax) {
        double max = x.GetDouble(at(n, 0, d));
        for (int64_t c = 1; c < p.c; ++c) max = std::max(max, x.GetDouble(at(n, c, d)));
        double sum = 0;
        for (int64_t c = 0; c < p.c; ++c) sum += std::exp(x.GetDouble(at(n, c, d)) - max);
        lse = max + std::log(sum);
        for (int64_t c = 0; c < p.c; ++c) log_prob.SetDouble(at(n, c, d), x.GetDouble(at(n, c, d)) - lse);
      }
      const int64_t t = target[static_cast<size_t>(n * p.d + d)];
      if (p.ignores && t == p.ignore_index) continue;  // loss 0, weight 0
      const int64_t k = ClassOf(t, p.c);
      const double w = weight == nullptr ? 1.0 : weight->GetDouble(static_cast<uint64_t>(k));
      const double loss = -(x.GetDouble(at(n, k, d)) - lse) * w;
      if (p.reduction == Reduction::kNone) {
        y.SetDouble(static_cast<uint64_t>(n * p.d + d), loss);
      } else {
        loss_sum += loss;
        weight_sum += w;
      }
    }
  }
  if (p.reduction == Reduction::kSum) y.SetDouble(0, loss_sum);
  if (p.reduction == Reduction::kMean) y.SetDouble(0, loss_sum / weight_sum);
  outputs->clear();
  outputs->push_back(std::move(y));
  if (node.outputs.size() > 1) outputs->push_back(std::move(log_prob));
  return Status::Ok();
}

// SoftmaxCrossEntropyLoss: the maxima and then the sums of one row of d
// elements (then the log-sum-exp, in place of the maxima).
uint64_t LossScratch(const ir::Node& node, const ir::Graph& graph) {
  Result<LossPlan> p = PlanLoss(node, GraphInputs(node, graph));
  if (!p.ok() || !p->softmax || p->n * p->d == 0) return 0;
  return 2 * static_cast<uint64_t>(p->d) * DTypeSize(graph.value(node.inputs[0]).dtype);
}

// The C text of one loss term for the element at row n, position d (inside
// the loops of LossEmit): `loss` and `w` as doubles, for the reduction.
void EmitTerm(const LossPlan& p, const std::string& t, const std::string& index_t, std::string* body) {
  std::string& b = *body;
  const std::string cd = Num(p.c * p.d), dd = Num(p.d);
  b += "      const " + index_t + " t = in1[n * " + dd + " + d];\n";
  if (p.ignores) {
    b += "      if (t == " + (p.ignore_index == std::numeric_limits<int64_t>::min()
                                  ? std::string("INT64_MIN")
                                  : Num(p.ignore_index) + (index_t == "int64_t" ? "LL" : "")) +
         ") {\n";
    if (p.reduction == Reduction::kNone) b += "        out0[n * " + dd + " + d] = 0;\n";
    b += "        continue;\n      }\n";
  }
  b += "      /* Out of range is undefined in ONNX: clamp rather than read out of bounds. */\n";
  b += "      " + index_t + " k = t < 0 ? 0 : t;\n";
  b += "      if (k > " + Num(p.c - 1) + ") k = " + Num(p.c - 1) + ";\n";
  const std::string lp = "in0[n * " + cd + " + (size_t)k * " + dd + " + d]" + (p.softmax ? " - m[d]" : "");
  if (p.reduction == Reduction::kNone) {
    b += "      out0[n * " + dd + " + d] = " + (p.weighted ? "-(" + t + ")(" + lp + ") * in2[k]" : "-(" + lp + ")") +
         ";\n";
  } else {
    b += "      const double w = " + std::string(p.weighted ? "in2[k]" : "1.0") + ";\n";
    b += "      loss_sum += -(double)(" + t + ")(" + lp + ") * w;\n";
    if (p.reduction == Reduction::kMean) b += "      weight_sum += w;\n";
  }
}

Status LossEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(LossPlan p, PlanLoss(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType dtype = ctx.input(0).dtype;
  const std::string t = CType(dtype), index_t = CType(ctx.input(1).dtype);
  const std::string cd = Num(p.c * p.d), dd = Num(p.d), cc = Num(p.c);
  const bool log_prob = ctx.node.outputs.size() > 1;
  std::string& b = *body;
  if (p.reduction == Reduction::kSum) b += "  double loss_sum = 0;\n";
  if (p.reduction == Reduction::kMean) b += "  double loss_sum = 0, weight_sum = 0;\n";
  if (p.n * p.d > 0) {
    if (p.softmax) {
      b += "  " + t + "* restrict m = (" + t + "*)scratch;\n";
      b += "  " + t + "* restrict s = m + " + dd + ";\n";
    }
    b += "  for (size_t n = 0; n < " + Num(p.n) + "; ++n) {\n";
    if (p.softmax) {
      b += "    const " + t + "* restrict x = in0 + n * " + cd + ";\n";
      b += "    for (size_t d = 0; d < " + dd + "; ++d) {\n      m[d] = x[d];\n      s[d] = 0;\n    }\n";
      b += "    for (size_t c = 1; c < " + cc + "; ++c) {\n";
      b += "      for (size_t d = 0; d < " + dd + "; ++d) {\n";
      b += "        if (x[c * " + dd + " + d] > m[d]) m[d] = x[c * " + dd + " + d];\n      }\n    }\n";
      b += "    for (size_t c = 0; c < " + cc + "; ++c) {\n";
      b += "      for (size_t d = 0; d < " + dd + "; ++d) s[d] += " + MathFn(dtype, "exp") + "(x[c * " + dd +
           " + d] - m[d]);\n    }\n";
      b += "    for (size_t d = 0; d < " + dd + "; ++d) m[d] += " + MathFn(dtype, "log") + "(s[d]);\n";
      if (log_prob) {
        b += "    for (size_t c = 0; c < " + cc + "; ++c) {\n";
        b += "      for (size_t d = 0; d < " + dd + "; ++d) out1[n * " + cd + " + c * " + dd + " + d] = x[c * " + dd +
             " + d] - m[d];\n    }\n";
      }
    }
    b += "    for (size_t d = 0; d < " + dd + "; ++d) {\n";
    EmitTerm(p, t, index_t, body);
    b += "    }\n  }\n";
  }
  if (p.reduction == Reduction::kSum) b += "  out0[0] = (" + t + ")loss_sum;\n";
  if (p.reduction == Reduction::kMean) b += "  out0[0] = (" + t + ")(loss_sum / weight_sum);\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterLossOps(std::vector<OpDef>* table) {
  table->push_back({"NegativeLogLikelihoodLoss", LossInfer, LossEvaluate, LossEmit, nullptr, LossScratch});
  table->push_back({"SoftmaxCrossEntropyLoss", LossInfer, LossEvaluate, LossEmit, nullptr, LossScratch});
}

}  // namespace mlf::ops
