// QuantizeLinear, DequantizeLinear (opsets 10 and 13: per-tensor, and per
// axis in 13) and DynamicQuantizeLinear, with the integer semantics of
// requantize.h.
//
// Scales and zero points may be constants or computed at run time: the
// generated code reads them from their inputs like any other tensor. Only
// their shapes (per tensor or per axis) are needed at codegen, and those are
// static. Constant scales are checked at compile time (finite, non-zero), and
// so is a constant int32 zero point of DequantizeLinear (0, as ONNX requires).
// Models of opsets 10-12 reach these operators converted to opset 13 by the
// front end (the forms agree: opset 13 only adds `axis`).
#include <string>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

// QuantizeLinear / DequantizeLinear over x viewed as [outer, channels, inner]:
// one scale and zero point per channel (channels == 1 per tensor).
struct LinearPlan {
  DType out = DType::kFloat32;
  bool has_zero_point = false;
  int64_t outer = 1, channels = 1, inner = 1;
};

// The layout of scale (input 1) and zero point (input 2) against x (input 0):
// a one-element scale is per tensor; a 1-D one per axis `axis`.
Result<LinearPlan> PlanLinear(const ir::Node& node, const std::vector<InputInfo>& in,
                              const char* x_name, const char* scale_name, const char* zp_name) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 2, 3));
  MLF_ASSIGN_OR_RETURN(const InputInfo* scale, RequiredInput(node, in, 1, scale_name));
  const std::string scale_what = std::string("input 1 (") + scale_name + ")";
  const std::string zp_what = std::string("input 2 (") + zp_name + ")";
  MLF_RETURN_IF_ERROR(CheckDType(node, scale->dtype, {DType::kFloat32}, scale_what));
  LinearPlan p;
  p.has_zero_point = Has(in, 2);
  const Shape& x = in[0].shape;
  const uint64_t count = Elements(scale->shape);
  if (scale->shape.size() > 1) {
    return NodeError(node, scale_what + " must be a scalar or 1-D, got shape " +
                               FormatShape(scale->shape));
  }
  if (p.has_zero_point && in[2].shape != scale->shape) {
    return NodeError(node, zp_what + " has shape " + FormatShape(in[2].shape) + ", but " +
                               scale_what + " has shape " + FormatShape(scale->shape));
  }
  MLF_RETURN_IF_ERROR(quant::CheckConstantScale(node, *scale, scale_what));
  if (count != 1) {
    MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 1));
    MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, x.size(), "axis"));
    if (static_cast<int64_t>(count) != x[axis]) {
      return NodeError(node, scale_what + " has " + std::to_string(count) +
                                 " elements, but axis " + std::to_string(axis) + " of input 0 (" +
                                 x_name + ") " + FormatShape(x) + " has " +
                                 std::to_string(x[axis]));
    }
    p.outer = Product(x, 0, axis);
    p.channels = x[axis];
    p.inner = Product(x, axis + 1, x.size());
  } else {
    p.inner = Product(x, 0, x.size());
  }
  return p;
}

Result<LinearPlan> PlanQuantize(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanLinear(node, in, "x", "y_scale", "y_zero_point"));
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, {DType::kFloat32}, "input 0 (x)"));
  p.out = DType::kUInt8;  // ONNX's default without a zero point
  if (p.has_zero_point) {
    MLF_RETURN_IF_ERROR(
        CheckDType(node, in[2].dtype, {DType::kInt8, DType::kUInt8}, "input 2 (y_zero_point)"));
    p.out = in[2].dtype;
  }
  return p;
}

Result<LinearPlan> PlanDequantize(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanLinear(node, in, "x", "x_scale", "x_zero_point"));
  const DType x = in[0].dtype;
  MLF_RETURN_IF_ERROR(
      CheckDType(node, x, {DType::kInt8, DType::kUInt8, DType::kInt32}, "input 0 (x)"));
  if (p.has_zero_point) {
    if (in[2].dtype != x) {
      return NodeError(node, std::string("input 2 (x_zero_point) has dtype ") +
                                 DTypeName(in[2].dtype) + ", but input 0 (x) is " + DTypeName(x));
    }
    if (x == DType::kInt32 && in[2].data != nullptr) {
      for (uint64_t i = 0; i < in[2].data->element_count(); ++i) {
        if (in[2].data->GetInt(i) != 0) {
          return NodeError(node, "input 2 (x_zero_point) element " + std::to_string(i) + " is " +
                                     std::to_string(in[2].data->GetInt(i)) +
                                     "; the zero point of int32 input must be 0");
        }
      }
    }
  }
  p.out = DType::kFloat32;
  return p;
}

