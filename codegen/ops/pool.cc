// MaxPool (kernel_shape, strides, pads, auto_pad, dilations, ceil_mode,
// storage_order; float32, float64, int8, uint8), AveragePool
// (count_include_pad, ceil_mode, auto_pad, dilations; float32, float64),
// GlobalAveragePool and GlobalMaxPool (float32, float64); 1-D, 2-D, 3-D.
//
// MaxPool's optional Indices output: max_pool_indices.cc. Padding never wins a max
// (windows start from the type's lowest value); AveragePool divides by the
// taps inside the input, or with count_include_pad by the taps inside the
// padded input (taps a ceil_mode window has beyond the end padding never
// count), as PyTorch and onnxruntime do.
//
// Generated code works per (n, c) plane like Conv: the last spatial axis is
// the width, each row splits at codegen time into interior columns (tiles
// of kPw outputs in a local array, no bounds checks, innermost loop over a
// contiguous input row at stride 1) and border columns (checked per pixel).
// Global pools reduce each contiguous plane in kLanes independent partial
// results (vectorisable) that are combined at the end.
//
// Large float32 pools call the kernel layer instead (codegen/kernels,
// family pool_f32: the same sums and maxima in the same order, split over
// the run's threads): 2-D MaxPool/AveragePool with at least kPoolKernelMinTaps
// taps in all, global pools of at least as many input elements. Smaller ones
// (the firmware examples', LeNet-5's) keep the loops below.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "codegen/ops/conv_geometry.h"
#include "codegen/ops/max_pool_indices.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

constexpr int64_t kPw = 16;     // output pixels per tile
constexpr int64_t kLanes = 16;  // partial results of the global pools
// Output elements x window taps (global pools: input elements) from which a
// float32 pool runs through pool_f32: below it a parallel region costs more
// than it saves, and the generated code stays self-contained.
constexpr int64_t kPoolKernelMinTaps = int64_t{1} << 13;

const std::vector<DType> kMaxPoolDTypes = {DType::kFloat32, DType::kFloat64, DType::kInt8,
                                           DType::kUInt8};

std::string S(int64_t v) { return std::to_string(v); }

// The lowest value of a dtype (MaxPool's starting point) as a double.
double Lowest(DType t) {
  switch (t) {
    case DType::kInt8: return -128;
    case DType::kUInt8: return 0;
    case DType::kFloat64: return std::numeric_limits<double>::lowest();
    default: return std::numeric_limits<float>::lowest();
  }
}

struct PoolShape {
  bool max;                 // MaxPool (else AveragePool)
  bool count_include_pad;   // AveragePool
  int64_t planes;           // N * C
  Window w;
};

Result<PoolShape> ComputePoolShape(const ir::Node& node, const std::vector<int64_t>& x) {
  if (x.size() < 3) {
    return NodeError(node, "input X " + FormatShape(x) +
                               " must have rank >= 3 (N, C and at least one spatial axis)");
  }
  PoolShape s;
  s.max = node.op == "MaxPool";
  s.planes = x[0] * x[1];
  MLF_ASSIGN_OR_RETURN(int64_t cip, node.Int("count_include_pad", 0));
  if (cip != 0 && cip != 1) {
    return NodeError(node, "attribute 'count_include_pad' must be 0 or 1, got " + S(cip));
  }
  s.count_include_pad = cip == 1;
  MLF_ASSIGN_OR_RETURN(int64_t order, node.Int("storage_order", 0));
  if (order != 0 && order != 1) {
    return NodeError(node, "attribute 'storage_order' must be 0 or 1, got " + S(order));
  }
  MLF_ASSIGN_OR_RETURN(s.w, ForwardWindow(node, std::vector<int64_t>(x.begin() + 2, x.end()), {},
                                          s.max ? WindowKind::kMaxPool : WindowKind::kAveragePool));
  return s;
}

