// Where the tensors of a TVM graph executor module live when its graph runs
// as a C function (graph_source.h): the plan the host loader, `mlf upgrade`
// and `mlf project` all generate the same code from.
//
// The function gets the caller's input and output buffers, one workspace and
// one constants blob:
//   - each storage id of TVM's memory plan (attrs.storage_id) has one home:
//       * a parameter's storage: its tensor in the constants blob (read only);
//       * a storage id that holds only one module input: the caller's input
//         buffer itself (no copy);
//       * a storage id that holds only one graph output, computed by a call:
//         the caller's output buffer itself;
//       * anything else: a region of the workspace, 64-byte aligned, as large
//         as the largest entry it holds. Inputs whose storage is shared are
//         copied in first and outputs not computed in place are copied out
//         last, as TVM's SetInput / GetOutput did.
//   - the workspace is [graph storage (storage_bytes)][TVMBackendAllocWorkspace
//     (allocator_bytes)]: graph modules run one operator at a time, so the
//     allocator needs the largest of the operators' workspaces and the
//     metadata's main workspace;
//   - the constants blob holds the .params tensors that are graph arguments,
//     in argument order, in mlfkit's parameter blob layout (param_blob.h:
//     64-byte aligned offsets), so an mlfkit archive can carry it as
//     parameters/<mod>.bin and loaders can map it.
//
// Refused (kInvalidArgument / kUnimplemented / kNotFound naming the tensor,
// node or storage id): a module input that is not a graph argument or whose
// size or dtype differs from its entry; a graph argument that is neither a
// module input nor in .params; a parameter whose dtype or shape differs from
// its entry; a storage id shared by a parameter and another tensor; as many
// graph outputs as module outputs, each of the module output's size; packed
// function names that are not C identifiers or start with "mlf_" (mlfkit's
// names); "__nop" / "__copy" nodes without one input and one output of the
// same size.
#ifndef MLFKIT_TVM_COMPAT_GRAPH_PLAN_H_
#define MLFKIT_TVM_COMPAT_GRAPH_PLAN_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "artifact/format/param_blob.h"
#include "tvm/compat/graph_program.h"

namespace mlf::tvm_compat {

struct StorageHome {
  enum Kind { kWorkspace, kInput, kOutput, kConstant };
  Kind kind = kWorkspace;
  // kWorkspace, kConstant: the byte offset; kInput, kOutput: the tensor index.
  uint64_t at = 0;
};

struct GraphPlan {
  GraphProgram program;
  std::map<int, StorageHome> storage;      // by storage id
  std::vector<int> input_entries;           // module input i -> its graph entry
  std::vector<ParamTensor> constants_index;  // the tensors of `constants`
  std::string constants;                     // the parameter blob
  uint64_t storage_bytes = 0;    // graph storage at the start of the workspace (a multiple of 64)
  uint64_t allocator_bytes = 0;  // after it, behind TVMBackendAllocWorkspace
  uint64_t workspace_bytes() const { return storage_bytes + allocator_bytes; }
};

// The bytes TVMBackendAllocWorkspace needs for graph module `m`: the largest
// of memory.functions.main[0] and the operator functions' workspaces.
uint64_t GraphAllocatorBytes(const ModuleMetadata& m);

// Plans module `m` (normalised TVM metadata: its inputs and outputs are the
// graph's non-parameter arguments and its heads) from its graph JSON and
// .params bytes (`params_file` empty when the archive has none). Errors of
// the JSON or .params start with "graph executor JSON:" / ".params:".
Result<GraphPlan> PlanGraph(const ModuleMetadata& m, std::string_view graph_json,
                            std::string_view params_file);

// The function names the generated code calls are C identifiers outside
// mlfkit's "mlf_" prefix.
Status CheckPackedFunctionName(const std::string& function);

}  // namespace mlf::tvm_compat

#endif  // MLFKIT_TVM_COMPAT_GRAPH_PLAN_H_
