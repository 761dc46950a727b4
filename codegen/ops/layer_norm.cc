// LayerNormalization (opset 17): each row of X viewed as [rows, n] with
// n = prod(X.shape[axis:]) is normalised, then scaled and shifted:
//
//   mean = sum(x) / n;  var = sum((x - mean)^2) / n;  inv = 1 / sqrt(var + epsilon)
//   Y = (T)((x - mean) * inv) * Scale + B
//
// Inputs X (float32/float64), Scale, optional B; Scale and B either hold one
// value or have the normalised shape X.shape[axis:] (leading 1s aside).
// Attributes axis (default -1), epsilon (1e-5), stash_type (1: the
// statistics are float32, 11: float64), which is also the dtype of the
// optional outputs Mean and InvStdDev (shape X.shape[:axis] + 1s). The
// variance is taken about the mean (two passes), which is what ONNX's
// E[x^2] - E[x]^2 means and more accurate.
#include <cmath>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct LayerNormPlan {
  int64_t rows = 1, n = 1;
  DType stash = DType::kFloat32;
  double epsilon = 1e-5;
  bool scale_scalar = false, bias_scalar = false;
  Shape stats;  // shape of Mean and InvStdDev
};

Shape DropLeadingOnes(const Shape& s) {
  size_t k = 0;
  while (k < s.size() && s[k] == 1) ++k;
  return Shape(s.begin() + static_cast<int64_t>(k), s.end());
}

// Whether input i (Scale or B) holds one value; an error unless it holds one
// value or has the normalised shape.
Result<bool> ScalarOrNormalized(const ir::Node& node, const InputInfo& v, size_t i, const std::string& what,
                                const Shape& normalized) {
  if (Elements(v.shape) == 1) return true;
  if (DropLeadingOnes(v.shape) != DropLeadingOnes(normalized)) {
    return NodeUnsupported(node, "input " + std::to_string(i) + " (" + what + ") of shape " +
                                     FormatShape(v.shape) + " broadcast to the normalized shape " +
                                     FormatShape(normalized) + " is not supported");
  }
  return false;
}

Result<LayerNormPlan> PlanLayerNorm(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 3, 1, 3));
  const InputInfo& x = in[0];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input X"));
  if (x.shape.empty()) return NodeError(node, "input 0 (X) must have rank 1 or more");
  MLF_RETURN_IF_ERROR(RequiredInput(node, in, 1, "Scale").status());
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", -1));
  MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, x.shape.size(), "axis"));
  LayerNormPlan p;
  MLF_ASSIGN_OR_RETURN(p.epsilon, node.Float("epsilon", 1e-5));
  MLF_ASSIGN_OR_RETURN(int64_t stash, node.Int("stash_type", 1));
  if (stash != 1 && stash != 11) {
    return NodeUnsupported(node, "stash_type " + std::to_string(stash) + " is not supported (1: float32, 11: float64)");
  }
  p.stash = stash == 1 ? DType::kFloat32 : DType::kFloat64;
  p.rows = Product(x.shape, 0, axis);
  p.n = Product(x.shape, axis, x.shape.size());
  const Shape normalized(x.shape.begin() + static_cast<int64_t>(axis), x.shape.end());
  for (size_t i = 1; i < 3; ++i) {
    if (!Has(in, i)) continue;
    const std::string what = i == 1 ? "Scale" : "B";
    if (in[i].dtype != x.dtype) {
      return NodeError(node, "input " + std::to_string(i) + " (" + what + ") has dtype " + DTypeName(in[i].dtype) +
                                 ", expected " + DTypeName(x.dtype) + " as X");
    }
    MLF_ASSIGN_OR_RETURN(bool scalar, ScalarOrNormalized(node, in[i], i, what, normalized));
    (i == 1 ? p.scale_scalar : p.bias_scalar) = scalar;
  }
  p.stats.assign(x.shape.begin(), x.shape.begin() + static_cast<int64_t>(axis));
  p.stats.resize(x.shape.size(), 1);
  return p;
}

Status LayerNormInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(LayerNormPlan p, PlanLayerNorm(node, in));
  SetOutput(node, graph, 0, in[0].dtype, in[0].shape);
  for (size_t j = 1; j < node.outputs.size(); ++j) SetOutput(node, graph, j, p.stash, p.stats);
  return Status::Ok();
}

