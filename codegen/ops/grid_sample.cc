// GridSample (opset 16): Y[n, c, h, w] samples X[n, c] (4-D, NCHW) at the
// point grid[n, h, w] = (x, y), given in [-1, 1] (-1 the left/top, 1 the
// right/bottom: the outer pixel centres with align_corners=1, the outer
// pixel edges with align_corners=0). Float32 or float64 X and grid; the grid
// is data (computed at run time).
//
// The semantics are PyTorch's grid_sample, which ONNX's cases come from:
//   - the point is unnormalised to pixel units:
//       align_corners=1: (g + 1) / 2 * (size - 1)
//       align_corners=0: ((g + 1) * size - 1) / 2;
//   - bilinear and nearest: padding_mode border clips that coordinate to
//     [0, size - 1], reflection reflects it about the bounds (the centres of
//     the outer pixels with align_corners=1, their edges with 0) and clips;
//     then bilinear weighs the four neighbours floor(x), floor(x) + 1 by
//     distance and nearest takes the nearest pixel (ties to even); a
//     neighbour outside X counts 0 (zeros padding);
//   - bicubic: the 4x4 neighbours floor(x) - 1 .. floor(x) + 2 of the
//     unnormalised point, weighed by the cubic convolution with A = -0.75,
//     each neighbour's index brought into X by the padding mode (border:
//     clipped, reflection: reflected and clipped; zeros: 0 outside).
// evaluate() and the generated code compute in X's type, step for step.
#include <cmath>
#include <string>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Mode { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

struct GridPlan {
  Mode mode = Mode::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
  DType dtype = DType::kFloat32;
  int64_t n = 0, c = 0, h = 0, w = 0, oh = 0, ow = 0;
};

Result<GridPlan> PlanGrid(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
  const InputInfo& x = in[0];
  MLF_ASSIGN_OR_RETURN(const InputInfo* grid, RequiredInput(node, in, 1, "grid"));
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input X"));
  if (grid->dtype != x.dtype) {
    return NodeError(node, std::string("input 1 (grid) has dtype ") + DTypeName(grid->dtype) + ", expected " +
                               DTypeName(x.dtype) + " like input X");
  }
  if (x.shape.size() != 4) {
    return NodeUnsupported(node, "input X must be 4-D (N, C, H, W), got shape " + FormatShape(x.shape));
  }
  if (grid->shape.size() != 4 || grid->shape[0] != x.shape[0] || grid->shape[3] != 2) {
    return NodeError(node, "input 1 (grid) has shape " + FormatShape(grid->shape) + ", expected [" +
                               Num(x.shape[0]) + ", H_out, W_out, 2]");
  }
  GridPlan p;
  p.dtype = x.dtype;
  p.n = x.shape[0], p.c = x.shape[1], p.h = x.shape[2], p.w = x.shape[3];
  p.oh = grid->shape[1], p.ow = grid->shape[2];
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("mode", "bilinear"));
  if (mode == "bilinear") {
    p.mode = Mode::kBilinear;
  } else if (mode == "nearest") {
    p.mode = Mode::kNearest;
  } else if (mode == "bicubic") {
    p.mode = Mode::kBicubic;
  } else {
    return NodeError(node, "attribute 'mode' is '" + mode + "' (bilinear, nearest or bicubic)");
  }
  MLF_ASSIGN_OR_RETURN(std::string padding, node.String("padding_mode", "zeros"));
  if (padding == "zeros") {
    p.padding = Padding::kZeros;
  } else if (padding == "border") {
    p.padding = Padding::kBorder;
  } else if (padding == "reflection") {
    p.padding = Padding::kReflection;
  } else {
    return NodeError(node, "attribute 'padding_mode' is '" + padding + "' (zeros, border or reflection)");
  }
  MLF_ASSIGN_OR_RETURN(int64_t align, node.Int("align_corners", 0));
  if (align != 0 && align != 1) {
    return NodeError(node, "attribute 'align_corners' is " + Num(align) + " (0 or 1)");
  }
  p.align_corners = align == 1;
  return p;
}

Status GridInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(GridPlan p, PlanGrid(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, {p.n, p.c, p.oh, p.ow});
  return Status::Ok();
}

// ---- The reference, in X's type T ----

template <typename T>
T Unnormalize(T g, int64_t size, bool align) {
  const T s = static_cast<T>(size);
  return align ? (g + T(1)) / T(2) * (s - T(1)) : ((g + T(1)) * s - T(1)) / T(2);
}