Status InferPool(const ir::Node& node, ir::Graph& graph) {
  if (node.op == "MaxPool" && node.outputs.size() > 1) return MaxPoolIndicesInfer(node, graph);
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const ir::Value& x = graph.value(node.inputs[0]);
  MLF_RETURN_IF_ERROR(
      CheckDType(node, x.dtype, node.op == "MaxPool" ? kMaxPoolDTypes : kFloatDTypes, "X"));
  MLF_ASSIGN_OR_RETURN(PoolShape s, ComputePoolShape(node, x.shape));
  std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
  shape.insert(shape.end(), s.w.out.begin(), s.w.out.end());
  SetOutput(node, graph, 0, x.dtype, shape);
  return CheckIndexable(node, graph);
}

Status InferGlobalPool(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const ir::Value& x = graph.value(node.inputs[0]);
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "X"));
  if (x.shape.size() < 3) {
    return NodeError(node, "input X " + FormatShape(x.shape) +
                               " must have rank >= 3 (N, C and at least one spatial axis)");
  }
  for (size_t a = 2; a < x.shape.size(); ++a) {
    if (x.shape[a] < 1) return NodeError(node, "input X " + FormatShape(x.shape) + " is empty");
  }
  std::vector<int64_t> shape(x.shape.size(), 1);
  shape[0] = x.shape[0];
  shape[1] = x.shape[1];
  SetOutput(node, graph, 0, x.dtype, shape);
  return CheckIndexable(node, graph);
}

// ---------------------------------------------------------------- evaluate

template <typename T>
void PoolLoops(const PoolShape& s, const T* x, T* y) {
  const Window& w = s.w;
  const size_t rank = w.rank();
  const int64_t ip = w.InElements(), op = w.OutElements(), ks = w.KernelElements();
  std::vector<int64_t> o(rank), k(rank);
  for (int64_t p = 0; p < s.planes; ++p) {
    for (int64_t q = 0; q < op; ++q) {
      for (size_t a = rank, rest = static_cast<size_t>(q); a-- > 0;) {
        o[a] = static_cast<int64_t>(rest) % w.out[a];
        rest /= static_cast<size_t>(w.out[a]);
      }
      T best = std::numeric_limits<T>::lowest();
      double sum = 0;
      int64_t count = 0;
      for (int64_t t = 0; t < ks; ++t) {
        for (size_t a = rank, rest = static_cast<size_t>(t); a-- > 0;) {
          k[a] = static_cast<int64_t>(rest) % w.kernel[a];
          rest /= static_cast<size_t>(w.kernel[a]);
        }
        int64_t offset = 0;
        bool inside = true, in_padded = true;
        for (size_t a = 0; a < rank; ++a) {
          const int64_t i = o[a] * w.strides[a] - w.pad_begin[a] + k[a] * w.dilations[a];
          if (i < 0 || i >= w.in[a]) inside = false;
          if (i < -w.pad_begin[a] || i >= w.in[a] + w.pad_end[a]) in_padded = false;
          offset = offset * w.in[a] + i;
        }
        if (s.count_include_pad ? in_padded : inside) ++count;
        if (!inside) continue;
        const T v = x[p * ip + offset];
        if (v > best) best = v;
        sum += static_cast<double>(v);
      }
      y[p * op + q] = s.max ? best : static_cast<T>(sum / static_cast<double>(count));
    }
  }
}

Status EvaluatePool(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                    std::vector<ir::HostTensor>* out) {
  if (node.op == "MaxPool" && node.outputs.size() > 1) return MaxPoolIndicesEvaluate(node, in, out);
  if (in.empty() || in[0] == nullptr) return NodeError(node, "input X is required");
  const ir::HostTensor& x = *in[0];
  MLF_ASSIGN_OR_RETURN(PoolShape s, ComputePoolShape(node, x.shape));
  std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
  shape.insert(shape.end(), s.w.out.begin(), s.w.out.end());
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, shape);
  switch (x.dtype) {
    case DType::kFloat32: PoolLoops<float>(s, x.data<float>(), y.data<float>()); break;
    case DType::kFloat64: PoolLoops<double>(s, x.data<double>(), y.data<double>()); break;
    case DType::kInt8: PoolLoops<int8_t>(s, x.data<int8_t>(), y.data<int8_t>()); break;
    case DType::kUInt8: PoolLoops<uint8_t>(s, x.data<uint8_t>(), y.data<uint8_t>()); break;
    default: return CheckDType(node, x.dtype, kMaxPoolDTypes, "X");
  }
  out->push_back(std::move(y));
  return Status::Ok();
}

