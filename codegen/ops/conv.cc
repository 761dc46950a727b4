// Conv (1-D, 2-D, 3-D; group incl. depthwise, dilations, strides, pads,
// auto_pad, optional bias, fused activation) and ConvTranspose (group,
// dilations, strides, pads, output_padding, output_shape, auto_pad, bias).
//
// Conv's generated code is a direct convolution without workspace. The last
// spatial axis is the "width"; every other spatial position is a "row". Per
// row, a tile of kOcb output channels x kOw output pixels is accumulated in
// a local array (registers) with the innermost loop contiguous over the
// input row (stride 1). Padding is handled by splitting each row at codegen
// time: the interior columns (every tap inside the input) run the tiled
// kernel without checks, the few border columns a per-pixel kernel with
// bounds checks; taps of rows above/below the input are skipped by one test
// per kernel row. A 1x1 stride-1 unpadded Conv runs as one long "row" over
// the flattened spatial axes (a matrix multiply). No scratch is needed: no
// padded copy, no im2col.
//
// A float32 2-D Conv of one group whose weight was packed at export
// (conv_kernel.h, codegen/passes/pack_weights.h) instead calls the kernel
// layer's conv_f32 (codegen/kernels): GEMM microkernels per ISA, im2col
// chunks in scratch; a float32 2-D depthwise Conv calls depthwise_f32. The
// fused activation is the kernel's clamp for Relu and Clip, a loop over the
// output for the others.
//
// ConvTranspose scatters: the output starts as the bias, and each input row
// adds w * x into the output row it reaches, the valid input range of every
// kernel column computed at codegen time so that the inner loop needs no
// test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <variant>

#include "codegen/ops/activation.h"
#include "codegen/ops/conv_geometry.h"
#include "codegen/ops/conv_kernel.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

// Tile of output channels x output pixels (tuned with gcc 12 -O3 on x86-64:
// a 3x3 32->64 Conv on 56x56 runs at ~29 GFLOP/s with SSE2, ~24 with AVX-512).
constexpr int64_t kOcb = 8;
constexpr int64_t kOw = 16;

std::string S(int64_t v) { return std::to_string(v); }

struct ConvShape {
  int64_t n, c, m, group, cg, mg;  // batch, in channels, out channels, groups, per group
  Window w;
};

// Shapes and attributes of Conv (transposed = false) or ConvTranspose.
Result<ConvShape> ComputeConvShape(const ir::Node& node, const std::vector<int64_t>& x,
                                   const std::vector<int64_t>& wt,
                                   const std::vector<int64_t>* bias, bool transposed) {
  if (x.size() < 3) {
    return NodeError(node, "input X " + FormatShape(x) +
                               " must have rank >= 3 (N, C and at least one spatial axis)");
  }
  if (wt.size() != x.size()) {
    return NodeError(node, "weight W " + FormatShape(wt) + " must have the rank of X " +
                               FormatShape(x));
  }
  ConvShape s;
  MLF_ASSIGN_OR_RETURN(s.group, node.Int("group", 1));
  if (s.group < 1) return NodeError(node, "attribute 'group' must be positive, got " + S(s.group));
  s.n = x[0];
  s.c = x[1];
  if (s.c % s.group != 0) {
    return NodeError(node, "input channels " + S(s.c) + " are not divisible by group " +
                               S(s.group));
  }
  s.cg = s.c / s.group;
  if (!transposed) {
    s.m = wt[0];
    if (wt[1] != s.cg) {
      return NodeError(node, "weight W " + FormatShape(wt) + " must have " + S(s.cg) +
                                 " input channels per group (X has " + S(s.c) + " channels, group " +
                                 S(s.group) + ")");
    }
    if (s.m % s.group != 0 || s.m == 0) {
      return NodeError(node, "output channels " + S(s.m) + " are not a positive multiple of group " +
                                 S(s.group));
    }
    s.mg = s.m / s.group;
  } else {
    if (wt[0] != s.c) {
      return NodeError(node, "weight W " + FormatShape(wt) + " must have " + S(s.c) +
                                 " input channels (X has " + S(s.c) + ")");
    }
    s.mg = wt[1];
    s.m = s.mg * s.group;
    if (s.m == 0) return NodeError(node, "weight W " + FormatShape(wt) + " has no output channels");
  }
  if (bias != nullptr && (bias->size() != 1 || (*bias)[0] != s.m)) {
    return NodeError(node, "bias B " + FormatShape(*bias) + " must have shape [" + S(s.m) + "]");
  }
  const std::vector<int64_t> in(x.begin() + 2, x.end());
  const std::vector<int64_t> kernel(wt.begin() + 2, wt.end());
  if (transposed) {
    MLF_ASSIGN_OR_RETURN(s.w, TransposedWindow(node, in, kernel));
  } else {
    MLF_ASSIGN_OR_RETURN(s.w, ForwardWindow(node, in, kernel, WindowKind::kConv));
  }
  return s;
}

Result<ConvShape> ConvShapeOf(const ir::Node& node, const ir::Graph& graph, bool transposed) {
  return ComputeConvShape(node, graph.value(node.inputs[0]).shape,
                          graph.value(node.inputs[1]).shape,
                          node.HasInput(2) ? &graph.value(node.inputs[2]).shape : nullptr,
                          transposed);
}

bool HasResidual(const ir::Node& node) { return node.HasAttr(kResidualAttr); }

