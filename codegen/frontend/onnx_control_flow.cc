#include "codegen/frontend/onnx_control_flow.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "codegen/frontend/tensor_proto.h"

namespace mlf::frontend {
namespace {

using Renames = std::unordered_map<std::string, std::string>;

std::string Who(const onnx::NodeProto& node, const std::string& name) {
  return "node '" + name + "' (" + node.op_type() + ")";
}

const onnx::GraphProto* GraphAttribute(const onnx::NodeProto& node, const std::string& key) {
  for (const auto& a : node.attribute()) {
    if (a.name() == key && a.has_g()) return &a.g();
  }
  return nullptr;
}

int64_t IntAttribute(const onnx::NodeProto& node, const std::string& key, int64_t fallback) {
  for (const auto& a : node.attribute()) {
    if (a.name() == key && a.type() == onnx::AttributeProto::INT) return a.i();
  }
  return fallback;
}

std::vector<int64_t> IntsAttribute(const onnx::NodeProto& node, const std::string& key) {
  for (const auto& a : node.attribute()) {
    if (a.name() == key) return {a.ints().begin(), a.ints().end()};
  }
  return {};
}

// Names a graph defines itself: its inputs, initializers and node outputs.
std::unordered_set<std::string> DefinedNames(const onnx::GraphProto& g) {
  std::unordered_set<std::string> defined;
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& init : g.initializer()) defined.insert(init.name());
  for (const auto& n : g.node()) defined.insert(n.output().begin(), n.output().end());
  return defined;
}

// Renames the free variables of `g` (names it reads but does not define:
// values of the scopes around it), and of the graphs nested in its nodes.
void RenameFreeVariables(onnx::GraphProto* g, const Renames& renames) {
  const std::unordered_set<std::string> defined = DefinedNames(*g);
  auto rename = [&](std::string* name) {
    if (defined.count(*name)) return;
    auto it = renames.find(*name);
    if (it != renames.end()) *name = it->second;
  };
  for (auto& n : *g->mutable_node()) {
    for (auto& in : *n.mutable_input()) rename(&in);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) RenameFreeVariables(a.mutable_g(), renames);
      for (auto& sub : *a.mutable_graphs()) RenameFreeVariables(&sub, renames);
    }
  }
  for (auto& out : *g->mutable_output()) rename(out.mutable_name());
}

onnx::NodeProto MakeNode(const std::string& op, std::vector<std::string> inputs,
                         std::vector<std::string> outputs) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (auto& in : inputs) n.add_input(std::move(in));
  for (auto& out : outputs) n.add_output(std::move(out));
  return n;
}

// A Constant node defining `value` as `tensor`.
onnx::NodeProto ConstantNode(const std::string& value, const ir::HostTensor& tensor) {
  onnx::NodeProto n = MakeNode("Constant", {}, {value});
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = ToTensorProto(tensor, value);
  return n;
}

void SetInt(onnx::NodeProto* n, const std::string& key, int64_t value) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

// Everything one control-flow node's unrolling shares: the host, the name
// of the node for errors and as the prefix of new names, and the count of
// nodes lowered so far against the limit.
class Unroller {
 public:
  Unroller(const onnx::NodeProto& node, const std::string& name, ControlFlowHost& host)
      : node_(node), name_(name), who_(Who(node, name)), host_(host) {}

  Status If();
  Status Loop();
  Status Scan();

 private:
  // Inlines `body` once, with its inputs bound to the values `inputs`;
  // `copy` tells copies apart in new names. The names of its outputs go to
  // `outputs`.
  Status Inline(const onnx::GraphProto& body, const std::vector<std::string>& inputs,
                const std::string& copy, std::vector<std::string>* outputs);
  // Lowers one node that unrolling made, or an inlined one.
  Status Lower(const onnx::NodeProto& node, const std::string& name);
  // A new value holding `tensor` (a Constant node).
  Result<std::string> Constant(const std::string& base, const ir::HostTensor& tensor);
  Result<std::string> Int64Scalar(const std::string& base, int64_t value);
  // `node_`'s output `index` as a copy of `value` (when the output is named).
  Status Bind(int index, const std::string& value);
  // Stacks `values` (one per iteration) along a new axis `axis` into output
  // `index` of node_.
  Status Stack(const std::vector<std::string>& values, int64_t axis, int index);
  Status CheckBodyArity(const onnx::GraphProto& body, int inputs, int outputs,
                        const std::string& expected) const;
  Status CountNodes(uint64_t per_copy, uint64_t copies);