template <typename T>
void GlobalLoops(bool max, int64_t planes, int64_t size, const T* x, T* y) {
  for (int64_t p = 0; p < planes; ++p) {
    double sum = 0;
    T best = x[p * size];
    for (int64_t i = 0; i < size; ++i) {
      const T v = x[p * size + i];
      sum += v;
      if (v > best) best = v;
    }
    y[p] = max ? best : static_cast<T>(sum / static_cast<double>(size));
  }
}

Status EvaluateGlobalPool(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                          std::vector<ir::HostTensor>* out) {
  if (in.empty() || in[0] == nullptr) return NodeError(node, "input X is required");
  const ir::HostTensor& x = *in[0];
  if (x.shape.size() < 3) return NodeError(node, "input X must have rank >= 3");
  std::vector<int64_t> shape(x.shape.size(), 1);
  shape[0] = x.shape[0];
  shape[1] = x.shape[1];
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t size = planes == 0 ? 0 : static_cast<int64_t>(x.element_count()) / planes;
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, shape);
  const bool max = node.op == "GlobalMaxPool";
  if (x.dtype == DType::kFloat32) {
    GlobalLoops<float>(max, planes, size, x.data<float>(), y.data<float>());
  } else if (x.dtype == DType::kFloat64) {
    GlobalLoops<double>(max, planes, size, x.data<double>(), y.data<double>());
  } else {
    return CheckDType(node, x.dtype, kFloatDTypes, "X");
  }
  out->push_back(std::move(y));
  return Status::Ok();
}

// ---------------------------------------------------------------- emit

struct PoolEmitter {
  PoolShape s;
  DType dtype;
  std::string t;
  int64_t ip, op;
  std::vector<int64_t> in_strides, out_strides;

  const Window& w() const { return s.w; }
  size_t wa() const { return w().rank() - 1; }
  size_t outer() const { return w().rank() - 1; }

  bool NeedsCheck(size_t a) const {
    auto [first, last] = w().Interior(a);
    return first != 0 || last != w().out[a];
  }

  std::string Init() const { return s.max ? CLiteral(dtype, Lowest(dtype)) : CLiteral(dtype, 0); }
  std::string Accumulate(const std::string& acc, const std::string& v) const {
    return s.max ? acc + " = " + v + " > " + acc + " ? " + v + " : " + acc + ";"
                 : acc + " += " + v + ";";
  }
  // Bounds a tap index must lie in to count towards the divisor.
  std::pair<int64_t, int64_t> CountRange(size_t a) const {
    if (s.count_include_pad) return {-w().pad_begin[a], w().in[a] + w().pad_end[a]};
    return {0, w().in[a]};
  }
  std::string TapIndex(size_t a, const std::string& o, const std::string& k) const {
    return PlusConst(Times(o, w().strides[a]), -w().pad_begin[a]) + " + " +
           Times(k, w().dilations[a]);
  }
  std::string InputRow() const {
    std::string e;
    for (size_t a = 0; a < outer(); ++a) e += " + " + Times("i" + S(a), in_strides[a]);
    return e;
  }

