// Operators that only move data: Reshape, Flatten, Squeeze, Unsqueeze (one
// copy of the whole buffer), Transpose, Concat, Split (strided copies),
// Shape and ConstantOfShape (constants). Slice and Pad live in slice_pad.cc,
// Gather in gather.cc. Every dtype is supported: elements are
// moved as bytes (evaluate) or as their C type (emit).
#include <algorithm>
#include <cstring>
#include <optional>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;
using ShapeFn = Result<Shape> (*)(const ir::Node&, const std::vector<InputInfo>&);

std::string Ints(const Shape& v) { return FormatShape(v); }

// ---- Reshape, Flatten, Squeeze, Unsqueeze: same bytes, new shape ----------

Result<Shape> ReshapeShape(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  MLF_ASSIGN_OR_RETURN(Shape target, ConstantInts(node, in, 1, "shape"));
  MLF_ASSIGN_OR_RETURN(int64_t allowzero, node.Int("allowzero", 0));
  const Shape& x = in[0].shape;
  Shape out = target;
  int infer_at = -1;
  bool has_zero = false;
  int64_t known = 1;
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] == -1) {
      if (infer_at >= 0) return NodeError(node, "shape " + Ints(target) + " has more than one -1");
      infer_at = static_cast<int>(d);
      continue;
    }
    if (target[d] < -1) {
      return NodeError(node, "shape " + Ints(target) + " has a negative dimension other than -1");
    }
    if (target[d] == 0) {
      has_zero = true;
      if (allowzero == 0) {
        if (d >= x.size()) {
          return NodeError(node, "shape " + Ints(target) + ": 0 at index " + std::to_string(d) +
                                     " copies an input dimension, but the input " + Ints(x) +
                                     " has rank " + std::to_string(x.size()));
        }
        out[d] = x[d];
      }
    }
    if (__builtin_mul_overflow(known, out[d], &known)) {
      return NodeError(node, "shape " + Ints(target) + " has more elements than a 64-bit count holds");
    }
  }
  const int64_t total = Product(x, 0, x.size());
  if (infer_at >= 0) {
    if (allowzero != 0 && has_zero) {
      return NodeError(node, "shape " + Ints(target) + " has both -1 and 0 with allowzero=1");
    }
    if (known == 0 || total % known != 0) {
      return NodeError(node, "cannot reshape " + Ints(x) + " to " + Ints(target) +
                                 ": the -1 dimension cannot be inferred");
    }
    out[static_cast<size_t>(infer_at)] = total / known;
  }
  if (Product(out, 0, out.size()) != total) {
    return NodeError(node, "cannot reshape " + Ints(x) + " (" + std::to_string(total) + " elements) to " +
                               Ints(out) + " (" + std::to_string(Product(out, 0, out.size())) +
                               " elements)");
  }
  return out;
}

Result<Shape> FlattenShape(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const Shape& x = in[0].shape;
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 1));
  MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, x.size(), "axis", true));
  return Shape{Product(x, 0, axis), Product(x, axis, x.size())};
}

// Axes from constant input 1, else from the (pre-opset-13) attribute.
Result<std::optional<Shape>> AxesInputOrAttr(const ir::Node& node, const std::vector<InputInfo>& in) {
  if (Has(in, 1)) {
    MLF_ASSIGN_OR_RETURN(Shape axes, ConstantInts(node, in, 1, "axes"));
    return std::optional<Shape>(axes);
  }
  if (node.HasAttr("axes")) {
    MLF_ASSIGN_OR_RETURN(Shape axes, node.Ints("axes", {}));
    return std::optional<Shape>(axes);
  }
  return std::optional<Shape>();
}

// Normalised, duplicate-free axes for `rank`.
Result<std::vector<bool>> AxisSet(const ir::Node& node, const Shape& axes, size_t rank) {
  std::vector<bool> set(rank, false);
  for (int64_t a : axes) {
    MLF_ASSIGN_OR_RETURN(size_t d, NormalizeAxis(node, a, rank, "axis"));
    if (set[d]) return NodeError(node, "axes " + Ints(axes) + " name axis " + std::to_string(d) + " twice");
    set[d] = true;
  }
  return set;
}

