// Compress (opsets 9, 11): the slices of `input` along `axis` (or, without
// the attribute, the elements of the flattened input) whose entry of the
// 1-D bool `condition` is true, in order. Slices beyond the condition's
// length are dropped (ONNX); a condition longer than the axis is refused.
//
// The condition fixes the output's shape, so it must be a constant (the
// front end asks for it with --constant when it is a graph input). The
// selected indices are then known at export: the generated code copies
// blocks listed in a static table. Any dtype (the elements are copied).
#include <cstring>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct CompressPlan {
  int64_t outer = 1, length = 0, inner = 1;  // input as [outer, length, inner]
  std::vector<int64_t> selected;             // indices along the axis, ascending
  Shape out;
};

Result<CompressPlan> PlanCompress(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  const InputInfo& x = in[0];
  MLF_ASSIGN_OR_RETURN(const InputInfo* cond, RequiredInput(node, in, 1, "condition"));
  if (cond->dtype != DType::kBool) {
    return NodeError(node, std::string("input 1 (condition) must be bool, got ") + DTypeName(cond->dtype));
  }
  if (cond->shape.size() != 1) {
    return NodeError(node, "input 1 (condition) must be 1-D, got shape " + FormatShape(cond->shape));
  }
  if (cond->data == nullptr) return NodeError(node, "input 1 (condition) must be a constant");
  CompressPlan p;
  size_t axis = 0;
  if (node.HasAttr("axis")) {
    MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 0));
    MLF_ASSIGN_OR_RETURN(axis, NormalizeAxis(node, axis_attr, x.shape.size(), "axis"));
    p.outer = Product(x.shape, 0, axis);
    p.length = x.shape[axis];
    p.inner = Product(x.shape, axis + 1, x.shape.size());
    p.out = x.shape;
  } else {
    p.length = static_cast<int64_t>(Elements(x.shape));
  }
  if (cond->shape[0] > p.length) {
    return NodeError(node, "input 1 (condition) has " + Num(cond->shape[0]) + " entries, more than the " +
                               Num(p.length) + (node.HasAttr("axis") ? " slices along the axis" : " input elements"));
  }
  const uint8_t* c = cond->data->data<uint8_t>();
  for (int64_t k = 0; k < cond->shape[0]; ++k) {
    if (c[k] != 0) p.selected.push_back(k);
  }
  const int64_t count = static_cast<int64_t>(p.selected.size());
  if (node.HasAttr("axis")) {
    p.out[axis] = count;
  } else {
    p.out = {count};
  }
  return p;
}

Status CompressInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(CompressPlan p, PlanCompress(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status CompressEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                        std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(CompressPlan p, PlanCompress(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  const size_t es = DTypeSize(x.dtype), block = static_cast<size_t>(p.inner) * es;
  size_t at = 0;
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t k : p.selected) {
      std::memcpy(&y.bytes[at], &x.bytes[static_cast<size_t>(o * p.length + k) * block], block);
      at += block;
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status CompressEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(CompressPlan p, PlanCompress(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  const int64_t count = static_cast<int64_t>(p.selected.size());
  if (count > 0 && p.outer > 0 && p.inner > 0) {
    s += StaticTable("  ", IndexType(p.length), "selected", p.selected);
    s += "  for (size_t o = 0; o < " + Num(p.outer) + "; ++o) {\n";
    s += "    for (size_t k = 0; k < " + Num(count) + "; ++k) {\n";
    const std::string dst = "out0 + (o * " + Num(count) + " + k) * " + Num(p.inner);
    const std::string src = "in0 + (o * " + Num(p.length) + " + selected[k]) * " + Num(p.inner);
    if (p.inner == 1) {
      s += "      *(" + dst + ") = *(" + src + ");\n";
    } else {
      s += "      memcpy(" + dst + ", " + src + ", sizeof(*out0) * " + Num(p.inner) + ");\n";
    }
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterCompressOps(std::vector<OpDef>* table) {
  table->push_back({"Compress", CompressInfer, CompressEvaluate, CompressEmit});
}

}  // namespace mlf::ops
