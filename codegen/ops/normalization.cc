// Normalisations: Softmax and LogSoftmax (opset-13 semantics: one axis,
// default -1, numerically stable by subtracting the maximum) and
// BatchNormalization in its inference form
//   Y = scale * (X - mean) / sqrt(var + epsilon) + B   over channel axis 1.
//
// Softmax over the innermost axis works row by row in place in the output;
// over an outer axis it keeps running maxima and sums for the contiguous
// trailing block in scratch, so every innermost loop stays contiguous.
// evaluate() computes in double; the generated code in the element type.
#include <cmath>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

// ---------------------------------------------------------------------------
// Softmax, LogSoftmax

struct SoftmaxGeometry {
  uint64_t outer = 1;  // product of the axes before `axis`
  uint64_t n = 1;      // extent of `axis`
  uint64_t inner = 1;  // product of the axes after `axis`
};

Result<SoftmaxGeometry> Geometry(const ir::Node& node, const std::vector<int64_t>& shape) {
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", -1));
  MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, shape.size(), "axis"));
  SoftmaxGeometry g;
  for (size_t k = 0; k < shape.size(); ++k) {
    const uint64_t d = static_cast<uint64_t>(shape[k]);
    if (k < axis) g.outer *= d;
    else if (k == axis) g.n = d;
    else g.inner *= d;
  }
  return g;
}

Status InferSoftmax(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const ir::Value& x = graph.value(node.inputs[0]);
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input"));
  MLF_RETURN_IF_ERROR(Geometry(node, x.shape).status());
  SetOutput(node, graph, 0, x.dtype, x.shape);
  return Status::Ok();
}

Status EvaluateSoftmax(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                       std::vector<ir::HostTensor>* outputs) {
  if (inputs.empty() || inputs[0] == nullptr) {
    return Internal(node.Describe() + ": evaluate() called without its inputs");
  }
  const ir::HostTensor& x = *inputs[0];
  if (!IsFloatDType(x.dtype)) return NodeUnsupported(node, std::string("cannot evaluate dtype ") + DTypeName(x.dtype));
  MLF_ASSIGN_OR_RETURN(SoftmaxGeometry g, Geometry(node, x.shape));
  const bool log = node.op == "LogSoftmax";
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, x.shape);
  for (uint64_t o = 0; o < g.outer; ++o) {
    for (uint64_t j = 0; j < g.inner; ++j) {
      const uint64_t base = o * g.n * g.inner + j;
      double m = -INFINITY;
      for (uint64_t i = 0; i < g.n; ++i) {
        const double v = x.GetDouble(base + i * g.inner);
        if (v > m || std::isnan(v)) m = v;
      }
      double sum = 0;
      for (uint64_t i = 0; i < g.n; ++i) sum += std::exp(x.GetDouble(base + i * g.inner) - m);
      for (uint64_t i = 0; i < g.n; ++i) {
        const double v = x.GetDouble(base + i * g.inner) - m;
        y.SetDouble(base + i * g.inner, log ? v - std::log(sum) : std::exp(v) / sum);
      }
    }
  }
  outputs->clear();
  outputs->push_back(std::move(y));
  return Status::Ok();
}

bool SoftmaxUsesScratch(const SoftmaxGeometry& g) { return g.inner > 1 && g.n > 0 && g.outer > 0; }

uint64_t ScratchSoftmax(const ir::Node& node, const ir::Graph& graph) {
  const ir::Value& x = graph.value(node.inputs.at(0));
  Result<SoftmaxGeometry> g = Geometry(node, x.shape);
  if (!g.ok() || !SoftmaxUsesScratch(*g)) return 0;
  return 2 * g->inner * DTypeSize(x.dtype);
}