  const onnx::NodeProto& node_;
  const std::string name_;
  const std::string who_;
  ControlFlowHost& host_;
  uint64_t lowered_ = 0;
};

Status Unroller::CountNodes(uint64_t per_copy, uint64_t copies) {
  const uint64_t limit = host_.MaxUnrolledNodes();
  if (copies != 0 && per_copy > limit / copies) {
    return OutOfRange(who_ + ": unrolled " + std::to_string(copies) + " times, its " +
                      std::to_string(per_copy) + " body nodes would make more than the limit of " +
                      std::to_string(limit) + " nodes");
  }
  return Status::Ok();
}

Status Unroller::Lower(const onnx::NodeProto& node, const std::string& name) {
  if (++lowered_ > host_.MaxUnrolledNodes()) {
    return OutOfRange(who_ + ": unrolling it makes more than the limit of " +
                      std::to_string(host_.MaxUnrolledNodes()) + " nodes");
  }
  return host_.LowerProto(node, name);
}

Result<std::string> Unroller::Constant(const std::string& base, const ir::HostTensor& tensor) {
  const std::string value = host_.ReserveName(base);
  host_.MarkRead(value);
  MLF_RETURN_IF_ERROR(Lower(ConstantNode(value, tensor), value));
  return value;
}

Result<std::string> Unroller::Int64Scalar(const std::string& base, int64_t value) {
  ir::HostTensor t = ir::HostTensor::Zeros(DType::kInt64, {});
  t.data<int64_t>()[0] = value;
  return Constant(base, t);
}

Status Unroller::Bind(int index, const std::string& value) {
  if (index >= node_.output_size() || node_.output(index).empty()) return Status::Ok();
  host_.MarkRead(value);
  return Lower(MakeNode("Identity", {value}, {node_.output(index)}), name_ + "/" + node_.output(index));
}

Status Unroller::CheckBodyArity(const onnx::GraphProto& body, int inputs, int outputs,
                                const std::string& expected) const {
  if (body.input_size() != inputs || body.output_size() != outputs) {
    return InvalidArgument(who_ + ": its body has " + std::to_string(body.input_size()) +
                           " inputs and " + std::to_string(body.output_size()) +
                           " outputs; expected " + expected);
  }
  return Status::Ok();
}

Status Unroller::Inline(const onnx::GraphProto& body, const std::vector<std::string>& inputs,
                        const std::string& copy, std::vector<std::string>* outputs) {
  const std::string prefix = name_ + "/" + copy;
  Renames renames;
  for (int i = 0; i < body.input_size(); ++i) renames[body.input(i).name()] = inputs[i];
  for (const auto& n : body.node()) {
    for (const std::string& out : n.output()) {
      if (!out.empty()) renames[out] = host_.ReserveName(prefix + out);
    }
  }
  // Initializers of a body: constants of each copy.
  for (const auto& init : body.initializer()) {
    MLF_ASSIGN_OR_RETURN(ir::HostTensor t, FromTensorProto(init));
    MLF_ASSIGN_OR_RETURN(renames[init.name()], Constant(prefix + init.name(), t));
  }
  std::vector<onnx::NodeProto> copies;
  for (const auto& n : body.node()) {
    onnx::NodeProto c = n;
    for (auto& in : *c.mutable_input()) {
      auto it = renames.find(in);
      if (it != renames.end()) in = it->second;
      if (!in.empty()) host_.MarkRead(in);
    }
    for (auto& out : *c.mutable_output()) {
      if (!out.empty()) out = renames.at(out);
    }
    for (auto& a : *c.mutable_attribute()) {
      if (a.has_g()) RenameFreeVariables(a.mutable_g(), renames);
      for (auto& sub : *a.mutable_graphs()) RenameFreeVariables(&sub, renames);
    }
    copies.push_back(std::move(c));
  }
  outputs->clear();
  for (const auto& out : body.output()) {
    auto it = renames.find(out.name());
    outputs->push_back(it != renames.end() ? it->second : out.name());
    host_.MarkRead(outputs->back());
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    const onnx::NodeProto& original = body.node(static_cast<int>(i));
    const std::string label = original.name().empty()
                                  ? original.op_type() + "_" + std::to_string(i)
                                  : original.name();
    MLF_RETURN_IF_ERROR(Lower(copies[i], prefix + label));
  }
  return Status::Ok();
}

