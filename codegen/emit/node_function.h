// One C function per graph node: the signature of codegen/ops/op.h
// (EmitContext) around the body the operator's emit() writes.
#ifndef MLFKIT_CODEGEN_EMIT_NODE_FUNCTION_H_
#define MLFKIT_CODEGEN_EMIT_NODE_FUNCTION_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::emit {

struct NodeFunction {
  std::string name;        // e.g. "node_3_conv"
  std::string definition;  // "static void node_3_conv(...) { ... }\n"
  // Value ids in parameter order (present inputs, then outputs).
  std::vector<int> params;
  bool needs_scratch = false;
  uint64_t scratch_bytes = 0;
};

// `index` is the node's position, used to make the name unique.
Result<NodeFunction> EmitNodeFunction(const ir::Graph& graph, size_t index);

// Headers every generated source includes (stdint, stddef, math, string).
std::string GeneratedSourcePreamble();

}  // namespace mlf::emit

#endif  // MLFKIT_CODEGEN_EMIT_NODE_FUNCTION_H_
