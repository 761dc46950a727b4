// The table of every supported operator, built once from the family files.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "codegen/ops/op.h"
#include "codegen/ops/refusal_reasons.h"

namespace mlf::ops {
namespace {

const std::vector<OpDef>& Table() {
  static const std::vector<OpDef>* table = [] {
    auto* t = new std::vector<OpDef>();
    RegisterElementwiseOps(t);
    RegisterMatMulOps(t);
    RegisterConvOps(t);
    RegisterPoolOps(t);
    RegisterNormalizationOps(t);
    RegisterReduceOps(t);
    RegisterShapeOps(t);
    RegisterSlicePadOps(t);
    RegisterGatherOps(t);
    RegisterCastOps(t);
    RegisterResizeOps(t);
    RegisterQuantizeOps(t);
    RegisterQLinearOps(t);
    RegisterQLinearAddOps(t);
    RegisterQLinearPoolOps(t);
    RegisterQLinearConcatOps(t);
    RegisterQLinearMulOps(t);
    RegisterQLinearLookupOps(t);
    RegisterMathOps(t);
    RegisterCompareOps(t);
    RegisterArithOps(t);
    RegisterExpandOps(t);
    RegisterGenerateOps(t);
    RegisterSelectOps(t);
    RegisterLayerNormOps(t);
    RegisterScatterOps(t);
    RegisterNormalizeOps(t);
    RegisterLossOps(t);
    RegisterWindowOps(t);
    RegisterMelWeightMatrixOps(t);
    RegisterRnnOps(t);
    RegisterReverseSequenceOps(t);
    RegisterDetOps(t);
    RegisterMaxUnpoolOps(t);
    RegisterEinsumOps(t);
    RegisterCompressOps(t);
    RegisterGridSampleOps(t);
    RegisterDftOps(t);
    RegisterTfIdfOps(t);
    RegisterRoiAlignOps(t);
    return t;
  }();
  return *table;
}

}  // namespace

const OpDef* FindOp(const std::string& op) {
  for (const OpDef& d : Table()) {
    if (op == d.name) return &d;
  }
  return nullptr;
}

std::vector<std::string> SupportedOps() {
  std::vector<std::string> names;
  for (const OpDef& d : Table()) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  return names;
}

Status InferNode(const ir::Node& node, ir::Graph& graph) {
  const OpDef* def = FindOp(node.op);
  if (def == nullptr || def->infer == nullptr) {
    const std::string why = WhyNotSupported(node.op);
    return Unimplemented(node.Describe() + ": operator " + node.op + " is not supported" +
                         (why.empty() ? "" : ": " + why));
  }
  return def->infer(node, graph);
}

Status EvaluateNode(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  const OpDef* def = FindOp(node.op);
  if (def == nullptr || def->evaluate == nullptr) {
    return Unimplemented(node.Describe() + ": operator " + node.op + " cannot be evaluated");
  }
  return def->evaluate(node, inputs, outputs);
}

const char* CType(DType dtype) {
  switch (dtype) {
    case DType::kBool: return "uint8_t";
    case DType::kInt8: return "int8_t";
    case DType::kInt16: return "int16_t";
    case DType::kInt32: return "int32_t";
    case DType::kInt64: return "int64_t";
    case DType::kUInt8: return "uint8_t";
    case DType::kUInt16: return "uint16_t";
    case DType::kUInt32: return "uint32_t";
    case DType::kUInt64: return "uint64_t";
    case DType::kFloat16: return "uint16_t";
    case DType::kBFloat16: return "uint16_t";
    case DType::kFloat32: return "float";
    case DType::kFloat64: return "double";
  }
  return "void";
}

std::string CLiteral(DType dtype, double value) {
  char text[64];
  if (dtype == DType::kFloat32) {
    if (std::isnan(value)) return "(0.0f / 0.0f)";
    if (std::isinf(value)) return value > 0 ? "(1.0f / 0.0f)" : "(-1.0f / 0.0f)";
    std::snprintf(text, sizeof text, "%.9gf", static_cast<float>(value));
    std::string s = text;
    // "1f" is not a C literal: a float literal needs a '.' or an exponent.
    if (s.find_first_of(".en") == std::string::npos) s.insert(s.size() - 1, ".0");
    return s;
  }
  if (dtype == DType::kFloat64) {
    if (std::isnan(value)) return "(0.0 / 0.0)";
    if (std::isinf(value)) return value > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)";
    std::snprintf(text, sizeof text, "%.17g", value);
    std::string s = text;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
  }
  if (dtype == DType::kInt64 && value <= -9.2e18) return "INT64_MIN";
  std::snprintf(text, sizeof text, "%.0f", value);
  std::string s = text;
  if (dtype == DType::kInt64 || dtype == DType::kUInt64) s = "(" + std::string(CType(dtype)) + ")" + s + (dtype == DType::kUInt64 ? "u" : "");
  return s;
}

Result<std::string> EmitContext::Activation(const std::string& value) const {
  MLF_ASSIGN_OR_RETURN(std::string act, node.String("mlf.activation", ""));
  if (act.empty()) return value;
  const std::string v = "(" + value + ")";
  auto attr = [&](const char* key, double fallback) {
    return node.Float(std::string("mlf.activation.") + key, fallback);
  };
  if (act == "Relu") return "(" + v + " > 0.0f ? " + v + " : 0.0f)";
  if (act == "Clip") {
    MLF_ASSIGN_OR_RETURN(double lo, attr("min", -INFINITY));
    MLF_ASSIGN_OR_RETURN(double hi, attr("max", INFINITY));
    return "fminf(fmaxf(" + v + ", " + CLiteral(DType::kFloat32, lo) + "), " +
           CLiteral(DType::kFloat32, hi) + ")";
  }
  if (act == "LeakyRelu") {
    MLF_ASSIGN_OR_RETURN(double alpha, attr("alpha", 0.01));
    return "(" + v + " >= 0.0f ? " + v + " : " + v + " * " + CLiteral(DType::kFloat32, alpha) + ")";
  }
  if (act == "Sigmoid") return "(1.0f / (1.0f + expf(-" + v + ")))";
  if (act == "Tanh") return "tanhf(" + v + ")";
  if (act == "HardSigmoid" || act == "HardSwish") {
    MLF_ASSIGN_OR_RETURN(double alpha, attr("alpha", act == "HardSwish" ? 1.0 / 6 : 0.2));
    MLF_ASSIGN_OR_RETURN(double beta, attr("beta", 0.5));
    const std::string hs = "fminf(fmaxf(" + v + " * " + CLiteral(DType::kFloat32, alpha) + " + " +
                           CLiteral(DType::kFloat32, beta) + ", 0.0f), 1.0f)";
    return act == "HardSigmoid" ? hs : "(" + v + " * " + hs + ")";
  }
  return Unimplemented(node.Describe() + ": fused activation '" + act + "' is not supported");
}

}  // namespace mlf::ops
