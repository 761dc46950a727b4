// Resize (opset 11-19 form: X, roi, scales, sizes; constant scales or
// sizes). Modes nearest (any dtype; nearest_mode round_prefer_floor,
// round_prefer_ceil, floor, ceil), linear (float32/float64, N-linear over
// every resized axis) and cubic (float32/float64, separable over every
// resized axis: four taps per axis at floor(x) - 1 .. floor(x) + 2 weighted
// by Keys' kernel with cubic_coeff_a, default -0.75, taps beyond the edges
// reading the edge element, or with exclude_outside=1 weighted 0 and the
// other weights renormalised; an integer x weights its taps as ONNX's
// reference does, with ratio 1 from floor(x) - 1); every
// coordinate_transformation_mode of opset 19 (half_pixel,
// half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric,
// tf_half_pixel_for_nn, tf_crop_and_resize with roi and extrapolation_value);
// attribute axes. antialias is refused.
//
// The generated code reads per-axis index and weight tables computed here
// (static const arrays); evaluate() computes the same source coordinates per
// element.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
};
enum class Rounding { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizePlan {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  Rounding rounding = Rounding::kRoundPreferFloor;
  double cubic_a = -0.75;        // cubic_coeff_a
  bool exclude_outside = false;  // cubic: taps beyond the edges weigh 0
  DType dtype = DType::kFloat32;
  Shape in, out;
  // Per axis: the scale, the crop box (tf_crop_and_resize) and the resized
  // length before flooring (ONNX's reference implementation uses
  // input * scale, not the integer output size, in align_corners and
  // tf_crop_and_resize; it equals the output size when sizes are given).
  std::vector<double> scale, roi_start, roi_end, length;
  ir::HostTensor extrapolation;                    // one element of dtype
};

// A tensor input that is absent when omitted or empty.
bool Given(const std::vector<InputInfo>& in, size_t i) {
  return Has(in, i) && Product(in[i].shape, 0, in[i].shape.size()) > 0;
}

Result<std::vector<double>> ConstantFloats(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                                           const std::string& what, size_t expected) {
  const std::string name = "input " + std::to_string(i) + " (" + what + ")";
  if (in[i].data == nullptr) return NodeError(node, name + " must be a constant");
  if (in[i].dtype != DType::kFloat32 && in[i].dtype != DType::kFloat64 && in[i].dtype != DType::kFloat16) {
    return NodeError(node, name + " must be a float tensor, got " + DTypeName(in[i].dtype));
  }
  std::vector<double> v;
  for (uint64_t k = 0; k < in[i].data->element_count(); ++k) v.push_back(in[i].data->GetDouble(k));
  if (v.size() != expected) {
    return NodeError(node, name + " has " + std::to_string(v.size()) + " values, expected " + std::to_string(expected));
  }
  return v;
}

Status ParseModes(const ir::Node& node, ResizePlan* p) {
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("mode", "nearest"));
  if (mode == "nearest") p->mode = Mode::kNearest;
  else if (mode == "linear") p->mode = Mode::kLinear;
  else if (mode == "cubic") p->mode = Mode::kCubic;
  else return NodeError(node, "unknown mode '" + mode + "' (expected nearest, linear or cubic)");

  MLF_ASSIGN_OR_RETURN(std::string coord, node.String("coordinate_transformation_mode", "half_pixel"));
  static const std::pair<const char*, Coord> kCoords[] = {
      {"half_pixel", Coord::kHalfPixel},
      {"half_pixel_symmetric", Coord::kHalfPixelSymmetric},
      {"pytorch_half_pixel", Coord::kPytorchHalfPixel},
      {"align_corners", Coord::kAlignCorners},
      {"asymmetric", Coord::kAsymmetric},
      {"tf_half_pixel_for_nn", Coord::kTfHalfPixelForNn},
      {"tf_crop_and_resize", Coord::kTfCropAndResize},
  };
  bool found = false;
  for (const auto& [name, value] : kCoords) {
    if (coord == name) p->coord = value, found = true;
  }
  if (!found) return NodeError(node, "unknown coordinate_transformation_mode '" + coord + "'");

