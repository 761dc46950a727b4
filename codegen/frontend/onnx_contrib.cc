#include "codegen/frontend/onnx_contrib.h"

#include <string>
#include <unordered_set>
#include <vector>

namespace mlf::frontend {
namespace {

// One contrib operator: the standard operator it wraps and where its
// quantized operands (value, scale, zero point) and its output's scale and
// zero point sit among the inputs.
struct ContribOp {
  const char* name;
  const char* float_op;
  std::vector<int> operands;  // input index of each operand's value; empty: variadic (Concat)
  int output_scale;           // input index of the output's scale (zero point next)
  // An attribute that must be 0 when present (the layout flag of the pools).
  const char* must_be_zero;
};

// Input layouts as ONNX Runtime's contrib operator documentation states them.
const ContribOp kContribOps[] = {
    {"QLinearAdd", "Add", {0, 3}, 6, nullptr},
    {"QLinearMul", "Mul", {0, 3}, 6, nullptr},
    {"QLinearAveragePool", "AveragePool", {0}, 3, "channels_last"},
    {"QLinearGlobalAveragePool", "GlobalAveragePool", {0}, 3, "channels_last"},
    {"QLinearSigmoid", "Sigmoid", {0}, 3, nullptr},
    {"QLinearLeakyRelu", "LeakyRelu", {0}, 3, nullptr},
    // Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per input.
    {"QLinearConcat", "Concat", {}, 0, nullptr},
};

const ContribOp* FindContribOp(const std::string& op_type) {
  for (const ContribOp& op : kContribOps) {
    if (op_type == op.name) return &op;
  }
  return nullptr;
}

std::string KnownOps() {
  std::string out;
  for (const ContribOp& op : kContribOps) out += (out.empty() ? "" : ", ") + std::string(op.name);
  return out;
}

std::string Describe(const onnx::NodeProto& node) {
  return "node '" + node.name() + "' (" + kContribDomain + " " + node.op_type() + ")";
}

std::string Input(const onnx::NodeProto& node, int i) {
  return i < node.input_size() ? node.input(i) : "";
}

// Fresh value and node names, unique in the graph.
class Names {
 public:
  explicit Names(const onnx::GraphProto& g) {
    for (const auto& v : g.input()) used_.insert(v.name());
    for (const auto& v : g.initializer()) used_.insert(v.name());
    for (const auto& n : g.node()) {
      used_.insert(n.name());
      for (const auto& o : n.output()) used_.insert(o);
    }
  }
  std::string Fresh(const std::string& base) {
    std::string name = base;
    for (int k = 2; used_.count(name); ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }

 private:
  std::unordered_set<std::string> used_;
};

onnx::NodeProto MakeNode(const std::string& op, const std::string& name,
                         const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const std::string& in : inputs) n.add_input(in);
  // A trailing omitted zero point is dropped rather than left as "".
  while (n.input_size() > 0 && n.input(n.input_size() - 1).empty()) n.mutable_input()->RemoveLast();
  n.add_output(output);
  return n;
}

// The operand value indices of `node`: the table's, or Concat's triples.
Result<std::vector<int>> OperandIndices(const onnx::NodeProto& node, const ContribOp& op) {
  std::vector<int> operands = op.operands;
  if (operands.empty()) {
    if (node.input_size() < 5 || (node.input_size() - 2) % 3 != 0) {
      return InvalidArgument(Describe(node) + " has " + std::to_string(node.input_size()) +
                             " inputs; it takes Y_scale, Y_zero_point and then a value, scale "
                             "and zero point per input");
    }
    for (int i = 2; i < node.input_size(); i += 3) operands.push_back(i);
    return operands;
  }
  const int needed = op.output_scale + 2;  // the output's zero point included
  if (node.input_size() < needed - 1 || node.input_size() > needed) {
    return InvalidArgument(Describe(node) + " has " + std::to_string(node.input_size()) +
                           " inputs; it takes " + std::to_string(needed));
  }
  return operands;
}

Status CheckNode(const onnx::NodeProto& node, const ContribOp& op) {
  if (node.output_size() != 1) {
    return InvalidArgument(Describe(node) + " has " + std::to_string(node.output_size()) +
                           " outputs; it has one");
  }
  if (Input(node, op.output_scale + 1).empty()) {
    return Unimplemented(Describe(node) + ": input " + std::to_string(op.output_scale + 1) +
                         " (the output's zero point) is missing; mlfkit needs it to know the "
                         "output's type");
  }
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (op.must_be_zero && a.name() == op.must_be_zero && a.i() != 0) {
      return Unimplemented(Describe(node) + ": " + op.must_be_zero +
                           " = 1 (NHWC) is not supported; export the model channels-first");
    }
  }
  return Status::Ok();
}

// The standard nodes that compute `node`.
Result<std::vector<onnx::NodeProto>> Rewrite(const onnx::NodeProto& node, const ContribOp& op,
                                             Names& names) {
  MLF_ASSIGN_OR_RETURN(std::vector<int> operands, OperandIndices(node, op));
  MLF_RETURN_IF_ERROR(CheckNode(node, op));
  const std::string& out = node.output(0);
  std::vector<onnx::NodeProto> nodes;
  std::vector<std::string> floats;
  for (int i : operands) {
    const std::string f = names.Fresh(out + "/dequantized_" + std::to_string(i));
    nodes.push_back(MakeNode("DequantizeLinear", names.Fresh(node.name() + "/dequantize_" + std::to_string(i)),
                             {Input(node, i), Input(node, i + 1), Input(node, i + 2)}, f));
    floats.push_back(f);
  }
  const std::string result = names.Fresh(out + "/float");
  onnx::NodeProto compute = MakeNode(op.float_op, names.Fresh(node.name() + "/float"), floats, result);
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (!op.must_be_zero || a.name() != op.must_be_zero) *compute.add_attribute() = a;
  }
  nodes.push_back(compute);
  nodes.push_back(MakeNode("QuantizeLinear", names.Fresh(node.name() + "/quantize"),
                           {result, Input(node, op.output_scale), Input(node, op.output_scale + 1)},
                           out));
  return nodes;
}

