// One C function per graph node: the signature of codegen/ops/op.h
// (EmitContext) around the body the operator's emit() writes.
#ifndef MLFKIT_CODEGEN_EMIT_NODE_FUNCTION_H_
#define MLFKIT_CODEGEN_EMIT_NODE_FUNCTION_H_

#include <set>
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
  // Whether the function takes the run's kernel executor as its last
  // parameter, `const mlfk_exec* ex` (codegen/kernels/mlf_kernel_common.h):
  // the variant and the parallel-for of this call. True when it calls a kernel.
  bool needs_exec = false;
  uint64_t scratch_bytes = 0;
  // Kernel families (codegen/kernels) the definition calls.
  std::set<std::string> kernels;
};

// `index` is the node's position, used to make the name unique.
Result<NodeFunction> EmitNodeFunction(const ir::Graph& graph, size_t index);

// Headers every generated source includes (stdint, stddef, math, string).
std::string GeneratedSourcePreamble();

// The #include lines of the kernel headers of `families`, to follow the
// preamble in a source whose functions call them ("" for none).
std::string KernelIncludes(const std::set<std::string>& families);

}  // namespace mlf::emit

#endif  // MLFKIT_CODEGEN_EMIT_NODE_FUNCTION_H_