  MLF_ASSIGN_OR_RETURN(std::string rounding, node.String("nearest_mode", "round_prefer_floor"));
  if (rounding == "round_prefer_floor") p->rounding = Rounding::kRoundPreferFloor;
  else if (rounding == "round_prefer_ceil") p->rounding = Rounding::kRoundPreferCeil;
  else if (rounding == "floor") p->rounding = Rounding::kFloor;
  else if (rounding == "ceil") p->rounding = Rounding::kCeil;
  else return NodeError(node, "unknown nearest_mode '" + rounding + "'");

  MLF_ASSIGN_OR_RETURN(p->cubic_a, node.Float("cubic_coeff_a", -0.75));
  MLF_ASSIGN_OR_RETURN(int64_t exclude, node.Int("exclude_outside", 0));
  if (exclude != 0 && exclude != 1) {
    return NodeError(node, "exclude_outside " + std::to_string(exclude) + " is invalid (0 or 1)");
  }
  p->exclude_outside = exclude == 1;
  MLF_ASSIGN_OR_RETURN(int64_t antialias, node.Int("antialias", 0));
  if (antialias != 0) return NodeUnsupported(node, "antialias=1 is not supported");
  MLF_ASSIGN_OR_RETURN(std::string policy, node.String("keep_aspect_ratio_policy", "stretch"));
  if (policy != "stretch") {
    return NodeUnsupported(node, "keep_aspect_ratio_policy '" + policy + "' is not supported (only stretch)");
  }
  return Status::Ok();
}

Result<ResizePlan> PlanResize(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 4));
  ResizePlan p;
  MLF_RETURN_IF_ERROR(ParseModes(node, &p));
  p.dtype = in[0].dtype;
  p.in = in[0].shape;
  const size_t r = p.in.size();
  if (p.mode != Mode::kNearest && p.dtype != DType::kFloat32 && p.dtype != DType::kFloat64) {
    return NodeUnsupported(node, std::string("mode '") + (p.mode == Mode::kLinear ? "linear" : "cubic") +
                                     "' supports float32 and float64 data, got " + DTypeName(p.dtype));
  }
  Shape all;
  for (size_t d = 0; d < r; ++d) all.push_back(static_cast<int64_t>(d));
  MLF_ASSIGN_OR_RETURN(Shape axes_attr, node.Ints("axes", all));
  std::vector<size_t> axes;
  std::vector<bool> seen(r, false);
  for (int64_t a : axes_attr) {
    MLF_ASSIGN_OR_RETURN(size_t d, NormalizeAxis(node, a, r, "axis"));
    if (seen[d]) return NodeError(node, "axes " + FormatShape(axes_attr) + " name axis " + std::to_string(d) + " twice");
    seen[d] = true;
    axes.push_back(d);
  }
  const size_t n = axes.size();

  p.scale.assign(r, 1.0);
  p.roi_start.assign(r, 0.0);
  p.roi_end.assign(r, 1.0);
  p.out = p.in;
  for (int64_t d : p.in) p.length.push_back(static_cast<double>(d));
  if (p.coord == Coord::kTfCropAndResize && Given(in, 1)) {
    MLF_ASSIGN_OR_RETURN(std::vector<double> roi, ConstantFloats(node, in, 1, "roi", 2 * n));
    for (size_t k = 0; k < n; ++k) {
      p.roi_start[axes[k]] = roi[k];
      p.roi_end[axes[k]] = roi[n + k];
    }
  }
  const bool has_scales = Given(in, 2), has_sizes = Given(in, 3);
  if (has_scales == has_sizes) {
    return NodeError(node, has_scales ? "only one of input 2 (scales) and input 3 (sizes) may be given"
                                      : "one of input 2 (scales) and input 3 (sizes) is required");
  }
  if (has_scales) {
    MLF_ASSIGN_OR_RETURN(std::vector<double> scales, ConstantFloats(node, in, 2, "scales", n));
    for (size_t k = 0; k < n; ++k) {
      const size_t d = axes[k];
      if (!(scales[k] > 0)) return NodeError(node, "scale " + std::to_string(scales[k]) + " of axis " + std::to_string(d) + " is not positive");
      p.scale[d] = scales[k];
      const double extent = p.coord == Coord::kTfCropAndResize ? p.roi_end[d] - p.roi_start[d] : 1.0;
      p.length[d] = static_cast<double>(p.in[d]) * extent * scales[k];
      p.out[d] = static_cast<int64_t>(std::floor(p.length[d]));
      if (p.out[d] < 0) p.out[d] = 0;
    }
  } else {
    MLF_ASSIGN_OR_RETURN(Shape sizes, ConstantInts(node, in, 3, "sizes"));
    if (sizes.size() != n) {
      return NodeError(node, "input 3 (sizes) has " + std::to_string(sizes.size()) + " values, expected " +
                                 std::to_string(n));
    }
    for (size_t k = 0; k < n; ++k) {
      const size_t d = axes[k];
      if (sizes[k] < 0) return NodeError(node, "size " + std::to_string(sizes[k]) + " of axis " + std::to_string(d) + " is negative");
      p.out[d] = sizes[k];
      p.length[d] = static_cast<double>(sizes[k]);
      p.scale[d] = p.in[d] > 0 ? static_cast<double>(sizes[k]) / static_cast<double>(p.in[d]) : 1.0;
    }
  }
  for (size_t d = 0; d < r; ++d) {
    if (p.in[d] == 0 && p.out[d] > 0) {
      return NodeError(node, "cannot resize axis " + std::to_string(d) + " of size 0 to " + std::to_string(p.out[d]));
    }
  }
  MLF_ASSIGN_OR_RETURN(double extrapolation, node.Float("extrapolation_value", 0.0));
  p.extrapolation = ir::HostTensor::Zeros(p.dtype, {});
  p.extrapolation.SetDouble(0, extrapolation);
  return p;
}