Result<Shape> SqueezeShape(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2));
  const Shape& x = in[0].shape;
  MLF_ASSIGN_OR_RETURN(std::optional<Shape> axes, AxesInputOrAttr(node, in));
  std::vector<bool> squeeze(x.size(), false);
  if (axes) {
    MLF_ASSIGN_OR_RETURN(squeeze, AxisSet(node, *axes, x.size()));
  } else {
    for (size_t d = 0; d < x.size(); ++d) squeeze[d] = x[d] == 1;
  }
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!squeeze[d]) {
      out.push_back(x[d]);
    } else if (x[d] != 1) {
      return NodeError(node, "cannot squeeze axis " + std::to_string(d) + " of size " +
                                 std::to_string(x[d]) + " (input shape " + Ints(x) + ")");
    }
  }
  return out;
}

Result<Shape> UnsqueezeShape(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2));
  const Shape& x = in[0].shape;
  MLF_ASSIGN_OR_RETURN(std::optional<Shape> axes, AxesInputOrAttr(node, in));
  if (!axes) return NodeError(node, "input 1 (axes) is required");
  MLF_ASSIGN_OR_RETURN(std::vector<bool> insert, AxisSet(node, *axes, x.size() + axes->size()));
  Shape out;
  size_t next = 0;
  for (bool one : insert) out.push_back(one ? 1 : x[next++]);
  return out;
}

template <ShapeFn F>
Status ViewInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(Shape out, F(node, in));
  SetOutput(node, graph, 0, in[0].dtype, out);
  return Status::Ok();
}

template <ShapeFn F>
Status ViewEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(Shape out, F(node, TensorInputs(inputs)));
  ir::HostTensor t = *inputs[0];
  t.shape = out;
  outputs->assign(1, std::move(t));
  return Status::Ok();
}

Status ViewEmit(const EmitContext& ctx, std::string* body) {
  const int64_t n = Product(ctx.output(0).shape, 0, ctx.output(0).shape.size());
  if (n > 0) *body += "  memcpy(out0, in0, " + Num(n) + " * sizeof(*out0));\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Transpose -------------------------------------------------------------

Result<Shape> TransposePerm(const ir::Node& node, const Shape& x) {
  Shape reverse;
  for (size_t d = x.size(); d-- > 0;) reverse.push_back(static_cast<int64_t>(d));
  MLF_ASSIGN_OR_RETURN(Shape perm, node.Ints("perm", reverse));
  std::vector<bool> seen(x.size(), false);
  bool ok = perm.size() == x.size();
  for (int64_t p : perm) {
    ok = ok && p >= 0 && p < static_cast<int64_t>(x.size()) && !seen[static_cast<size_t>(p)];
    if (ok) seen[static_cast<size_t>(p)] = true;
  }
  if (!ok) {
    return NodeError(node, "perm " + Ints(perm) + " is not a permutation of the " +
                               std::to_string(x.size()) + " axes of the input " + Ints(x));
  }
  return perm;
}

Status TransposeInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(Shape perm, TransposePerm(node, in[0].shape));
  Shape out;
  for (int64_t p : perm) out.push_back(in[0].shape[static_cast<size_t>(p)]);
  SetOutput(node, graph, 0, in[0].dtype, out);
  return Status::Ok();
}