  // For AveragePool: "rows", the number of counted row taps of this output row.
  void EmitRowCount(CodeWriter& c) const {
    std::string product;
    for (size_t a = 0; a < outer(); ++a) {
      const std::string A = S(a);
      auto [lo, hi] = CountRange(a);
      if (!NeedsCheck(a)) {
        product += (product.empty() ? "" : " * ") + S(w().kernel[a]);
        continue;
      }
      c.Line("int cnt" + A + " = 0;");
      c.Line("for (int k" + A + " = 0; k" + A + " < " + S(w().kernel[a]) + "; ++k" + A +
             ") { const int i" + A + " = " + TapIndex(a, "o" + A, "k" + A) + "; cnt" + A +
             " += i" + A + " >= " + S(lo) + " && i" + A + " < " + S(hi) + "; }");
      product += (product.empty() ? "" : " * ") + std::string("cnt") + A;
    }
    c.Line("const int rows = " + (product.empty() ? std::string("1") : product) + ";");
  }

  int OpenKernelRows(CodeWriter& c) const {
    for (size_t a = 0; a < outer(); ++a) {
      const std::string A = S(a);
      c.Open("for (int k" + A + " = 0; k" + A + " < " + S(w().kernel[a]) + "; ++k" + A + ") {");
      c.Line("const int i" + A + " = " + TapIndex(a, "o" + A, "k" + A) + ";");
      if (NeedsCheck(a)) c.Line("if (i" + A + " < 0 || i" + A + " >= " + S(w().in[a]) + ") continue;");
    }
    return static_cast<int>(outer());
  }

  std::string Result(const std::string& acc, const std::string& count) const {
    if (s.max) return acc;
    return acc + " / (" + t + ")(" + count + ")";
  }

  void FastTile(CodeWriter& c, int64_t wt, const std::string& ox) const {
    const size_t a = wa();
    c.Open("{");
    c.Line(t + " acc[" + S(wt) + "];");
    c.Line("for (int t = 0; t < " + S(wt) + "; ++t) acc[t] = " + Init() + ";");
    const int opened = OpenKernelRows(c);
    c.Line("const " + t + "* restrict xr = x" + InputRow() + " + " +
           PlusConst(Times(ox, w().strides[a]), -w().pad_begin[a]) + ";");
    c.Open("for (int kw = 0; kw < " + S(w().kernel[a]) + "; ++kw) {");
    c.Line("for (int t = 0; t < " + S(wt) + "; ++t) " +
           Accumulate("acc[t]", "xr[" + Times("kw", w().dilations[a]) + " + " +
                                    Times("t", w().strides[a]) + "]"));
    c.Close();
    for (int b = 0; b < opened; ++b) c.Close();
    c.Line("for (int t = 0; t < " + S(wt) + "; ++t) y[orow + " + ox + " + t] = " +
           Result("acc[t]", "rows * " + S(w().kernel[a])) + ";");
    c.Close();
  }

  void CheckedPixel(CodeWriter& c) const {
    const size_t a = wa();
    auto [lo, hi] = CountRange(a);
    c.Open("{");
    c.Line(t + " acc = " + Init() + ";");
    if (!s.max) {
      c.Line("int cols = 0;");
      c.Line("for (int kw = 0; kw < " + S(w().kernel[a]) + "; ++kw) { const int iw = " +
             TapIndex(a, "ox", "kw") + "; cols += iw >= " + S(lo) + " && iw < " + S(hi) + "; }");
    }
    const int opened = OpenKernelRows(c);
    c.Open("for (int kw = 0; kw < " + S(w().kernel[a]) + "; ++kw) {");
    c.Line("const int iw = " + TapIndex(a, "ox", "kw") + ";");
    c.Line("if (iw < 0 || iw >= " + S(w().in[a]) + ") continue;");
    c.Line("const " + t + " v = x[" + (InputRow().empty() ? "" : InputRow().substr(3) + " + ") +
           "iw];");
    c.Line(Accumulate("acc", "v"));
    c.Close();
    for (int b = 0; b < opened; ++b) c.Close();
    c.Line("y[orow + ox] = " + Result("acc", "rows * cols") + ";");
    c.Close();
  }

