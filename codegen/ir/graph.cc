#include "codegen/ir/graph.h"

#include <set>

namespace mlf::ir {
namespace {

template <typename T>
Result<T> Get(const Node& node, const std::string& key, const T& fallback, const char* type) {
  auto it = node.attrs.find(key);
  if (it == node.attrs.end()) return fallback;
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return InvalidArgument(node.Describe() + ": attribute '" + key + "' is not " + type);
}

}  // namespace

Result<int64_t> Node::Int(const std::string& key, int64_t fallback) const {
  return Get<int64_t>(*this, key, fallback, "an integer");
}

Result<double> Node::Float(const std::string& key, double fallback) const {
  auto it = attrs.find(key);
  if (it != attrs.end()) {
    if (const int64_t* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  }
  return Get<double>(*this, key, fallback, "a float");
}

Result<std::string> Node::String(const std::string& key, const std::string& fallback) const {
  return Get<std::string>(*this, key, fallback, "a string");
}

Result<std::vector<int64_t>> Node::Ints(const std::string& key,
                                        const std::vector<int64_t>& fallback) const {
  return Get<std::vector<int64_t>>(*this, key, fallback, "a list of integers");
}

Result<std::vector<double>> Node::Floats(const std::string& key,
                                         const std::vector<double>& fallback) const {
  return Get<std::vector<double>>(*this, key, fallback, "a list of floats");
}

std::string Node::Describe() const { return "node '" + name + "' (" + op + ")"; }

int Graph::AddValue(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size() - 1);
}

int Graph::AddConstant(const std::string& name, HostTensor t) {
  Value v;
  v.name = name;
  v.dtype = t.dtype;
  v.shape = t.shape;
  v.constant = std::move(t);
  return AddValue(std::move(v));
}

std::string Graph::UniqueName(const std::string& base) const {
  std::set<std::string> used;
  for (const Value& v : values) used.insert(v.name);
  if (!used.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!used.count(candidate)) return candidate;
  }
}

int Graph::Producer(int id) const {
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (int out : nodes[n].outputs) {
      if (out == id) return static_cast<int>(n);
    }
  }
  return -1;
}

std::vector<int> Graph::Consumers(int id) const {
  std::vector<int> out;
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (int in : nodes[n].inputs) {
      if (in == id) {
        out.push_back(static_cast<int>(n));
        break;
      }
    }
  }
  return out;
}

void Graph::ReplaceUses(int from, int to) {
  for (Node& n : nodes) {
    for (int& in : n.inputs) {
      if (in == from) in = to;
    }
  }
}

bool Graph::IsOutput(int id) const {
  for (int o : outputs) {
    if (o == id) return true;
  }
  return false;
}

Status Graph::Validate() const {
  std::vector<bool> available(values.size(), false);
  for (int id : inputs) available.at(static_cast<size_t>(id)) = true;
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    if (v.is_constant()) available[i] = true;
    for (int64_t d : v.shape) {
      if (d < 0) return InvalidArgument("value '" + v.name + "' has a dynamic or unknown shape");
    }
  }
  for (const Node& n : nodes) {
    for (int in : n.inputs) {
      if (in == kNoValue) continue;
      if (in < 0 || static_cast<size_t>(in) >= values.size() || !available[static_cast<size_t>(in)]) {
        return InvalidArgument(n.Describe() + ": reads a value that is not computed before it");
      }
    }
    for (int out : n.outputs) {
      if (out < 0 || static_cast<size_t>(out) >= values.size()) {
        return InvalidArgument(n.Describe() + ": writes an unknown value");
      }
      if (available[static_cast<size_t>(out)]) {
        return InvalidArgument(n.Describe() + ": value '" + values[static_cast<size_t>(out)].name +
                               "' has more than one producer (or is an input or constant)");
      }
      available[static_cast<size_t>(out)] = true;
    }
  }
  for (int id : outputs) {
    if (!available.at(static_cast<size_t>(id))) {
      return InvalidArgument("graph output '" + values[static_cast<size_t>(id)].name +
                             "' is never computed");
    }
  }
  return Status::Ok();
}

}  // namespace mlf::ir
