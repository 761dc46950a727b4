// Gather: slices of input 0 (data) along `axis`, picked by the int32/int64
// indices of input 1, which may be constant or computed at run time.
// Negative indices count from the end. Out-of-range indices are undefined in
// ONNX: infer() refuses constant ones and evaluate() reports them, while the
// generated code clamps them rather than read out of bounds.
//
// This file is the example to copy when adding an operator (codegen/ops/
// README.md, "Adding an operator"). Its shape: a plan that checks the node and
// derives everything from the inputs as InputInfo, shared by infer, evaluate
// and emit so that they cannot disagree; the entry points of op.h's OpDef;
// the Register function, listed in registry.cc.
#include <cstring>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

// Gather as three nested loops over the data viewed as [outer, dim, inner]:
// for each of `outer`, for each of the `count` indices k, copy the `inner`
// elements at data[o, k, :].
struct GatherPlan {
  size_t axis = 0;  // normalised
  Shape out;        // data.shape[:axis] + indices.shape + data.shape[axis + 1:]
  int64_t outer = 1, dim = 0, inner = 1, count = 0;
};

Status CheckIndex(const ir::Node& node, int64_t index, const GatherPlan& p) {
  if (index < -p.dim || index >= p.dim) {
    return NodeError(node, "index " + std::to_string(index) + " is out of range for axis " +
                               std::to_string(p.axis) + " of size " + std::to_string(p.dim));
  }
  return Status::Ok();
}

Result<GatherPlan> PlanGather(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_ASSIGN_OR_RETURN(const InputInfo* indices, RequiredInput(node, in, 1, "indices"));
  if (indices->dtype != DType::kInt32 && indices->dtype != DType::kInt64) {
    return NodeError(node, std::string("input 1 (indices) must be int32 or int64, got ") +
                               DTypeName(indices->dtype));
  }
  const Shape& x = in[0].shape;
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 0));
  GatherPlan p;
  MLF_ASSIGN_OR_RETURN(p.axis, NormalizeAxis(node, axis_attr, x.size(), "axis"));
  p.outer = Product(x, 0, p.axis);
  p.dim = x[p.axis];
  p.inner = Product(x, p.axis + 1, x.size());
  p.count = Product(indices->shape, 0, indices->shape.size());
  p.out.assign(x.begin(), x.begin() + static_cast<int64_t>(p.axis));
  p.out.insert(p.out.end(), indices->shape.begin(), indices->shape.end());
  p.out.insert(p.out.end(), x.begin() + static_cast<int64_t>(p.axis) + 1, x.end());
  if (p.dim == 0 && p.outer * p.count * p.inner > 0) {
    return NodeError(node, "cannot gather from axis " + std::to_string(p.axis) + " of size 0");
  }
  if (indices->data != nullptr) {
    for (int64_t index : indices->data->ToInts()) MLF_RETURN_IF_ERROR(CheckIndex(node, index, p));
  }
  return p;
}

Status GatherInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(GatherPlan p, PlanGather(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status GatherEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(GatherPlan p, PlanGather(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const std::vector<int64_t> indices = inputs[1]->ToInts();
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  const size_t es = DTypeSize(x.dtype);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t j = 0; j < p.count; ++j) {
      const int64_t index = indices[static_cast<size_t>(j)];
      const int64_t k = index < 0 ? index + p.dim : index;  // in range: PlanGather checked it
      for (int64_t e = 0; e < p.inner; ++e) {
        const size_t dst = static_cast<size_t>((o * p.count + j) * p.inner + e);
        const size_t src = static_cast<size_t>((o * p.dim + k) * p.inner + e);
        std::memcpy(&y.bytes[dst * es], &x.bytes[src * es], es);
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status GatherEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(GatherPlan p, PlanGather(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (p.outer * p.count * p.inner == 0) {  // nothing to copy
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  const std::string k_type = ctx.input(1).dtype == DType::kInt32 ? "int32_t" : "int64_t";
  std::string ind = "  ";
  Terms dst = {{"j", p.inner}}, src = {{"(size_t)k", p.inner}};
  if (p.outer > 1) {
    *body += ind + "for (size_t o = 0; o < " + Num(p.outer) + "; ++o) {\n";
    ind += "  ";
    dst.insert(dst.begin(), {"o", p.count * p.inner});
    src.insert(src.begin(), {"o", p.dim * p.inner});
  }
  *body += ind + "for (size_t j = 0; j < " + Num(p.count) + "; ++j) {\n";
  *body += ind + "  " + k_type + " k = in1[j];\n";
  *body += ind + "  if (k < 0) k += " + Num(p.dim) + ";\n";
  *body += ind + "  /* Out of range is undefined in ONNX: clamp rather than read out of bounds. */\n";
  *body += ind + "  if (k < 0) k = 0;\n";
  *body += ind + "  if (k > " + Num(p.dim - 1) + ") k = " + Num(p.dim - 1) + ";\n";
  if (p.inner == 1) {
    *body += ind + "  out0[" + IndexExpr(0, dst) + "] = in0[" + IndexExpr(0, src) + "];\n";
  } else {
    *body += ind + "  memcpy(out0 + " + IndexExpr(0, dst) + ", in0 + " + IndexExpr(0, src) + ", " +
             Num(p.inner) + " * sizeof(*out0));\n";
  }
  *body += ind + "}\n";
  if (p.outer > 1) *body += "  }\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterGatherOps(std::vector<OpDef>* table) {
  // No macs (it only moves data) and no scratch (it writes its output directly).
  table->push_back({"Gather", GatherInfer, GatherEvaluate, GatherEmit});
}

}  // namespace mlf::ops