// The residual of a fused Add (conv_kernel.h): present, shaped and typed
// like the output.
Status CheckResidual(const ir::Node& node, const ir::Graph& graph, DType t,
                     const std::vector<int64_t>& shape) {
  if (!node.HasInput(kResidualInput)) return NodeError(node, "the fused Add's residual input is missing");
  const ir::Value& r = graph.value(node.inputs[kResidualInput]);
  if (r.dtype != t || r.shape != shape) {
    return NodeError(node, std::string("the fused Add's residual is ") + DTypeName(r.dtype) + " " + FormatShape(r.shape) +
                               ", expected " + DTypeName(t) + " " + FormatShape(shape) + " like Y");
  }
  return Status::Ok();
}

Status InferConvFamily(const ir::Node& node, ir::Graph& graph, bool transposed) {
  const bool residual = !transposed && HasResidual(node);
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, residual ? 4 : 3));
  MLF_RETURN_IF_ERROR(CheckPresent(node, 1, "W"));
  const DType t = graph.value(node.inputs[0]).dtype;
  MLF_RETURN_IF_ERROR(CheckDType(node, t, kFloatDTypes, "X"));
  for (size_t i = 1; i < node.inputs.size() && i < kResidualInput; ++i) {
    if (node.HasInput(i) && graph.value(node.inputs[i]).dtype != t) {
      return NodeError(node, std::string(i == 1 ? "W" : "B") + " is " +
                                 DTypeName(graph.value(node.inputs[i]).dtype) + ", expected " +
                                 DTypeName(t) + " like X");
    }
  }
  MLF_ASSIGN_OR_RETURN(ConvShape s, ConvShapeOf(node, graph, transposed));
  if (!transposed) {
    MLF_RETURN_IF_ERROR(CheckActivationDType(node, t));
    MLF_RETURN_IF_ERROR(FusedActivation(node).status());
  } else if (HasFusedActivation(node)) {
    return NodeUnsupported(node, "ConvTranspose does not fuse activations");
  }
  std::vector<int64_t> shape = {s.n, s.m};
  shape.insert(shape.end(), s.w.out.begin(), s.w.out.end());
  if (residual) MLF_RETURN_IF_ERROR(CheckResidual(node, graph, t, shape));
  SetOutput(node, graph, 0, t, shape);
  return CheckIndexable(node, graph);
}

Status InferConv(const ir::Node& node, ir::Graph& graph) { return InferConvFamily(node, graph, false); }
Status InferConvTranspose(const ir::Node& node, ir::Graph& graph) {
  return InferConvFamily(node, graph, true);
}

// ---------------------------------------------------------------- evaluate

// Multi-index of flat position p in `dims`.
void Unflatten(int64_t p, const std::vector<int64_t>& dims, std::vector<int64_t>* idx) {
  idx->resize(dims.size());
  for (size_t a = dims.size(); a-- > 0;) {
    (*idx)[a] = p % dims[a];
    p /= dims[a];
  }
}

template <typename T>
void ConvLoops(const ConvShape& s, const T* x, const T* wt, const T* b, T* y,
               const std::function<float(float)>& act, bool has_act) {
  const Window& w = s.w;
  const int64_t ip = w.InElements(), op = w.OutElements(), ks = w.KernelElements();
  const std::vector<int64_t> in_strides = Strides(w.in);
  std::vector<std::vector<int64_t>> taps(static_cast<size_t>(ks));
  for (int64_t q = 0; q < ks; ++q) Unflatten(q, w.kernel, &taps[static_cast<size_t>(q)]);
  std::vector<int64_t> o;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t m = 0; m < s.m; ++m) {
      const int64_t g = m / s.mg;
      for (int64_t p = 0; p < op; ++p) {
        Unflatten(p, w.out, &o);
        double acc = b ? b[m] : 0.0;
        for (int64_t q = 0; q < ks; ++q) {
          const std::vector<int64_t>& k = taps[static_cast<size_t>(q)];
          int64_t offset = 0;
          bool inside = true;
          for (size_t a = 0; a < w.rank(); ++a) {
            const int64_t i = o[a] * w.strides[a] - w.pad_begin[a] + k[a] * w.dilations[a];
            if (i < 0 || i >= w.in[a]) inside = false;
            offset += i * in_strides[a];
          }
          if (!inside) continue;
          for (int64_t c = 0; c < s.cg; ++c) {
            acc += static_cast<double>(x[(n * s.c + g * s.cg + c) * ip + offset]) *
                   wt[(m * s.cg + c) * ks + q];
          }
        }
        const T v = static_cast<T>(acc);
        y[(n * s.m + m) * op + p] = has_act ? static_cast<T>(act(static_cast<float>(v))) : v;
      }
    }
  }
}