template <typename T>
T Clip(T v, int64_t size) {
  const T hi = static_cast<T>(size - 1);
  return v < T(0) ? T(0) : (v > hi ? hi : v);
}

// Reflects v about [low, high] = twice_low / 2, twice_high / 2 until it is
// inside, then clips (PyTorch's reflect_coordinates and clip).
template <typename T>
T Reflect(T v, int64_t size, bool align) {
  const T twice_low = align ? T(0) : T(-1);
  const T twice_high = static_cast<T>(align ? 2 * (size - 1) : 2 * size - 1);
  T r = T(0);
  if (twice_low != twice_high) {
    const T low = twice_low / T(2), span = (twice_high - twice_low) / T(2);
    const T d = std::fabs(v - low);
    const T extra = std::fmod(d, span);
    const T flips = std::floor(d / span);
    r = std::fmod(flips, T(2)) == T(0) ? extra + low : span - extra + low;
  }
  return Clip(r, size);
}

template <typename T>
T Pad(T v, int64_t size, const GridPlan& p) {
  if (p.padding == Padding::kBorder) return Clip(v, size);
  if (p.padding == Padding::kReflection) return Reflect(v, size, p.align_corners);
  return v;
}

// The pixel index of a whole-numbered coordinate; -2 (outside X, so 0) for
// coordinates far outside or NaN, which must not be converted (undefined).
template <typename T>
int64_t Index(T v, int64_t size) {
  return (v >= T(-2) && v <= static_cast<T>(size + 1)) ? static_cast<int64_t>(v) : -2;
}

template <typename T>
void Cubic(T t, T c[4]) {
  const T a = T(-0.75);
  auto near = [&](T x) { return ((a + T(2)) * x - (a + T(3))) * x * x + T(1); };
  auto far = [&](T x) { return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a; };
  c[0] = far(t + T(1));
  c[1] = near(t);
  c[2] = near(T(1) - t);
  c[3] = far(T(2) - t);
}

template <typename T>
void GridEval(const GridPlan& p, const T* x, const T* grid, T* y) {
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t oh = 0; oh < p.oh; ++oh) {
      for (int64_t ow = 0; ow < p.ow; ++ow) {
        const T* g = grid + ((n * p.oh + oh) * p.ow + ow) * 2;
        T fx = Unnormalize(g[0], p.w, p.align_corners), fy = Unnormalize(g[1], p.h, p.align_corners);
        for (int64_t c = 0; c < p.c; ++c) {
          const T* plane = x + (n * p.c + c) * p.h * p.w;
          // A pixel, 0 outside X.
          auto at = [&](int64_t iy, int64_t ix) {
            return (iy >= 0 && iy < p.h && ix >= 0 && ix < p.w) ? plane[iy * p.w + ix] : T(0);
          };
          T v = T(0);
          if (p.mode == Mode::kBicubic) {
            const T x0 = std::floor(fx), y0 = std::floor(fy);
            T cx[4], cy[4];
            Cubic(fx - x0, cx);
            Cubic(fy - y0, cy);
            for (int j = 0; j < 4; ++j) {
              const int64_t iy = Index(Pad(y0 - T(1) + T(j), p.h, p), p.h);
              T row = T(0);
              for (int i = 0; i < 4; ++i) {
                const int64_t ix = Index(Pad(x0 - T(1) + T(i), p.w, p), p.w);
                row += at(iy, ix) * cx[i];
              }
              v += row * cy[j];
            }
          } else {
            const T px = Pad(fx, p.w, p), py = Pad(fy, p.h, p);
            if (p.mode == Mode::kNearest) {
              v = at(Index(std::nearbyint(py), p.h), Index(std::nearbyint(px), p.w));
            } else {
              const T x0 = std::floor(px), y0 = std::floor(py);
              const T wx = px - x0, wy = py - y0;
              const int64_t ix = Index(x0, p.w), iy = Index(y0, p.h);
              v = (at(iy, ix) * (T(1) - wx) + at(iy, ix + 1) * wx) * (T(1) - wy) +
                  (at(iy + 1, ix) * (T(1) - wx) + at(iy + 1, ix + 1) * wx) * wy;
            }
          }
          y[((n * p.c + c) * p.oh + oh) * p.ow + ow] = v;
        }
      }
    }
  }
}