// Element (o, c, i) of the [outer, channels, inner] view.
size_t At(const LinearPlan& p, int64_t o, int64_t c, int64_t i) {
  return static_cast<size_t>((o * p.channels + c) * p.inner + i);
}

int64_t ZeroPointOf(const std::vector<const ir::HostTensor*>& inputs, int64_t c) {
  if (inputs.size() < 3 || inputs[2] == nullptr) return 0;
  return inputs[2]->GetInt(static_cast<uint64_t>(c));
}

Status QuantizeInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanQuantize(node, in));
  SetOutput(node, graph, 0, p.out, in[0].shape);
  return Status::Ok();
}

Status QuantizeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                        std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanQuantize(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, x.shape);
  const quant::QRange range = quant::RangeOf(p.out);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const float scale = inputs[1]->data<float>()[c];
      const int64_t zp = ZeroPointOf(inputs, c);
      for (int64_t i = 0; i < p.inner; ++i) {
        const size_t k = At(p, o, c, i);
        y.SetDouble(k, static_cast<double>(quant::Quantize(x.data<float>()[k], scale, zp, range)));
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status DequantizeInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanDequantize(node, in));
  SetOutput(node, graph, 0, p.out, in[0].shape);
  return Status::Ok();
}

Status DequantizeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                          std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanDequantize(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(DType::kFloat32, x.shape);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t c = 0; c < p.channels; ++c) {
      const float scale = inputs[1]->data<float>()[c];
      const int64_t zp = ZeroPointOf(inputs, c);
      for (int64_t i = 0; i < p.inner; ++i) {
        const size_t k = At(p, o, c, i);
        y.data<float>()[k] = quant::Dequantize(x.GetInt(k), zp, scale);
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// The loops over [outer, channels, inner] shared by both emitters; `element`
// writes the statements for element `k` with the channel's scale in `s` and
// zero point in `zp`.
template <typename Element>
void EmitLinearLoops(const EmitContext& ctx, const LinearPlan& p, const std::string& zp_type,
                     Element element, std::string* body) {
  const bool zp = p.has_zero_point;
  *body += "  for (size_t o = 0; o < " + Num(p.outer) + "; ++o) {\n";
  *body += "    for (size_t c = 0; c < " + Num(p.channels) + "; ++c) {\n";
  *body += "      const float s = in1[c];\n";
  *body += "      const " + zp_type + " zp = " + (zp ? "in2[c]" : "0") + ";\n";
  *body += "      const size_t base = (o * " + Num(p.channels) + " + c) * " + Num(p.inner) + ";\n";
  *body += "      for (size_t i = 0; i < " + Num(p.inner) + "; ++i) {\n";
  *body += element("base + i");
  *body += "      }\n    }\n  }\n";
  VoidUnusedParams(ctx, body);
}

Status QuantizeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanQuantize(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (Elements(ctx.input(0).shape) == 0) {
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  // Each channel's run of `inner` values through the kernel family
  // quantize_f32 (the same bytes as EmitQuantizeFloat, vectorised on x86).
  ctx.UseKernel("quantize_f32");
  const std::string call = "mlfk_quantize_f32_exec(" + std::string(EmitContext::kExec) + ", in0 + base, " +
                           Num(p.inner) + ", s, zp, " + (p.out == DType::kInt8 ? "1" : "0") + ", out0 + base);\n";
  if (p.outer == 1 && p.channels == 1) {
    *body += "  const float s = in1[0];\n";
    *body += std::string("  const int32_t zp = ") + (p.has_zero_point ? "in2[0]" : "0") + ";\n";
    *body += "  const size_t base = 0;\n  " + call;
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  *body += "  for (size_t o = 0; o < " + Num(p.outer) + "; ++o) {\n";
  *body += "    for (size_t c = 0; c < " + Num(p.channels) + "; ++c) {\n";
  *body += "      const float s = in1[c];\n";
  *body += std::string("      const int32_t zp = ") + (p.has_zero_point ? "in2[c]" : "0") + ";\n";
  *body += "      const size_t base = (o * " + Num(p.channels) + " + c) * " + Num(p.inner) + ";\n";
  *body += "      " + call + "    }\n  }\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

Status DequantizeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(LinearPlan p, PlanDequantize(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (Elements(ctx.input(0).shape) == 0) {
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  EmitLinearLoops(ctx, p, "int64_t", [&](const std::string& k) {
    return "        out0[" + k + "] = " + quant::EmitDequantize("in0[" + k + "]", "zp", "s") + ";\n";
  }, body);
  return Status::Ok();
}

// ---- DynamicQuantizeLinear: uint8 with scale and zero point from x's range ----
//
//   x_min = min(0, min(x)), x_max = max(0, max(x))   (NaN elements ignored)
//   y_scale = (x_max - x_min) / 255                   (float32)
//   y_zero_point = saturate(round_half_even(0 - x_min / y_scale))
//   y = QuantizeLinear(x, y_scale, y_zero_point)
// An x of zeros (or empty) gives y_scale 0, y_zero_point 0 and y 0 (0 / 0 is
// NaN, which quantizes to the zero point).

Status DynamicCheck(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1, 3, 3));
  return CheckDType(node, in[0].dtype, {DType::kFloat32}, "input 0 (x)");
}

Status DynamicInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_RETURN_IF_ERROR(DynamicCheck(node, in));
  SetOutput(node, graph, 0, DType::kUInt8, in[0].shape);
  SetOutput(node, graph, 1, DType::kFloat32, {});
  SetOutput(node, graph, 2, DType::kUInt8, {});
  return Status::Ok();
}

Status DynamicEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                       std::vector<ir::HostTensor>* outputs) {
  MLF_RETURN_IF_ERROR(DynamicCheck(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const float* xs = x.data<float>();
  float lo = 0.0f, hi = 0.0f;
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    if (xs[i] < lo) lo = xs[i];
    if (xs[i] > hi) hi = xs[i];
  }
  const quant::QRange range = quant::RangeOf(DType::kUInt8);
  const float scale = (hi - lo) / 255.0f;
  const int64_t zp = quant::SaturateRound(static_cast<double>(0.0f - lo / scale), 0, range);
  ir::HostTensor y = ir::HostTensor::Zeros(DType::kUInt8, x.shape);
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    y.data<uint8_t>()[i] = static_cast<uint8_t>(quant::Quantize(xs[i], scale, zp, range));
  }
  ir::HostTensor s = ir::HostTensor::Zeros(DType::kFloat32, {});
  s.data<float>()[0] = scale;
  ir::HostTensor z = ir::HostTensor::Zeros(DType::kUInt8, {});
  z.data<uint8_t>()[0] = static_cast<uint8_t>(zp);
  outputs->clear();
  outputs->push_back(std::move(y));
  outputs->push_back(std::move(s));
  outputs->push_back(std::move(z));
  return Status::Ok();
}

Status DynamicEmit(const EmitContext& ctx, std::string* body) {
  MLF_RETURN_IF_ERROR(DynamicCheck(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const std::string n = Num(static_cast<int64_t>(Elements(ctx.input(0).shape)));
  const quant::QRange range = quant::RangeOf(DType::kUInt8);
  if (n == "0") {  // no loops (a loop to 0 would warn): scale 0, zero point 0
    *body += "  out1[0] = 0.0f;\n  out2[0] = 0;\n";
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  *body += "  float lo = 0.0f, hi = 0.0f;\n";
  *body += "  for (size_t i = 0; i < " + n + "; ++i) {\n";
  *body += "    if (in0[i] < lo) lo = in0[i];\n";
  *body += "    if (in0[i] > hi) hi = in0[i];\n";
  *body += "  }\n";
  *body += "  const float s = (hi - lo) / 255.0f;\n";
  *body += "  uint8_t zp;\n";
  *body += quant::EmitSaturateRound("  ", "zp", "uint8_t", "(double)(0.0f - lo / s)", "0", range);
  *body += "  for (size_t i = 0; i < " + n + "; ++i) {\n";
  *body += quant::EmitQuantizeFloat("    ", "out0[i]", "uint8_t", "in0[i]", "s", "zp", range);
  *body += "  }\n";
  *body += "  out1[0] = s;\n";
  *body += "  out2[0] = zp;\n";
  return Status::Ok();
}

}  // namespace

void RegisterQuantizeOps(std::vector<OpDef>* table) {
  // No macs (elementwise) and no scratch.
  table->push_back({"QuantizeLinear", QuantizeInfer, QuantizeEvaluate, QuantizeEmit});
  table->push_back({"DequantizeLinear", DequantizeInfer, DequantizeEvaluate, DequantizeEmit});
  table->push_back({"DynamicQuantizeLinear", DynamicInfer, DynamicEvaluate, DynamicEmit});
}

}  // namespace mlf::ops