template <typename T>
void ConvTransposeLoops(const ConvShape& s, const T* x, const T* wt, const T* b, T* y) {
  const Window& w = s.w;
  const int64_t ip = w.InElements(), op = w.OutElements(), ks = w.KernelElements();
  const std::vector<int64_t> out_strides = Strides(w.out);
  std::vector<double> acc(static_cast<size_t>(s.n * s.m * op), 0.0);
  std::vector<std::vector<int64_t>> taps(static_cast<size_t>(ks));
  for (int64_t q = 0; q < ks; ++q) Unflatten(q, w.kernel, &taps[static_cast<size_t>(q)]);
  std::vector<int64_t> i;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t c = 0; c < s.c; ++c) {
      const int64_t g = c / s.cg;
      for (int64_t p = 0; p < ip; ++p) {
        Unflatten(p, w.in, &i);
        const double xv = x[(n * s.c + c) * ip + p];
        for (int64_t q = 0; q < ks; ++q) {
          const std::vector<int64_t>& k = taps[static_cast<size_t>(q)];
          int64_t offset = 0;
          bool inside = true;
          for (size_t a = 0; a < w.rank(); ++a) {
            const int64_t o = i[a] * w.strides[a] - w.pad_begin[a] + k[a] * w.dilations[a];
            if (o < 0 || o >= w.out[a]) inside = false;
            offset += o * out_strides[a];
          }
          if (!inside) continue;
          for (int64_t mm = 0; mm < s.mg; ++mm) {
            const int64_t m = g * s.mg + mm;
            acc[static_cast<size_t>((n * s.m + m) * op + offset)] += xv * wt[(c * s.mg + mm) * ks + q];
          }
        }
      }
    }
  }
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t m = 0; m < s.m; ++m) {
      for (int64_t p = 0; p < op; ++p) {
        const size_t at = static_cast<size_t>((n * s.m + m) * op + p);
        y[at] = static_cast<T>(acc[at] + (b ? b[m] : 0.0));
      }
    }
  }
}

Status EvaluateConvFamily(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                          std::vector<ir::HostTensor>* out, bool transposed) {
  if (in.size() < 2 || in[0] == nullptr || in[1] == nullptr) {
    return NodeError(node, "inputs X and W are required");
  }
  if (node.attrs.count(kWeightLayoutAttr)) {
    // Packing is the last step before emission; nothing evaluates after it.
    return NodeError(node, "weight W is packed for the kernel layer and cannot be evaluated");
  }
  const ir::HostTensor* b = in.size() > 2 ? in[2] : nullptr;
  const ir::HostTensor* r = !transposed && HasResidual(node) && in.size() > kResidualInput
                                ? in[kResidualInput] : nullptr;
  MLF_ASSIGN_OR_RETURN(ConvShape s, ComputeConvShape(node, in[0]->shape, in[1]->shape,
                                                     b ? &b->shape : nullptr, transposed));
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0]->dtype, kFloatDTypes, "X"));
  MLF_ASSIGN_OR_RETURN(auto act, FusedActivation(node));
  const bool has_act = HasFusedActivation(node);
  std::vector<int64_t> shape = {s.n, s.m};
  shape.insert(shape.end(), s.w.out.begin(), s.w.out.end());
  if (HasResidual(node) && !transposed && (r == nullptr || r->shape != shape || r->dtype != in[0]->dtype)) {
    return NodeError(node, "the fused Add's residual must be shaped and typed like Y");
  }
  ir::HostTensor y = ir::HostTensor::Zeros(in[0]->dtype, shape);
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* bias = b ? b->data<T>() : nullptr;
    if (transposed) {
      ConvTransposeLoops<T>(s, in[0]->data<T>(), in[1]->data<T>(), bias, y.data<T>());
    } else {
      ConvLoops<T>(s, in[0]->data<T>(), in[1]->data<T>(), bias, y.data<T>(), act, has_act && !r);
    }
    if (r != nullptr) {
      // The fused Add, then the activation, as the unfused nodes ran.
      T* v = y.data<T>();
      for (uint64_t i = 0; i < y.element_count(); ++i) {
        v[i] = v[i] + r->data<T>()[i];
        if (has_act) v[i] = static_cast<T>(act(static_cast<float>(v[i])));
      }
    }
  };
  if (in[0]->dtype == DType::kFloat32) run(TypeTag<float>{});
  else run(TypeTag<double>{});
  out->push_back(std::move(y));
  return Status::Ok();
}

Status EvaluateConv(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                    std::vector<ir::HostTensor>* out) {
  return EvaluateConvFamily(node, in, out, false);
}

Status EvaluateConvTranspose(const ir::Node& node, const std::vector<const ir::HostTensor*>& in,
                             std::vector<ir::HostTensor>* out) {
  return EvaluateConvFamily(node, in, out, true);
}

// ---------------------------------------------------------------- emit Conv

struct ConvEmitter {
  const EmitContext& ctx;
  ConvShape s;
  Window w;  // s.w, or its flattened 1-D form for pointwise convolutions
  std::string t;
  bool has_bias;
  int64_t ip, op, ks, cgks;
  std::vector<int64_t> in_strides, out_strides;

  size_t outer() const { return w.rank() - 1; }  // spatial axes before the width
  size_t wa() const { return w.rank() - 1; }     // the width axis
  int64_t OW() const { return w.out[wa()]; }

  // Whether output positions on axis a can reach outside the input.
  bool NeedsCheck(size_t a) const {
    auto [first, last] = w.Interior(a);
    return first != 0 || last != w.out[a];
  }

  std::string Zero() const { return CLiteral(ctx.input(0).dtype, 0); }