// Where output index o of axis d samples the input (ONNX's x_original).
double SourceCoordinate(const ResizePlan& p, size_t d, int64_t o) {
  const double in = static_cast<double>(p.in[d]), out = static_cast<double>(p.out[d]);
  const double s = p.scale[d], x = static_cast<double>(o), length = p.length[d];
  switch (p.coord) {
    case Coord::kHalfPixel: return (x + 0.5) / s - 0.5;
    case Coord::kHalfPixelSymmetric: {
      const double adjustment = out / length;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (x + 0.5) / s - 0.5;
    }
    case Coord::kPytorchHalfPixel: return length > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case Coord::kAlignCorners: return length > 1 ? x * (in - 1) / (length - 1) : 0.0;
    case Coord::kAsymmetric: return x / s;
    case Coord::kTfHalfPixelForNn: return (x + 0.5) / s;
    case Coord::kTfCropAndResize: {
      const double a = p.roi_start[d], b = p.roi_end[d];
      return length > 1 ? a * (in - 1) + x * (b - a) * (in - 1) / (length - 1) : 0.5 * (a + b) * (in - 1);
    }
  }
  return 0;
}

// One output index of one axis: the value is x[lo] * (1 - w) + x[hi] * w
// (nearest: x[lo]; cubic: the sum of x[tap[k]] * tap_w[k]); `inside` is
// false where tf_crop_and_resize extrapolates.
struct Sample {
  int64_t lo = 0, hi = 0;
  double w = 0;
  int64_t tap[4] = {0, 0, 0, 0};
  double tap_w[4] = {0, 0, 0, 0};
  bool inside = true;
};

// Keys' cubic convolution kernel at distance t (0 <= t <= 2) with parameter a.
double CubicWeight(double t, double a) {
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
}

