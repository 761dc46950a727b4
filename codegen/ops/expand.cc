// Operators that rearrange or replicate their input without computing on it,
// each one strided copy from input 0 to output 0 (op_util.h StridedCopy):
//
//   Expand         broadcast to the constant shape of input 1 (numpy rules,
//                  both ways: the output is broadcast(X.shape, shape));
//   Tile           the constant repeats of input 1 (one per axis, >= 0);
//   DepthToSpace   rank 4 NCHW, attribute blocksize, mode DCR (default) or CRD;
//   SpaceToDepth   rank 4 NCHW, attribute blocksize.
//
// Every dtype is supported (elements are copied as they are). The copy is
// described once, in the plan: the output's dimensions in C order with the
// matching source strides (0 where an input element is repeated); evaluate()
// walks it element by element, emit() hands it to EmitStridedCopy.
#include <cstring>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct CopyPlan {
  Shape out;
  std::vector<CopyDim> dims;  // over the output, outer to inner
};

// The copy dimensions of a reordering: `lens` and `src` strides in the order
// the output is written (contiguously).
std::vector<CopyDim> OutputOrder(const Shape& lens, const Shape& src) {
  std::vector<CopyDim> dims(lens.size());
  int64_t stride = 1;
  for (size_t k = lens.size(); k-- > 0;) {
    dims[k] = {lens[k], src[k], stride};
    stride *= lens[k];
  }
  return dims;
}

Result<CopyPlan> PlanExpand(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_ASSIGN_OR_RETURN(Shape shape, ConstantInts(node, in, 1, "shape"));
  const Shape& x = in[0].shape;
  const size_t rank = std::max(x.size(), shape.size());
  CopyPlan p;
  p.out.assign(rank, 1);
  Shape src(rank, 0);
  const Shape x_strides = Strides(x);
  for (size_t k = 0; k < rank; ++k) {
    const size_t xk = k + x.size() - rank, sk = k + shape.size() - rank;  // wrap when absent
    const int64_t a = k + x.size() >= rank ? x[xk] : 1;
    const int64_t b = k + shape.size() >= rank ? shape[sk] : 1;
    if (b < 0) {
      return NodeError(node, "input 1 (shape) has a negative dimension " + std::to_string(b));
    }
    if (a != b && a != 1 && b != 1) {
      return NodeError(node, "cannot broadcast input shape " + FormatShape(x) + " to shape " +
                                 FormatShape(shape));
    }
    p.out[k] = a == 1 ? b : a;
    if (k + x.size() >= rank && a != 1) src[k] = x_strides[xk];
  }
  p.dims = OutputOrder(p.out, src);
  return p;
}

Result<CopyPlan> PlanTile(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_ASSIGN_OR_RETURN(Shape repeats, ConstantInts(node, in, 1, "repeats"));
  const Shape& x = in[0].shape;
  if (repeats.size() != x.size()) {
    return NodeError(node, "input 1 (repeats) has " + std::to_string(repeats.size()) +
                               " values, expected one per axis of input 0 (" +
                               std::to_string(x.size()) + ")");
  }
  const Shape x_strides = Strides(x);
  CopyPlan p;
  Shape lens, src;
  for (size_t k = 0; k < x.size(); ++k) {
    if (repeats[k] < 0) {
      return NodeError(node, "input 1 (repeats) has a negative value " + std::to_string(repeats[k]));
    }
    p.out.push_back(x[k] * repeats[k]);
    lens.insert(lens.end(), {repeats[k], x[k]});
    src.insert(src.end(), {0, x_strides[k]});
  }
  p.dims = OutputOrder(lens, src);
  return p;
}

// DepthToSpace / SpaceToDepth: checks shared by both.
Result<int64_t> BlockSize(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  if (in[0].shape.size() != 4) {
    return NodeError(node, "input 0 must have rank 4 (N, C, H, W), got shape " + FormatShape(in[0].shape));
  }
  if (!node.HasAttr("blocksize")) return NodeError(node, "attribute 'blocksize' is required");
  MLF_ASSIGN_OR_RETURN(int64_t b, node.Int("blocksize", 0));
  if (b < 1) return NodeError(node, "blocksize must be at least 1, got " + std::to_string(b));
  return b;
}

