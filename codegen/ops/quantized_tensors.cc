#include "codegen/ops/quantized_tensors.h"

#include <optional>
#include <string>
#include <vector>

namespace mlf::ops {
namespace {

// One quantized operand of an operator: the tensor (an input, or with
// `output` its output 0), the inputs holding its scale and zero point, and
// the dimension a per-channel scale runs along (kAxisAttr: the operator's
// "axis" attribute, default 1; kLastAxis: the tensor's last dimension).
constexpr int kAxisAttr = -1;
constexpr int kLastAxis = -2;
struct Operand {
  bool output;
  int tensor;
  int scale;
  int zero_point;
  int axis;
};

// The quantized operators: ONNX's operand order (operators.md).
const std::map<std::string, std::vector<Operand>>& Table() {
  static const auto* table = new std::map<std::string, std::vector<Operand>>{
      {"QuantizeLinear", {{true, 0, 1, 2, kAxisAttr}}},
      {"DequantizeLinear", {{false, 0, 1, 2, kAxisAttr}}},
      // x, w (per output channel), y.
      {"QLinearConv", {{false, 0, 1, 2, 0}, {false, 3, 4, 5, 0}, {true, 0, 6, 7, 0}}},
      // a, b (per column), y.
      {"QLinearMatMul", {{false, 0, 1, 2, kLastAxis}, {false, 3, 4, 5, kLastAxis}, {true, 0, 6, 7, 0}}},
  };
  return *table;
}

const ir::HostTensor* ConstantInput(const ir::Graph& g, const ir::Node& n, int index) {
  if (index >= static_cast<int>(n.inputs.size()) || n.inputs[static_cast<size_t>(index)] == ir::kNoValue) {
    return nullptr;
  }
  const ir::Value& v = g.value(n.inputs[static_cast<size_t>(index)]);
  return v.is_constant() ? &*v.constant : nullptr;
}

// The operand's quantization, or nullopt when its scale is not a constant
// or its zero point not a constant of the scale's length.
std::optional<QuantizationInfo> Describe(const ir::Graph& g, const ir::Node& n, const Operand& o, int tensor) {
  const ir::HostTensor* scale = ConstantInput(g, n, o.scale);
  if (!scale || scale->element_count() == 0) return std::nullopt;
  const ir::HostTensor* zero_point = ConstantInput(g, n, o.zero_point);
  const bool has_zero_point_input =
      o.zero_point < static_cast<int>(n.inputs.size()) && n.inputs[static_cast<size_t>(o.zero_point)] != ir::kNoValue;
  if (has_zero_point_input && (!zero_point || zero_point->element_count() != scale->element_count())) {
    return std::nullopt;
  }
  QuantizationInfo q;
  for (uint64_t i = 0; i < scale->element_count(); ++i) {
    q.scale.push_back(scale->GetDouble(i));
    q.zero_point.push_back(zero_point ? zero_point->GetInt(i) : 0);
  }
  if (scale->element_count() == 1) return q;
  const int64_t rank = static_cast<int64_t>(g.value(tensor).shape.size());
  int64_t axis = o.axis;
  if (o.axis == kAxisAttr) {
    Result<int64_t> attr = n.Int("axis", 1);
    if (!attr.ok()) return std::nullopt;
    axis = *attr < 0 ? *attr + rank : *attr;
  } else if (o.axis == kLastAxis) {
    axis = rank - 1;
  }
  if (axis < 0 || axis >= rank) return std::nullopt;
  q.axis = axis;
  return q;
}

}  // namespace

std::map<int, QuantizationInfo> QuantizedTensors(const ir::Graph& graph) {
  std::map<int, QuantizationInfo> found;
  std::map<int, bool> disagreed;
  for (const ir::Node& n : graph.nodes) {
    auto entry = Table().find(n.op);
    if (entry == Table().end()) continue;
    for (const Operand& o : entry->second) {
      const std::vector<int>& list = o.output ? n.outputs : n.inputs;
      if (o.tensor >= static_cast<int>(list.size()) || list[static_cast<size_t>(o.tensor)] == ir::kNoValue) continue;
      const int tensor = list[static_cast<size_t>(o.tensor)];
      std::optional<QuantizationInfo> q = Describe(graph, n, o, tensor);
      auto known = found.find(tensor);
      if (!q || (known != found.end() && !(known->second == *q))) {
        disagreed[tensor] = true;
      } else {
        found.emplace(tensor, *q);
      }
    }
  }
  for (const auto& [tensor, unused] : disagreed) found.erase(tensor);
  return found;
}

}  // namespace mlf::ops
