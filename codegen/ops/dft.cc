// DFT and STFT (opset 17), naive O(N^2) transforms with a twiddle table:
//
//   DFT   input [batch, n_1, ..., n_k, 1 or 2] (real, or complex as its last
//         axis), the transform along `axis` (default 1; not the last axis),
//         of length dft_length (input 1, optional: the axis' length; longer
//         zero-pads, shorter truncates). inverse=1 is the inverse transform
//         (exp(+2 pi i k n / N), divided by N); onesided=1 (real input only,
//         forward) keeps the first N / 2 + 1 bins. Output [..., 2].
//   STFT  signal [batch, length, 1 or 2], frame_step (input 1), window
//         (input 2, optional, [frame_length]), frame_length (input 3,
//         optional when the window is given); frames start every frame_step
//         samples while a whole frame fits; each is multiplied by the window
//         and transformed (onesided=1, the default, keeps frame_length / 2 + 1
//         bins; real signals only). Output [batch, frames, bins, 2].
//
// dft_length, frame_step and frame_length fix the output's shape, so they
// must be constants (the front end asks for them with --constant); the
// signal and the window are data. Sums are in double (evaluate and the
// generated code alike: the same products in the same order), the
// twiddles cos/sin(2 pi j / N) computed at export into a static table.
// Float32 or float64.
#include <algorithm>
#include <cmath>
#include <string>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

// The one whole value of constant integer input i, at least 1.
Result<int64_t> PositiveScalar(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                               const std::string& what) {
  MLF_ASSIGN_OR_RETURN(const InputInfo* v, RequiredInput(node, in, i, what));
  const std::string name = "input " + std::to_string(i) + " (" + what + ")";
  if (v->dtype != DType::kInt32 && v->dtype != DType::kInt64) {
    return NodeError(node, name + " must be int32 or int64, got " + DTypeName(v->dtype));
  }
  if (v->data == nullptr) return NodeError(node, name + " must be a constant");
  if (Elements(v->shape) != 1) return NodeError(node, name + " must hold one value, got shape " + FormatShape(v->shape));
  const int64_t n = v->data->ToInts()[0];
  if (n < 1) return NodeError(node, name + " is " + Num(n) + ", expected 1 or more");
  return n;
}

// One transform: `count` sequences of `in_len` samples (read `n_read` of
// them, the rest zero) -> `bins` bins of a length-`length` DFT. Element n of
// sequence s is at x_offset(s) + n * x_stride (times `channels` values),
// bin k of its result at y_offset(s) + k * y_stride (times 2).
struct DftPlan {
  DType dtype = DType::kFloat32;
  bool stft = false;
  bool inverse = false;
  int64_t channels = 1;        // 1 real, 2 complex
  int64_t length = 0;          // N of the transform
  int64_t bins = 0;            // output bins
  int64_t n_read = 0;          // samples read per sequence (the rest are 0)
  // DFT: [outer, in_len, inner] sequences along the middle axis.
  int64_t outer = 1, in_len = 0, inner = 1;
  // STFT: [batch, frames] sequences, frame f starting at f * step.
  int64_t batch = 0, frames = 0, step = 0, signal_len = 0;
  bool window = false;
  Shape out;
};

Result<DftPlan> PlanDft(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2));
  const InputInfo& x = in[0];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input 0"));
  const size_t rank = x.shape.size();
  if (rank < 3 || (x.shape.back() != 1 && x.shape.back() != 2)) {
    return NodeError(node, "input 0 must be [batch, signal dims..., 1 or 2] (rank 3 or more), got shape " +
                               FormatShape(x.shape));
  }
  DftPlan p;
  p.dtype = x.dtype;
  p.channels = x.shape.back();
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 1));
  MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, rank, "axis"));
  if (axis == 0 || axis == rank - 1) {
    return NodeError(node, "axis " + Num(axis_attr) + " is the " + (axis == 0 ? "batch" : "real/imaginary") +
                               " axis; expected a signal axis (1 to " + Num(static_cast<int64_t>(rank) - 2) + ")");
  }
  MLF_ASSIGN_OR_RETURN(int64_t inverse, node.Int("inverse", 0));
  if (inverse != 0 && inverse != 1) return NodeError(node, "attribute 'inverse' must be 0 or 1, got " + Num(inverse));
  MLF_ASSIGN_OR_RETURN(int64_t onesided, node.Int("onesided", 0));
  if (onesided != 0 && onesided != 1) {
    return NodeError(node, "attribute 'onesided' must be 0 or 1, got " + Num(onesided));
  }
  if (onesided == 1 && (p.channels == 2 || inverse == 1)) {
    return NodeUnsupported(node, "onesided=1 is supported for the forward transform of a real input only");
  }
  p.inverse = inverse == 1;
  p.outer = Product(x.shape, 0, axis);
  p.in_len = x.shape[axis];
  p.inner = Product(x.shape, axis + 1, rank - 1);
  p.length = p.in_len;
  if (Has(in, 1)) {
    MLF_ASSIGN_OR_RETURN(p.length, PositiveScalar(node, in, 1, "dft_length"));
  } else if (p.length < 1) {
    return NodeError(node, "the signal axis is empty");
  }
  p.n_read = std::min(p.in_len, p.length);
  p.bins = onesided == 1 ? p.length / 2 + 1 : p.length;
  p.out = x.shape;
  p.out[axis] = p.bins;
  p.out.back() = 2;
  return p;
}

