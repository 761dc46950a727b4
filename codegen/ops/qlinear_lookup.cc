// QLinearLookup: what the QDQ lowering makes of DequantizeLinear(x) ->
// a unary float operator (Sigmoid, HardSwish, LeakyRelu, Tanh, ...)
// [-> Relu | Clip] -> QuantizeLinear (codegen/passes/qdq_lowering.h): an int8
// or uint8 x takes 256 values, so the whole chain is a table of 256 output
// integers, made at export by evaluating the chain on every one of them;
// the run is one load per value, with no float arithmetic (on a Cortex-M,
// no expf).
//
// Inputs: x (int8 or uint8), table (a constant of 256 elements of the
// output's dtype, int8 or uint8: entry k is the output for x = k, or for
// x = k - 128 when x is int8). The node must carry quant::kFixedPointAttr
// (only the compiler sets mlf.* attributes; com.microsoft's QLinearSigmoid
// and QLinearLeakyRelu are read as DequantizeLinear -> Sigmoid | LeakyRelu
// -> QuantizeLinear and come here through the lowering).
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/qlinear_params.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {
namespace {

struct LookupPlan {
  DType x = DType::kUInt8, out = DType::kUInt8;
  const ir::HostTensor* table = nullptr;  // null while only shapes are known
};

Result<LookupPlan> PlanLookup(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_RETURN_IF_ERROR(RequireLowering(node));
  MLF_ASSIGN_OR_RETURN(const InputInfo* x, RequiredInput(node, in, 0, "input 0 (x)"));
  MLF_ASSIGN_OR_RETURN(const InputInfo* t, RequiredInput(node, in, 1, "input 1 (table)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, x->dtype, kQuantDTypes, "input 0 (x)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, t->dtype, kQuantDTypes, "input 1 (table)"));
  if (t->data == nullptr || t->shape != std::vector<int64_t>{256}) {
    return NodeError(node, "input 1 (table) must be a constant of shape [256], got " + FormatShape(t->shape));
  }
  LookupPlan p;
  p.x = x->dtype;
  p.out = t->dtype;
  p.table = t->data;
  return p;
}

Status LookupInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(LookupPlan p, PlanLookup(node, in));
  SetOutput(node, graph, 0, p.out, in[0].shape);
  return Status::Ok();
}

// The table's index of an x value: x itself, or x + 128 for int8.
uint64_t Index(DType x, int64_t v) { return static_cast<uint64_t>(x == DType::kInt8 ? v + 128 : v); }

Status LookupEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(LookupPlan p, PlanLookup(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, x.shape);
  for (uint64_t i = 0; i < x.element_count(); ++i) y.SetDouble(i, p.table->GetDouble(Index(p.x, x.GetInt(i))));
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// One load per value; an int8 x indexes with its sign bit flipped (x + 128).
Status LookupEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(LookupPlan p, PlanLookup(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const uint64_t n = Elements(ctx.input(0).shape);
  const std::string index = p.x == DType::kInt8 ? "(uint8_t)in0[i] ^ 0x80u" : "in0[i]";
  if (n > 0) *body += "  for (size_t i = 0; i < " + Num(static_cast<int64_t>(n)) + "; ++i) out0[i] = in1[" + index + "];\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterQLinearLookupOps(std::vector<OpDef>* table) {
  table->push_back({"QLinearLookup", LookupInfer, LookupEvaluate, LookupEmit});  // no macs, no scratch
}

}  // namespace mlf::ops