// The four cubic taps around source coordinate x on an axis of `size`
// elements (see the top of the file).
void CubicTaps(const ResizePlan& p, double x, int64_t size, Sample* s) {
  double f = std::floor(x), ratio = x - f;
  if (ratio == 0) f -= 1, ratio = 1;  // ONNX's reference: the taps left of x
  const int64_t base = static_cast<int64_t>(f) - 1;
  const double distance[4] = {ratio + 1, ratio, 1 - ratio, 2 - ratio};
  double total = 0;
  for (int k = 0; k < 4; ++k) {
    const int64_t i = base + k;
    const bool outside = i < 0 || i >= size;
    s->tap[k] = std::clamp(i, int64_t{0}, size - 1);
    s->tap_w[k] = p.exclude_outside && outside ? 0 : CubicWeight(distance[k], p.cubic_a);
    total += s->tap_w[k];
  }
  if (p.exclude_outside) {
    for (double& w : s->tap_w) w /= total;
  }
}

Sample SampleAt(const ResizePlan& p, size_t d, int64_t o) {
  const double x = SourceCoordinate(p, d, o);
  const int64_t last = p.in[d] - 1;
  Sample s;
  s.inside = p.coord != Coord::kTfCropAndResize || (x >= 0 && x <= static_cast<double>(last));
  const double f = std::floor(x), frac = x - f;
  const int64_t base = static_cast<int64_t>(f);
  if (p.mode == Mode::kNearest) {
    bool up = false;
    switch (p.rounding) {
      case Rounding::kRoundPreferFloor: up = frac > 0.5; break;
      case Rounding::kRoundPreferCeil: up = frac >= 0.5; break;
      case Rounding::kFloor: up = false; break;
      case Rounding::kCeil: up = frac > 0; break;
    }
    s.lo = s.hi = std::clamp(base + (up ? 1 : 0), int64_t{0}, last);
  } else if (p.mode == Mode::kCubic) {
    CubicTaps(p, x, p.in[d], &s);
  } else {
    s.lo = std::clamp(base, int64_t{0}, last);
    s.hi = std::clamp(base + 1, int64_t{0}, last);
    s.w = frac;
  }
  return s;
}

Status ResizeInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(ResizePlan p, PlanResize(node, in));
  SetOutput(node, graph, 0, p.dtype, p.out);
  return Status::Ok();
}