Result<DftPlan> PlanStft(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 4));
  const InputInfo& x = in[0];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input 0 (signal)"));
  if (x.shape.size() != 3 || (x.shape[2] != 1 && x.shape[2] != 2)) {
    return NodeError(node, "input 0 (signal) must be [batch, length, 1 or 2], got shape " + FormatShape(x.shape));
  }
  DftPlan p;
  p.stft = true;
  p.dtype = x.dtype;
  p.channels = x.shape[2];
  p.batch = x.shape[0];
  p.signal_len = x.shape[1];
  MLF_ASSIGN_OR_RETURN(p.step, PositiveScalar(node, in, 1, "frame_step"));
  int64_t window_len = -1;
  if (Has(in, 2)) {
    const InputInfo& w = in[2];
    if (w.dtype != x.dtype) {
      return NodeError(node, std::string("input 2 (window) has dtype ") + DTypeName(w.dtype) + ", expected " +
                                 DTypeName(x.dtype) + " like the signal");
    }
    if (w.shape.size() != 1) return NodeError(node, "input 2 (window) must be 1-D, got shape " + FormatShape(w.shape));
    window_len = w.shape[0];
    p.window = true;
  }
  if (Has(in, 3)) {
    MLF_ASSIGN_OR_RETURN(p.length, PositiveScalar(node, in, 3, "frame_length"));
    if (window_len >= 0 && window_len != p.length) {
      return NodeError(node, "input 2 (window) has " + Num(window_len) + " samples, but frame_length is " +
                                 Num(p.length));
    }
  } else if (window_len >= 1) {
    p.length = window_len;
  } else {
    return NodeError(node, "needs input 3 (frame_length) or a non-empty input 2 (window)");
  }
  if (p.length > p.signal_len) {
    return NodeError(node, "frame_length " + Num(p.length) + " is longer than the signal (" + Num(p.signal_len) +
                               " samples)");
  }
  MLF_ASSIGN_OR_RETURN(int64_t onesided, node.Int("onesided", 1));
  if (onesided != 0 && onesided != 1) {
    return NodeError(node, "attribute 'onesided' must be 0 or 1, got " + Num(onesided));
  }
  if (onesided == 1 && p.channels == 2) {
    return NodeUnsupported(node, "onesided=1 is supported for a real signal only; set onesided=0");
  }
  p.frames = (p.signal_len - p.length) / p.step + 1;
  p.n_read = p.length;
  p.bins = onesided == 1 ? p.length / 2 + 1 : p.length;
  p.out = {p.batch, p.frames, p.bins, 2};
  return p;
}

Result<DftPlan> Plan(const ir::Node& node, const std::vector<InputInfo>& in) {
  return node.op == "STFT" ? PlanStft(node, in) : PlanDft(node, in);
}

Status DftInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(DftPlan p, Plan(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, p.out);
  return Status::Ok();
}

// cos and (+-) sin of 2 pi j / N, j < N: the twiddles e^(-+2 pi i j / N).
void Twiddles(const DftPlan& p, std::vector<double>* re, std::vector<double>* im) {
  const double pi = std::acos(-1.0);
  for (int64_t j = 0; j < p.length; ++j) {
    const double a = 2 * pi * static_cast<double>(j) / static_cast<double>(p.length);
    re->push_back(std::cos(a));
    im->push_back(p.inverse ? std::sin(a) : -std::sin(a));
  }
}

// Sequence s's first sample and the distance between samples (in samples;
// times `channels` for elements), and where its bin 0 goes and the distance
// between bins (in bins; times 2).
struct Layout {
  int64_t sequences, x_stride, y_stride;
  int64_t XOffset(const DftPlan& p, int64_t s) const {
    if (p.stft) return (s / p.frames) * p.signal_len + (s % p.frames) * p.step;
    return (s / p.inner) * p.in_len * p.inner + s % p.inner;
  }
  int64_t YOffset(const DftPlan& p, int64_t s) const {
    return p.stft ? s * p.bins : (s / p.inner) * p.bins * p.inner + s % p.inner;
  }
};

Layout LayoutOf(const DftPlan& p) {
  if (p.stft) return {p.batch * p.frames, 1, 1};
  return {p.outer * p.inner, p.inner, p.inner};
}