  void Emit(CodeWriter& c) const {
    c.Open("for (int p = 0; p < " + S(s.planes) + "; ++p) {");
    c.Line("const " + t + "* restrict x = in0 + p * " + S(ip) + ";");
    c.Line(t + "* restrict y = out0 + p * " + S(op) + ";");
    std::string orow;
    for (size_t a = 0; a < outer(); ++a) {
      c.Open("for (int o" + S(a) + " = 0; o" + S(a) + " < " + S(w().out[a]) + "; ++o" + S(a) + ") {");
      orow += (orow.empty() ? "" : " + ") + Times("o" + S(a), out_strides[a]);
    }
    c.Line("const int orow = " + (orow.empty() ? std::string("0") : orow) + ";");
    if (!s.max) EmitRowCount(c);
    auto [first, last] = w().Interior(wa());
    const int64_t width = last - first, full = width / kPw * kPw, ow = w().out[wa()];
    if (full > 0) {
      c.Open("for (int ox = " + S(first) + "; ox < " + S(first + full) + "; ox += " + S(kPw) + ") {");
      FastTile(c, kPw, "ox");
      c.Close();
    }
    if (width > full) FastTile(c, width - full, S(first + full));
    if (width < ow) {
      c.Open("for (int ox = 0; ox < " + S(ow) + "; ++ox) {");
      if (width > 0) c.Line("if (ox >= " + S(first) + " && ox < " + S(last) + ") continue;");
      CheckedPixel(c);
      c.Close();
    }
    for (size_t a = 0; a < outer(); ++a) c.Close();
    c.Close();
  }
};

bool FitsInt(int64_t v) { return v >= 0 && v <= INT32_MAX; }

// A 2-D float32 pool through pool_f32 (mlfk_pool2d_f32_exec).
bool PoolSuitsKernel(const PoolShape& s, DType dtype, int64_t images) {
  const Window& w = s.w;
  if (dtype != DType::kFloat32 || w.rank() != 2) return false;
  const int64_t taps = s.planes * w.OutElements() * w.KernelElements();
  return taps >= kPoolKernelMinTaps && FitsInt(s.planes * w.InElements()) &&
         FitsInt(s.planes * w.OutElements()) && FitsInt(images);
}

std::string EmitPoolKernel(const EmitContext& ctx, const PoolShape& s, int64_t n) {
  const Window& w = s.w;
  ctx.UseKernel("pool_f32");
  const std::vector<int64_t> fields = {n, s.planes / n, w.in[0], w.in[1], w.out[0], w.out[1],
                                       w.kernel[0], w.kernel[1], w.strides[0], w.strides[1],
                                       w.dilations[0], w.dilations[1], w.pad_begin[0],
                                       w.pad_begin[1], w.pad_end[0], w.pad_end[1], s.max ? 0 : 1,
                                       s.count_include_pad ? 1 : 0};
  std::string init;
  for (int64_t f : fields) init += (init.empty() ? "" : ", ") + S(f);
  CodeWriter c;
  c.Line("/* n, c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pad_top, pad_left, pad_bottom, "
         "pad_right, average, count_include_pad */");
  c.Line("static const mlfk_pool2d_f32_shape shape = {" + init + "};");
  c.Line(std::string("mlfk_pool2d_f32_exec(") + EmitContext::kExec + ", &shape, in0, out0);");
  return c.str();
}

Status EmitPool(const EmitContext& ctx, std::string* body) {
  if (ctx.node.op == "MaxPool" && ctx.node.outputs.size() > 1) return MaxPoolIndicesEmit(ctx, body);
  const ir::Value& x = ctx.input(0);
  MLF_ASSIGN_OR_RETURN(PoolShape s, ComputePoolShape(ctx.node, x.shape));
  if (PoolSuitsKernel(s, x.dtype, x.shape[0])) {
    *body = EmitPoolKernel(ctx, s, x.shape[0]);
    return Status::Ok();
  }
  PoolEmitter e{s, x.dtype, CType(x.dtype), s.w.InElements(), s.w.OutElements(), {}, {}};
  e.in_strides.assign(s.w.rank(), 1);
  e.out_strides.assign(s.w.rank(), 1);
  for (size_t a = s.w.rank(); a-- > 1;) {
    e.in_strides[a - 1] = e.in_strides[a] * s.w.in[a];
    e.out_strides[a - 1] = e.out_strides[a] * s.w.out[a];
  }
  CodeWriter c;
  e.Emit(c);
  *body = c.str();
  return Status::Ok();
}

