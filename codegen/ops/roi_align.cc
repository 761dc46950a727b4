// RoiAlign (opset 16): X [N, C, H, W] float32/float64, rois [R, 4] (x1, y1,
// x2, y2 in X's coordinates times 1 / spatial_scale) and batch_indices [R]
// (int64), both data; Y [R, C, output_height, output_width]. Each output bin
// averages (mode avg) or takes the largest (mode max) of sampling_ratio x
// sampling_ratio bilinear samples (0: ceil(roi size / bins) per axis)
// spread evenly over the bin (adaptive: at most 1024 per axis). coordinate_transformation_mode half_pixel
// (opset 16's default) shifts the roi by -0.5 pixel; output_half_pixel (the
// opset-10 behaviour) does not, and makes the roi at least 1 x 1.
//
// Samples follow ONNX Runtime's reference: a sample more than one pixel
// outside X counts 0; others are clamped to X and interpolated. In max mode
// a sample is the largest of its four weighted neighbours. A batch index
// outside [0, N) (undefined in ONNX) is clamped, never read out of bounds.
// Because the rois are data, the sample grid is computed at run time;
// evaluate() and the generated code do the same steps in X's type.
#include <cmath>
#include <string>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

struct RoiPlan {
  DType dtype = DType::kFloat32;
  bool max = false, half_pixel = true;
  int64_t n = 0, c = 0, h = 0, w = 0, rois = 0, oh = 1, ow = 1, sampling = 0;
  double scale = 1;
};

Result<RoiPlan> PlanRoi(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 3, 3));
  const InputInfo& x = in[0];
  MLF_ASSIGN_OR_RETURN(const InputInfo* rois, RequiredInput(node, in, 1, "rois"));
  MLF_ASSIGN_OR_RETURN(const InputInfo* batch, RequiredInput(node, in, 2, "batch_indices"));
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input X"));
  if (x.shape.size() != 4) return NodeError(node, "input X must be 4-D (N, C, H, W), got shape " + FormatShape(x.shape));
  if (rois->dtype != x.dtype) {
    return NodeError(node, std::string("input 1 (rois) has dtype ") + DTypeName(rois->dtype) + ", expected " +
                               DTypeName(x.dtype) + " like input X");
  }
  if (rois->shape.size() != 2 || rois->shape[1] != 4) {
    return NodeError(node, "input 1 (rois) must be [num_rois, 4], got shape " + FormatShape(rois->shape));
  }
  if (batch->dtype != DType::kInt64 || batch->shape != std::vector<int64_t>{rois->shape[0]}) {
    return NodeError(node, std::string("input 2 (batch_indices) must be int64 [") + Num(rois->shape[0]) + "], got " +
                               DTypeName(batch->dtype) + " " + FormatShape(batch->shape));
  }
  RoiPlan p;
  p.dtype = x.dtype;
  p.n = x.shape[0], p.c = x.shape[1], p.h = x.shape[2], p.w = x.shape[3], p.rois = rois->shape[0];
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("mode", "avg"));
  if (mode != "avg" && mode != "max") return NodeError(node, "attribute 'mode' is '" + mode + "' (avg or max)");
  p.max = mode == "max";
  MLF_ASSIGN_OR_RETURN(std::string ctm, node.String("coordinate_transformation_mode", "half_pixel"));
  if (ctm != "half_pixel" && ctm != "output_half_pixel") {
    return NodeError(node, "attribute 'coordinate_transformation_mode' is '" + ctm +
                               "' (half_pixel or output_half_pixel)");
  }
  p.half_pixel = ctm == "half_pixel";
  MLF_ASSIGN_OR_RETURN(p.oh, node.Int("output_height", 1));
  MLF_ASSIGN_OR_RETURN(p.ow, node.Int("output_width", 1));
  if (p.oh < 1 || p.ow < 1) {
    return NodeError(node, "output_height " + Num(p.oh) + " and output_width " + Num(p.ow) + " must be 1 or more");
  }
  MLF_ASSIGN_OR_RETURN(p.sampling, node.Int("sampling_ratio", 0));
  if (p.sampling < 0) return NodeError(node, "attribute 'sampling_ratio' is " + Num(p.sampling) + ", expected 0 or more");
  MLF_ASSIGN_OR_RETURN(p.scale, node.Float("spatial_scale", 1.0));
  if (!(p.n > 0) && p.rois > 0) return NodeError(node, "input X has no images for the rois to read");
  return p;
}

Status RoiInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(RoiPlan p, PlanRoi(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, {p.rois, p.c, p.oh, p.ow});
  return Status::Ok();
}

