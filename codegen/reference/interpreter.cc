#include "codegen/reference/interpreter.h"

#include "codegen/ops/op.h"

namespace mlf::reference {

Result<std::vector<ir::HostTensor>> Interpret(const ir::Graph& graph,
                                              const std::vector<ir::HostTensor>& inputs) {
  if (inputs.size() != graph.inputs.size()) {
    return InvalidArgument("the graph has " + std::to_string(graph.inputs.size()) +
                           " inputs, got " + std::to_string(inputs.size()));
  }
  std::vector<const ir::HostTensor*> values(graph.values.size(), nullptr);
  std::vector<ir::HostTensor> computed(graph.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) values[graph.inputs[i]] = &inputs[i];
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].is_constant()) values[v] = &*graph.values[v].constant;
  }
  for (const ir::Node& node : graph.nodes) {
    std::vector<const ir::HostTensor*> in;
    for (int id : node.inputs) in.push_back(id == ir::kNoValue ? nullptr : values[id]);
    std::vector<ir::HostTensor> out;
    MLF_RETURN_IF_ERROR(ops::EvaluateNode(node, in, &out));
    if (out.size() != node.outputs.size()) {
      return Internal(node.Describe() + ": evaluate produced " + std::to_string(out.size()) +
                      " outputs, expected " + std::to_string(node.outputs.size()));
    }
    for (size_t j = 0; j < out.size(); ++j) {
      computed[node.outputs[j]] = std::move(out[j]);
      values[node.outputs[j]] = &computed[node.outputs[j]];
    }
  }
  std::vector<ir::HostTensor> results;
  for (int id : graph.outputs) {
    if (values[id] == nullptr) return Internal("graph output '" + graph.value(id).name + "' was not computed");
    results.push_back(*values[id]);
  }
  return results;
}

}  // namespace mlf::reference
