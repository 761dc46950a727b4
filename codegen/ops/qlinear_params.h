// What the lowering's integer operators (QLinearAdd, QLinearMul,
// QLinearAveragePool, QLinearConcat) read the same way: a scale or zero
// point that must be a constant of one element, and the output range that
// quant::kClampAttr narrows (a folded Relu or Clip).
#ifndef MLFKIT_CODEGEN_OPS_QLINEAR_PARAMS_H_
#define MLFKIT_CODEGEN_OPS_QLINEAR_PARAMS_H_

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "codegen/ops/op_util.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {

// The integer dtypes of their activations, zero points and outputs.
inline const std::vector<DType> kQuantDTypes = {DType::kInt8, DType::kUInt8};

// These operators come from the QDQ lowering only, which marks them with
// quant::kFixedPointAttr (a model cannot: only the compiler sets mlf.*
// attributes).
inline Status RequireLowering(const ir::Node& node) {
  MLF_ASSIGN_OR_RETURN(const int64_t fixed, node.Int(quant::kFixedPointAttr, 0));
  if (fixed != 1) {
    return NodeUnsupported(node, node.op + " is made by mlfkit's QDQ lowering only (with " +
                                     std::string(quant::kFixedPointAttr) + ")");
  }
  return Status::Ok();
}

// Input i, a constant of one element ("input 1 (a_scale)" in errors).
inline Result<const ir::HostTensor*> ScalarParam(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                                                 const std::string& name) {
  const std::string what = "input " + std::to_string(i) + " (" + name + ")";
  MLF_ASSIGN_OR_RETURN(const InputInfo* v, RequiredInput(node, in, i, what));
  if (v->data == nullptr || Elements(v->shape) != 1) {
    return NodeError(node, what + " must be a constant of one element");
  }
  return v->data;
}

// Input i, a float32 scale: a constant of one element, positive and finite.
inline Result<float> ScaleParam(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                                const std::string& name) {
  const std::string what = "input " + std::to_string(i) + " (" + name + ")";
  MLF_ASSIGN_OR_RETURN(const ir::HostTensor* s, ScalarParam(node, in, i, name));
  MLF_RETURN_IF_ERROR(CheckDType(node, s->dtype, {DType::kFloat32}, what));
  const float v = s->data<float>()[0];
  if (!(v > 0) || !std::isfinite(v)) return NodeError(node, what + " must be positive and finite");
  return v;
}

// The output's integer range: dtype `out`'s, narrowed by quant::kClampAttr
// when the node has it.
inline Result<quant::QRange> OutputRange(const ir::Node& node, DType out) {
  quant::QRange range = quant::RangeOf(out);
  if (node.HasAttr(quant::kClampAttr)) {
    MLF_ASSIGN_OR_RETURN(std::vector<int64_t> c, node.Ints(quant::kClampAttr, {}));
    if (c.size() != 2 || c[0] > c[1]) return NodeError(node, std::string(quant::kClampAttr) + " must be [lo, hi]");
    range.min = std::max(range.min, c[0]);
    range.max = std::min(range.max, c[1]);
  }
  return range;
}

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_QLINEAR_PARAMS_H_