  // Opens the loops over the kernel's row taps for output row (o0, o1, ...):
  // declares i<a> and skips taps outside the input. Returns the number of
  // blocks opened.
  int OpenKernelRows(CodeWriter& c) const {
    int opened = 0;
    for (size_t a = 0; a < outer(); ++a) {
      c.Open("for (int k" + S(a) + " = 0; k" + S(a) + " < " + S(w.kernel[a]) + "; ++k" + S(a) +
             ") {");
      ++opened;
      c.Line("const int i" + S(a) + " = " +
             PlusConst(Times("o" + S(a), w.strides[a]), -w.pad_begin[a]) + " + " +
             Times("k" + S(a), w.dilations[a]) + ";");
      if (NeedsCheck(a)) c.Line("if (i" + S(a) + " < 0 || i" + S(a) + " >= " + S(w.in[a]) + ") continue;");
    }
    return opened;
  }

  // " + <offset of kernel row (k0, k1, ...)>" in elements of one channel's
  // kernel, and " + <offset of input row (i0, i1, ...)>"; empty for 1-D.
  std::string KernelRow() const {
    std::string e;
    for (size_t a = 0; a < outer(); ++a) {
      e = e.empty() ? "k" + S(a) : "(" + e + ") * " + S(w.kernel[a]) + " + k" + S(a);
    }
    return e.empty() ? "" : " + " + Times("(" + e + ")", w.kernel[wa()]);
  }
  std::string InputRow() const {
    std::string e;
    for (size_t a = 0; a < outer(); ++a) e += " + " + Times("i" + S(a), in_strides[a]);
    return e;
  }

  Result<std::string> Store(const std::string& v) const { return ctx.Activation(v); }

  // Interior tile: `ocb` channels from m, `wt` pixels from column `ox`.
  Status FastTile(CodeWriter& c, int64_t ocb, int64_t wt, const std::string& ox) const {
    const int64_t sw = w.strides[wa()], dw = w.dilations[wa()], kw = w.kernel[wa()];
    c.Open("{");
    c.Line(t + " acc[" + S(ocb) + "][" + S(wt) + "];");
    c.Line("for (int j = 0; j < " + S(ocb) + "; ++j) for (int t = 0; t < " + S(wt) +
           "; ++t) acc[j][t] = " + (has_bias ? "in2[m + j]" : Zero()) + ";");
    c.Open("for (int c = 0; c < " + S(s.cg) + "; ++c) {");
    const int opened = OpenKernelRows(c);
    const std::string col = ox.find_first_not_of("0123456789") == std::string::npos
                                ? S(std::stoll(ox) * sw - w.pad_begin[wa()])
                                : PlusConst(Times(ox, sw), -w.pad_begin[wa()]);
    c.Line("const " + t + "* restrict xr = x + c * " + S(ip) + InputRow() + " + " + col + ";");
    c.Line("const " + t + "* restrict wr = wm + c * " + S(ks) + KernelRow() + ";");
    c.Open("for (int kw = 0; kw < " + S(kw) + "; ++kw) {");
    c.Open("for (int j = 0; j < " + S(ocb) + "; ++j) {");
    c.Line("const " + t + " wv = wr[j * " + S(cgks) + " + kw];");
    c.Line("for (int t = 0; t < " + S(wt) + "; ++t) acc[j][t] += wv * xr[" + Times("kw", dw) +
           " + " + Times("t", sw) + "];");
    c.Close();
    c.Close();
    for (int b = 0; b < opened; ++b) c.Close();
    c.Close();
    MLF_ASSIGN_OR_RETURN(std::string v, Store("acc[j][t]"));
    c.Line("for (int j = 0; j < " + S(ocb) + "; ++j) for (int t = 0; t < " + S(wt) +
           "; ++t) ym[j * " + S(op) + " + " + ox + " + t] = " + v + ";");
    c.Close();
    return Status::Ok();
  }

  // Border pixel at column ox with bounds checks on every axis.
  Status CheckedPixel(CodeWriter& c, int64_t ocb) const {
    const size_t a = wa();
    c.Open("{");
    c.Line(t + " acc[" + S(ocb) + "];");
    c.Line("for (int j = 0; j < " + S(ocb) + "; ++j) acc[j] = " +
           (has_bias ? "in2[m + j]" : Zero()) + ";");
    c.Open("for (int c = 0; c < " + S(s.cg) + "; ++c) {");
    const int opened = OpenKernelRows(c);
    c.Open("for (int kw = 0; kw < " + S(w.kernel[a]) + "; ++kw) {");
    c.Line("const int iw = " + PlusConst(Times("ox", w.strides[a]), -w.pad_begin[a]) + " + " +
           Times("kw", w.dilations[a]) + ";");
    c.Line("if (iw < 0 || iw >= " + S(w.in[a]) + ") continue;");
    c.Line("const " + t + " xv = x[c * " + S(ip) + InputRow() + " + iw];");
    c.Line("for (int j = 0; j < " + S(ocb) + "; ++j) acc[j] += wm[j * " + S(cgks) + " + c * " +
           S(ks) + KernelRow() + " + kw] * xv;");
    c.Close();
    for (int b = 0; b < opened; ++b) c.Close();
    c.Close();
    MLF_ASSIGN_OR_RETURN(std::string v, Store("acc[j]"));
    c.Line("for (int j = 0; j < " + S(ocb) + "; ++j) ym[j * " + S(op) + " + ox] = " + v + ";");
    c.Close();
    return Status::Ok();
  }

