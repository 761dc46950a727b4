// Slice (constant starts/ends/axes/steps, negative indices and steps) and
// Pad (constant pads; modes constant, reflect, edge; negative pads crop).
// Registered by RegisterSlicePadOps (listed in registry.cc).
#include <algorithm>
#include <cstring>
#include <optional>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

// ---- Slice -----------------------------------------------------------------

// Per input axis: the first index, the step and the output length.
struct SliceAxis {
  int64_t start = 0, step = 1, len = 0;
};

Result<std::vector<SliceAxis>> PlanSlice(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 3, 5));
  const Shape& x = in[0].shape;
  MLF_ASSIGN_OR_RETURN(Shape starts, ConstantInts(node, in, 1, "starts"));
  MLF_ASSIGN_OR_RETURN(Shape ends, ConstantInts(node, in, 2, "ends"));
  Shape axes, steps(starts.size(), 1);
  for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (Has(in, 3)) {
    MLF_ASSIGN_OR_RETURN(axes, ConstantInts(node, in, 3, "axes"));
  }
  if (Has(in, 4)) {
    MLF_ASSIGN_OR_RETURN(steps, ConstantInts(node, in, 4, "steps"));
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return NodeError(node, "starts, ends, axes and steps have different lengths (" +
                               std::to_string(starts.size()) + ", " + std::to_string(ends.size()) + ", " +
                               std::to_string(axes.size()) + ", " + std::to_string(steps.size()) + ")");
  }
  std::vector<SliceAxis> plan(x.size());
  for (size_t d = 0; d < x.size(); ++d) plan[d].len = x[d];
  std::vector<bool> seen(x.size(), false);
  for (size_t k = 0; k < starts.size(); ++k) {
    MLF_ASSIGN_OR_RETURN(size_t d, NormalizeAxis(node, axes[k], x.size(), "axis"));
    if (seen[d]) return NodeError(node, "axes " + FormatShape(axes) + " name axis " + std::to_string(d) + " twice");
    seen[d] = true;
    const int64_t step = steps[k], dim = x[d];
    if (step == 0) return NodeError(node, "steps[" + std::to_string(k) + "] is 0");
    int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t e = ends[k] < 0 ? ends[k] + dim : ends[k];
    SliceAxis& a = plan[d];
    a.step = step;
    if (step > 0) {
      s = std::clamp(s, int64_t{0}, dim);
      e = std::clamp(e, int64_t{0}, dim);
      a.len = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp(s, int64_t{0}, dim - 1);  // dim 0: len is 0 below
      e = std::clamp(e, int64_t{-1}, dim - 1);
      a.len = dim > 0 && s > e ? (s - e - step - 1) / -step : 0;
    }
    a.start = a.len > 0 ? s : 0;
  }
  return plan;
}

Shape SliceShape(const std::vector<SliceAxis>& plan) {
  Shape out;
  for (const SliceAxis& a : plan) out.push_back(a.len);
  return out;
}

Status SliceInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(std::vector<SliceAxis> plan, PlanSlice(node, in));
  SetOutput(node, graph, 0, in[0].dtype, SliceShape(plan));
  return Status::Ok();
}