Status EmitSoftmax(const EmitContext& ctx, std::string* body) {
  const ir::Value& x = ctx.input(0);
  MLF_ASSIGN_OR_RETURN(SoftmaxGeometry g, Geometry(ctx.node, x.shape));
  const bool log = ctx.node.op == "LogSoftmax";
  const DType d = x.dtype;
  const std::string t = CType(d), zero = CLiteral(d, 0);
  const std::string exp = MathFn(d, "exp"), ln = MathFn(d, "log");
  const std::string n = std::to_string(g.n), inner = std::to_string(g.inner);
  std::string& s = *body;
  if (g.outer * g.n * g.inner == 0) {
    s += "  (void)in0;\n  (void)out0;\n";
    return Status::Ok();
  }
  s += "  for (size_t o = 0; o < " + std::to_string(g.outer) + "; ++o) {\n";
  s += "    const " + t + "* restrict x = in0 + o * " + std::to_string(g.n * g.inner) + ";\n";
  s += "    " + t + "* restrict y = out0 + o * " + std::to_string(g.n * g.inner) + ";\n";
  if (!SoftmaxUsesScratch(g)) {
    // The axis is innermost: one contiguous row per o.
    s += "    " + t + " m = x[0];\n";
    s += "    for (size_t i = 1; i < " + n + "; ++i) m = (x[i] > m || x[i] != x[i]) ? x[i] : m;\n";
    s += "    " + t + " sum = " + zero + ";\n";
    if (log) {
      s += "    for (size_t i = 0; i < " + n + "; ++i) sum += " + exp + "(x[i] - m);\n";
      s += "    const " + t + " ls = " + ln + "(sum);\n";
      s += "    for (size_t i = 0; i < " + n + "; ++i) y[i] = x[i] - m - ls;\n";
    } else {
      s += "    for (size_t i = 0; i < " + n + "; ++i) {\n";
      s += "      const " + t + " e = " + exp + "(x[i] - m);\n";
      s += "      y[i] = e;\n";
      s += "      sum += e;\n";
      s += "    }\n";
      s += "    for (size_t i = 0; i < " + n + "; ++i) y[i] = y[i] / sum;\n";
    }
    s += "  }\n";
    return Status::Ok();
  }
  // The axis has a contiguous block of `inner` elements after it: running
  // maxima (mx) and sums (sm) per block position live in scratch.
  s.insert(0, "  " + t + "* restrict mx = (" + t + "*)scratch;\n  " + t + "* restrict sm = mx + " + inner + ";\n");
  auto loop2 = [&](const std::string& stmt) {
    return "    for (size_t i = 0; i < " + n + "; ++i) {\n      for (size_t j = 0; j < " + inner +
           "; ++j) {\n" + stmt + "      }\n    }\n";
  };
  const std::string xij = "x[i * " + inner + " + j]", yij = "y[i * " + inner + " + j]";
  s += "    for (size_t j = 0; j < " + inner + "; ++j) mx[j] = x[j];\n";
  s += loop2("        const " + t + " v = " + xij + ";\n        mx[j] = (v > mx[j] || v != v) ? v : mx[j];\n");
  s += "    for (size_t j = 0; j < " + inner + "; ++j) sm[j] = " + zero + ";\n";
  if (log) {
    s += loop2("        sm[j] += " + exp + "(" + xij + " - mx[j]);\n");
    s += "    for (size_t j = 0; j < " + inner + "; ++j) sm[j] = mx[j] + " + ln + "(sm[j]);\n";
    s += loop2("        " + yij + " = " + xij + " - sm[j];\n");
  } else {
    s += loop2("        const " + t + " e = " + exp + "(" + xij + " - mx[j]);\n        " + yij +
               " = e;\n        sm[j] += e;\n");
    s += loop2("        " + yij + " = " + yij + " / sm[j];\n");
  }
  s += "  }\n";
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// BatchNormalization (inference)

const char* const kBnInputs[] = {"X", "scale", "B", "input_mean", "input_var"};

Status CheckBnAttributes(const ir::Node& node) {
  MLF_ASSIGN_OR_RETURN(int64_t training, node.Int("training_mode", 0));
  if (training != 0) return NodeUnsupported(node, "training_mode=1 is not supported; mlfkit compiles inference only");
  MLF_ASSIGN_OR_RETURN(int64_t spatial, node.Int("spatial", 1));
  if (spatial == 0) return NodeUnsupported(node, "spatial=0 (per-activation statistics) is not supported");
  return node.Float("epsilon", 1e-5).status();
}

Status InferBatchNorm(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckBnAttributes(node));
  if (node.outputs.size() > 1) {
    return NodeUnsupported(node, "has " + std::to_string(node.outputs.size()) +
                                     " outputs; only the inference form with one output (Y) is supported");
  }
  MLF_RETURN_IF_ERROR(CheckArity(node, 5, 5));
  for (size_t i = 0; i < 5; ++i) MLF_RETURN_IF_ERROR(CheckPresent(node, i, kBnInputs[i]));
  const ir::Value& x = graph.value(node.inputs[0]);
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input X"));
  if (x.shape.size() < 2) {
    return NodeError(node, "X must have rank 2 or more (N, C, ...), got shape " + FormatShape(x.shape));
  }
  const std::vector<int64_t> channels = {x.shape[1]};
  for (size_t i = 1; i < 5; ++i) {
    const ir::Value& p = graph.value(node.inputs[i]);
    MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype, kFloatDTypes,
                                   std::string(kBnInputs[i]) + " (input " + std::to_string(i) + ")"));
    if (p.shape != channels) {
      return NodeError(node, std::string(kBnInputs[i]) + " (input " + std::to_string(i) + ") has shape " +
                                 FormatShape(p.shape) + ", expected " + FormatShape(channels) +
                                 " (the channels of X " + FormatShape(x.shape) + ")");
    }
  }
  SetOutput(node, graph, 0, x.dtype, x.shape);
  return Status::Ok();
}