Status ResizeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ResizePlan p, PlanResize(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const Shape xs = Strides(x.shape);
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, p.out);
  const size_t es = DTypeSize(p.dtype), r = p.in.size();
  for (uint64_t o = 0; o < y.element_count(); ++o) {
    const Shape idx = Unravel(o, p.out);
    std::vector<Sample> samples;
    bool inside = true;
    for (size_t d = 0; d < r; ++d) {
      samples.push_back(SampleAt(p, d, idx[d]));
      inside = inside && samples.back().inside;
    }
    if (!inside) {
      std::memcpy(&y.bytes[o * es], p.extrapolation.bytes.data(), es);
    } else if (p.mode == Mode::kNearest) {
      int64_t src = 0;
      for (size_t d = 0; d < r; ++d) src += samples[d].lo * xs[d];
      std::memcpy(&y.bytes[o * es], &x.bytes[static_cast<size_t>(src) * es], es);
    } else if (p.mode == Mode::kCubic) {
      double sum = 0;
      for (uint64_t taps = 0; taps < (uint64_t{1} << (2 * r)); ++taps) {
        double weight = 1;
        int64_t src = 0;
        for (size_t d = 0; d < r; ++d) {
          const size_t k = (taps >> (2 * d)) & 3;
          weight *= samples[d].tap_w[k];
          src += samples[d].tap[k] * xs[d];
        }
        if (weight != 0) sum += weight * x.GetDouble(static_cast<uint64_t>(src));
      }
      y.SetDouble(o, sum);
    } else {
      double sum = 0;
      for (uint64_t corner = 0; corner < (uint64_t{1} << r); ++corner) {
        double weight = 1;
        int64_t src = 0;
        for (size_t d = 0; d < r; ++d) {
          const bool high = (corner >> d) & 1;
          weight *= high ? samples[d].w : 1 - samples[d].w;
          src += (high ? samples[d].hi : samples[d].lo) * xs[d];
        }
        if (weight != 0) sum += weight * x.GetDouble(static_cast<uint64_t>(src));
      }
      y.SetDouble(o, sum);
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// ---- emit ------------------------------------------------------------------

// One loop of the generated code: an axis the output copies unchanged
// (possibly several merged), or a resized axis with its tables.
struct Loop {
  int64_t len = 0;
  int64_t in_stride = 0;   // identity loops
  bool resized = false;
  size_t axis = 0;         // resized loops: the tensor axis (table names)
  bool extrapolates = false;
};

void EmitTables(const ResizePlan& p, size_t d, int64_t stride, bool* extrapolates, std::string* body) {
  std::vector<int64_t> lo, hi, ok, taps[4];
  std::vector<double> w, tap_w[4];
  for (int64_t o = 0; o < p.out[d]; ++o) {
    const Sample s = SampleAt(p, d, o);
    lo.push_back(s.lo * stride);
    hi.push_back(s.hi * stride);
    w.push_back(s.w);
    for (int k = 0; k < 4; ++k) {
      taps[k].push_back(s.tap[k] * stride);
      tap_w[k].push_back(s.tap_w[k]);
    }
    ok.push_back(s.inside ? 1 : 0);
  }
  const std::string a = std::to_string(d);
  const char* type = IndexType((p.in[d] - 1) * stride);
  if (p.mode == Mode::kCubic) {
    for (int k = 0; k < 4; ++k) {
      *body += StaticTable("  ", type, "t" + std::to_string(k) + "_" + a, taps[k]);
      *body += StaticFloatTable("  ", p.dtype, "tw" + std::to_string(k) + "_" + a, tap_w[k]);
    }
  } else {
    *body += StaticTable("  ", type, "lo" + a, lo);
  }
  if (p.mode == Mode::kLinear) {
    *body += StaticTable("  ", type, "hi" + a, hi);
    *body += StaticFloatTable("  ", p.dtype, "wt" + a, w);
  }
  *extrapolates = std::find(ok.begin(), ok.end(), 0) != ok.end();
  if (*extrapolates) *body += StaticTable("  ", "uint8_t", "ok" + a, ok);
}

bool IsIdentity(const ResizePlan& p, size_t d) {
  if (p.out[d] != p.in[d]) return false;
  for (int64_t o = 0; o < p.out[d]; ++o) {
    const Sample s = SampleAt(p, d, o);
    if (!s.inside) return false;
    if (p.mode == Mode::kCubic) {
      // Only the tap at o (the third: x = o is an integer), with weight 1.
      if (s.tap[2] != o || s.tap_w[2] != 1 || s.tap_w[0] != 0 || s.tap_w[1] != 0 || s.tap_w[3] != 0) return false;
    } else if (s.lo != o || s.w != 0) {
      return false;
    }
  }
  return true;
}

// The cubic interpolation over resized loops [k, end) as a C expression:
// four taps per axis.
std::string Cubic(const std::vector<Loop>& loops, size_t k, const Terms& terms) {
  while (k < loops.size() && !loops[k].resized) ++k;
  if (k == loops.size()) return "in0[" + IndexExpr(0, terms) + "]";
  const std::string a = std::to_string(loops[k].axis), v = "i" + std::to_string(k);
  std::string sum;
  for (int j = 0; j < 4; ++j) {
    Terms tap = terms;
    tap.push_back({"t" + std::to_string(j) + "_" + a + "[" + v + "]", 1});
    sum += (j == 0 ? "" : " + ") + Cubic(loops, k + 1, tap) + " * tw" + std::to_string(j) + "_" + a + "[" + v + "]";
  }
  return "(" + sum + ")";
}

// The interpolation over resized loops [k, end) as a C expression.
std::string Lerp(const std::vector<Loop>& loops, size_t k, Terms terms) {
  while (k < loops.size() && !loops[k].resized) ++k;
  if (k == loops.size()) return "in0[" + IndexExpr(0, terms) + "]";
  const std::string a = std::to_string(loops[k].axis), v = "i" + std::to_string(k);
  Terms lo = terms, hi = terms;
  lo.push_back({"lo" + a + "[" + v + "]", 1});
  hi.push_back({"hi" + a + "[" + v + "]", 1});
  return "(" + Lerp(loops, k + 1, lo) + " * u" + std::to_string(k) + " + " + Lerp(loops, k + 1, hi) + " * w" +
         std::to_string(k) + ")";
}

Status ResizeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ResizePlan p, PlanResize(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (Product(p.out, 0, p.out.size()) > 0) {
    const Shape xs = Strides(p.in);
    std::vector<Loop> loops;
    for (size_t d = 0; d < p.in.size(); ++d) {
      if (p.out[d] == 1 && p.in[d] == 1 && IsIdentity(p, d)) continue;
      Loop loop;
      loop.len = p.out[d];
      loop.axis = d;
      if (IsIdentity(p, d)) {
        loop.in_stride = xs[d];
        if (!loops.empty() && !loops.back().resized && loops.back().in_stride == loop.len * xs[d]) {
          loops.back().len *= loop.len;
          loops.back().in_stride = xs[d];
          continue;
        }
      } else {
        loop.resized = true;
        EmitTables(p, d, xs[d], &loop.extrapolates, body);
      }
      loops.push_back(loop);
    }
    const bool linear = p.mode == Mode::kLinear;
    const std::string real = CType(p.dtype);
    std::string ind = "  ", ok;
    Terms nearest;
    *body += ind + "size_t o = 0;\n";
    for (size_t k = 0; k < loops.size(); ++k) {
      const Loop& l = loops[k];
      const std::string v = "i" + std::to_string(k), a = std::to_string(l.axis);
      *body += ind + "for (size_t " + v + " = 0; " + v + " < " + Num(l.len) + "; ++" + v + ") {\n";
      ind += "  ";
      if (!l.resized) {
        nearest.push_back({v, l.in_stride});
        continue;
      }
      if (p.mode != Mode::kCubic) nearest.push_back({"lo" + a + "[" + v + "]", 1});
      if (l.extrapolates) ok += (ok.empty() ? "" : " && ") + ("ok" + a + "[" + v + "]");
      if (linear) {
        *body += ind + "const " + real + " w" + std::to_string(k) + " = wt" + a + "[" + v + "], u" +
                 std::to_string(k) + " = " + CLiteral(p.dtype, 1.0) + " - w" + std::to_string(k) + ";\n";
      }
    }
    Terms identity;
    for (size_t k = 0; k < loops.size(); ++k) {
      if (!loops[k].resized) identity.push_back({"i" + std::to_string(k), loops[k].in_stride});
    }
    std::string value = linear ? Lerp(loops, 0, identity)
                        : p.mode == Mode::kCubic ? Cubic(loops, 0, identity)
                                                 : "in0[" + IndexExpr(0, nearest) + "]";
    if (!ok.empty()) {
      value = ok + " ? " + value + " : " + ElementLiteral(p.dtype, p.extrapolation.bytes.data());
    }
    *body += ind + "out0[o++] = " + value + ";\n";
    for (size_t k = 0; k < loops.size(); ++k) {
      ind.resize(ind.size() - 2);
      *body += ind + "}\n";
    }
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterResizeOps(std::vector<OpDef>* table) {
  table->push_back({"Resize", ResizeInfer, ResizeEvaluate, ResizeEmit});
}

}  // namespace mlf::ops
