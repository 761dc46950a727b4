// The compiler's graph IR: values (tensors with a dtype and a static shape,
// some of them constants) and nodes (ONNX operators with attributes).
//
// Front ends (codegen/frontend) build it; passes (codegen/passes) rewrite it;
// the memory planner and the C emitter (codegen/emit) consume it. Operator
// semantics are ONNX's, normalised by the front end to one canonical form per
// operator (e.g. axes of Squeeze/Unsqueeze/Reduce* always as a constant input
// when ONNX opset 13+ has them as inputs; see codegen/ops/README.md).
//
// Invariants after a front end has run (checked by Graph::Validate):
//   - every value has a known dtype and a fully static shape;
//   - nodes are in topological order; each value has at most one producer;
//   - graph inputs and constants have no producer;
//   - node inputs may be kNoValue for omitted optional inputs.
#ifndef MLFKIT_CODEGEN_IR_GRAPH_H_
#define MLFKIT_CODEGEN_IR_GRAPH_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "codegen/ir/host_tensor.h"

namespace mlf::ir {

inline constexpr int kNoValue = -1;

struct Value {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::optional<HostTensor> constant;  // set for constants (initializers, folded values)

  bool is_constant() const { return constant.has_value(); }
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>, HostTensor>;

// Attributes the compiler's passes set on nodes ("mlf.activation",
// "mlf.residual", "mlf.weight_layout", ...): a model may not carry them, or
// it could make a pass's promise without the pass's checks.
inline bool IsCompilerAttribute(const std::string& name) { return name.rfind("mlf.", 0) == 0; }

struct Node {
  std::string name;  // from the model, or made up ("<op>_<index>") when empty
  std::string op;    // ONNX op type, e.g. "Conv"
  std::vector<int> inputs;   // value ids; kNoValue for an omitted optional input
  std::vector<int> outputs;  // value ids
  std::map<std::string, AttrValue> attrs;

  bool HasAttr(const std::string& key) const { return attrs.count(key) > 0; }
  // Typed attribute access with a default; a present attribute of another
  // type is an error naming the node, the op and the attribute.
  Result<int64_t> Int(const std::string& key, int64_t fallback) const;
  Result<double> Float(const std::string& key, double fallback) const;
  Result<std::string> String(const std::string& key, const std::string& fallback) const;
  Result<std::vector<int64_t>> Ints(const std::string& key,
                                    const std::vector<int64_t>& fallback) const;
  Result<std::vector<double>> Floats(const std::string& key,
                                     const std::vector<double>& fallback) const;
  // Whether input i is present (not omitted).
  bool HasInput(size_t i) const { return i < inputs.size() && inputs[i] != kNoValue; }
  // "node 'conv1' (Conv)": the prefix of every error about this node.
  std::string Describe() const;
};

class Graph {
 public:
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // value ids of the model inputs, in order
  std::vector<int> outputs;  // value ids of the model outputs, in order

  int AddValue(Value v);
  int AddConstant(const std::string& name, HostTensor t);
  // A fresh value name not used yet, built from `base`.
  std::string UniqueName(const std::string& base) const;

  Value& value(int id) { return values.at(static_cast<size_t>(id)); }
  const Value& value(int id) const { return values.at(static_cast<size_t>(id)); }

  // The node producing value `id`, or -1 (inputs, constants).
  int Producer(int id) const;
  // Indices of nodes that read value `id`.
  std::vector<int> Consumers(int id) const;

  // Makes every node that reads `from` read `to` instead (graph outputs are
  // left alone: their names are part of the model's interface).
  void ReplaceUses(int from, int to);
  // Whether `id` is one of the graph outputs.
  bool IsOutput(int id) const;

  // Checks the invariants listed above; the error names the offending value or node.
  Status Validate() const;
};

}  // namespace mlf::ir

#endif  // MLFKIT_CODEGEN_IR_GRAPH_H_