// One sample of a plane at (y, x): avg adds its interpolation, max its
// largest weighted neighbour.
template <typename T>
T Sample(const RoiPlan& p, const T* plane, T y, T x) {
  const T hh = static_cast<T>(p.h), ww = static_cast<T>(p.w);
  if (!(y >= T(-1) && y <= hh && x >= T(-1) && x <= ww)) return T(0);  // NaN too
  if (y <= T(0)) y = T(0);
  if (x <= T(0)) x = T(0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= p.h - 1) {
    y0 = y1 = p.h - 1;
    y = static_cast<T>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= p.w - 1) {
    x0 = x1 = p.w - 1;
    x = static_cast<T>(x0);
  } else {
    x1 = x0 + 1;
  }
  const T ly = y - static_cast<T>(y0), lx = x - static_cast<T>(x0), hy = T(1) - ly, hx = T(1) - lx;
  const T a = hy * hx * plane[y0 * p.w + x0], b = hy * lx * plane[y0 * p.w + x1];
  const T c = ly * hx * plane[y1 * p.w + x0], d = ly * lx * plane[y1 * p.w + x1];
  if (!p.max) return a + b + c + d;
  T m = a > b ? a : b;
  m = m > c ? m : c;
  return m > d ? m : d;
}

// Adaptive samples per bin axis: ceil(roi size / bins), 0 for an empty or
// NaN roi, at most kMaxGrid (a bound on the work a huge roi asks for).
constexpr int64_t kMaxGrid = 1024;
template <typename T>
int64_t Grid(T q) {
  if (!(q >= T(1))) return 0;
  return q > T(kMaxGrid) ? kMaxGrid : static_cast<int64_t>(q);
}

template <typename T>
void RoiLoops(const RoiPlan& p, const T* x, const T* rois, const int64_t* batch, T* y) {
  const T offset = p.half_pixel ? T(0.5) : T(0);
  const T scale = static_cast<T>(p.scale);
  for (int64_t r = 0; r < p.rois; ++r) {
    const int64_t b = batch[r] < 0 ? 0 : (batch[r] >= p.n ? p.n - 1 : batch[r]);
    const T* roi = rois + r * 4;
    const T x1 = roi[0] * scale - offset, y1 = roi[1] * scale - offset;
    T rw = roi[2] * scale - offset - x1, rh = roi[3] * scale - offset - y1;
    if (!p.half_pixel) {
      rw = rw > T(1) ? rw : T(1);
      rh = rh > T(1) ? rh : T(1);
    }
    const T bh = rh / static_cast<T>(p.oh), bw = rw / static_cast<T>(p.ow);
    const int64_t gh = p.sampling > 0 ? p.sampling : Grid(std::ceil(rh / static_cast<T>(p.oh)));
    const int64_t gw = p.sampling > 0 ? p.sampling : Grid(std::ceil(rw / static_cast<T>(p.ow)));
    const T count = static_cast<T>(gh * gw > 1 ? gh * gw : 1);
    for (int64_t ch = 0; ch < p.c; ++ch) {
      const T* plane = x + (b * p.c + ch) * p.h * p.w;
      for (int64_t ph = 0; ph < p.oh; ++ph) {
        for (int64_t pw = 0; pw < p.ow; ++pw) {
          T acc = T(0);
          bool first = true;
          for (int64_t iy = 0; iy < gh; ++iy) {
            const T sy = y1 + static_cast<T>(ph) * bh + (static_cast<T>(iy) + T(0.5)) * bh / static_cast<T>(gh);
            for (int64_t ix = 0; ix < gw; ++ix) {
              const T sx = x1 + static_cast<T>(pw) * bw + (static_cast<T>(ix) + T(0.5)) * bw / static_cast<T>(gw);
              const T v = Sample(p, plane, sy, sx);
              if (!p.max) {
                acc += v;
              } else if (first || v > acc) {
                acc = v;
              }
              first = false;
            }
          }
          y[((r * p.c + ch) * p.oh + ph) * p.ow + pw] = p.max ? acc : acc / count;
        }
      }
    }
  }
}