Status EvaluateBatchNorm(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                         std::vector<ir::HostTensor>* outputs) {
  if (inputs.size() < 5) return Internal(node.Describe() + ": evaluate() called without its inputs");
  for (const ir::HostTensor* in : inputs) {
    if (in == nullptr) return Internal(node.Describe() + ": evaluate() called without its inputs");
  }
  MLF_RETURN_IF_ERROR(CheckBnAttributes(node));
  MLF_ASSIGN_OR_RETURN(double eps, node.Float("epsilon", 1e-5));
  const ir::HostTensor& x = *inputs[0];
  if (x.shape.size() < 2 || !IsFloatDType(x.dtype)) return NodeError(node, "X must be a float tensor of rank 2 or more");
  const uint64_t c_count = static_cast<uint64_t>(x.shape[1]);
  for (size_t i = 1; i < 5; ++i) {
    if (inputs[i]->element_count() != c_count) return NodeError(node, std::string(kBnInputs[i]) + " does not match the channels of X");
  }
  uint64_t spatial = 1;
  for (size_t k = 2; k < x.shape.size(); ++k) spatial *= static_cast<uint64_t>(x.shape[k]);
  // Epsilon as the generated code sees it (a literal of X's dtype).
  const double e = x.dtype == DType::kFloat32 ? static_cast<double>(static_cast<float>(eps)) : eps;
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, x.shape);
  const uint64_t total = x.element_count();
  for (uint64_t i = 0; i < total; ++i) {
    const uint64_t c = (i / spatial) % c_count;
    const double v = inputs[1]->GetDouble(c) * (x.GetDouble(i) - inputs[3]->GetDouble(c)) /
                         std::sqrt(inputs[4]->GetDouble(c) + e) +
                     inputs[2]->GetDouble(c);
    y.SetDouble(i, v);
  }
  outputs->clear();
  outputs->push_back(std::move(y));
  return Status::Ok();
}

Status EmitBatchNorm(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(double eps, ctx.node.Float("epsilon", 1e-5));
  const ir::Value& x = ctx.input(0);
  const DType d = x.dtype;
  const std::string t = CType(d);
  const int64_t n = x.shape[0], c = x.shape[1];
  uint64_t spatial = 1;
  for (size_t k = 2; k < x.shape.size(); ++k) spatial *= static_cast<uint64_t>(x.shape[k]);
  std::string& s = *body;
  if (Elements(x.shape) == 0) {
    s += "  (void)in0;\n  (void)in1;\n  (void)in2;\n  (void)in3;\n  (void)in4;\n  (void)out0;\n";
    return Status::Ok();
  }
  const std::string S = std::to_string(spatial);
  s += "  for (size_t n = 0; n < " + std::to_string(n) + "; ++n) {\n";
  s += "    for (size_t c = 0; c < " + std::to_string(c) + "; ++c) {\n";
  s += "      const " + t + " a = (" + t + ")in1[c] / " + MathFn(d, "sqrt") + "((" + t + ")in4[c] + " +
       CLiteral(d, eps) + ");\n";
  s += "      const " + t + " mean = (" + t + ")in3[c];\n";
  s += "      const " + t + " b = (" + t + ")in2[c];\n";
  s += "      const " + t + "* restrict x = in0 + (n * " + std::to_string(c) + " + c) * " + S + ";\n";
  s += "      " + t + "* restrict y = out0 + (n * " + std::to_string(c) + " + c) * " + S + ";\n";
  s += "      for (size_t i = 0; i < " + S + "; ++i) y[i] = (x[i] - mean) * a + b;\n";
  s += "    }\n  }\n";
  return Status::Ok();
}

uint64_t MacsBatchNorm(const ir::Node& node, const ir::Graph& graph) {
  return Elements(graph.value(node.inputs.at(0)).shape);
}

}  // namespace

void RegisterNormalizationOps(std::vector<OpDef>* table) {
  table->push_back(OpDef{"Softmax", InferSoftmax, EvaluateSoftmax, EmitSoftmax, nullptr, ScratchSoftmax, false});
  table->push_back(OpDef{"LogSoftmax", InferSoftmax, EvaluateSoftmax, EmitSoftmax, nullptr, ScratchSoftmax, false});
  table->push_back(OpDef{"BatchNormalization", InferBatchNorm, EvaluateBatchNorm, EmitBatchNorm, MacsBatchNorm,
                         nullptr, false});
}

}  // namespace mlf::ops