Status EmitGlobalPool(const EmitContext& ctx, std::string* body) {
  const ir::Value& x = ctx.input(0);
  const bool max = ctx.node.op == "GlobalMaxPool";
  const int64_t planes = x.shape[0] * x.shape[1];
  int64_t size = 1;
  for (size_t a = 2; a < x.shape.size(); ++a) size *= x.shape[a];
  const std::string t = CType(x.dtype);
  if (x.dtype == DType::kFloat32 && planes * size >= kPoolKernelMinTaps &&
      FitsInt(planes * size)) {
    ctx.UseKernel("pool_f32");
    CodeWriter k;
    k.Line("/* average, planes, elements per plane */");
    k.Line(std::string("mlfk_global_pool_f32_exec(") + EmitContext::kExec + ", " +
           (max ? "0" : "1") + ", " + S(planes) + ", " + S(size) + ", in0, out0);");
    *body = k.str();
    return Status::Ok();
  }
  const int64_t full = size / kLanes * kLanes;
  auto acc = [&](const std::string& a, const std::string& v) {
    return max ? a + " = " + v + " > " + a + " ? " + v + " : " + a + ";" : a + " += " + v + ";";
  };
  CodeWriter c;
  c.Open("for (int p = 0; p < " + S(planes) + "; ++p) {");
  c.Line("const " + t + "* restrict x = in0 + p * " + S(size) + ";");
  c.Line(t + " v = " + (max ? "x[0]" : CLiteral(x.dtype, 0)) + ";");
  if (full > 0) {
    c.Line(t + " part[" + S(kLanes) + "];");
    c.Line("for (int l = 0; l < " + S(kLanes) + "; ++l) part[l] = " +
           (max ? "x[l]" : CLiteral(x.dtype, 0)) + ";");
    c.Line("for (int i = 0; i < " + S(full) + "; i += " + S(kLanes) + ") for (int l = 0; l < " +
           S(kLanes) + "; ++l) " + acc("part[l]", "x[i + l]"));
    c.Line("for (int l = 0; l < " + S(kLanes) + "; ++l) " + acc("v", "part[l]"));
  }
  if (size > full) {
    c.Line("for (int i = " + S(full) + "; i < " + S(size) + "; ++i) " + acc("v", "x[i]"));
  }
  c.Line("out0[p] = " + (max ? std::string("v") : "v / " + CLiteral(x.dtype, static_cast<double>(size))) + ";");
  c.Close();
  *body = c.str();
  return Status::Ok();
}

uint64_t PoolMacs(const ir::Node& node, const ir::Graph& graph) {
  if (node.op == "MaxPool") return 0;
  auto s = ComputePoolShape(node, graph.value(node.inputs[0]).shape);
  if (!s.ok()) return 0;
  return static_cast<uint64_t>(s->planes * s->w.OutElements() * s->w.KernelElements());
}

uint64_t GlobalPoolMacs(const ir::Node& node, const ir::Graph& graph) {
  if (node.op == "GlobalMaxPool") return 0;
  return Elements(graph.value(node.inputs[0]).shape);
}

}  // namespace

void RegisterPoolOps(std::vector<OpDef>* table) {
  for (const char* name : {"MaxPool", "AveragePool"}) {
    table->push_back(OpDef{name, InferPool, EvaluatePool, EmitPool, PoolMacs, nullptr, false});
  }
  for (const char* name : {"GlobalAveragePool", "GlobalMaxPool"}) {
    table->push_back(OpDef{name, InferGlobalPool, EvaluateGlobalPool, EmitGlobalPool,
                           GlobalPoolMacs, nullptr, false});
  }
}

}  // namespace mlf::ops