// In double throughout; the generated code computes the statistics in the
// stash type (tests compare within a tolerance).
Status LayerNormEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                         std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(LayerNormPlan p, PlanLayerNorm(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const ir::HostTensor& scale = *inputs[1];
  const ir::HostTensor* bias = inputs.size() > 2 ? inputs[2] : nullptr;
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, x.shape);
  ir::HostTensor mean_t = ir::HostTensor::Zeros(p.stash, p.stats);
  ir::HostTensor inv_t = ir::HostTensor::Zeros(p.stash, p.stats);
  for (int64_t r = 0; r < p.rows; ++r) {
    const auto at = [&](int64_t i) { return static_cast<uint64_t>(r * p.n + i); };
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < p.n; ++i) sum += x.GetDouble(at(i));
    const double mean = sum / static_cast<double>(p.n);
    for (int64_t i = 0; i < p.n; ++i) sq += (x.GetDouble(at(i)) - mean) * (x.GetDouble(at(i)) - mean);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(p.n) + p.epsilon);
    for (int64_t i = 0; i < p.n; ++i) {
      const double s = scale.GetDouble(p.scale_scalar ? 0 : static_cast<uint64_t>(i));
      const double b = bias == nullptr ? 0 : bias->GetDouble(p.bias_scalar ? 0 : static_cast<uint64_t>(i));
      y.SetDouble(at(i), (x.GetDouble(at(i)) - mean) * inv * s + b);
    }
    mean_t.SetDouble(static_cast<uint64_t>(r), mean);
    inv_t.SetDouble(static_cast<uint64_t>(r), inv);
  }
  outputs->clear();
  outputs->push_back(std::move(y));
  if (node.outputs.size() > 1) outputs->push_back(std::move(mean_t));
  if (node.outputs.size() > 2) outputs->push_back(std::move(inv_t));
  return Status::Ok();
}

Status LayerNormEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(LayerNormPlan p, PlanLayerNorm(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType d = ctx.input(0).dtype;
  const std::string t = CType(d), s = CType(p.stash), n = Num(p.n);
  const bool bias = ctx.node.HasInput(2);
  std::string& b = *body;
  if (p.rows > 0) {
    b += "  for (size_t r = 0; r < " + Num(p.rows) + "; ++r) {\n";
    b += "    const " + t + "* restrict x = in0 + r * " + n + ";\n";
    b += "    " + s + " sum = 0, sq = 0;\n";
    b += "    for (size_t i = 0; i < " + n + "; ++i) sum += (" + s + ")x[i];\n";
    b += "    const " + s + " mean = sum / " + CLiteral(p.stash, static_cast<double>(p.n)) + ";\n";
    b += "    for (size_t i = 0; i < " + n + "; ++i) {\n";
    b += "      const " + s + " dev = (" + s + ")x[i] - mean;\n";
    b += "      sq += dev * dev;\n    }\n";
    b += "    const " + s + " inv = " + CLiteral(p.stash, 1.0) + " / " + MathFn(p.stash, "sqrt") + "(sq / " +
         CLiteral(p.stash, static_cast<double>(p.n)) + " + " + CLiteral(p.stash, p.epsilon) + ");\n";
    if (p.n > 0) {
      b += "    for (size_t i = 0; i < " + n + "; ++i) {\n";
      b += "      out0[r * " + n + " + i] = (" + t + ")(((" + s + ")x[i] - mean) * inv) * in1[" +
           (p.scale_scalar ? "0" : "i") + "]" + (bias ? std::string(" + in2[") + (p.bias_scalar ? "0" : "i") + "]" : "") +
           ";\n";
      b += "    }\n";
    }
    if (ctx.node.outputs.size() > 1) b += "    out1[r] = mean;\n";
    if (ctx.node.outputs.size() > 2) b += "    out2[r] = inv;\n";
    b += "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterLayerNormOps(std::vector<OpDef>* table) {
  table->push_back({"LayerNormalization", LayerNormInfer, LayerNormEvaluate, LayerNormEmit});
}

}  // namespace mlf::ops