Status TransposeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                         std::vector<ir::HostTensor>* outputs) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const ir::HostTensor& x = *inputs[0];
  MLF_ASSIGN_OR_RETURN(Shape perm, TransposePerm(node, x.shape));
  Shape out_shape;
  for (int64_t p : perm) out_shape.push_back(x.shape[static_cast<size_t>(p)]);
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, out_shape);
  const size_t es = DTypeSize(x.dtype);
  const Shape xs = Strides(x.shape);
  for (uint64_t o = 0; o < y.element_count(); ++o) {
    const Shape idx = Unravel(o, out_shape);
    int64_t src = 0;
    for (size_t k = 0; k < perm.size(); ++k) src += idx[k] * xs[static_cast<size_t>(perm[k])];
    std::memcpy(&y.bytes[o * es], &x.bytes[static_cast<size_t>(src) * es], es);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status TransposeEmit(const EmitContext& ctx, std::string* body) {
  const Shape& x = ctx.input(0).shape;
  const Shape& y = ctx.output(0).shape;
  MLF_ASSIGN_OR_RETURN(Shape perm, TransposePerm(ctx.node, x));
  const Shape xs = Strides(x), ys = Strides(y);
  StridedCopy copy;
  copy.dst = "out0";
  copy.src = "in0";
  for (size_t k = 0; k < perm.size(); ++k) copy.dims.push_back({y[k], xs[static_cast<size_t>(perm[k])], ys[k]});
  EmitStridedCopy(copy, "  ", body);
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Concat ----------------------------------------------------------------

struct ConcatPlan {
  size_t axis = 0;
  Shape out;
};

Result<ConcatPlan> PlanConcat(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, kNoMax));
  if (!node.HasAttr("axis")) return NodeError(node, "attribute 'axis' is required");
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 0));
  const Shape& first = in[0].shape;
  ConcatPlan p;
  MLF_ASSIGN_OR_RETURN(p.axis, NormalizeAxis(node, axis_attr, first.size(), "axis"));
  p.out = first;
  p.out[p.axis] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i].present) return NodeError(node, "input " + std::to_string(i) + " is omitted");
    if (in[i].dtype != in[0].dtype) {
      return NodeError(node, "input " + std::to_string(i) + " is " + DTypeName(in[i].dtype) +
                                 ", input 0 is " + DTypeName(in[0].dtype));
    }
    bool same = in[i].shape.size() == first.size();
    for (size_t d = 0; same && d < first.size(); ++d) same = d == p.axis || in[i].shape[d] == first[d];
    if (!same) {
      return NodeError(node, "input " + std::to_string(i) + " has shape " + Ints(in[i].shape) +
                                 ", which does not match input 0 " + Ints(first) + " outside axis " +
                                 std::to_string(p.axis));
    }
    p.out[p.axis] += in[i].shape[p.axis];
  }
  return p;
}