Status GridEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(GridPlan p, PlanGrid(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, {p.n, p.c, p.oh, p.ow});
  if (p.dtype == DType::kFloat32) {
    GridEval<float>(p, inputs[0]->data<float>(), inputs[1]->data<float>(), y.data<float>());
  } else {
    GridEval<double>(p, inputs[0]->data<double>(), inputs[1]->data<double>(), y.data<double>());
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// ---- The generated code: the same steps in C ----

struct CText {
  const GridPlan& p;
  std::string t;  // "float" / "double"
  std::string Lit(double v) const { return CLiteral(p.dtype, v); }
  std::string Fn(const std::string& base) const { return MathFn(p.dtype, base); }

  // Statements replacing variable `v` (a coordinate along an axis of `size`
  // pixels) by its padded value, as Pad().
  std::string PadC(const std::string& v, int64_t size, const std::string& ind) const {
    const std::string hi = Lit(static_cast<double>(size - 1));
    const std::string clip = ind + v + " = " + v + " < " + Lit(0) + " ? " + Lit(0) + " : (" + v + " > " + hi +
                             " ? " + hi + " : " + v + ");\n";
    if (p.padding == Padding::kBorder) return clip;
    if (p.padding != Padding::kReflection) return "";
    const double twice_low = p.align_corners ? 0 : -1;
    const double twice_high = static_cast<double>(p.align_corners ? 2 * (size - 1) : 2 * size - 1);
    if (twice_low == twice_high) return ind + v + " = " + Lit(0) + ";\n" + clip;
    const std::string low = Lit(twice_low / 2), span = Lit((twice_high - twice_low) / 2);
    return ind + "{\n" + ind + "  const " + t + " d = " + Fn("fabs") + "(" + v + " - " + low + ");\n" + ind +
           "  const " + t + " extra = " + Fn("fmod") + "(d, " + span + ");\n" + ind + "  const " + t +
           " flips = " + Fn("floor") + "(d / " + span + ");\n" + ind + "  " + v + " = " + Fn("fmod") + "(flips, " +
           Lit(2) + ") == " + Lit(0) + " ? extra + " + low + " : " + span + " - extra + " + low + ";\n" + ind +
           "}\n" + clip;
  }

  // Index(): "(long)v" guarded as above.
  std::string IndexC(const std::string& v, int64_t size) const {
    return "(" + v + " >= " + Lit(-2) + " && " + v + " <= " + Lit(static_cast<double>(size + 1)) + " ? (long)" + v +
           " : -2L)";
  }

  std::string Unnormalize(const std::string& g, int64_t size) const {
    const std::string s = Lit(static_cast<double>(size));
    return p.align_corners ? "(" + g + " + " + Lit(1) + ") / " + Lit(2) + " * (" + s + " - " + Lit(1) + ")"
                           : "((" + g + " + " + Lit(1) + ") * " + s + " - " + Lit(1) + ") / " + Lit(2);
  }

  // Statements setting c<axis>[0..3], the cubic weights of fraction `f`.
  std::string CubicC(const std::string& name, const std::string& f, const std::string& ind) const {
    const std::string a = Lit(-0.75);
    auto near = [&](const std::string& x) {
      return "((" + a + " + " + Lit(2) + ") * " + x + " - (" + a + " + " + Lit(3) + ")) * " + x + " * " + x + " + " +
             Lit(1);
    };
    auto far = [&](const std::string& x) {
      return "((" + a + " * " + x + " - " + Lit(5) + " * " + a + ") * " + x + " + " + Lit(8) + " * " + a + ") * " +
             x + " - " + Lit(4) + " * " + a;
    };
    std::string s = ind + t + " " + name + "[4];\n" + ind + "{\n";
    s += ind + "  const " + t + " u0 = " + f + " + " + Lit(1) + ", u1 = " + f + ", u2 = " + Lit(1) + " - " + f +
         ", u3 = " + Lit(2) + " - " + f + ";\n";
    s += ind + "  " + name + "[0] = " + far("u0") + ";\n";
    s += ind + "  " + name + "[1] = " + near("u1") + ";\n";
    s += ind + "  " + name + "[2] = " + near("u2") + ";\n";
    s += ind + "  " + name + "[3] = " + far("u3") + ";\n";
    return s + ind + "}\n";
  }
};

Status GridEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(GridPlan p, PlanGrid(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  if (p.n * p.c * p.oh * p.ow > 0) {
    const CText c{p, CType(p.dtype)};
    const std::string& t = c.t;
    const std::string plane = Num(p.h * p.w);
    // at(iy, ix): 0 outside the plane.
    const auto at = [&](const std::string& iy, const std::string& ix) {
      return "((" + iy + " >= 0 && " + iy + " < " + Num(p.h) + " && " + ix + " >= 0 && " + ix + " < " + Num(p.w) +
             ") ? xp[" + iy + " * " + Num(p.w) + " + " + ix + "] : " + c.Lit(0) + ")";
    };
    s += "  for (size_t n = 0; n < " + Num(p.n) + "; ++n) {\n";
    s += "    for (size_t o = 0; o < " + Num(p.oh * p.ow) + "; ++o) {\n";
    s += "      const " + t + "* g = in1 + (n * " + Num(p.oh * p.ow) + " + o) * 2;\n";
    s += "      " + t + " fx = " + c.Unnormalize("g[0]", p.w) + ";\n";
    s += "      " + t + " fy = " + c.Unnormalize("g[1]", p.h) + ";\n";
    const std::string ind = "      ";
    std::string per_channel;  // computes v from xp
    if (p.mode == Mode::kBicubic) {
      s += ind + "const " + t + " x0 = " + c.Fn("floor") + "(fx), y0 = " + c.Fn("floor") + "(fy);\n";
      s += c.CubicC("cx", "(fx - x0)", ind) + c.CubicC("cy", "(fy - y0)", ind);
      s += ind + "long ixs[4], iys[4];\n";
      s += ind + "for (int k = 0; k < 4; ++k) {\n";
      s += ind + "  " + t + " px = x0 - " + c.Lit(1) + " + (" + t + ")k;\n";
      s += ind + "  " + t + " py = y0 - " + c.Lit(1) + " + (" + t + ")k;\n";
      s += c.PadC("px", p.w, ind + "  ") + c.PadC("py", p.h, ind + "  ");
      s += ind + "  ixs[k] = " + c.IndexC("px", p.w) + ";\n" + ind + "  iys[k] = " + c.IndexC("py", p.h) + ";\n" + ind + "}\n";
      per_channel += ind + "  " + t + " v = " + c.Lit(0) + ";\n";
      per_channel += ind + "  for (int j = 0; j < 4; ++j) {\n";
      per_channel += ind + "    " + t + " row = " + c.Lit(0) + ";\n";
      per_channel += ind + "    for (int i = 0; i < 4; ++i) row += " + at("iys[j]", "ixs[i]") + " * cx[i];\n";
      per_channel += ind + "    v += row * cy[j];\n" + ind + "  }\n";
    } else {
      s += c.PadC("fx", p.w, ind) + c.PadC("fy", p.h, ind);
      if (p.mode == Mode::kNearest) {
        s += ind + "const " + t + " rx = " + c.Fn("nearbyint") + "(fx), ry = " + c.Fn("nearbyint") + "(fy);\n";
        s += ind + "const long ix = " + c.IndexC("rx", p.w) + ", iy = " + c.IndexC("ry", p.h) + ";\n";
        per_channel += ind + "  const " + t + " v = " + at("iy", "ix") + ";\n";
      } else {
        s += ind + "const " + t + " x0 = " + c.Fn("floor") + "(fx), y0 = " + c.Fn("floor") + "(fy);\n";
        s += ind + "const " + t + " wx = fx - x0, wy = fy - y0;\n";
        s += ind + "const long ix = " + c.IndexC("x0", p.w) + ", iy = " + c.IndexC("y0", p.h) + ", ix1 = ix + 1, iy1 = iy + 1;\n";
        per_channel += ind + "  const " + t + " v = (" + at("iy", "ix") + " * (" + c.Lit(1) + " - wx) + " +
                       at("iy", "ix1") + " * wx) * (" + c.Lit(1) + " - wy) +\n" + ind + "      (" +
                       at("iy1", "ix") + " * (" + c.Lit(1) + " - wx) + " + at("iy1", "ix1") + " * wx) * wy;\n";
      }
    }
    s += ind + "for (size_t c = 0; c < " + Num(p.c) + "; ++c) {\n";
    s += ind + "  const " + t + "* xp = in0 + (n * " + Num(p.c) + " + c) * " + plane + ";\n";
    s += per_channel;
    s += ind + "  out0[(n * " + Num(p.c) + " + c) * " + Num(p.oh * p.ow) + " + o] = v;\n";
    s += ind + "}\n    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterGridSampleOps(std::vector<OpDef>* table) {
  table->push_back({"GridSample", GridInfer, GridEvaluate, GridEmit});
}

}  // namespace mlf::ops
