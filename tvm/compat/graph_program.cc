#include "tvm/compat/graph_program.h"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "artifact/jsonschema/json_limits.h"

namespace mlf::tvm_compat {
namespace {

using nlohmann::json;

constexpr uint64_t kMaxGraphBytes = 64ull << 20;
constexpr int kMaxGraphDepth = 64;
constexpr uint64_t kMaxEntries = 1u << 20;

Status Error(const std::string& what) {
  return InvalidArgument("graph executor JSON: " + what);
}

Result<uint64_t> Index(const json& v, const std::string& what, uint64_t bound) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() >= bound) {
    return Error(what + " is not an index below " + std::to_string(bound));
  }
  return v.get<uint64_t>();
}

// attrs.<key> = ["list_<kind>", [...]], one value per entry.
Result<const json*> AttrList(const json& graph, const char* key, size_t entries) {
  if (!graph.contains("attrs") || !graph["attrs"].is_object() || !graph["attrs"].contains(key)) {
    return Error(std::string("no attrs.") + key);
  }
  const json& attr = graph["attrs"][key];
  if (!attr.is_array() || attr.size() != 2 || !attr[1].is_array() || attr[1].size() != entries) {
    return Error(std::string("attrs.") + key + " is not [\"list_...\", [one value per entry (" +
                 std::to_string(entries) + ")]]");
  }
  return &attr[1];
}

// node_row_ptr, or the running sum of the nodes' output counts.
Result<std::vector<uint64_t>> RowPointers(const json& graph, const json& nodes) {
  std::vector<uint64_t> rows;
  if (graph.contains("node_row_ptr")) {
    const json& ptr = graph["node_row_ptr"];
    if (!ptr.is_array() || ptr.size() != nodes.size() + 1) {
      return Error("node_row_ptr does not have one more element than nodes");
    }
    for (const json& v : ptr) {
      MLF_ASSIGN_OR_RETURN(uint64_t row, Index(v, "a node_row_ptr element", kMaxEntries + 1));
      if (!rows.empty() && row < rows.back()) return Error("node_row_ptr decreases");
      rows.push_back(row);
    }
    return rows;
  }
  rows.push_back(0);
  for (const json& node : nodes) {
    uint64_t outputs = 1;
    if (node.contains("attrs") && node["attrs"].contains("num_outputs")) {
      const json& n = node["attrs"]["num_outputs"];
      if (!n.is_string()) return Error("attrs.num_outputs of a node is not a string");
      outputs = std::strtoull(n.get<std::string>().c_str(), nullptr, 10);
    }
    if (outputs > kMaxEntries || rows.back() + outputs > kMaxEntries) return Error("too many entries");
    rows.push_back(rows.back() + outputs);
  }
  return rows;
}

Result<GraphEntry> Entry(const json& dltype, const json& shape, const json& storage, size_t id) {
  const std::string where = "entry " + std::to_string(id);
  if (!dltype.is_string()) return Error(where + ": dltype is not a string");
  Result<DType> dtype = ParseDType(dltype.get<std::string>());
  if (!dtype.ok()) return Error(where + ": " + dtype.status().message());
  GraphEntry e;
  e.dtype = *dtype;
  if (!shape.is_array()) return Error(where + ": shape is not a list");
  for (const json& d : shape) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      return Error(where + ": shape has a dimension that is not a non-negative integer");
    }
    e.shape.push_back(d.get<int64_t>());
  }
  Result<uint64_t> count = ElementCount(e.shape);
  if (!count.ok()) return Error(where + ": " + count.status().message());
  e.bytes = *count * DTypeSize(e.dtype);
  if (!storage.is_number_integer() || storage.get<int64_t>() < 0 ||
      storage.get<int64_t>() >= static_cast<int64_t>(kMaxEntries)) {
    return Error(where + ": storage_id is not a non-negative integer");
  }
  e.storage_id = storage.get<int>();
  return e;
}

// [node, index(, version)] -> entry id.
Result<int> EntryRef(const json& ref, const json& nodes, const std::vector<uint64_t>& rows,
                     const std::string& what) {
  if (!ref.is_array() || ref.size() < 2) return Error(what + " is not [node, index, version]");
  MLF_ASSIGN_OR_RETURN(uint64_t node, Index(ref[0], what + " node", nodes.size()));
  MLF_ASSIGN_OR_RETURN(uint64_t index, Index(ref[1], what + " index", rows[node + 1] - rows[node]));
  return static_cast<int>(rows[node] + index);
}