Status SliceEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(std::vector<SliceAxis> plan, PlanSlice(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const Shape out = SliceShape(plan), xs = Strides(x.shape);
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, out);
  const size_t es = DTypeSize(x.dtype);
  for (uint64_t o = 0; o < y.element_count(); ++o) {
    const Shape idx = Unravel(o, out);
    int64_t src = 0;
    for (size_t d = 0; d < idx.size(); ++d) src += (plan[d].start + idx[d] * plan[d].step) * xs[d];
    std::memcpy(&y.bytes[o * es], &x.bytes[static_cast<size_t>(src) * es], es);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status SliceEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(std::vector<SliceAxis> plan, PlanSlice(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const Shape xs = Strides(ctx.input(0).shape), ys = Strides(SliceShape(plan));
  StridedCopy copy;
  copy.dst = "out0";
  copy.src = "in0";
  for (size_t d = 0; d < plan.size(); ++d) {
    copy.src_offset += plan[d].start * xs[d];
    copy.dims.push_back({plan[d].len, plan[d].step * xs[d], ys[d]});
  }
  EmitStridedCopy(copy, "  ", body);
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Pad -------------------------------------------------------------------

enum class PadMode { kConstant, kReflect, kEdge };

struct PadPlan {
  PadMode mode = PadMode::kConstant;
  Shape begin, end, out;  // per axis; negative pads crop
  // The constant, when known at compile time (else read from input 2).
  std::optional<ir::HostTensor> value;
};

Result<PadPlan> PlanPad(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 4));
  const Shape& x = in[0].shape;
  const size_t r = x.size();
  PadPlan p;
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("mode", "constant"));
  if (mode == "constant") p.mode = PadMode::kConstant;
  else if (mode == "reflect") p.mode = PadMode::kReflect;
  else if (mode == "edge") p.mode = PadMode::kEdge;
  else if (mode == "wrap") return NodeUnsupported(node, "mode 'wrap' is not supported (constant, reflect, edge are)");
  else return NodeError(node, "unknown mode '" + mode + "' (expected constant, reflect, edge)");

  Shape pads;
  if (Has(in, 1) || !node.HasAttr("pads")) {
    MLF_ASSIGN_OR_RETURN(pads, ConstantInts(node, in, 1, "pads"));
  } else {
    MLF_ASSIGN_OR_RETURN(pads, node.Ints("pads", {}));
  }
  Shape axes;
  for (size_t d = 0; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
  if (Has(in, 3)) {
    MLF_ASSIGN_OR_RETURN(axes, ConstantInts(node, in, 3, "axes"));
  }
  if (pads.size() != 2 * axes.size()) {
    return NodeError(node, "pads " + FormatShape(pads) + " has " + std::to_string(pads.size()) +
                               " values, expected " + std::to_string(2 * axes.size()) + " (begin and end for " +
                               std::to_string(axes.size()) + " axes)");
  }
  p.begin.assign(r, 0);
  p.end.assign(r, 0);
  std::vector<bool> seen(r, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    MLF_ASSIGN_OR_RETURN(size_t d, NormalizeAxis(node, axes[k], r, "axis"));
    if (seen[d]) return NodeError(node, "axes " + FormatShape(axes) + " name axis " + std::to_string(d) + " twice");
    seen[d] = true;
    p.begin[d] = pads[k];
    p.end[d] = pads[k + axes.size()];
  }
  for (size_t d = 0; d < r; ++d) {
    p.out.push_back(x[d] + p.begin[d] + p.end[d]);
    if (p.out[d] < 0) {
      return NodeError(node, "pads " + FormatShape(pads) + " crop axis " + std::to_string(d) + " of size " +
                                 std::to_string(x[d]) + " below zero");
    }
    const int64_t kept = x[d] - std::max<int64_t>(0, -p.begin[d]) - std::max<int64_t>(0, -p.end[d]);
    if (p.mode != PadMode::kConstant && (p.begin[d] > 0 || p.end[d] > 0) && kept <= 0) {
      return NodeError(node, "mode '" + mode + "' cannot pad axis " + std::to_string(d) +
                                 ": it has no elements to repeat");
    }
  }
  if (p.mode == PadMode::kConstant) {
    p.value = ir::HostTensor::Zeros(in[0].dtype, {});
    if (Has(in, 2)) {
      const InputInfo& v = in[2];
      if (v.dtype != in[0].dtype) {
        return NodeError(node, "input 2 (constant_value) is " + std::string(DTypeName(v.dtype)) +
                                   ", the data is " + DTypeName(in[0].dtype));
      }
      if (Product(v.shape, 0, v.shape.size()) != 1) {
        return NodeError(node, "input 2 (constant_value) must have one element, got shape " + FormatShape(v.shape));
      }
      if (v.data != nullptr) p.value->bytes = v.data->bytes;
      else p.value.reset();
    } else if (node.HasAttr("value")) {
      MLF_ASSIGN_OR_RETURN(double value, node.Float("value", 0.0));
      p.value->SetDouble(0, value);
    }
  }
  return p;
}

// The input index that output index `o` of axis d reads, or -1 for the
// constant.
int64_t PadSource(const PadPlan& p, int64_t dim, size_t d, int64_t o) {
  const int64_t t = o - p.begin[d];
  if (p.mode == PadMode::kConstant) return t >= 0 && t < dim ? t : -1;
  const int64_t lo = std::max<int64_t>(0, -p.begin[d]);
  const int64_t len = dim - lo - std::max<int64_t>(0, -p.end[d]);
  int64_t u = t - lo;
  if (p.mode == PadMode::kEdge) {
    u = std::clamp(u, int64_t{0}, len - 1);
  } else if (len == 1) {
    u = 0;
  } else {
    const int64_t period = 2 * (len - 1);
    u = (u < 0 ? -u : u) % period;
    if (u >= len) u = period - u;
  }
  return lo + u;
}

Status PadInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(PadPlan p, PlanPad(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status PadEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(PadPlan p, PlanPad(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const Shape xs = Strides(x.shape);
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  const size_t es = DTypeSize(x.dtype);
  for (uint64_t o = 0; o < y.element_count(); ++o) {
    const Shape idx = Unravel(o, p.out);
    int64_t src = 0;
    for (size_t d = 0; d < idx.size() && src >= 0; ++d) {
      const int64_t i = PadSource(p, x.shape[d], d, idx[d]);
      src = i < 0 ? -1 : src + i * xs[d];
    }
    const char* from = src < 0 ? p.value->bytes.data() : &x.bytes[static_cast<size_t>(src) * es];
    std::memcpy(&y.bytes[o * es], from, es);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// Constant mode: each level fills the rows before and after the copied
// range and recurses into the copied rows; the last level copies a run.
struct PadAxis {
  int64_t dim, begin, end, in_stride, out_stride;
};

void EmitConstantPad(const std::vector<PadAxis>& axes, size_t level, Terms in_terms, int64_t in_base,
                     Terms out_terms, int64_t out_base, const std::string& value, bool zero,
                     const std::string& indent, std::string* body) {
  const PadAxis& a = axes[level];
  const int64_t pre = std::max<int64_t>(0, a.begin), post = std::max<int64_t>(0, a.end);
  const int64_t skip = std::max<int64_t>(0, -a.begin);
  const int64_t n = a.dim + a.begin + a.end - pre - post;
  EmitFill("out0", IndexExpr(out_base, out_terms), pre * a.out_stride, value, zero, indent, body);
  if (n > 0 && level + 1 == axes.size()) {
    const std::string dst = IndexExpr(out_base + pre, out_terms), src = IndexExpr(in_base + skip, in_terms);
    *body += indent + "memcpy(" + (dst == "0" ? "out0" : "out0 + " + dst) + ", " +
             (src == "0" ? "in0" : "in0 + " + src) + ", " + Num(n) + " * sizeof(*out0));\n";
  } else if (n > 0) {
    const std::string v = "p" + std::to_string(level);
    *body += indent + "for (size_t " + v + " = 0; " + v + " < " + Num(n) + "; ++" + v + ") {\n";
    in_terms.push_back({v, a.in_stride});
    out_terms.push_back({v, a.out_stride});
    EmitConstantPad(axes, level + 1, in_terms, in_base + skip * a.in_stride, out_terms,
                    out_base + pre * a.out_stride, value, zero, indent + "  ", body);
    in_terms.pop_back();
    out_terms.pop_back();
    *body += indent + "}\n";
  }
  EmitFill("out0", IndexExpr(out_base + (pre + n) * a.out_stride, out_terms), post * a.out_stride, value,
           zero, indent, body);
}

// Edge and reflect: loops over the output rows up to the last padded axis,
// each reading the input row its index tables name; the last padded axis
// copies its middle as one run and its padding block by block.
void EmitRepeatPad(const EmitContext& ctx, const PadPlan& p, const Shape& x, std::string* body) {
  const size_t r = x.size();
  size_t last = r;  // last padded axis
  for (size_t d = 0; d < r; ++d) {
    if (p.begin[d] != 0 || p.end[d] != 0) last = d;
  }
  const std::string t = CType(ctx.input(0).dtype);
  if (last == r) {
    *body += "  memcpy(out0, in0, " + Num(Product(x, 0, r)) + " * sizeof(*out0));\n";
    return;
  }
  const int64_t block = Product(x, last + 1, r);
  const Shape xs = Strides(x), ys = Strides(p.out);
  for (size_t d = 0; d <= last; ++d) {
    if (p.begin[d] == 0 && p.end[d] == 0) continue;
    std::vector<int64_t> table;
    for (int64_t o = 0; o < p.out[d]; ++o) table.push_back(PadSource(p, x[d], d, o) * (d == last ? block : xs[d]));
    *body += StaticTable("  ", IndexType(*std::max_element(table.begin(), table.end())), "map" + std::to_string(d),
                         table);
  }
  std::string ind = "  ";
  Terms src, dst;
  for (size_t d = 0; d < last; ++d) {
    const bool padded = p.begin[d] != 0 || p.end[d] != 0;
    if (!padded && x[d] == 1) continue;
    const std::string v = "i" + std::to_string(d);
    *body += ind + "for (size_t " + v + " = 0; " + v + " < " + Num(p.out[d]) + "; ++" + v + ") {\n";
    ind += "  ";
    src.push_back({padded ? "(size_t)map" + std::to_string(d) + "[" + v + "]" : v, padded ? 1 : xs[d]});
    dst.push_back({v, ys[d]});
  }
  *body += ind + "const " + t + "* src = " + (src.empty() ? "in0" : "in0 + " + IndexExpr(0, src)) + ";\n";
  *body += ind + t + "* dst = " + (dst.empty() ? "out0" : "out0 + " + IndexExpr(0, dst)) + ";\n";
  const int64_t pre = std::max<int64_t>(0, p.begin[last]), post = std::max<int64_t>(0, p.end[last]);
  const int64_t n = p.out[last] - pre - post;
  const int64_t skip = std::max<int64_t>(0, -p.begin[last]);
  auto copy_blocks = [&](int64_t from, int64_t to) {
    if (from >= to) return;
    const std::string row = block == 1 ? "dst[k] = src[map" + std::to_string(last) + "[k]];"
                                       : "memcpy(dst + k * " + Num(block) + ", src + map" + std::to_string(last) +
                                             "[k], " + Num(block) + " * sizeof(*dst));";
    *body += ind + "for (size_t k = " + Num(from) + "; k < " + Num(to) + "; ++k) " + row + "\n";
  };
  copy_blocks(0, pre);
  if (n > 0) {
    *body += ind + "memcpy(" + (pre == 0 ? std::string("dst") : "dst + " + Num(pre * block)) + ", " +
             (skip == 0 ? std::string("src") : "src + " + Num(skip * block)) + ", " + Num(n * block) +
             " * sizeof(*dst));\n";
  }
  copy_blocks(pre + n, p.out[last]);
  while (ind.size() > 2) {
    ind.resize(ind.size() - 2);
    *body += ind + "}\n";
  }
}

Status PadEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(PadPlan p, PlanPad(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const Shape& x = ctx.input(0).shape;
  if (Product(p.out, 0, p.out.size()) > 0) {
    if (p.mode != PadMode::kConstant) {
      EmitRepeatPad(ctx, p, x, body);
    } else {
      // Merge axes into their outer neighbour when they are not padded.
      std::vector<PadAxis> axes;
      for (size_t d = x.size(); d-- > 0;) {
        if (!axes.empty() && axes.back().begin == 0 && axes.back().end == 0) {
          PadAxis& inner = axes.back();
          inner = {x[d] * inner.dim, p.begin[d] * inner.dim, p.end[d] * inner.dim, 1, 1};
        } else {
          axes.push_back({x[d], p.begin[d], p.end[d], 1, 1});
        }
      }
      std::reverse(axes.begin(), axes.end());
      if (axes.empty()) axes.push_back({1, 0, 0, 1, 1});  // a scalar
      for (size_t k = axes.size() - 1; k-- > 0;) {
        axes[k].in_stride = axes[k + 1].in_stride * axes[k + 1].dim;
        axes[k].out_stride = axes[k + 1].out_stride * (axes[k + 1].dim + axes[k + 1].begin + axes[k + 1].end);
      }
      const bool zero = p.value && IsZeroBytes(p.value->dtype, p.value->bytes.data()) ;
      const std::string value = p.value ? ElementLiteral(p.value->dtype, p.value->bytes.data()) : "in2[0]";
      EmitConstantPad(axes, 0, {}, 0, {}, 0, value, zero, "  ", body);
    }
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterSlicePadOps(std::vector<OpDef>* table) {
  table->push_back({"Slice", SliceInfer, SliceEvaluate, SliceEmit});
  table->push_back({"Pad", PadInfer, PadEvaluate, PadEmit});
}

}  // namespace mlf::ops
