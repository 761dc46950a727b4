#include "codegen/passes/constant_folding.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"

namespace mlf::passes {
namespace {

bool IsRandom(const std::string& op) {
  return op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" ||
         op == "RandomUniformLike" || op == "Bernoulli" || op == "Multinomial";
}

// Shape (with opset 15's start/end) and Size from the input's static shape.
Result<bool> FoldShapeOf(ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() != 1 || node.inputs[0] == ir::kNoValue || node.outputs.size() != 1) {
    return InvalidArgument(node.Describe() + ": takes exactly one input and one output");
  }
  const std::vector<int64_t> dims = graph.value(node.inputs[0]).shape;
  ir::HostTensor out;
  if (node.op == "Size") {
    out = ir::HostTensor::Zeros(DType::kInt64, {});
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    out.data<int64_t>()[0] = n;
  } else {
    const auto rank = static_cast<int64_t>(dims.size());
    MLF_ASSIGN_OR_RETURN(int64_t start, node.Int("start", 0));
    MLF_ASSIGN_OR_RETURN(int64_t end, node.Int("end", rank));
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    const int64_t n = std::max<int64_t>(end - start, 0);
    out = ir::HostTensor::Zeros(DType::kInt64, {n});
    for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = dims[static_cast<size_t>(start + i)];
  }
  ir::Value& v = graph.value(node.outputs[0]);
  v.dtype = out.dtype;
  v.shape = out.shape;
  v.constant = std::move(out);
  return true;
}

}  // namespace

Result<bool> TryFoldNode(ir::Graph& graph, const ir::Node& node, const FoldOptions& options) {
  if (node.op == "Shape" || node.op == "Size") return FoldShapeOf(graph, node);
  if (IsRandom(node.op)) return false;
  if (node.op == "DequantizeLinear" && !options.fold_dequantize_linear) return false;
  std::vector<const ir::HostTensor*> inputs;
  for (int id : node.inputs) {
    if (id == ir::kNoValue) {
      inputs.push_back(nullptr);
      continue;
    }
    const ir::Value& v = graph.value(id);
    if (!v.is_constant()) return false;
    inputs.push_back(&*v.constant);
  }
  const ops::OpDef* def = ops::FindOp(node.op);
  if (def == nullptr || def->evaluate == nullptr) return false;
  uint64_t total = 0;
  for (int id : node.outputs) {
    const ir::Value& v = graph.value(id);
    Result<uint64_t> bytes = ByteSize(v.dtype, v.shape);
    if (!bytes.ok()) return false;
    total += *bytes;
    if (total > options.max_output_bytes) return false;
  }
  std::vector<ir::HostTensor> outputs;
  Status st = ops::EvaluateNode(node, inputs, &outputs);
  if (!st.ok()) return st.WithContext("constant folding");
  if (outputs.size() != node.outputs.size()) {
    return Internal(node.Describe() + ": evaluate produced " + std::to_string(outputs.size()) +
                    " outputs, infer declared " + std::to_string(node.outputs.size()));
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const ir::Value& v = graph.value(node.outputs[j]);
    const ir::HostTensor& t = outputs[j];
    if (t.dtype != v.dtype || t.shape != v.shape) {
      return Internal(node.Describe() + ": evaluate produced " + DTypeName(t.dtype) + " " +
                      FormatShape(t.shape) + " for output '" + v.name + "', infer said " +
                      DTypeName(v.dtype) + " " + FormatShape(v.shape));
    }
    if (t.bytes.size() != t.element_count() * DTypeSize(t.dtype)) {
      return Internal(node.Describe() + ": evaluate produced " +
                      std::to_string(t.bytes.size()) + " bytes for output '" + v.name + "'");
    }
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    graph.value(node.outputs[j]).constant = std::move(outputs[j]);
  }
  return true;
}

Status FoldConstants(ir::Graph& graph, const FoldOptions& options) {
  std::vector<bool> folded(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    MLF_ASSIGN_OR_RETURN(folded[n], TryFoldNode(graph, graph.nodes[n], options));
  }
  std::vector<ir::Node> kept;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!folded[n]) kept.push_back(std::move(graph.nodes[n]));
  }
  graph.nodes = std::move(kept);
  PruneGraph(graph);
  return Status::Ok();
}

void PruneGraph(ir::Graph& graph) {
  // Dead nodes, from the back so that chains of dead nodes go at once.
  std::vector<bool> read(graph.values.size(), false);
  for (int id : graph.outputs) read[static_cast<size_t>(id)] = true;
  std::vector<bool> live(graph.nodes.size(), false);
  for (size_t n = graph.nodes.size(); n-- > 0;) {
    const ir::Node& node = graph.nodes[n];
    for (int out : node.outputs) {
      if (read[static_cast<size_t>(out)]) live[n] = true;
    }
    if (!live[n]) continue;
    for (int in : node.inputs) {
      if (in != ir::kNoValue) read[static_cast<size_t>(in)] = true;
    }
  }
  std::vector<ir::Node> nodes;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (live[n]) nodes.push_back(std::move(graph.nodes[n]));
  }
  graph.nodes = std::move(nodes);

  // Unreferenced values.
  std::vector<bool> used(graph.values.size(), false);
  for (int id : graph.inputs) used[static_cast<size_t>(id)] = true;
  for (int id : graph.outputs) used[static_cast<size_t>(id)] = true;
  for (const ir::Node& node : graph.nodes) {
    for (int id : node.inputs) {
      if (id != ir::kNoValue) used[static_cast<size_t>(id)] = true;
    }
    for (int id : node.outputs) used[static_cast<size_t>(id)] = true;
  }
  std::vector<int> remap(graph.values.size(), ir::kNoValue);
  std::vector<ir::Value> values;
  for (size_t i = 0; i < graph.values.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<int>(values.size());
    values.push_back(std::move(graph.values[i]));
  }
  graph.values = std::move(values);
  auto fix = [&](std::vector<int>& ids) {
    for (int& id : ids) {
      if (id != ir::kNoValue) id = remap[static_cast<size_t>(id)];
    }
  };
  fix(graph.inputs);
  fix(graph.outputs);
  for (ir::Node& node : graph.nodes) {
    fix(node.inputs);
    fix(node.outputs);
  }
}

}  // namespace mlf::passes