Result<GraphCall> Call(const json& node, size_t id, const json& nodes,
                       const std::vector<uint64_t>& rows) {
  const std::string where = "node " + std::to_string(id);
  GraphCall call;
  if (node.contains("name") && node["name"].is_string()) call.node_name = node["name"];
  if (!node.contains("attrs") || !node["attrs"].contains("func_name") ||
      !node["attrs"]["func_name"].is_string()) {
    return Error(where + " (tvm_op) has no attrs.func_name");
  }
  call.function = node["attrs"]["func_name"];
  if (!node.contains("inputs") || !node["inputs"].is_array()) return Error(where + " has no inputs");
  for (const json& in : node["inputs"]) {
    MLF_ASSIGN_OR_RETURN(int entry, EntryRef(in, nodes, rows, where + ": an input"));
    if (static_cast<uint64_t>(entry) >= rows[id]) {
      return Error(where + " reads entry " + std::to_string(entry) + " before it is computed");
    }
    call.args.push_back(entry);
  }
  call.num_inputs = static_cast<int>(call.args.size());
  for (uint64_t e = rows[id]; e < rows[id + 1]; ++e) call.args.push_back(static_cast<int>(e));
  return call;
}

}  // namespace

Result<GraphProgram> ParseGraphProgram(std::string_view json_text) {
  Result<json> parsed = ParseBoundedJson(json_text, kMaxGraphBytes, kMaxGraphDepth);
  if (!parsed.ok()) return parsed.status().WithContext("graph executor JSON");
  const json& graph = *parsed;
  if (!graph.is_object() || !graph.contains("nodes") || !graph["nodes"].is_array()) {
    return Error("no \"nodes\" list");
  }
  const json& nodes = graph["nodes"];
  MLF_ASSIGN_OR_RETURN(std::vector<uint64_t> rows, RowPointers(graph, nodes));
  const size_t entries = rows.back();
  MLF_ASSIGN_OR_RETURN(const json* dltypes, AttrList(graph, "dltype", entries));
  MLF_ASSIGN_OR_RETURN(const json* shapes, AttrList(graph, "shape", entries));
  MLF_ASSIGN_OR_RETURN(const json* storage, AttrList(graph, "storage_id", entries));
  GraphProgram program;
  for (size_t i = 0; i < entries; ++i) {
    MLF_ASSIGN_OR_RETURN(GraphEntry e, Entry((*dltypes)[i], (*shapes)[i], (*storage)[i], i));
    uint64_t& bytes = program.storage_bytes[e.storage_id];
    bytes = std::max(bytes, e.bytes);
    program.entries.push_back(std::move(e));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json& node = nodes[i];
    if (!node.is_object() || !node.contains("op") || !node["op"].is_string()) {
      return Error("node " + std::to_string(i) + " has no op");
    }
    const std::string op = node["op"];
    if (op == "null") continue;
    if (op != "tvm_op") return Error("node " + std::to_string(i) + " has op '" + op + "', not tvm_op");
    MLF_ASSIGN_OR_RETURN(GraphCall call, Call(node, i, nodes, rows));
    program.calls.push_back(std::move(call));
  }
  if (!graph.contains("arg_nodes") || !graph["arg_nodes"].is_array()) return Error("no \"arg_nodes\" list");
  for (const json& a : graph["arg_nodes"]) {
    MLF_ASSIGN_OR_RETURN(uint64_t node, Index(a, "an arg_nodes entry", nodes.size()));
    if (!nodes[node].contains("name") || !nodes[node]["name"].is_string() ||
        rows[node + 1] == rows[node]) {
      return Error("arg node " + std::to_string(node) + " has no name or no output");
    }
    program.args.push_back({nodes[node]["name"], static_cast<int>(rows[node])});
  }
  if (!graph.contains("heads") || !graph["heads"].is_array()) return Error("no \"heads\" list");
  for (const json& h : graph["heads"]) {
    MLF_ASSIGN_OR_RETURN(int entry, EntryRef(h, nodes, rows, "a heads entry"));
    program.heads.push_back(entry);
  }
  return program;
}

}  // namespace mlf::tvm_compat