  // One output row for `ocb` channels starting at m.
  Status Row(CodeWriter& c, int64_t ocb) const {
    c.Line("const " + t + "* restrict wm = in1 + m * " + S(cgks) + ";");
    c.Line(t + "* restrict ym = out0 + (n * " + S(s.m) + " + m) * " + S(op) + " + orow;");
    auto [first, last] = w.Interior(wa());
    const int64_t width = last - first, full = width / kOw * kOw;
    if (full > 0) {
      c.Open("for (int ox = " + S(first) + "; ox < " + S(first + full) + "; ox += " + S(kOw) + ") {");
      MLF_RETURN_IF_ERROR(FastTile(c, ocb, kOw, "ox"));
      c.Close();
    }
    if (width > full) MLF_RETURN_IF_ERROR(FastTile(c, ocb, width - full, S(first + full)));
    if (width < OW()) {
      c.Open("for (int ox = 0; ox < " + S(OW()) + "; ++ox) {");
      if (width > 0) c.Line("if (ox >= " + S(first) + " && ox < " + S(last) + ") continue;");
      MLF_RETURN_IF_ERROR(CheckedPixel(c, ocb));
      c.Close();
    }
    return Status::Ok();
  }

  Status Emit(CodeWriter& c) const {
    c.Open("for (int n = 0; n < " + S(s.n) + "; ++n) {");
    c.Open("for (int g = 0; g < " + S(s.group) + "; ++g) {");
    c.Line("const " + t + "* restrict x = in0 + (n * " + S(s.c) + " + g * " + S(s.cg) + ") * " +
           S(ip) + ";");
    std::string orow;
    for (size_t a = 0; a < outer(); ++a) {
      c.Open("for (int o" + S(a) + " = 0; o" + S(a) + " < " + S(w.out[a]) + "; ++o" + S(a) + ") {");
      orow += (orow.empty() ? "" : " + ") + Times("o" + S(a), out_strides[a]);
    }
    c.Line("const int orow = " + (orow.empty() ? std::string("0") : orow) + ";");
    const int64_t full = s.mg / kOcb;
    if (full > 0) {
      c.Open("for (int mt = 0; mt < " + S(full) + "; ++mt) {");
      c.Line("const int m = g * " + S(s.mg) + " + mt * " + S(kOcb) + ";");
      MLF_RETURN_IF_ERROR(Row(c, kOcb));
      c.Close();
    }
    if (s.mg % kOcb != 0) {
      c.Open("{");
      c.Line("const int m = g * " + S(s.mg) + " + " + S(full * kOcb) + ";");
      MLF_RETURN_IF_ERROR(Row(c, s.mg % kOcb));
      c.Close();
    }
    for (size_t a = 0; a < outer(); ++a) c.Close();
    c.Close();
    c.Close();
    return Status::Ok();
  }
};

// A 1x1, stride-1, unpadded window over all spatial axes as one flat axis.
bool IsPointwise(const Window& w) {
  for (size_t a = 0; a < w.rank(); ++a) {
    if (w.kernel[a] != 1 || w.strides[a] != 1 || w.pad_begin[a] != 0 || w.pad_end[a] != 0) {
      return false;
    }
  }
  return true;
}


// ---------------------------------------------------------------- kernel layer

bool FitsInt(int64_t v) { return v >= 0 && v <= INT32_MAX; }

// A multiple of 8 when the image has fewer pixels than kConvKernelChunk, so
// that threads cutting a small image by pixels (conv_f32) each get a slice
// of the chunk at least as wide as their range: 49 pixels give a chunk of
// 56, 28 pixels per task for two.
int64_t KernelChunk(const ConvShape& s) {
  return std::min<int64_t>(kConvKernelChunk, (s.w.OutElements() + 7) / 8 * 8);
}

// conv_f32 multiplies X directly (no scratch) for a 1x1, stride-1, unpadded window.
bool KernelIsDirect(const Window& w) {
  return IsPointwise(w) && w.out == w.in;
}

uint64_t ConvKernelScratch(const ConvShape& s) {
  if (KernelIsDirect(s.w)) return 0;
  return static_cast<uint64_t>(s.c * s.w.KernelElements() * KernelChunk(s)) * sizeof(float);
}

bool WeightIsPacked(const ir::Node& node) {
  auto it = node.attrs.find(kWeightLayoutAttr);
  return it != node.attrs.end() && std::holds_alternative<std::string>(it->second) &&
         std::get<std::string>(it->second) == kGemmPanelsLayout;
}

// Relu and Clip become the kernel's clamp [lo, hi]; "" when there is another
// activation (applied by a loop after the kernel) or none.
struct KernelClamp {
  std::string lo = "-HUGE_VALF", hi = "HUGE_VALF";
  bool in_kernel = true;  // false: the activation needs the loop
};

Result<KernelClamp> ClampOf(const ir::Node& node) {
  KernelClamp k;
  MLF_ASSIGN_OR_RETURN(std::string act, node.String("mlf.activation", ""));
  if (act.empty()) return k;
  if (act == "Relu") {
    k.lo = "0.0f";
    return k;
  }
  if (act == "Clip") {
    MLF_ASSIGN_OR_RETURN(double lo, node.Float("mlf.activation.min", -INFINITY));
    MLF_ASSIGN_OR_RETURN(double hi, node.Float("mlf.activation.max", INFINITY));
    if (lo > -INFINITY) k.lo = CLiteral(DType::kFloat32, lo);
    if (hi < INFINITY) k.hi = CLiteral(DType::kFloat32, hi);
    return k;
  }
  k.in_kernel = false;
  return k;
}