Result<CopyPlan> PlanDepthToSpace(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_ASSIGN_OR_RETURN(int64_t b, BlockSize(node, in));
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("mode", "DCR"));
  if (mode != "DCR" && mode != "CRD") {
    return NodeError(node, "mode '" + mode + "' is not DCR or CRD");
  }
  const int64_t n = in[0].shape[0], c = in[0].shape[1], h = in[0].shape[2], w = in[0].shape[3];
  if (c % (b * b) != 0) {
    return NodeError(node, "channels " + std::to_string(c) + " are not a multiple of blocksize squared (" +
                               std::to_string(b * b) + ")");
  }
  const int64_t co = c / (b * b), hw = h * w;
  CopyPlan p;
  p.out = {n, co, h * b, w * b};
  // Written in the order [N, C', H, b1, W, b2]; the input read as
  // [N, b1, b2, C', H, W] (DCR) or [N, C', b1, b2, H, W] (CRD).
  const int64_t s_c = mode == "DCR" ? hw : b * b * hw;
  const int64_t s_b1 = mode == "DCR" ? b * co * hw : b * hw;
  const int64_t s_b2 = mode == "DCR" ? co * hw : hw;
  p.dims = OutputOrder({n, co, h, b, w, b}, {c * hw, s_c, w, s_b1, 1, s_b2});
  return p;
}

Result<CopyPlan> PlanSpaceToDepth(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_ASSIGN_OR_RETURN(int64_t b, BlockSize(node, in));
  const int64_t n = in[0].shape[0], c = in[0].shape[1], h = in[0].shape[2], w = in[0].shape[3];
  if (h % b != 0 || w % b != 0) {
    return NodeError(node, "height " + std::to_string(h) + " and width " + std::to_string(w) +
                               " must be multiples of blocksize " + std::to_string(b));
  }
  CopyPlan p;
  p.out = {n, c * b * b, h / b, w / b};
  // Written in the order [N, b1, b2, C, H', W'] from the input read as
  // [N, C, H', b1, W', b2].
  p.dims = OutputOrder({n, b, b, c, h / b, w / b}, {c * h * w, w, 1, h * w, b * w, b});
  return p;
}

using PlanFn = Result<CopyPlan> (*)(const ir::Node&, const std::vector<InputInfo>&);

template <PlanFn F>
Status CopyInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(CopyPlan p, F(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

template <PlanFn F>
Status CopyEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(CopyPlan p, F(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  const size_t es = DTypeSize(x.dtype);
  Shape lens;
  for (const CopyDim& d : p.dims) lens.push_back(d.len);
  const uint64_t count = Elements(lens);
  for (uint64_t i = 0; i < count; ++i) {
    const Shape idx = Unravel(i, lens);
    int64_t src = 0, dst = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      src += idx[k] * p.dims[k].src_stride;
      dst += idx[k] * p.dims[k].dst_stride;
    }
    std::memcpy(&y.bytes[static_cast<size_t>(dst) * es], &x.bytes[static_cast<size_t>(src) * es], es);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

template <PlanFn F>
Status CopyEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(CopyPlan p, F(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  StridedCopy copy;
  copy.dst = "out0";
  copy.src = "in0";
  copy.dims = p.dims;
  EmitStridedCopy(copy, "  ", body);  // nothing when the output is empty
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterExpandOps(std::vector<OpDef>* table) {
  table->push_back({"Expand", CopyInfer<PlanExpand>, CopyEvaluate<PlanExpand>, CopyEmit<PlanExpand>});
  table->push_back({"Tile", CopyInfer<PlanTile>, CopyEvaluate<PlanTile>, CopyEmit<PlanTile>});
  table->push_back({"DepthToSpace", CopyInfer<PlanDepthToSpace>, CopyEvaluate<PlanDepthToSpace>,
                    CopyEmit<PlanDepthToSpace>});
  table->push_back({"SpaceToDepth", CopyInfer<PlanSpaceToDepth>, CopyEvaluate<PlanSpaceToDepth>,
                    CopyEmit<PlanSpaceToDepth>});
}

}  // namespace mlf::ops