int64_t DefaultOpset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  }
  return 0;
}

}  // namespace

Status RewriteContribOps(onnx::ModelProto* model) {
  onnx::GraphProto* g = model->mutable_graph();
  bool any = false;
  for (const onnx::NodeProto& n : g->node()) any = any || n.domain() == kContribDomain;
  if (!any) return Status::Ok();
  Names names(*g);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> rewritten;
  for (const onnx::NodeProto& node : g->node()) {
    if (node.domain() != kContribDomain) {
      *rewritten.Add() = node;
      continue;
    }
    const ContribOp* op = FindContribOp(node.op_type());
    if (!op) {
      return Unimplemented(Describe(node) + " is not supported; of domain " + kContribDomain +
                           " mlfkit reads " + KnownOps());
    }
    if (DefaultOpset(*model) < 10) {
      return Unimplemented(Describe(node) + ": the model imports default-domain opset " +
                           std::to_string(DefaultOpset(*model)) +
                           "; QOperator models need opset 10 or later (QuantizeLinear)");
    }
    MLF_ASSIGN_OR_RETURN(std::vector<onnx::NodeProto> nodes, Rewrite(node, *op, names));
    for (onnx::NodeProto& n : nodes) *rewritten.Add() = std::move(n);
  }
  *g->mutable_node() = std::move(rewritten);
  auto* imports = model->mutable_opset_import();
  for (int i = imports->size() - 1; i >= 0; --i) {
    if (imports->Get(i).domain() == kContribDomain) imports->DeleteSubrange(i, 1);
  }
  return Status::Ok();
}

}  // namespace mlf::frontend
