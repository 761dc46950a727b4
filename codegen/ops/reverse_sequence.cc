// ReverseSequence (opset 10): input [T, B, ...] (time_axis 0, batch_axis 1,
// the defaults) or [B, T, ...] (time_axis 1, batch_axis 0), any dtype;
// sequence_lens [B] int64 (run time): batch element b has its first L steps
// reversed (out[t] = in[L - 1 - t] for t < L) and the rest copied. Lengths
// outside [0, T] are undefined in ONNX: evaluate() and the generated code
// clamp them to [0, T] (never reading out of bounds).
#include <algorithm>
#include <cstring>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct ReversePlan {
  bool batch_major = false;  // [B, T, ...]
  int64_t steps = 0, batch = 0, inner = 1;
};

Result<ReversePlan> PlanReverse(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  const InputInfo& x = in[0];
  MLF_ASSIGN_OR_RETURN(const InputInfo* lens, RequiredInput(node, in, 1, "sequence_lens"));
  if (x.shape.size() < 2) {
    return NodeError(node, "input 0 (input) must have rank 2 or more, got shape " + FormatShape(x.shape));
  }
  MLF_ASSIGN_OR_RETURN(int64_t time_attr, node.Int("time_axis", 0));
  MLF_ASSIGN_OR_RETURN(int64_t batch_attr, node.Int("batch_axis", 1));
  if (!((time_attr == 0 && batch_attr == 1) || (time_attr == 1 && batch_attr == 0))) {
    return NodeError(node, "time_axis " + std::to_string(time_attr) + " and batch_axis " + std::to_string(batch_attr) +
                               " are invalid (0 and 1, or 1 and 0)");
  }
  ReversePlan p;
  p.batch_major = time_attr == 1;
  p.steps = x.shape[p.batch_major ? 1 : 0];
  p.batch = x.shape[p.batch_major ? 0 : 1];
  p.inner = Product(x.shape, 2, x.shape.size());
  if (lens->dtype != DType::kInt64 && lens->dtype != DType::kInt32) {
    return NodeError(node, std::string("input 1 (sequence_lens) must be int32 or int64, got ") + DTypeName(lens->dtype));
  }
  if (lens->shape != Shape{p.batch}) {
    return NodeError(node, "input 1 (sequence_lens) has shape " + FormatShape(lens->shape) + ", expected " +
                               FormatShape({p.batch}));
  }
  return p;
}

Status ReverseInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_RETURN_IF_ERROR(PlanReverse(node, in).status());
  SetOutput(node, graph, 0, in[0].dtype, in[0].shape);
  return Status::Ok();
}

// Element offset of step t of batch element b.
int64_t Offset(const ReversePlan& p, int64_t t, int64_t b) {
  return (p.batch_major ? b * p.steps + t : t * p.batch + b) * p.inner;
}

Status ReverseEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                       std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ReversePlan p, PlanReverse(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const std::vector<int64_t> lens = inputs[1]->ToInts();
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, x.shape);
  const size_t es = DTypeSize(x.dtype);
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t len = std::clamp(lens[static_cast<size_t>(b)], int64_t{0}, p.steps);
    for (int64_t t = 0; t < p.steps; ++t) {
      const int64_t src = t < len ? len - 1 - t : t;
      std::memcpy(&y.bytes[static_cast<size_t>(Offset(p, t, b)) * es], &x.bytes[static_cast<size_t>(Offset(p, src, b)) * es],
                  static_cast<size_t>(p.inner) * es);
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ReverseEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ReversePlan p, PlanReverse(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  if (p.steps * p.batch * p.inner > 0) {
    const std::string lens_t = CType(ctx.input(1).dtype);
    const auto offset = [&](const std::string& t) {
      return p.batch_major ? "(b * " + Num(p.steps) + " + " + t + ") * " + Num(p.inner)
                           : "(" + t + " * " + Num(p.batch) + " + b) * " + Num(p.inner);
    };
    s += "  for (size_t b = 0; b < " + Num(p.batch) + "; ++b) {\n";
    s += "    /* Lengths outside [0, T] are undefined in ONNX: clamp rather than read out of bounds. */\n";
    s += "    " + lens_t + " len = in1[b] < 0 ? 0 : in1[b];\n";
    s += "    if (len > " + Num(p.steps) + ") len = " + Num(p.steps) + ";\n";
    s += "    for (size_t t = 0; t < " + Num(p.steps) + "; ++t) {\n";
    s += "      const size_t src = (" + lens_t + ")t < len ? (size_t)len - 1 - t : t;\n";
    s += "      memcpy(out0 + " + offset("t") + ", in0 + " + offset("src") + ", sizeof(*out0) * " + Num(p.inner) + ");\n";
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterReverseSequenceOps(std::vector<OpDef>* table) {
  table->push_back({"ReverseSequence", ReverseInfer, ReverseEvaluate, ReverseEmit});
}

}  // namespace mlf::ops
