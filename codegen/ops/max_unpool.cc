// MaxUnpool (opsets 9, 11): the inverse of MaxPool with its Indices. X and
// I [N, C, D1...] (I int64, flat indices into the tensor MaxPool read, as
// MaxPool's Indices output gives them), attributes kernel_shape, strides
// (default 1), pads (default 0); the unpooled shape is [N, C, (Di - 1) *
// stride + kernel - pad_begin - pad_end ...]. Y is zero but for Y[I[e]] =
// X[e]. Optional input 2 output_shape (a constant: it fixes Y's shape) may be
// larger than the unpooled shape: the unpooled tensor then sits at the start
// of every axis of Y and the rest is zero (as ONNX's examples show).
//
// Run-time indices outside the unpooled tensor are undefined in ONNX:
// evaluate() and the generated code skip them (never writing out of
// bounds); duplicate indices keep the last value, in the order of X.
#include <cstring>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct UnpoolPlan {
  Shape unpooled, out;
};

Result<UnpoolPlan> PlanUnpool(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 3));
  const InputInfo& x = in[0];
  MLF_ASSIGN_OR_RETURN(const InputInfo* indices, RequiredInput(node, in, 1, "I"));
  if (x.shape.size() < 3) {
    return NodeError(node, "input 0 (X) must have rank 3 or more [N, C, D1, ...], got shape " + FormatShape(x.shape));
  }
  if (indices->dtype != DType::kInt64) {
    return NodeError(node, std::string("input 1 (I) must be int64, got ") + DTypeName(indices->dtype));
  }
  if (indices->shape != x.shape) {
    return NodeError(node, "input 1 (I) has shape " + FormatShape(indices->shape) + ", expected " +
                               FormatShape(x.shape) + " as X");
  }
  const size_t spatial = x.shape.size() - 2;
  if (!node.HasAttr("kernel_shape")) return NodeError(node, "attribute 'kernel_shape' is required");
  MLF_ASSIGN_OR_RETURN(Shape kernel, node.Ints("kernel_shape", {}));
  MLF_ASSIGN_OR_RETURN(Shape strides, node.Ints("strides", Shape(spatial, 1)));
  MLF_ASSIGN_OR_RETURN(Shape pads, node.Ints("pads", Shape(2 * spatial, 0)));
  if (kernel.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial) {
    return NodeError(node, "kernel_shape, strides and pads must have " + std::to_string(spatial) + ", " +
                               std::to_string(spatial) + " and " + std::to_string(2 * spatial) +
                               " values for X of shape " + FormatShape(x.shape));
  }
  UnpoolPlan p;
  p.unpooled = {x.shape[0], x.shape[1]};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t size = (x.shape[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + spatial];
    if (kernel[d] < 1 || strides[d] < 1 || size < 0) {
      return NodeError(node, "kernel_shape " + FormatShape(kernel) + ", strides " + FormatShape(strides) +
                                 " and pads " + FormatShape(pads) + " give no output for X of shape " +
                                 FormatShape(x.shape));
    }
    p.unpooled.push_back(size);
  }
  p.out = p.unpooled;
  if (Has(in, 2)) {
    MLF_ASSIGN_OR_RETURN(Shape shape, ConstantInts(node, in, 2, "output_shape"));
    bool fits = shape.size() == p.unpooled.size() && shape[0] == p.unpooled[0] && shape[1] == p.unpooled[1];
    for (size_t d = 0; fits && d < shape.size(); ++d) fits = shape[d] >= p.unpooled[d];
    if (!fits) {
      return NodeError(node, "input 2 (output_shape) " + FormatShape(shape) + " must keep N and C and hold the " +
                                 "unpooled shape " + FormatShape(p.unpooled));
    }
    p.out = shape;
  }
  return p;
}

Status UnpoolInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(UnpoolPlan p, PlanUnpool(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

// Where flat index k of the unpooled tensor lies in Y.
int64_t OutOffset(const UnpoolPlan& p, int64_t k) {
  const Shape at = Unravel(static_cast<uint64_t>(k), p.unpooled);
  const Shape strides = Strides(p.out);
  int64_t offset = 0;
  for (size_t d = 0; d < at.size(); ++d) offset += at[d] * strides[d];
  return offset;
}

Status UnpoolEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(UnpoolPlan p, PlanUnpool(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const std::vector<int64_t> indices = inputs[1]->ToInts();
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  const int64_t total = static_cast<int64_t>(Elements(p.unpooled));
  const size_t es = DTypeSize(x.dtype);
  for (size_t e = 0; e < indices.size(); ++e) {
    if (indices[e] < 0 || indices[e] >= total) continue;
    std::memcpy(&y.bytes[static_cast<size_t>(OutOffset(p, indices[e])) * es], &x.bytes[e * es], es);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status UnpoolEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(UnpoolPlan p, PlanUnpool(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  const uint64_t out_elements = Elements(p.out), in_elements = Elements(ctx.input(0).shape);
  const int64_t total = static_cast<int64_t>(Elements(p.unpooled));
  if (out_elements > 0) s += "  memset(out0, 0, sizeof(*out0) * " + Num(static_cast<int64_t>(out_elements)) + ");\n";
  if (in_elements > 0 && total > 0) {
    s += "  for (size_t e = 0; e < " + Num(static_cast<int64_t>(in_elements)) + "; ++e) {\n";
    s += "    /* Out of range is undefined in ONNX: skip rather than write out of bounds. */\n";
    s += "    if (in1[e] < 0 || in1[e] >= " + Num(total) + ") continue;\n";
    if (p.out == p.unpooled) {
      s += "    out0[in1[e]] = in0[e];\n";
    } else {
      // Unravel in the unpooled shape, ravel in Y's.
      const Shape in_strides = Strides(p.unpooled), out_strides = Strides(p.out);
      s += "    size_t k = (size_t)in1[e], o = 0;\n";
      for (size_t d = 0; d < p.out.size(); ++d) {
        s += "    o += k / " + Num(in_strides[d]) + " * " + Num(out_strides[d]) + ";\n";
        if (d + 1 < p.out.size()) s += "    k %= " + Num(in_strides[d]) + ";\n";
      }
      s += "    out0[o] = in0[e];\n";
    }
    s += "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterMaxUnpoolOps(std::vector<OpDef>* table) {
  table->push_back({"MaxUnpool", UnpoolInfer, UnpoolEvaluate, UnpoolEmit});
}

}  // namespace mlf::ops