Status RoiEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(RoiPlan p, PlanRoi(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, {p.rois, p.c, p.oh, p.ow});
  const int64_t* batch = inputs[2]->data<int64_t>();
  if (p.dtype == DType::kFloat32) {
    RoiLoops<float>(p, inputs[0]->data<float>(), inputs[1]->data<float>(), batch, y.data<float>());
  } else {
    RoiLoops<double>(p, inputs[0]->data<double>(), inputs[1]->data<double>(), batch, y.data<double>());
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status RoiEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(RoiPlan p, PlanRoi(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  if (p.rois * p.c > 0) {
    const std::string t = CType(p.dtype);
    const auto L = [&](double v) { return CLiteral(p.dtype, v); };
    const std::string H = Num(p.h), W = Num(p.w);
    s += "  for (size_t r = 0; r < " + Num(p.rois) + "; ++r) {\n";
    s += "    const int64_t b = in2[r] < 0 ? 0 : (in2[r] >= " + Num(p.n) + " ? " + Num(p.n - 1) + " : in2[r]);\n";
    s += "    const " + t + "* roi = in1 + r * 4;\n";
    s += "    const " + t + " offset = " + L(p.half_pixel ? 0.5 : 0) + ", scale = " + L(p.scale) + ";\n";
    s += "    const " + t + " x1 = roi[0] * scale - offset, y1 = roi[1] * scale - offset;\n";
    s += "    " + t + " rw = roi[2] * scale - offset - x1, rh = roi[3] * scale - offset - y1;\n";
    if (!p.half_pixel) {
      s += "    rw = rw > " + L(1) + " ? rw : " + L(1) + ";\n    rh = rh > " + L(1) + " ? rh : " + L(1) + ";\n";
    }
    s += "    const " + t + " bh = rh / " + L(static_cast<double>(p.oh)) + ", bw = rw / " + L(static_cast<double>(p.ow)) + ";\n";
    if (p.sampling > 0) {
      s += "    const int64_t gh = " + Num(p.sampling) + ", gw = " + Num(p.sampling) + ";\n";
    } else {
      const std::string cap = L(static_cast<double>(kMaxGrid));
      s += "    const " + t + " qh = " + MathFn(p.dtype, "ceil") + "(rh / " + L(static_cast<double>(p.oh)) + ");\n";
      s += "    const " + t + " qw = " + MathFn(p.dtype, "ceil") + "(rw / " + L(static_cast<double>(p.ow)) + ");\n";
      s += "    const int64_t gh = !(qh >= " + L(1) + ") ? 0 : (qh > " + cap + " ? " + Num(kMaxGrid) + " : (int64_t)qh);\n";
      s += "    const int64_t gw = !(qw >= " + L(1) + ") ? 0 : (qw > " + cap + " ? " + Num(kMaxGrid) + " : (int64_t)qw);\n";
    }
    s += "    const " + t + " count = (" + t + ")(gh * gw > 1 ? gh * gw : 1);\n";
    s += "    for (size_t ch = 0; ch < " + Num(p.c) + "; ++ch) {\n";
    s += "      const " + t + "* plane = in0 + ((size_t)b * " + Num(p.c) + " + ch) * " + Num(p.h * p.w) + ";\n";
    s += "      for (size_t ph = 0; ph < " + Num(p.oh) + "; ++ph) {\n";
    s += "        for (size_t pw = 0; pw < " + Num(p.ow) + "; ++pw) {\n";
    s += "          " + t + " acc = " + L(0) + ";\n          int first = 1;\n";
    s += "          for (int64_t iy = 0; iy < gh; ++iy) {\n";
    s += "            const " + t + " sy = y1 + (" + t + ")ph * bh + ((" + t + ")iy + " + L(0.5) + ") * bh / (" + t + ")gh;\n";
    s += "            for (int64_t ix = 0; ix < gw; ++ix) {\n";
    s += "              const " + t + " sx = x1 + (" + t + ")pw * bw + ((" + t + ")ix + " + L(0.5) + ") * bw / (" + t + ")gw;\n";
    s += "              " + t + " v = " + L(0) + ", yy = sy, xx = sx;\n";
    s += "              if (yy >= " + L(-1) + " && yy <= " + L(static_cast<double>(p.h)) + " && xx >= " + L(-1) + " && xx <= " + L(static_cast<double>(p.w)) + ") {\n";
    s += "                if (yy <= " + L(0) + ") yy = " + L(0) + ";\n";
    s += "                if (xx <= " + L(0) + ") xx = " + L(0) + ";\n";
    s += "                int64_t y0 = (int64_t)yy, x0 = (int64_t)xx, ya, xa;\n";
    s += "                if (y0 >= " + H + " - 1) {\n                  y0 = ya = " + H + " - 1;\n                  yy = (" + t + ")y0;\n                } else {\n                  ya = y0 + 1;\n                }\n";
    s += "                if (x0 >= " + W + " - 1) {\n                  x0 = xa = " + W + " - 1;\n                  xx = (" + t + ")x0;\n                } else {\n                  xa = x0 + 1;\n                }\n";
    s += "                const " + t + " ly = yy - (" + t + ")y0, lx = xx - (" + t + ")x0, hy = " + L(1) + " - ly, hx = " + L(1) + " - lx;\n";
    s += "                const " + t + " a = hy * hx * plane[y0 * " + W + " + x0], bb = hy * lx * plane[y0 * " + W + " + xa];\n";
    s += "                const " + t + " c = ly * hx * plane[ya * " + W + " + x0], d = ly * lx * plane[ya * " + W + " + xa];\n";
    if (p.max) {
      s += "                " + t + " m = a > bb ? a : bb;\n                m = m > c ? m : c;\n                v = m > d ? m : d;\n";
    } else {
      s += "                v = a + bb + c + d;\n";
    }
    s += "              }\n";
    if (p.max) {
      s += "              if (first || v > acc) acc = v;\n";
    } else {
      s += "              acc += v;\n";
    }
    s += "              first = 0;\n";
    s += "            }\n          }\n";
    s += "          (void)first;\n          (void)count;\n";
    s += "          out0[((r * " + Num(p.c) + " + ch) * " + Num(p.oh) + " + ph) * " + Num(p.ow) + " + pw] = " +
         (p.max ? std::string("acc") : std::string("acc / count")) + ";\n";
    s += "        }\n      }\n    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterRoiAlignOps(std::vector<OpDef>* table) {
  table->push_back({"RoiAlign", RoiInfer, RoiEvaluate, RoiEmit});
}

}  // namespace mlf::ops
