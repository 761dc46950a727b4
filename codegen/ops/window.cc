// The window functions of opset 17, generalised cosine windows of `size`
// samples (input 0, a constant int32/int64 scalar: it fixes the output's
// length):
//
//   HannWindow      0.5 - 0.5 cos(2 pi k / N)
//   HammingWindow   25/46 - 21/46 cos(2 pi k / N)
//   BlackmanWindow  0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N)
//
// for k < size, with N = size (periodic=1, the default) or size - 1
// (periodic=0, symmetric; a symmetric window of one sample is 0/0 in ONNX's
// formula: NaN, as its reference computes). Attribute output_datatype 1
// (float32, the default) or 11 (float64).
//
// The values depend on the size only, so they are computed here in double
// and the generated code copies them from a static table (evaluate and the
// generated code agree bit for bit).
#include <cmath>
#include <cstring>
#include <limits>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

struct WindowPlan {
  DType dtype = DType::kFloat32;
  std::vector<double> values;
};

// The cosine coefficients a0, a1, a2 of the window: a0 - a1 cos(x) + a2 cos(2x).
void Coefficients(const std::string& op, double a[3]) {
  if (op == "HannWindow") {
    a[0] = 0.5, a[1] = 0.5, a[2] = 0;
  } else if (op == "HammingWindow") {
    a[0] = 25.0 / 46.0, a[1] = 1 - 25.0 / 46.0, a[2] = 0;
  } else {  // BlackmanWindow
    a[0] = 0.42, a[1] = 0.5, a[2] = 0.08;
  }
}

Result<WindowPlan> PlanWindow(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const InputInfo& size = in[0];
  if (size.dtype != DType::kInt32 && size.dtype != DType::kInt64) {
    return NodeError(node, std::string("input 0 (size) must be int32 or int64, got ") + DTypeName(size.dtype));
  }
  if (size.data == nullptr) return NodeError(node, "input 0 (size) must be a constant");
  if (Elements(size.shape) != 1) {
    return NodeError(node, "input 0 (size) must hold one value, got shape " + FormatShape(size.shape));
  }
  const int64_t n = size.data->ToInts()[0];
  if (n < 0) return NodeError(node, "input 0 (size) is " + std::to_string(n) + ", expected 0 or more");
  WindowPlan p;
  MLF_ASSIGN_OR_RETURN(int64_t type, node.Int("output_datatype", 1));
  if (type != 1 && type != 11) {
    return NodeUnsupported(node, "output_datatype " + std::to_string(type) +
                                     " is not supported (1: float32, 11: float64)");
  }
  p.dtype = type == 1 ? DType::kFloat32 : DType::kFloat64;
  MLF_ASSIGN_OR_RETURN(int64_t periodic, node.Int("periodic", 1));
  if (periodic != 0 && periodic != 1) {
    return NodeError(node, "periodic " + std::to_string(periodic) + " is invalid (0 or 1)");
  }
  double a[3];
  Coefficients(node.op, a);
  const double period = static_cast<double>(periodic == 1 ? n : n - 1);
  const double pi = std::acos(-1.0);
  for (int64_t k = 0; k < n; ++k) {
    const double x = 2 * pi * static_cast<double>(k) / period;
    const double v = a[0] - a[1] * std::cos(x) + a[2] * std::cos(2 * x);
    // One NaN (0/0 gives -NaN on x86): the table's literal is +NaN.
    p.values.push_back(std::isnan(v) ? std::numeric_limits<double>::quiet_NaN() : v);
  }
  return p;
}

Status WindowInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(WindowPlan p, PlanWindow(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, {static_cast<int64_t>(p.values.size())});
  return Status::Ok();
}

Status WindowEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(WindowPlan p, PlanWindow(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, {static_cast<int64_t>(p.values.size())});
  for (size_t k = 0; k < p.values.size(); ++k) y.SetDouble(k, p.values[k]);
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status WindowEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(WindowPlan p, PlanWindow(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (!p.values.empty()) {
    *body += StaticFloatTable("  ", p.dtype, "window", p.values);
    *body += "  memcpy(out0, window, sizeof(window));\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterWindowOps(std::vector<OpDef>* table) {
  for (const char* name : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    table->push_back({name, WindowInfer, WindowEvaluate, WindowEmit});
  }
}

}  // namespace mlf::ops