template <typename T>
void DftLoops(const DftPlan& p, const T* x, const T* window, T* y) {
  std::vector<double> tr, ti;
  Twiddles(p, &tr, &ti);
  const Layout l = LayoutOf(p);
  const double scale = p.inverse ? 1.0 / static_cast<double>(p.length) : 1.0;
  for (int64_t s = 0; s < l.sequences; ++s) {
    const int64_t xo = l.XOffset(p, s), yo = l.YOffset(p, s);
    for (int64_t k = 0; k < p.bins; ++k) {
      double re = 0, im = 0;
      for (int64_t n = 0; n < p.n_read; ++n) {
        const T* e = x + (xo + n * l.x_stride) * p.channels;
        double xr = static_cast<double>(e[0]);
        double xi = p.channels == 2 ? static_cast<double>(e[1]) : 0.0;
        if (window != nullptr) {
          xr = xr * static_cast<double>(window[n]);
          xi = xi * static_cast<double>(window[n]);
        }
        const size_t j = static_cast<size_t>((static_cast<uint64_t>(k) * static_cast<uint64_t>(n)) %
                                             static_cast<uint64_t>(p.length));
        re += xr * tr[j] - xi * ti[j];
        im += xr * ti[j] + xi * tr[j];
      }
      T* o = y + (yo + k * l.y_stride) * 2;
      o[0] = static_cast<T>(re * scale);
      o[1] = static_cast<T>(im * scale);
    }
  }
}

Status DftEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(DftPlan p, Plan(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, p.out);
  const ir::HostTensor* window = p.window ? inputs[2] : nullptr;
  if (p.dtype == DType::kFloat32) {
    DftLoops<float>(p, inputs[0]->data<float>(), window ? window->data<float>() : nullptr, y.data<float>());
  } else {
    DftLoops<double>(p, inputs[0]->data<double>(), window ? window->data<double>() : nullptr, y.data<double>());
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status DftEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(DftPlan p, Plan(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  const Layout l = LayoutOf(p);
  if (l.sequences * p.bins > 0) {
    std::vector<double> tr, ti;
    Twiddles(p, &tr, &ti);
    const std::string t = CType(p.dtype);
    s += StaticFloatTable("  ", DType::kFloat64, "tw_re", tr);
    s += StaticFloatTable("  ", DType::kFloat64, "tw_im", ti);
    s += "  for (size_t s = 0; s < " + Num(l.sequences) + "; ++s) {\n";
    std::string xo, yo;
    if (p.stft) {
      xo = "(s / " + Num(p.frames) + ") * " + Num(p.signal_len) + " + (s % " + Num(p.frames) + ") * " + Num(p.step);
      yo = "s * " + Num(p.bins);
    } else {
      xo = "(s / " + Num(p.inner) + ") * " + Num(p.in_len * p.inner) + " + s % " + Num(p.inner);
      yo = "(s / " + Num(p.inner) + ") * " + Num(p.bins * p.inner) + " + s % " + Num(p.inner);
    }
    s += "    const size_t xo = " + xo + ", yo = " + yo + ";\n";
    s += "    for (size_t k = 0; k < " + Num(p.bins) + "; ++k) {\n";
    s += "      double re = 0.0, im = 0.0;\n";
    s += "      for (size_t n = 0; n < " + Num(p.n_read) + "; ++n) {\n";
    s += "        const " + t + "* e = in0 + (xo + n * " + Num(l.x_stride) + ") * " + Num(p.channels) + ";\n";
    s += "        double xr = (double)e[0];\n";
    s += std::string("        double xi = ") + (p.channels == 2 ? "(double)e[1];\n" : "0.0;\n");
    if (p.window) s += "        xr = xr * (double)in2[n];\n        xi = xi * (double)in2[n];\n";
    s += "        const size_t j = (size_t)(((uint64_t)k * (uint64_t)n) % " + Num(p.length) + "u);\n";
    s += "        re += xr * tw_re[j] - xi * tw_im[j];\n";
    s += "        im += xr * tw_im[j] + xi * tw_re[j];\n";
    s += "      }\n";
    s += "      " + t + "* o = out0 + (yo + k * " + Num(l.y_stride) + ") * 2;\n";
    const std::string scale = p.inverse ? " * " + CLiteral(DType::kFloat64, 1.0 / static_cast<double>(p.length)) : " * 1.0";
    s += "      o[0] = (" + t + ")(re" + scale + ");\n";
    s += "      o[1] = (" + t + ")(im" + scale + ");\n";
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterDftOps(std::vector<OpDef>* table) {
  table->push_back({"DFT", DftInfer, DftEvaluate, DftEmit});
  table->push_back({"STFT", DftInfer, DftEvaluate, DftEmit});
}

}  // namespace mlf::ops