Status Unroller::Stack(const std::vector<std::string>& values, int64_t axis, int index) {
  if (index >= node_.output_size() || node_.output(index).empty()) return Status::Ok();
  if (values.empty()) {
    return Unimplemented(who_ + ": it runs 0 times, so its scan output '" + node_.output(index) +
                         "' has no element to take its shape from");
  }
  const std::optional<std::vector<int64_t>> shape = host_.ShapeOf(values[0]);
  const int64_t rank = shape ? static_cast<int64_t>(shape->size()) + 1 : 1;
  if (axis < -rank || axis >= rank) {
    return InvalidArgument(who_ + ": scan output axis " + std::to_string(axis) +
                           " is out of range for rank " + std::to_string(rank));
  }
  if (axis < 0) axis += rank;
  ir::HostTensor axes = ir::HostTensor::Zeros(DType::kInt64, {1});
  axes.data<int64_t>()[0] = axis;
  MLF_ASSIGN_OR_RETURN(std::string axes_value, Constant(name_ + "/axes", axes));
  std::vector<std::string> parts;
  for (const std::string& v : values) {
    parts.push_back(host_.ReserveName(v + "/unsqueezed"));
    host_.MarkRead(parts.back());
    MLF_RETURN_IF_ERROR(Lower(MakeNode("Unsqueeze", {v, axes_value}, {parts.back()}), parts.back()));
  }
  onnx::NodeProto concat = MakeNode("Concat", parts, {node_.output(index)});
  SetInt(&concat, "axis", axis);
  return Lower(concat, name_ + "/" + node_.output(index));
}

Status Unroller::If() {
  const onnx::GraphProto* then_branch = GraphAttribute(node_, "then_branch");
  const onnx::GraphProto* else_branch = GraphAttribute(node_, "else_branch");
  if (then_branch == nullptr || else_branch == nullptr || node_.input_size() != 1) {
    return InvalidArgument(who_ + ": needs one input (cond) and the graph attributes "
                           "then_branch and else_branch");
  }
  const ir::HostTensor* cond = host_.KnownValue(node_.input(0));
  if (cond == nullptr) {
    return host_.NotKnown(who_, 0, "cond", node_.input(0),
                          "the branch taken is chosen at export");
  }
  if (cond->element_count() != 1) {
    return InvalidArgument(who_ + ": input 0 (cond) must hold one value");
  }
  const bool taken = cond->GetDouble(0) != 0;
  const onnx::GraphProto& branch = taken ? *then_branch : *else_branch;
  if (branch.output_size() != node_.output_size()) {
    return InvalidArgument(who_ + ": " + (taken ? "then_branch" : "else_branch") + " has " +
                           std::to_string(branch.output_size()) + " outputs, the node " +
                           std::to_string(node_.output_size()));
  }
  MLF_RETURN_IF_ERROR(CheckBodyArity(branch, 0, node_.output_size(), "no inputs"));
  MLF_RETURN_IF_ERROR(CountNodes(static_cast<uint64_t>(branch.node_size()), 1));
  std::vector<std::string> outputs;
  MLF_RETURN_IF_ERROR(Inline(branch, {}, taken ? "then/" : "else/", &outputs));
  for (int i = 0; i < node_.output_size(); ++i) MLF_RETURN_IF_ERROR(Bind(i, outputs[i]));
  return Status::Ok();
}

