// The program of a TVM graph executor module, read from its graph JSON
// (executor-config/graph/<mod>.graph, v5 .../graph.json) when code is
// generated for it, so that nothing interprets the graph at run time: the
// graph becomes a C function (graph_source.h) that calls the module's packed
// functions in node order. Shared by the host loader, `mlf upgrade` and
// `mlf project` (graph_plan.h says how its tensors are placed).
//
// What a graph JSON holds (TVM's GraphExecutor format): "nodes" (op "null"
// for graph inputs and parameters, "tvm_op" for a call of attrs.func_name
// with "inputs" [[node, index, version], ...] and attrs.num_outputs
// outputs), "arg_nodes", "heads", "node_row_ptr" (the first entry of each
// node; derived from the outputs counts when absent) and per entry
// attrs.dltype, attrs.shape, attrs.storage_id. The func_names "__nop" (the
// output shares its input's storage) and "__copy" are the executor's own.
//
// Untrusted input: bounded JSON (artifact/jsonschema/json_limits.h), every index range-
// checked, every failure an InvalidArgument naming the field or node.
#ifndef MLFKIT_TVM_COMPAT_GRAPH_PROGRAM_H_
#define MLFKIT_TVM_COMPAT_GRAPH_PROGRAM_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"

namespace mlf::tvm_compat {

struct GraphEntry {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
  int storage_id = 0;
};

struct GraphCall {
  std::string function;   // attrs.func_name; "__nop" and "__copy" are the executor's
  std::string node_name;  // the node's name, for comments
  std::vector<int> args;  // entry ids: the inputs, then the outputs
  int num_inputs = 0;
};

struct GraphArg {
  std::string name;
  int entry = 0;
};

struct GraphProgram {
  std::vector<GraphEntry> entries;
  std::vector<GraphArg> args;   // arg_nodes, in order
  std::vector<GraphCall> calls;  // tvm_op nodes, in node order
  std::vector<int> heads;       // entry ids of the outputs
  std::map<int, uint64_t> storage_bytes;  // storage id -> the largest entry it holds
};

Result<GraphProgram> ParseGraphProgram(std::string_view json_text);

}  // namespace mlf::tvm_compat

#endif  // MLFKIT_TVM_COMPAT_GRAPH_PROGRAM_H_