// A float32 2-D Conv with one input and one output channel per group.
bool IsDepthwise2D(const ConvShape& s, DType dtype) {
  return dtype == DType::kFloat32 && s.w.rank() == 2 && s.group > 1 && s.cg == 1 && s.mg == 1;
}

// The activation loop after a kernel whose clamp could not apply it.
Status EmitActivationLoop(const EmitContext& ctx, const KernelClamp& clamp, int64_t count,
                          CodeWriter& c) {
  if (clamp.in_kernel) return Status::Ok();
  MLF_ASSIGN_OR_RETURN(std::string act, ctx.Activation("v"));
  c.Open("for (int i = 0; i < " + S(count) + "; ++i) {");
  c.Line("const float v = out0[i];");
  c.Line("out0[i] = " + act + ";");
  c.Close();
  return Status::Ok();
}

// Depthwise convolutions call depthwise_f32 with the weight as exported.
Status EmitDepthwiseKernel(const EmitContext& ctx, const ConvShape& s, std::string* body) {
  const Window& w = s.w;
  MLF_ASSIGN_OR_RETURN(KernelClamp clamp, ClampOf(ctx.node));
  ctx.UseKernel("depthwise_f32");
  const std::vector<int64_t> fields = {s.n, s.c, w.in[0], w.in[1], w.out[0], w.out[1],
                                       w.kernel[0], w.kernel[1], w.strides[0], w.strides[1],
                                       w.dilations[0], w.dilations[1], w.pad_begin[0],
                                       w.pad_begin[1]};
  std::string init;
  for (int64_t f : fields) init += (init.empty() ? "" : ", ") + S(f);
  CodeWriter c;
  c.Line("/* n, c, h, w, oh, ow, kh, kw, sh, sw, dh, dw, pad_top, pad_left */");
  c.Line("static const mlfk_depthwise2d_f32_shape shape = {" + init + "};");
  c.Line(std::string("mlfk_depthwise2d_f32_exec(") + EmitContext::kExec + ", &shape, in0, in1, " +
         (ctx.node.HasInput(2) ? "in2" : "NULL") + ", out0, " + clamp.lo + ", " + clamp.hi + ");");
  MLF_RETURN_IF_ERROR(EmitActivationLoop(ctx, clamp, s.n * s.m * w.OutElements(), c));
  *body = c.str();
  return Status::Ok();
}

// A float32 2-D convolution of one group, stride 1, dilation 1 and no
// padding, with its weight as exported (not packed for conv_f32's GEMM):
// conv_f32's direct path computes the sums of the loops below in their
// order (LeNet-5's convolutions).
bool IsValidDirect2D(const ConvShape& s, DType dtype) {
  const Window& w = s.w;
  if (dtype != DType::kFloat32 || w.rank() != 2 || s.group != 1 || s.m < 1 || s.c < 1) return false;
  for (size_t a = 0; a < 2; ++a) {
    if (w.strides[a] != 1 || w.dilations[a] != 1 || w.pad_begin[a] != 0 || w.pad_end[a] != 0 ||
        w.out[a] < 1 || w.out[a] != w.in[a] - w.kernel[a] + 1) {
      return false;
    }
  }
  return FitsInt(s.n * s.c * w.InElements()) && FitsInt(s.n * s.m * w.OutElements()) &&
         FitsInt(s.m * s.c * w.KernelElements());
}

// The call of conv_f32's direct path ahead of the loops, which it makes
// unnecessary when it runs (AVX-512; it declines every other variant, and
// firmware builds have none): "" when the activation is not a clamp.
Result<std::string> ValidConvKernelCall(const EmitContext& ctx, const ConvShape& s) {
  const Window& w = s.w;
  MLF_ASSIGN_OR_RETURN(KernelClamp clamp, ClampOf(ctx.node));
  if (!clamp.in_kernel) return std::string();
  ctx.UseKernel("conv_f32");
  const std::vector<int64_t> fields = {s.n, s.c, w.in[0], w.in[1], s.m, w.kernel[0], w.kernel[1]};
  std::string init;
  for (int64_t f : fields) init += (init.empty() ? "" : ", ") + S(f);
  CodeWriter c;
  c.Line("/* n, c, h, w, m, kh, kw: conv_f32's direct path where the run's variant has one */");
  c.Line("static const mlfk_conv2d_f32_valid_shape shape = {" + init + "};");
  c.Line(std::string("if (mlfk_conv2d_f32_valid_exec(") + EmitContext::kExec + ", &shape, in0, in1, " +
         (ctx.node.HasInput(2) ? "in2" : "NULL") + ", out0, " + clamp.lo + ", " + clamp.hi +
         ")) return;");
  return c.str();
}

