// QLinearAdd: the integer addition the QDQ lowering makes of
// DequantizeLinear(a), DequantizeLinear(b) -> Add [-> Relu | Clip] ->
// QuantizeLinear (codegen/passes/qdq_lowering.h), a residual connection of an
// int8 network kept in integers instead of three float passes over it.
//
// Inputs as com.microsoft's QLinearAdd lays them out: a, a_scale,
// a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point; a and b
// int8 or uint8 of one shape (no broadcasting), every scale and zero point a
// constant of one element, y's dtype its zero point's. The rule is
// requantize.h's AddRule (two integer multipliers of one common shift, one
// rounding), chosen at export. The node must carry quant::kFixedPointAttr
// (only the compiler sets mlf.* attributes): an ONNX model's com.microsoft
// QLinearAdd is read as DequantizeLinear -> Add -> QuantizeLinear by the
// front end and reaches this operator only through the lowering, which also
// folds an activation into quant::kClampAttr.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/qlinear_params.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {
namespace {

// Everything the three phases need, from the inputs and attributes.
struct AddPlan {
  quant::AddRule rule;
  int64_t za = 0, zb = 0, zy = 0;
  DType out = DType::kUInt8;
  quant::QRange clamp;
};

Result<AddPlan> PlanAdd(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 8, 8));
  MLF_RETURN_IF_ERROR(RequireLowering(node));
  MLF_ASSIGN_OR_RETURN(const InputInfo* a, RequiredInput(node, in, 0, "input 0 (a)"));
  MLF_ASSIGN_OR_RETURN(const InputInfo* b, RequiredInput(node, in, 3, "input 3 (b)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, a->dtype, kQuantDTypes, "input 0 (a)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, b->dtype, kQuantDTypes, "input 3 (b)"));
  if (a->shape != b->shape) {
    return NodeError(node, "input 0 (a) has shape " + FormatShape(a->shape) + ", but input 3 (b) has " +
                               FormatShape(b->shape) + "; QLinearAdd does not broadcast");
  }
  const char* names[] = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"};
  const ir::HostTensor* p[8] = {};
  for (size_t i : {1, 2, 4, 5, 6, 7}) {
    MLF_ASSIGN_OR_RETURN(p[i], ScalarParam(node, in, i, names[i]));
  }
  for (size_t i : {1, 4, 6}) {
    MLF_RETURN_IF_ERROR(CheckDType(node, p[i]->dtype, {DType::kFloat32}, "input " + std::to_string(i) + " (" +
                                                                            names[i] + ")"));
  }
  MLF_RETURN_IF_ERROR(CheckDType(node, p[2]->dtype, {a->dtype}, "input 2 (a_zero_point)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[5]->dtype, {b->dtype}, "input 5 (b_zero_point)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[7]->dtype, kQuantDTypes, "input 7 (y_zero_point)"));
  AddPlan plan;
  if (!quant::MakeAddRule(p[1]->data<float>()[0], p[4]->data<float>()[0], p[6]->data<float>()[0], &plan.rule)) {
    return NodeError(node, "the scales give no integer rule: a_scale / y_scale and b_scale / y_scale must be "
                           "positive and at most 256");
  }
  plan.za = p[2]->GetInt(0);
  plan.zb = p[5]->GetInt(0);
  plan.zy = p[7]->GetInt(0);
  plan.out = p[7]->dtype;
  MLF_ASSIGN_OR_RETURN(plan.clamp, OutputRange(node, plan.out));
  return plan;
}

Status AddInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(AddPlan p, PlanAdd(node, in));
  SetOutput(node, graph, 0, p.out, in[0].shape);
  return Status::Ok();
}

// The reference: one element at a time through quant::AddFixed.
Status AddEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(AddPlan p, PlanAdd(node, TensorInputs(inputs)));
  const ir::HostTensor &a = *inputs[0], &b = *inputs[3];
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, a.shape);
  for (uint64_t i = 0; i < a.element_count(); ++i) {
    const auto da = static_cast<int32_t>(a.GetInt(i) - p.za), db = static_cast<int32_t>(b.GetInt(i) - p.zb);
    const int64_t q = quant::AddFixed(da, db, p.rule) + p.zy;
    y.SetDouble(i, static_cast<double>(std::max(p.clamp.min, std::min(p.clamp.max, q))));
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// Through the kernel family add_s8 (the rule's integer steps on every
// value, vectorised on x86), its constants written in.
Status AddEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(AddPlan p, PlanAdd(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const uint64_t n = Elements(ctx.input(0).shape);
  if (n > 0) {
    ctx.UseKernel("add_s8");
    const std::vector<std::pair<std::string, std::string>> fields = {
        {"a", "in0"},
        {"b", "in3"},
        {"y", "out0"},
        {"a_signed", ctx.input(0).dtype == DType::kInt8 ? "1" : "0"},
        {"b_signed", ctx.input(3).dtype == DType::kInt8 ? "1" : "0"},
        {"za", Num(p.za)},
        {"zb", Num(p.zb)},
        {"ma", Num(p.rule.ma)},
        {"mb", Num(p.rule.mb)},
        {"shift", Num(p.rule.shift)},
        {"zy", Num(p.zy)},
        {"lo", Num(p.clamp.min)},
        {"hi", Num(p.clamp.max)}};
    *body += "  mlfk_add_s8_args g;\n";
    for (const auto& [field, value] : fields) *body += "  g." + field + " = " + value + ";\n";
    *body += "  mlfk_add_s8_exec(" + std::string(EmitContext::kExec) + ", &g, " + Num(static_cast<int64_t>(n)) + ");\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterQLinearAddOps(std::vector<OpDef>* table) {
  // Elementwise: no macs, no scratch.
  table->push_back({"QLinearAdd", AddInfer, AddEvaluate, AddEmit});
}

}  // namespace mlf::ops
