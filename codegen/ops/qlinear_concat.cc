// QLinearConcat: the integer concatenation the QDQ lowering makes of
// DequantizeLinear(x_0), ..., DequantizeLinear(x_k) -> Concat [-> Relu |
// Clip] -> QuantizeLinear when the inputs' scales or zero points differ
// from the output's (codegen/passes/qdq_lowering.h; with the same
// parameters everywhere the Q/DQ pairs simply cancel around a Concat).
//
// Inputs as com.microsoft's QLinearConcat lays them out: y_scale,
// y_zero_point, then x_i, x_i_scale, x_i_zero_point for each input; each
// x_i int8 or uint8, of one rank, equal outside `axis`; every scale and
// zero point a constant of one element, y's dtype its zero point's. Each
// input's values are requantized to y's grid:
//
//   y = clamp(zy + FixedMultiplyHalfEven(x_i - z_i))
//
// with the fixed-point multiplier of x_i_scale / y_scale (requantize.h: one
// rounding, ties to even, as ONNX's QuantizeLinear rounds; a ratio that is a
// power of two puts values exactly on ties). An input whose parameters and
// dtype are y's is copied. The node must carry quant::kFixedPointAttr (only
// the compiler sets mlf.* attributes; a model's com.microsoft QLinearConcat
// is read as DequantizeLinear -> Concat -> QuantizeLinear and comes here
// through the lowering).
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

using Shape = std::vector<int64_t>;

struct Part {
  size_t input = 0;  // the ONNX input index of x_i
  DType dtype = DType::kUInt8;
  int64_t zero_point = 0;
  quant::FixedMultiplier f;
  bool copy = false;  // y's parameters and dtype: the values as they are
  int64_t extent = 0;  // its size along axis
};

struct ConcatPlan {
  std::vector<Part> parts;
  size_t axis = 0;
  Shape out;
  int64_t zy = 0;
  DType dtype = DType::kUInt8;
  quant::QRange clamp;
  bool clamped = false;  // narrower than y's dtype
};

// The output's shape: the inputs' along every dimension but `axis`, where
// their sizes add up.
Status PlanShape(const ir::Node& node, const std::vector<InputInfo>& in, ConcatPlan* p) {
  if (!node.HasAttr("axis")) return NodeError(node, "attribute 'axis' is required");
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 0));
  const Shape& first = in[2].shape;
  MLF_ASSIGN_OR_RETURN(p->axis, NormalizeAxis(node, axis_attr, first.size(), "axis"));
  p->out = first;
  p->out[p->axis] = 0;
  for (Part& part : p->parts) {
    const Shape& s = in[part.input].shape;
    bool same = s.size() == first.size();
    for (size_t d = 0; same && d < first.size(); ++d) same = d == p->axis || s[d] == first[d];
    if (!same) {
      return NodeError(node, "input " + std::to_string(part.input) + " has shape " + FormatShape(s) +
                                 ", which does not match input 2 " + FormatShape(first) + " outside axis " +
                                 std::to_string(p->axis));
    }
    part.extent = s[p->axis];
    p->out[p->axis] += part.extent;
  }
  return Status::Ok();
}