Status EmitConvKernel(const EmitContext& ctx, const ConvShape& s, std::string* body) {
  const Window& w = s.w;
  if (w.rank() != 2 || s.group != 1 || ctx.input(0).dtype != DType::kFloat32) {
    return NodeError(ctx.node, "weight W is packed for the kernel layer, which runs float32 2-D "
                               "convolutions of one group only");
  }
  MLF_ASSIGN_OR_RETURN(KernelClamp clamp, ClampOf(ctx.node));
  ctx.UseKernel("conv_f32");
  const std::vector<int64_t> fields = {s.n, s.c, w.in[0], w.in[1], s.m, w.out[0], w.out[1],
                                       w.kernel[0], w.kernel[1], w.strides[0], w.strides[1],
                                       w.dilations[0], w.dilations[1], w.pad_begin[0],
                                       w.pad_begin[1], KernelChunk(s)};
  std::string init;
  for (int64_t f : fields) init += (init.empty() ? "" : ", ") + S(f);
  CodeWriter c;
  c.Line("/* n, c, h, w, m, oh, ow, kh, kw, sh, sw, dh, dw, pad_top, pad_left, chunk */");
  c.Line("static const mlfk_conv2d_f32_shape shape = {" + init + "};");
  c.Line(std::string("mlfk_conv2d_f32_exec(") + EmitContext::kExec + ", &shape, in0, in1, " +
         (ctx.node.HasInput(2) ? "in2" : "NULL") + ", " +
         (HasResidual(ctx.node) ? EmitContext::In(kResidualInput) : std::string("NULL")) +
         ", out0, " + (ConvKernelScratch(s) ? "(float*)scratch" : "NULL") + ", " + clamp.lo + ", " +
         clamp.hi + ");");
  MLF_RETURN_IF_ERROR(EmitActivationLoop(ctx, clamp, s.n * s.m * w.OutElements(), c));
  *body = c.str();
  return Status::Ok();
}

Status EmitConv(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ConvShape s, ConvShapeOf(ctx.node, ctx.graph, false));
  MLF_RETURN_IF_ERROR(CheckActivationDType(ctx.node, ctx.input(0).dtype));
  if (HasResidual(ctx.node) && !WeightIsPacked(ctx.node)) {
    return NodeError(ctx.node, "a fused Add's residual needs the kernel layer's packed weight");
  }
  if (ctx.node.attrs.count(kWeightLayoutAttr)) {
    if (!WeightIsPacked(ctx.node)) {
      return NodeError(ctx.node, "unknown weight layout in attribute '" + std::string(kWeightLayoutAttr) + "'");
    }
    return EmitConvKernel(ctx, s, body);
  }
  const bool fits = FitsInt(s.n * s.c * s.w.InElements()) && FitsInt(s.n * s.m * s.w.OutElements());
  if (IsDepthwise2D(s, ctx.input(0).dtype) && fits) return EmitDepthwiseKernel(ctx, s, body);
  ConvEmitter e{ctx, s, s.w, CType(ctx.input(0).dtype), ctx.node.HasInput(2), 0, 0, 0, 0, {}, {}};
  if (IsPointwise(s.w) && s.w.rank() > 1) {
    const int64_t p = s.w.InElements();
    e.w = Window{{p}, {p}, {1}, {1}, {1}, {0}, {0}};
  }
  e.ip = e.w.InElements();
  e.op = e.w.OutElements();
  e.ks = e.w.KernelElements();
  e.cgks = s.cg * e.ks;
  e.in_strides = Strides(e.w.in);
  e.out_strides = Strides(e.w.out);
  std::string direct;
  if (IsValidDirect2D(s, ctx.input(0).dtype)) {
    MLF_ASSIGN_OR_RETURN(direct, ValidConvKernelCall(ctx, s));
  }
  CodeWriter c;
  MLF_RETURN_IF_ERROR(e.Emit(c));
  *body = direct + c.str();
  return Status::Ok();
}

// ---------------------------------------------------------------- emit ConvTranspose

