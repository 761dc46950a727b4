// A TVM graph executor module as one C function, generated from its plan
// (graph_plan.h), so that no graph interpreter is needed anywhere:
//
//   int32_t mlf_tvm_<c>_graph_run(void* const* inputs, void* const* outputs,
//                                 void* workspace, const void* constants);
//
// `inputs` / `outputs`: the module's buffers in metadata order; `workspace`:
// plan.workspace_bytes() bytes, 16-byte aligned (64 recommended), graph
// storage first, then the memory behind TVMBackendAllocWorkspace; `constants`:
// plan.constants (the parameter blob), or null when it is empty. Returns 0,
// a packed function's non-zero status, or the compatibility runtime's codes
// (mlf_tvm_run_with_workspace: -100 TVMPlatformAbort, -101 workspace not
// freed); -102 when a workspace or constants the plan needs is null.
//
// The function calls each tvm_op node's packed function in node order, as
// TVM's graph executor did, with DLTensor arguments (type code
// kTVMDLTensorHandle) built on its own stack; shapes are static const
// arrays. It keeps no mutable static data, so it is reentrant: concurrent
// calls need only their own buffers and workspace. "__nop" and "__copy"
// nodes become nothing or a memcpy.
//
// The three users: the host loader (GraphEntryWrapperSource in compat.h
// calls it with the executor's pools), `mlf upgrade` (the ABI v1 adapter
// calls it; the blob becomes parameters/<mod>.bin) and `mlf project` (main.c
// calls it over static buffers, the blob a const array in flash).
#ifndef MLFKIT_TVM_COMPAT_GRAPH_SOURCE_H_
#define MLFKIT_TVM_COMPAT_GRAPH_SOURCE_H_

#include <string>

#include "tvm/compat/graph_plan.h"

namespace mlf::tvm_compat {

// "mlf_tvm_<c_module>_graph_run".
std::string GraphRunSymbol(const std::string& c_module);

// The C prototype of that function, with a trailing ";\n".
std::string GraphRunDeclaration(const std::string& c_module);

// The C source defining GraphRunSymbol(c_module) for module `module`, whose
// graph JSON is archive member `graph_path` (named in comments). It
// includes tvm/runtime/c_runtime_api.h (DLTensor, TVMValue), from the
// archive's bundled runtime or mlfkit's compatibility headers.
std::string GraphRunSource(const std::string& module, const std::string& c_module,
                           const std::string& graph_path, const GraphPlan& plan);

}  // namespace mlf::tvm_compat

#endif  // MLFKIT_TVM_COMPAT_GRAPH_SOURCE_H_