Status Unroller::Loop() {
  const onnx::GraphProto* body = GraphAttribute(node_, "body");
  if (body == nullptr || node_.input_size() < 2) {
    return InvalidArgument(who_ + ": needs inputs M and cond and the graph attribute body");
  }
  const int carried = node_.input_size() - 2;
  const int scans = body->output_size() - 1 - carried;
  if (scans < 0 || node_.output_size() > carried + scans) {
    return InvalidArgument(who_ + ": its body has " + std::to_string(body->output_size()) +
                           " outputs for " + std::to_string(carried) +
                           " loop-carried values; expected at least " +
                           std::to_string(1 + carried));
  }
  MLF_RETURN_IF_ERROR(CheckBodyArity(*body, 2 + carried, 1 + carried + scans,
                                     std::to_string(2 + carried) + " inputs"));
  // M and cond are optional; the loop must end either way.
  std::optional<int64_t> trip_count;
  if (!node_.input(0).empty()) {
    const ir::HostTensor* m = host_.KnownValue(node_.input(0));
    if (m == nullptr) {
      return host_.NotKnown(who_, 0, "M", node_.input(0),
                            "the loop is unrolled at export, so its trip count must be known");
    }
    if (m->element_count() != 1) return InvalidArgument(who_ + ": input 0 (M) must hold one value");
    trip_count = std::max<int64_t>(m->GetInt(0), 0);
  }
  std::string cond = node_.input(1);
  if (!cond.empty() && host_.KnownValue(cond) == nullptr) {
    return host_.NotKnown(who_, 1, "cond", cond,
                          "the loop is unrolled at export, so whether it runs must be known");
  }
  if (cond.empty()) {
    ir::HostTensor yes = ir::HostTensor::Zeros(DType::kBool, {});
    yes.data<uint8_t>()[0] = 1;
    MLF_ASSIGN_OR_RETURN(cond, Constant(name_ + "/cond", yes));
  }
  if (!trip_count && node_.input(1).empty()) {
    return InvalidArgument(who_ + ": has neither a trip count (M) nor a condition: it never ends");
  }
  if (trip_count) {
    MLF_RETURN_IF_ERROR(CountNodes(static_cast<uint64_t>(body->node_size()) + 2,
                                   static_cast<uint64_t>(*trip_count)));
  }
  std::vector<std::string> state(node_.input().begin() + 2, node_.input().end());
  std::vector<std::vector<std::string>> scanned(static_cast<size_t>(scans));
  for (int64_t i = 0; !trip_count || i < *trip_count; ++i) {
    const ir::HostTensor* go = host_.KnownValue(cond);
    if (go == nullptr) {
      return Unimplemented(who_ + ": the condition its body computes is not known at export (it "
                           "depends on the input data), so the number of iterations and the "
                           "output shape depends on the input values");
    }
    if (go->element_count() != 1) return InvalidArgument(who_ + ": its condition must hold one value");
    if (go->GetDouble(0) == 0) break;
    const std::string copy = std::to_string(i) + "/";
    MLF_ASSIGN_OR_RETURN(std::string iteration, Int64Scalar(name_ + "/" + copy + "i", i));
    std::vector<std::string> inputs = {iteration, cond};
    inputs.insert(inputs.end(), state.begin(), state.end());
    std::vector<std::string> outputs;
    MLF_RETURN_IF_ERROR(Inline(*body, inputs, copy, &outputs));
    cond = outputs[0];
    std::copy(outputs.begin() + 1, outputs.begin() + 1 + carried, state.begin());
    for (int k = 0; k < scans; ++k) scanned[k].push_back(outputs[1 + carried + k]);
  }
  for (int k = 0; k < carried; ++k) MLF_RETURN_IF_ERROR(Bind(k, state[k]));
  for (int k = 0; k < scans; ++k) MLF_RETURN_IF_ERROR(Stack(scanned[k], 0, carried + k));
  return Status::Ok();
}