Status EmitConvTranspose(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ConvShape s, ConvShapeOf(ctx.node, ctx.graph, true));
  const Window& w = s.w;
  const std::string t = CType(ctx.input(0).dtype);
  const int64_t ip = w.InElements(), op = w.OutElements(), ks = w.KernelElements();
  const std::vector<int64_t> in_strides = Strides(w.in), out_strides = Strides(w.out);
  const size_t wa = w.rank() - 1, outer = w.rank() - 1;
  // Per kernel column kw: output column = iw * sw + off, valid for iw in [lo, hi).
  struct Run { int64_t kw, off, lo, hi; };
  std::vector<Run> runs;
  for (int64_t kw = 0; kw < w.kernel[wa]; ++kw) {
    const int64_t sw = w.strides[wa];
    const int64_t off = kw * w.dilations[wa] - w.pad_begin[wa];
    const int64_t lo = std::max<int64_t>(0, CeilDiv(-off, sw));
    const int64_t hi = std::min<int64_t>(w.in[wa], FloorDiv(w.out[wa] - 1 - off, sw) + 1);
    if (hi > lo) runs.push_back({kw, off, lo, hi});
  }
  CodeWriter c;
  // The output starts as the bias (or zero).
  c.Open("for (int nm = 0; nm < " + S(s.n * s.m) + "; ++nm) {");
  c.Line("const " + t + " bv = " +
         (ctx.node.HasInput(2) ? "in2[nm % " + S(s.m) + "]" : CLiteral(ctx.input(0).dtype, 0)) +
         ";");
  c.Line(t + "* restrict yp = out0 + nm * " + S(op) + ";");
  c.Line("for (int p = 0; p < " + S(op) + "; ++p) yp[p] = bv;");
  c.Close();
  if (runs.empty()) {  // no input pixel reaches the output
    c.Line("(void)in0;");
    c.Line("(void)in1;");
    *body = c.str();
    return Status::Ok();
  }
  c.Open("for (int n = 0; n < " + S(s.n) + "; ++n) {");
  c.Open("for (int ci = 0; ci < " + S(s.c) + "; ++ci) {");
  c.Line("const int g = ci / " + S(s.cg) + ";");
  c.Line("const " + t + "* restrict xc = in0 + (n * " + S(s.c) + " + ci) * " + S(ip) + ";");
  c.Line("const " + t + "* restrict wc = in1 + ci * " + S(s.mg * ks) + ";");
  std::string xrow, yrow, krow = "0";
  for (size_t a = 0; a < outer; ++a) {
    const std::string A = S(a);
    c.Open("for (int i" + A + " = 0; i" + A + " < " + S(w.in[a]) + "; ++i" + A + ") {");
    c.Open("for (int k" + A + " = 0; k" + A + " < " + S(w.kernel[a]) + "; ++k" + A + ") {");
    c.Line("const int o" + A + " = " + PlusConst(Times("i" + A, w.strides[a]), -w.pad_begin[a]) +
           " + " + Times("k" + A, w.dilations[a]) + ";");
    c.Line("if (o" + A + " < 0 || o" + A + " >= " + S(w.out[a]) + ") continue;");
    xrow += (xrow.empty() ? "" : " + ") + Times("i" + A, in_strides[a]);
    yrow += (yrow.empty() ? "" : " + ") + Times("o" + A, out_strides[a]);
    krow = krow == "0" ? "k" + A : "(" + krow + ") * " + S(w.kernel[a]) + " + k" + A;
  }
  c.Line("const " + t + "* restrict xr = xc" + (xrow.empty() ? "" : " + " + xrow) + ";");
  c.Open("for (int mm = 0; mm < " + S(s.mg) + "; ++mm) {");
  c.Line(t + "* restrict yr = out0 + (n * " + S(s.m) + " + g * " + S(s.mg) + " + mm) * " + S(op) +
         (yrow.empty() ? "" : " + " + yrow) + ";");
  c.Line("const " + t + "* restrict wr = wc + mm * " + S(ks) +
         (krow == "0" ? "" : " + " + Times("(" + krow + ")", w.kernel[wa])) + ";");
  for (const Run& r : runs) {
    c.Open("{");
    c.Line("const " + t + " wv = wr[" + S(r.kw) + "];");
    c.Line("for (int iw = " + S(r.lo) + "; iw < " + S(r.hi) + "; ++iw) yr[" +
           PlusConst(Times("iw", w.strides[wa]), r.off) + "] += wv * xr[iw];");
    c.Close();
  }
  c.Close();  // mm
  for (size_t a = 0; a < outer; ++a) {
    c.Close();
    c.Close();
  }
  c.Close();  // ci
  c.Close();  // n
  *body = c.str();
  return Status::Ok();
}

// ---------------------------------------------------------------- macs

uint64_t ConvMacs(const ir::Node& node, const ir::Graph& graph) {
  auto s = ConvShapeOf(node, graph, false);
  if (!s.ok()) return 0;
  return static_cast<uint64_t>(s->n * s->m * s->w.OutElements() * s->cg * s->w.KernelElements());
}

uint64_t ConvScratch(const ir::Node& node, const ir::Graph& graph) {
  if (!WeightIsPacked(node)) return 0;
  auto s = ConvShapeOf(node, graph, false);
  return s.ok() ? ConvKernelScratch(*s) : 0;
}

uint64_t ConvTransposeMacs(const ir::Node& node, const ir::Graph& graph) {
  auto s = ConvShapeOf(node, graph, true);
  if (!s.ok()) return 0;
  return static_cast<uint64_t>(s->n * s->c * s->w.InElements() * s->mg * s->w.KernelElements());
}

}  // namespace

bool ConvSuitsKernel(const ir::Node& node, const ir::Graph& graph) {
  if (node.op != "Conv" || !node.HasInput(1) || node.attrs.count(kWeightLayoutAttr)) return false;
  const ir::Value& x = graph.value(node.inputs[0]);
  const ir::Value& wt = graph.value(node.inputs[1]);
  if (x.dtype != DType::kFloat32 || wt.dtype != DType::kFloat32 || !wt.is_constant()) return false;
  auto s = ConvShapeOf(node, graph, false);
  if (!s.ok() || s->w.rank() != 2 || s->group != 1) return false;
  for (int64_t v : {s->n * s->c * s->w.InElements(), s->n * s->m * s->w.OutElements(),
                    s->c * s->w.KernelElements() * s->m, s->c * s->w.KernelElements() * KernelChunk(*s)}) {
    if (!FitsInt(v)) return false;
  }
  if (ConvMacs(node, graph) < kConvKernelMinMacs) return false;
  // The packed weight replaces the original: nothing else may read it.
  int readers = 0;
  for (const ir::Node& n : graph.nodes) {
    for (int id : n.inputs) readers += id == node.inputs[1];
  }
  for (int id : graph.outputs) readers += id == node.inputs[1];
  return readers == 1;
}

void RegisterConvOps(std::vector<OpDef>* table) {
  table->push_back(OpDef{"Conv", InferConv, EvaluateConv, EmitConv, ConvMacs, ConvScratch, true});
  table->push_back(OpDef{"ConvTranspose", InferConvTranspose, EvaluateConvTranspose,
                         EmitConvTranspose, ConvTransposeMacs, nullptr, false});
}

}  // namespace mlf::ops