Result<ConcatPlan> PlanQConcat(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 5, kNoMax));
  if ((in.size() - 2) % 3 != 0) {
    return NodeError(node, "takes y_scale, y_zero_point and then (x, x_scale, x_zero_point) triples, got " +
                               std::to_string(in.size()) + " inputs");
  }
  MLF_RETURN_IF_ERROR(RequireLowering(node));
  ConcatPlan p;
  MLF_ASSIGN_OR_RETURN(const float sy, ScaleParam(node, in, 0, "y_scale"));
  MLF_ASSIGN_OR_RETURN(const ir::HostTensor* zy, ScalarParam(node, in, 1, "y_zero_point"));
  MLF_RETURN_IF_ERROR(CheckDType(node, zy->dtype, kQuantDTypes, "input 1 (y_zero_point)"));
  p.zy = zy->GetInt(0);
  p.dtype = zy->dtype;
  for (size_t i = 2; i < in.size(); i += 3) {
    const std::string k = std::to_string((i - 2) / 3);
    MLF_ASSIGN_OR_RETURN(const InputInfo* x, RequiredInput(node, in, i, "input " + std::to_string(i) + " (x" + k + ")"));
    MLF_RETURN_IF_ERROR(CheckDType(node, x->dtype, kQuantDTypes, "input " + std::to_string(i) + " (x" + k + ")"));
    MLF_ASSIGN_OR_RETURN(const float s, ScaleParam(node, in, i + 1, "x" + k + "_scale"));
    MLF_ASSIGN_OR_RETURN(const ir::HostTensor* z, ScalarParam(node, in, i + 2, "x" + k + "_zero_point"));
    MLF_RETURN_IF_ERROR(CheckDType(node, z->dtype, {x->dtype}, "input " + std::to_string(i + 2) + " (x" + k +
                                                                   "_zero_point)"));
    Part part;
    part.input = i;
    part.dtype = x->dtype;
    part.zero_point = z->GetInt(0);
    part.f = quant::QuantizeMultiplier(static_cast<double>(s) / static_cast<double>(sy));
    part.copy = s == sy && part.zero_point == p.zy && x->dtype == p.dtype;
    p.parts.push_back(part);
  }
  MLF_RETURN_IF_ERROR(PlanShape(node, in, &p));
  MLF_ASSIGN_OR_RETURN(p.clamp, OutputRange(node, p.dtype));
  p.clamped = p.clamp.min != quant::RangeOf(p.dtype).min || p.clamp.max != quant::RangeOf(p.dtype).max;
  return p;
}

Status QConcatInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(ConcatPlan p, PlanQConcat(node, in));
  SetOutput(node, graph, 0, p.dtype, p.out);
  return Status::Ok();
}

// y's integer of x value v of `part`.
int64_t Requantized(const ConcatPlan& p, const Part& part, int64_t v) {
  if (part.copy && !p.clamped) return v;
  return quant::RequantizeHalfEven(static_cast<int32_t>(v - part.zero_point), part.f, p.zy, p.clamp);
}

Status QConcatEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                       std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ConcatPlan p, PlanQConcat(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, p.out);
  const int64_t outer = Product(p.out, 0, p.axis), inner = Product(p.out, p.axis + 1, p.out.size());
  uint64_t at = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Part& part : p.parts) {
      const ir::HostTensor& x = *inputs[part.input];
      const int64_t block = part.extent * inner;
      for (int64_t j = 0; j < block; ++j) {
        y.SetDouble(at++, static_cast<double>(Requantized(p, part, x.GetInt(static_cast<uint64_t>(o * block + j)))));
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// One loop per input and outer index: a copy, or each value requantized by
// the fixed-point step with ties to even, as evaluate.
Status QConcatEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ConcatPlan p, PlanQConcat(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const int64_t outer = Product(p.out, 0, p.axis), inner = Product(p.out, p.axis + 1, p.out.size());
  const int64_t row = p.out[p.axis] * inner;
  const std::string yt = CType(p.dtype);
  int64_t offset = 0;
  for (const Part& part : p.parts) {
    const int64_t block = part.extent * inner;
    if (block > 0 && outer > 0) {
      const std::string src = EmitContext::In(part.input);
      *body += "  for (int64_t o = 0; o < " + Num(outer) + "; ++o) {\n";
      *body += "    const " + std::string(CType(part.dtype)) + "* x = " + src + " + o * " + Num(block) + ";\n";
      *body += "    " + yt + "* y = out0 + o * " + Num(row) + " + " + Num(offset) + ";\n";
      if (part.copy && !p.clamped) {
        *body += "    for (int64_t j = 0; j < " + Num(block) + "; ++j) y[j] = x[j];\n";
      } else {
        *body += "    for (int64_t j = 0; j < " + Num(block) + "; ++j)\n";
        *body += quant::EmitFixedMultiplyHalfEven("    ", "y[j]", yt, "(int64_t)x[j] - " + Num(part.zero_point), part.f,
                                                  p.zy, p.clamp);
      }
      *body += "  }\n";
    }
    offset += block;
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterQLinearConcatOps(std::vector<OpDef>* table) {
  // Copies: no macs, no scratch.
  table->push_back({"QLinearConcat", QConcatInfer, QConcatEvaluate, QConcatEmit});
}

}  // namespace mlf::ops
