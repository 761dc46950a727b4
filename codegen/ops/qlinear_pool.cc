// QLinearAveragePool: the integer average pooling the QDQ lowering makes of
// DequantizeLinear(x) -> AveragePool | GlobalAveragePool [-> Relu | Clip] ->
// QuantizeLinear (codegen/passes/qdq_lowering.h): the classifier head of
// nearly every int8 CNN (MobileNetV2's global pool, the DS-CNN's 25x5 pool)
// kept in integers instead of a float pass over the dequantized tensor.
//
// Inputs as com.microsoft's QLinearAveragePool lays them out: x, x_scale,
// x_zero_point, y_scale, y_zero_point; x a 4-D NCHW int8 or uint8 tensor,
// every scale and zero point a constant of one element, y's dtype its zero
// point's. Attributes kernel_shape [kh, kw] and strides [sh, sw] (default
// 1): windows without padding, so every output averages kh * kw values.
//
//   y = clamp(zy + FixedMultiply(sum of (x - zx) over the window))
//
// with the fixed-point multiplier of x_scale / (y_scale * kh * kw)
// (requantize.h QuantizeMultiplier; FixedMultiplyHalfEven: one rounding,
// ties to even): the rounded average of the real values, at most one step
// from it within 2^-31 of a rounding boundary, and exactly ONNX's on the
// ties that a power-of-two ratio makes common (the same scale in and out,
// a 2x2 window). The node must carry quant::kFixedPointAttr (only the
// compiler sets mlf.* attributes; a model's com.microsoft QLinearAveragePool
// is read as DequantizeLinear -> AveragePool -> QuantizeLinear and comes
// here through the lowering, which also folds an activation into
// quant::kClampAttr).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/qlinear_params.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {
namespace {

// A window may sum at most this many values: 255 of them each still fit
// int32 (the sums of every kernel and of evaluate).
constexpr int64_t kMaxWindow = int64_t{1} << 23;

struct PoolPlan {
  quant::FixedMultiplier f;
  int64_t zx = 0, zy = 0;
  DType x = DType::kUInt8, out = DType::kUInt8;
  quant::QRange clamp;
  int64_t planes = 0, h = 0, w = 0, kh = 0, kw = 0, sh = 1, sw = 1, oh = 0, ow = 0;
};

// kernel_shape and strides: two positive integers each, the window inside x.
Status PlanWindow(const ir::Node& node, PoolPlan* p) {
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> k, node.Ints("kernel_shape", {}));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> s, node.Ints("strides", {1, 1}));
  if (k.size() != 2 || k[0] < 1 || k[1] < 1) return NodeError(node, "kernel_shape must be two positive integers");
  if (s.size() != 2 || s[0] < 1 || s[1] < 1) return NodeError(node, "strides must be two positive integers");
  if (k[0] > p->h || k[1] > p->w) {
    return NodeError(node, "kernel_shape " + FormatShape(k) + " is larger than the input's " +
                               FormatShape({p->h, p->w}));
  }
  if (k[0] * k[1] > kMaxWindow) return NodeError(node, "kernel_shape covers more than 2^23 values");
  p->kh = k[0];
  p->kw = k[1];
  p->sh = s[0];
  p->sw = s[1];
  p->oh = (p->h - p->kh) / p->sh + 1;
  p->ow = (p->w - p->kw) / p->sw + 1;
  return Status::Ok();
}

