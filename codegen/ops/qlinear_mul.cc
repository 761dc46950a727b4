// QLinearMul: the integer product the QDQ lowering makes of
// DequantizeLinear(a) * DequantizeLinear(b) [-> Relu | Clip] ->
// QuantizeLinear (codegen/passes/qdq_lowering.h): a gate of an int8 network
// (a squeeze-and-excitation block's x * s, with s broadcast per channel)
// kept in integers.
//
// Inputs as com.microsoft's QLinearMul lays them out: a, a_scale,
// a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point; a and b
// int8 or uint8, broadcast as numpy does, every scale and zero point a
// constant of one element, y's dtype its zero point's.
//
//   y = clamp(zy + FixedMultiplyHalfEven((a - za) * (b - zb)))
//
// with the fixed-point multiplier of a_scale * b_scale / y_scale
// (requantize.h: the product, at most 255^2, is exact in int32; one
// rounding, ties to even as ONNX's QuantizeLinear). The node must carry
// quant::kFixedPointAttr (only the compiler sets mlf.* attributes; a
// model's com.microsoft QLinearMul is read as DequantizeLinear -> Mul ->
// QuantizeLinear and comes here through the lowering).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/broadcast.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/qlinear_params.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {
namespace {

struct MulPlan {
  quant::FixedMultiplier f;
  int64_t za = 0, zb = 0, zy = 0;
  DType out = DType::kUInt8;
  quant::QRange clamp;
  BroadcastPlan shape;
};

Result<MulPlan> PlanMul(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 8, 8));
  MLF_RETURN_IF_ERROR(RequireLowering(node));
  MLF_ASSIGN_OR_RETURN(const InputInfo* a, RequiredInput(node, in, 0, "input 0 (a)"));
  MLF_ASSIGN_OR_RETURN(const InputInfo* b, RequiredInput(node, in, 3, "input 3 (b)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, a->dtype, kQuantDTypes, "input 0 (a)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, b->dtype, kQuantDTypes, "input 3 (b)"));
  MulPlan plan;
  Result<BroadcastPlan> shape = PlanBroadcast({a->shape, b->shape});
  if (!shape.ok()) return NodeError(node, shape.status().message());
  plan.shape = std::move(*shape);
  const char* names[] = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"};
  const ir::HostTensor* p[8] = {};
  for (size_t i : {2, 5, 7}) {
    MLF_ASSIGN_OR_RETURN(p[i], ScalarParam(node, in, i, names[i]));
  }
  MLF_ASSIGN_OR_RETURN(const float sa, ScaleParam(node, in, 1, names[1]));
  MLF_ASSIGN_OR_RETURN(const float sb, ScaleParam(node, in, 4, names[4]));
  MLF_ASSIGN_OR_RETURN(const float sy, ScaleParam(node, in, 6, names[6]));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[2]->dtype, {a->dtype}, "input 2 (a_zero_point)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[5]->dtype, {b->dtype}, "input 5 (b_zero_point)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[7]->dtype, kQuantDTypes, "input 7 (y_zero_point)"));
  plan.f = quant::QuantizeMultiplier(static_cast<double>(sa) * sb / sy);
  plan.za = p[2]->GetInt(0);
  plan.zb = p[5]->GetInt(0);
  plan.zy = p[7]->GetInt(0);
  plan.out = p[7]->dtype;
  MLF_ASSIGN_OR_RETURN(plan.clamp, OutputRange(node, plan.out));
  return plan;
}

Status MulInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(MulPlan p, PlanMul(node, in));
  SetOutput(node, graph, 0, p.out, p.shape.out);
  return Status::Ok();
}

// The reference: each product through quant::FixedMultiplyHalfEven.
Status MulEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(MulPlan p, PlanMul(node, TensorInputs(inputs)));
  const ir::HostTensor &a = *inputs[0], &b = *inputs[3];
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, p.shape.out);
  const std::vector<std::vector<uint64_t>> at = p.shape.nest.Offsets();
  for (size_t i = 0; i < at[0].size(); ++i) {
    const int64_t product = (a.GetInt(at[1][i]) - p.za) * (b.GetInt(at[2][i]) - p.zb);
    y.SetDouble(at[0][i], static_cast<double>(quant::RequantizeHalfEven(static_cast<int32_t>(product), p.f, p.zy, p.clamp)));
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// The broadcast loop nest, each element the fixed-point step with ties to
// even, as evaluate.
Status MulEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(MulPlan p, PlanMul(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const std::string yt = CType(p.out);
  *body += p.shape.nest.Emit([&](const std::vector<std::string>& at) {
    const std::string product = "((int64_t)in0[" + at[1] + "] - " + Num(p.za) + ") * ((int64_t)in3[" + at[2] +
                                "] - " + Num(p.zb) + ")";
    std::string s = quant::EmitFixedMultiplyHalfEven("", "out0[" + at[0] + "]", yt, product, p.f, p.zy, p.clamp);
    s.pop_back();  // the nest adds its own line end
    return s;
  });
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterQLinearMulOps(std::vector<OpDef>* table) {
  // No macs, no scratch.
  table->push_back({"QLinearMul", MulInfer, MulEvaluate, MulEmit});
}

}  // namespace mlf::ops