Status Unroller::Scan() {
  const onnx::GraphProto* body = GraphAttribute(node_, "body");
  const int64_t scan_inputs = IntAttribute(node_, "num_scan_inputs", -1);
  if (body == nullptr || scan_inputs < 1 || scan_inputs > node_.input_size()) {
    return InvalidArgument(who_ + ": needs the graph attribute body and num_scan_inputs between 1 "
                           "and its number of inputs");
  }
  const int states = node_.input_size() - static_cast<int>(scan_inputs);
  const int scan_outputs = node_.output_size() - states;
  if (scan_outputs < 0) {
    return InvalidArgument(who_ + ": has fewer outputs than state variables");
  }
  MLF_RETURN_IF_ERROR(CheckBodyArity(*body, node_.input_size(), node_.output_size(),
                                     "as many as the node"));
  auto per_input = [&](const std::string& key, int count) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> v = IntsAttribute(node_, key);
    if (v.empty()) v.assign(static_cast<size_t>(count), 0);
    if (static_cast<int>(v.size()) != count) {
      return InvalidArgument(who_ + ": attribute '" + key + "' has " + std::to_string(v.size()) +
                             " values, expected " + std::to_string(count));
    }
    return v;
  };
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> in_axes, per_input("scan_input_axes", scan_inputs));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> in_dirs, per_input("scan_input_directions", scan_inputs));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> out_axes, per_input("scan_output_axes", scan_outputs));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> out_dirs, per_input("scan_output_directions", scan_outputs));
  // The trip count: every scan input's length along its axis.
  int64_t length = -1;
  for (int j = 0; j < scan_inputs; ++j) {
    const std::string& x = node_.input(states + j);
    const std::optional<std::vector<int64_t>> shape = host_.ShapeOf(x);
    if (!shape) return InvalidArgument(who_ + ": scan input '" + x + "' is not defined before it");
    const int64_t rank = static_cast<int64_t>(shape->size());
    int64_t& axis = in_axes[static_cast<size_t>(j)];
    if (axis < -rank || axis >= rank) {
      return InvalidArgument(who_ + ": scan_input_axes value " + std::to_string(axis) +
                             " is out of range for input '" + x + "' of rank " + std::to_string(rank));
    }
    if (axis < 0) axis += rank;
    const int64_t n = (*shape)[static_cast<size_t>(axis)];
    if (length >= 0 && n != length) {
      return InvalidArgument(who_ + ": its scan inputs have different lengths (" +
                             std::to_string(length) + " and " + std::to_string(n) + ")");
    }
    length = n;
  }
  MLF_RETURN_IF_ERROR(CountNodes(static_cast<uint64_t>(body->node_size() + 2 * scan_inputs),
                                 static_cast<uint64_t>(length)));
  std::vector<std::string> state(node_.input().begin(), node_.input().begin() + states);
  std::vector<std::vector<std::string>> scanned(static_cast<size_t>(scan_outputs));
  for (int64_t t = 0; t < length; ++t) {
    const std::string copy = std::to_string(t) + "/";
    std::vector<std::string> inputs = state;
    for (int j = 0; j < scan_inputs; ++j) {
      const int64_t at = in_dirs[static_cast<size_t>(j)] == 1 ? length - 1 - t : t;
      MLF_ASSIGN_OR_RETURN(std::string index,
                           Int64Scalar(name_ + "/" + copy + "index" + std::to_string(j), at));
      const std::string& x = node_.input(states + j);
      inputs.push_back(host_.ReserveName(name_ + "/" + copy + "element" + std::to_string(j)));
      host_.MarkRead(x);
      host_.MarkRead(inputs.back());
      onnx::NodeProto gather = MakeNode("Gather", {x, index}, {inputs.back()});
      SetInt(&gather, "axis", in_axes[static_cast<size_t>(j)]);
      MLF_RETURN_IF_ERROR(Lower(gather, inputs.back()));
    }
    std::vector<std::string> outputs;
    MLF_RETURN_IF_ERROR(Inline(*body, inputs, copy, &outputs));
    std::copy(outputs.begin(), outputs.begin() + states, state.begin());
    for (int k = 0; k < scan_outputs; ++k) scanned[k].push_back(outputs[states + k]);
  }
  for (int k = 0; k < states; ++k) MLF_RETURN_IF_ERROR(Bind(k, state[k]));
  for (int k = 0; k < scan_outputs; ++k) {
    std::vector<std::string>& values = scanned[k];
    if (out_dirs[static_cast<size_t>(k)] == 1) std::reverse(values.begin(), values.end());
    MLF_RETURN_IF_ERROR(Stack(values, out_axes[static_cast<size_t>(k)], states + k));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- Scan-8

void CollectNames(const onnx::GraphProto& g, std::unordered_set<std::string>* names) {
  for (const auto& in : g.input()) names->insert(in.name());
  for (const auto& init : g.initializer()) names->insert(init.name());
  for (const auto& n : g.node()) {
    names->insert(n.name());
    names->insert(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CollectNames(a.g(), names);
      for (const auto& sub : a.graphs()) CollectNames(sub, names);
    }
  }
}

// The first Scan nested in a subgraph of `g`'s nodes, or null.
const onnx::NodeProto* NestedScan(const onnx::GraphProto& g, bool nested) {
  for (const auto& n : g.node()) {
    if (nested && n.op_type() == "Scan") return &n;
    for (const auto& a : n.attribute()) {
      const onnx::NodeProto* found = a.has_g() ? NestedScan(a.g(), true) : nullptr;
      for (const auto& sub : a.graphs()) found = found ? found : NestedScan(sub, true);
      if (found) return found;
    }
  }
  return nullptr;
}

void SetScalarType(onnx::ValueInfoProto* v, const std::string& name, int32_t elem_type) {
  v->set_name(name);
  v->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  v->mutable_type()->mutable_tensor_type()->mutable_shape();
}

class Scan8Rewriter {
 public:
  explicit Scan8Rewriter(onnx::GraphProto* g) : g_(g) {
    CollectNames(*g, &names_);
    for (const auto* list : {&g->input(), &g->value_info(), &g->output()}) {
      for (const auto& v : *list) {
        if (!v.type().tensor_type().has_shape()) continue;
        std::vector<int64_t>& dims = dims_[v.name()];
        dims.clear();
        for (const auto& d : v.type().tensor_type().shape().dim()) {
          dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        }
      }
    }
    for (const auto& init : g->initializer()) dims_[init.name()] = {init.dims().begin(), init.dims().end()};
  }

  Status Rewrite() {
    std::vector<onnx::NodeProto> nodes;
    for (int i = 0; i < g_->node_size(); ++i) {
      const onnx::NodeProto& n = g_->node(i);
      if (n.op_type() != "Scan") {
        nodes.push_back(n);
        continue;
      }
      MLF_RETURN_IF_ERROR(Expand(n, n.name().empty() ? "Scan_" + std::to_string(i) : n.name(), &nodes));
    }
    g_->clear_node();
    for (auto& n : nodes) *g_->add_node() = std::move(n);
    return Status::Ok();
  }

 private:
  std::string Fresh(const std::string& base) {
    std::string name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  onnx::NodeProto* Add(std::vector<onnx::NodeProto>* out, const std::string& op,
                       std::vector<std::string> inputs, std::vector<std::string> outputs) {
    out->push_back(MakeNode(op, std::move(inputs), std::move(outputs)));
    out->back().set_name(Fresh(scan_ + "/" + op));
    return &out->back();
  }

  template <typename T>
  std::string Scalar(std::vector<onnx::NodeProto>* out, DType dtype, T value) {
    ir::HostTensor t = ir::HostTensor::Zeros(dtype, {});
    t.data<T>()[0] = value;
    const std::string name = Fresh(scan_ + "/constant");
    out->push_back(ConstantNode(name, t));
    out->back().set_name(Fresh(scan_ + "/Constant"));
    return name;
  }

  // `x`[index] along axis 0, into a fresh value.
  std::string Take(std::vector<onnx::NodeProto>* out, const std::string& x, const std::string& index) {
    const std::string y = Fresh(x + "/entry");
    SetInt(Add(out, "Gather", {x, index}, {y}), "axis", 0);
    return y;
  }

  // Concat of `parts` each with a new axis 0, into `output` (if named).
  void Stack(std::vector<onnx::NodeProto>* out, const std::vector<std::string>& parts,
             const std::string& output) {
    if (output.empty()) return;
    std::vector<std::string> unsqueezed;
    for (const std::string& p : parts) {
      unsqueezed.push_back(Fresh(p + "/unsqueezed"));
      auto* a = Add(out, "Unsqueeze", {p}, {unsqueezed.back()})->add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      a->add_ints(0);
    }
    SetInt(Add(out, "Concat", unsqueezed, {output}), "axis", 0);
  }

  Status Expand(const onnx::NodeProto& scan, const std::string& name, std::vector<onnx::NodeProto>* out);

  onnx::GraphProto* g_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, std::vector<int64_t>> dims_;
  std::string scan_;
};

Status Scan8Rewriter::Expand(const onnx::NodeProto& scan, const std::string& name,
                             std::vector<onnx::NodeProto>* out) {
  scan_ = name;
  const std::string who = Who(scan, name);
  const onnx::GraphProto* body = GraphAttribute(scan, "body");
  const int64_t scans = IntAttribute(scan, "num_scan_inputs", -1);
  if (body == nullptr || scans < 1 || scans >= scan.input_size()) {
    return InvalidArgument(who + ": needs the graph attribute body and num_scan_inputs between 1 "
                           "and its number of inputs after sequence_lens");
  }
  if (!scan.input(0).empty()) {
    return Unimplemented(who + ": input 0 (sequence_lens) of opset 8's Scan is not supported; "
                         "re-export the model with opset 9 or later");
  }
  const int states = scan.input_size() - 1 - static_cast<int>(scans);
  if (body->input_size() != states + scans || body->output_size() < states ||
      scan.output_size() > body->output_size()) {
    return InvalidArgument(who + ": its body's inputs and outputs do not match the node's");
  }
  std::vector<int64_t> directions = IntsAttribute(scan, "directions");
  directions.resize(static_cast<size_t>(scans), 0);
  // Batch and sequence lengths: dimensions 0 and 1 of the scan inputs.
  int64_t batch = -1, length = -1;
  for (int j = 0; j < scans; ++j) {
    auto it = dims_.find(scan.input(1 + states + j));
    if (it == dims_.end() || it->second.size() < 2 || it->second[0] < 0 || it->second[1] < 0) {
      return InvalidArgument(who + ": the batch and sequence lengths (dimensions 0 and 1) of scan "
                             "input '" + scan.input(1 + states + j) + "' are not known");
    }
    if ((batch >= 0 && batch != it->second[0]) || (length >= 0 && length != it->second[1])) {
      return InvalidArgument(who + ": its scan inputs differ in batch or sequence length");
    }
    batch = it->second[0], length = it->second[1];
  }
  if (batch == 0) return Unimplemented(who + ": its batch is empty, so its outputs have no shape");
  std::vector<std::vector<std::string>> finals(static_cast<size_t>(states));
  std::vector<std::vector<std::string>> stacked(static_cast<size_t>(body->output_size() - states));
  for (int64_t b = 0; b < batch; ++b) {
    const std::string entry = Scalar<int64_t>(out, DType::kInt64, b);
    std::vector<std::string> loop_inputs = {Scalar<int64_t>(out, DType::kInt64, length),
                                            Scalar<uint8_t>(out, DType::kBool, 1)};
    for (int k = 0; k < states; ++k) loop_inputs.push_back(Take(out, scan.input(1 + k), entry));
    // The loop body: the Scan body, preceded by taking each scan input's
    // step (from the outer scope) and followed by the unchanged condition.
    onnx::NodeProto loop = MakeNode("Loop", loop_inputs, {});
    loop.set_name(Fresh(name + "/batch" + std::to_string(b)));
    auto* attr = loop.add_attribute();
    attr->set_name("body");
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* lb = attr->mutable_g();
    lb->set_name(Fresh(body->name() + "_batch" + std::to_string(b)));
    const std::string iteration = Fresh(name + "/t"), cond = Fresh(name + "/cond");
    SetScalarType(lb->add_input(), iteration, onnx::TensorProto::INT64);
    SetScalarType(lb->add_input(), cond, onnx::TensorProto::BOOL);
    for (int k = 0; k < states; ++k) *lb->add_input() = body->input(k);
    std::vector<onnx::NodeProto> steps;
    std::string last;
    for (int j = 0; j < scans; ++j) {
      const std::string xb = Take(out, scan.input(1 + states + j), entry);
      std::string index = iteration;
      if (directions[static_cast<size_t>(j)] == 1) {
        if (last.empty()) last = Scalar<int64_t>(&steps, DType::kInt64, length - 1);
        index = Fresh(name + "/reversed");
        Add(&steps, "Sub", {last, iteration}, {index});
      }
      SetInt(Add(&steps, "Gather", {xb, index}, {body->input(states + j).name()}), "axis", 0);
    }
    for (auto& n : steps) *lb->add_node() = std::move(n);
    for (const auto& init : body->initializer()) *lb->add_initializer() = init;
    for (const auto& n : body->node()) *lb->add_node() = n;
    const std::string cond_out = Fresh(name + "/cond_out");
    *lb->add_node() = MakeNode("Identity", {cond}, {cond_out});
    SetScalarType(lb->add_output(), cond_out, onnx::TensorProto::BOOL);
    for (const auto& o : body->output()) *lb->add_output() = o;
    for (int k = 0; k < body->output_size(); ++k) {
      const std::string result = Fresh(name + "/batch" + std::to_string(b) + "/out" + std::to_string(k));
      loop.add_output(result);
      if (k < states) {
        finals[static_cast<size_t>(k)].push_back(result);
      } else {
        stacked[static_cast<size_t>(k - states)].push_back(result);
      }
    }
    out->push_back(std::move(loop));
  }
  for (int k = 0; k < scan.output_size(); ++k) {
    Stack(out, k < states ? finals[static_cast<size_t>(k)] : stacked[static_cast<size_t>(k - states)],
          scan.output(k));
  }
  return Status::Ok();
}

}  // namespace

Status RewriteOpset8Scans(onnx::ModelProto* model) {
  if (const onnx::NodeProto* nested = NestedScan(model->graph(), false)) {
    return Unimplemented("node '" + nested->name() + "' (Scan): a Scan of opset 8 inside a "
                         "subgraph is not supported; re-export the model with opset 9 or later");
  }
  return Scan8Rewriter(model->mutable_graph()).Rewrite();
}

bool IsControlFlow(const onnx::NodeProto& node) {
  const bool onnx_domain = node.domain().empty() || node.domain() == "ai.onnx";
  return onnx_domain &&
         (node.op_type() == "If" || node.op_type() == "Loop" || node.op_type() == "Scan");
}

Status LowerControlFlow(const onnx::NodeProto& node, const std::string& name,
                        ControlFlowHost& host) {
  Unroller unroller(node, name, host);
  if (node.op_type() == "If") return unroller.If();
  if (node.op_type() == "Loop") return unroller.Loop();
  if (node.op_type() == "Scan") return unroller.Scan();
  return InvalidArgument(Who(node, name) + " is not a control-flow node");
}

}  // namespace mlf::frontend