Result<PoolPlan> PlanPool(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 5, 5));
  MLF_RETURN_IF_ERROR(RequireLowering(node));
  MLF_ASSIGN_OR_RETURN(const InputInfo* x, RequiredInput(node, in, 0, "input 0 (x)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, x->dtype, kQuantDTypes, "input 0 (x)"));
  if (x->shape.size() != 4) {
    return NodeError(node, "input 0 (x) must be 4-D (NCHW), got shape " + FormatShape(x->shape));
  }
  const char* names[] = {"x", "x_scale", "x_zero_point", "y_scale", "y_zero_point"};
  const ir::HostTensor* p[5] = {};
  for (size_t i : {2, 4}) {
    MLF_ASSIGN_OR_RETURN(p[i], ScalarParam(node, in, i, names[i]));
  }
  MLF_ASSIGN_OR_RETURN(const float sx, ScaleParam(node, in, 1, names[1]));
  MLF_ASSIGN_OR_RETURN(const float sy, ScaleParam(node, in, 3, names[3]));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[2]->dtype, {x->dtype}, "input 2 (x_zero_point)"));
  MLF_RETURN_IF_ERROR(CheckDType(node, p[4]->dtype, kQuantDTypes, "input 4 (y_zero_point)"));
  PoolPlan plan;
  plan.planes = x->shape[0] * x->shape[1];
  plan.h = x->shape[2];
  plan.w = x->shape[3];
  MLF_RETURN_IF_ERROR(PlanWindow(node, &plan));
  plan.f = quant::QuantizeMultiplier(static_cast<double>(sx) /
                                     (static_cast<double>(sy) * static_cast<double>(plan.kh * plan.kw)));
  plan.x = x->dtype;
  plan.zx = p[2]->GetInt(0);
  plan.zy = p[4]->GetInt(0);
  plan.out = p[4]->dtype;
  MLF_ASSIGN_OR_RETURN(plan.clamp, OutputRange(node, plan.out));
  return plan;
}

Status PoolInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(PoolPlan p, PlanPool(node, in));
  SetOutput(node, graph, 0, p.out, {in[0].shape[0], in[0].shape[1], p.oh, p.ow});
  return Status::Ok();
}

// The reference: each window's sum through quant::RequantizeFixed.
Status PoolEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(PoolPlan p, PlanPool(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, {x.shape[0], x.shape[1], p.oh, p.ow});
  uint64_t at = 0;
  for (int64_t c = 0; c < p.planes; ++c) {
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        int64_t sum = 0;
        for (int64_t ky = 0; ky < p.kh; ++ky) {
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            const int64_t i = (c * p.h + oy * p.sh + ky) * p.w + ox * p.sw + kx;
            sum += x.GetInt(static_cast<uint64_t>(i)) - p.zx;
          }
        }
        y.SetDouble(at++, static_cast<double>(quant::RequantizeHalfEven(static_cast<int32_t>(sum), p.f, p.zy, p.clamp)));
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// Plain loops: a window's values summed as they are, minus kh * kw * zx
// once, then the fixed-point step with ties to even, as evaluate.
Status PoolEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(PoolPlan p, PlanPool(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (p.planes * p.oh * p.ow > 0) {
    const std::string xt = CType(p.x), yt = CType(p.out);
    *body += "  for (int64_t c = 0; c < " + Num(p.planes) + "; ++c) {\n";
    *body += "    const " + xt + "* plane = in0 + c * " + Num(p.h * p.w) + ";\n";
    *body += "    " + yt + "* o = out0 + c * " + Num(p.oh * p.ow) + ";\n";
    *body += "    for (int64_t oy = 0; oy < " + Num(p.oh) + "; ++oy) {\n";
    *body += "      for (int64_t ox = 0; ox < " + Num(p.ow) + "; ++ox) {\n";
    *body += "        const " + xt + "* win = plane + oy * " + Num(p.sh * p.w) + " + ox * " + Num(p.sw) + ";\n";
    *body += "        int32_t s = " + Num(-p.kh * p.kw * p.zx) + ";\n";
    *body += "        for (int64_t ky = 0; ky < " + Num(p.kh) + "; ++ky) {\n";
    *body += "          for (int64_t kx = 0; kx < " + Num(p.kw) + "; ++kx) s += (int32_t)win[ky * " + Num(p.w) +
             " + kx];\n";
    *body += "        }\n";
    *body += quant::EmitFixedMultiplyHalfEven("        ", "o[oy * " + Num(p.ow) + " + ox]", yt, "s", p.f, p.zy, p.clamp);
    *body += "      }\n";
    *body += "    }\n";
    *body += "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// One add per value a window takes, as the float AveragePool counts.
uint64_t PoolMacs(const ir::Node& node, const ir::Graph& graph) {
  Result<PoolPlan> p = PlanPool(node, GraphInputs(node, graph));
  if (!p.ok()) return 0;
  return static_cast<uint64_t>(p->planes * p->oh * p->ow * p->kh * p->kw);
}

}  // namespace

void RegisterQLinearPoolOps(std::vector<OpDef>* table) {
  table->push_back({"QLinearAveragePool", PoolInfer, PoolEvaluate, PoolEmit, PoolMacs});  // no scratch
}

}  // namespace mlf::ops