Status ConcatInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(ConcatPlan p, PlanConcat(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status ConcatEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ConcatPlan p, PlanConcat(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(inputs[0]->dtype, p.out);
  const size_t es = DTypeSize(y.dtype);
  for (uint64_t o = 0; o < y.element_count(); ++o) {
    Shape idx = Unravel(o, p.out);
    size_t k = 0;
    while (idx[p.axis] >= inputs[k]->shape[p.axis]) idx[p.axis] -= inputs[k++]->shape[p.axis];
    const Shape s = Strides(inputs[k]->shape);
    int64_t src = 0;
    for (size_t d = 0; d < idx.size(); ++d) src += idx[d] * s[d];
    std::memcpy(&y.bytes[o * es], &inputs[k]->bytes[static_cast<size_t>(src) * es], es);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ConcatEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ConcatPlan p, PlanConcat(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const int64_t outer = Product(p.out, 0, p.axis);
  const int64_t inner = Product(p.out, p.axis + 1, p.out.size());
  std::vector<BlockCopy> blocks;
  int64_t offset = 0;
  for (size_t i = 0; i < ctx.node.inputs.size(); ++i) {
    const int64_t block = ctx.input(i).shape[p.axis] * inner;
    blocks.push_back({"out0", EmitContext::In(i), offset, p.out[p.axis] * inner, 0, block, block});
    offset += block;
  }
  EmitBlockCopies(outer, blocks, "  ", body);
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Split -----------------------------------------------------------------

struct SplitPlan {
  size_t axis = 0;
  Shape sizes;  // one per output
};

Result<SplitPlan> PlanSplit(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2, 1, kNoMax));
  const Shape& x = in[0].shape;
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 0));
  SplitPlan p;
  MLF_ASSIGN_OR_RETURN(p.axis, NormalizeAxis(node, axis_attr, x.size(), "axis"));
  const int64_t dim = x[p.axis];
  const size_t n = node.outputs.size();
  if (node.HasAttr("num_outputs")) {
    MLF_ASSIGN_OR_RETURN(int64_t num, node.Int("num_outputs", 0));
    if (num != static_cast<int64_t>(n)) {
      return NodeError(node, "num_outputs is " + std::to_string(num) + " but the node has " +
                                 std::to_string(n) + " outputs");
    }
  }
  if (Has(in, 1)) {
    MLF_ASSIGN_OR_RETURN(p.sizes, ConstantInts(node, in, 1, "split"));
  } else if (node.HasAttr("split")) {
    MLF_ASSIGN_OR_RETURN(p.sizes, node.Ints("split", {}));
  } else {
    // Equal parts; when uneven, the last part is smaller (opset 18).
    const int64_t chunk = (dim + static_cast<int64_t>(n) - 1) / static_cast<int64_t>(n);
    const int64_t last = dim - chunk * static_cast<int64_t>(n - 1);
    if (last < 0) {
      return NodeError(node, "cannot split axis " + std::to_string(p.axis) + " of size " +
                                 std::to_string(dim) + " into " + std::to_string(n) + " parts");
    }
    p.sizes.assign(n, chunk);
    p.sizes.back() = last;
    return p;
  }
  if (p.sizes.size() != n) {
    return NodeError(node, "split " + Ints(p.sizes) + " has " + std::to_string(p.sizes.size()) +
                               " sizes for " + std::to_string(n) + " outputs");
  }
  int64_t sum = 0;
  for (int64_t s : p.sizes) {
    if (s < 0) return NodeError(node, "split " + Ints(p.sizes) + " has a negative size");
    sum += s;
  }
  if (sum != dim) {
    return NodeError(node, "split " + Ints(p.sizes) + " sums to " + std::to_string(sum) + ", but axis " +
                               std::to_string(p.axis) + " has size " + std::to_string(dim));
  }
  return p;
}

Status SplitInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(SplitPlan p, PlanSplit(node, in));
  for (size_t j = 0; j < p.sizes.size(); ++j) {
    Shape s = in[0].shape;
    s[p.axis] = p.sizes[j];
    SetOutput(node, graph, j, in[0].dtype, s);
  }
  return Status::Ok();
}

Status SplitEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(SplitPlan p, PlanSplit(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const size_t es = DTypeSize(x.dtype);
  const Shape xs = Strides(x.shape);
  outputs->clear();
  int64_t start = 0;
  for (int64_t size : p.sizes) {
    Shape shape = x.shape;
    shape[p.axis] = size;
    ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, shape);
    for (uint64_t o = 0; o < y.element_count(); ++o) {
      Shape idx = Unravel(o, shape);
      idx[p.axis] += start;
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d) src += idx[d] * xs[d];
      std::memcpy(&y.bytes[o * es], &x.bytes[static_cast<size_t>(src) * es], es);
    }
    outputs->push_back(std::move(y));
    start += size;
  }
  return Status::Ok();
}

Status SplitEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(SplitPlan p, PlanSplit(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const Shape& x = ctx.input(0).shape;
  const int64_t outer = Product(x, 0, p.axis);
  const int64_t inner = Product(x, p.axis + 1, x.size());
  std::vector<BlockCopy> blocks;
  int64_t start = 0;
  for (size_t j = 0; j < p.sizes.size(); ++j) {
    const int64_t block = p.sizes[j] * inner;
    blocks.push_back({EmitContext::Out(j), "in0", 0, block, start * inner, x[p.axis] * inner, block});
    start += p.sizes[j];
  }
  EmitBlockCopies(outer, blocks, "  ", body);
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Shape -----------------------------------------------------------------

Result<Shape> ShapeValues(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const Shape& x = in[0].shape;
  const int64_t r = static_cast<int64_t>(x.size());
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
  MLF_ASSIGN_OR_RETURN(int64_t start, node.Int("start", 0));
  MLF_ASSIGN_OR_RETURN(int64_t end, node.Int("end", r));
  start = clamp(start);
  end = clamp(end);
  return end > start ? Shape(x.begin() + start, x.begin() + end) : Shape{};
}

Status ShapeInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(Shape v, ShapeValues(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, DType::kInt64, {static_cast<int64_t>(v.size())});
  return Status::Ok();
}

Status ShapeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(Shape v, ShapeValues(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(DType::kInt64, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) y.data<int64_t>()[i] = v[i];
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ShapeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(Shape v, ShapeValues(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  for (size_t i = 0; i < v.size(); ++i) {
    *body += "  out0[" + std::to_string(i) + "] = " + ElementLiteral(DType::kInt64, &v[i]) + ";\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- ConstantOfShape -------------------------------------------------------

struct FillPlan {
  Shape shape;
  ir::HostTensor value;  // one element
};

Result<FillPlan> PlanConstantOfShape(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  FillPlan p;
  MLF_ASSIGN_OR_RETURN(p.shape, ConstantInts(node, in, 0, "shape"));
  for (int64_t d : p.shape) {
    if (d < 0) return NodeError(node, "shape " + Ints(p.shape) + " has a negative dimension");
  }
  p.value = ir::HostTensor::Zeros(DType::kFloat32, {1});
  auto it = node.attrs.find("value");
  if (it != node.attrs.end()) {
    const auto* t = std::get_if<ir::HostTensor>(&it->second);
    if (t == nullptr || t->element_count() != 1) {
      return NodeError(node, "attribute 'value' must be a tensor of one element");
    }
    p.value = *t;
  }
  return p;
}

Status ConstantOfShapeInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(FillPlan p, PlanConstantOfShape(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.value.dtype, p.shape);
  return Status::Ok();
}

Status ConstantOfShapeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                               std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(FillPlan p, PlanConstantOfShape(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.value.dtype, p.shape);
  const size_t es = DTypeSize(y.dtype);
  for (uint64_t i = 0; i < y.element_count(); ++i) std::memcpy(&y.bytes[i * es], p.value.bytes.data(), es);
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ConstantOfShapeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(FillPlan p, PlanConstantOfShape(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const int64_t n = Product(p.shape, 0, p.shape.size());
  const void* v = p.value.bytes.data();
  EmitFill("out0", "0", n, ElementLiteral(p.value.dtype, v), IsZeroBytes(p.value.dtype, v), "  ", body);
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterShapeOps(std::vector<OpDef>* table) {
  table->push_back({"Reshape", ViewInfer<ReshapeShape>, ViewEvaluate<ReshapeShape>, ViewEmit});
  table->push_back({"Flatten", ViewInfer<FlattenShape>, ViewEvaluate<FlattenShape>, ViewEmit});
  table->push_back({"Squeeze", ViewInfer<SqueezeShape>, ViewEvaluate<SqueezeShape>, ViewEmit});
  table->push_back({"Unsqueeze", ViewInfer<UnsqueezeShape>, ViewEvaluate<UnsqueezeShape>, ViewEmit});
  table->push_back({"Transpose", TransposeInfer, TransposeEvaluate, TransposeEmit});
  table->push_back({"Concat", ConcatInfer, ConcatEvaluate, ConcatEmit});
  table->push_back({"Split", SplitInfer, SplitEvaluate, SplitEmit});
  table->push_back({"Shape", ShapeInfer, ShapeEvaluate, ShapeEmit});
  table->push_back({"ConstantOfShape", ConstantOfShapeInfer, ConstantOfShapeEvaluate, ConstantOfShapeEmit});
}

}  // namespace mlf::ops
