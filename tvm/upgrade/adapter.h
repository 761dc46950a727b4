// The C that `mlf upgrade` adds to a TVM module so that it implements
// mlfkit's generated-code ABI, version 1 (schemas/model_abi.h,
// docs/design.md "Generated-code ABI"), over TVM's own entry point:
//
//   - the interface header codegen/host/include/tvmgen_<mod>.h of ABI v1.
//     Its input and output structs are TVM's (same tag, same void* members
//     in TVM's calling order), so TVM's sources, which include this header
//     by the same name, keep compiling against it;
//   - codegen/host/src/<mod>_mlf_adapter.c defining
//       int32_t tvmgen_<mod>_run(inputs*, outputs*, workspace_pools*)
//       const struct mlf_model_metadata* tvmgen_<mod>_metadata(void)
//     The run function calls TVM's run wrapper — renamed tvmgen_<mod>_tvm_run
//     in TVM's sources (kTvmRunSuffix), since TVM used the very name ABI v1
//     gives the entry point — through mlf_tvm_run_with_workspace of the
//     compatibility runtime, which serves TVMBackendAllocWorkspace from the
//     caller's workspace. Nothing is global but a thread-local (a plain
//     static on bare metal) pointer to the pools of the run in progress.
//
// For a graph executor module, tvmgen_<mod>_run calls the module's graph
// function instead (AdapterLayout::graph_run), which lays out the workspace
// itself and takes the parameter blob as pools->constants.
//
// Workspace layout (AOT), 64-byte aligned regions:
//   [0, pools_bytes)                     USMP pools moved out of static arrays
//   [pools_bytes, pools_bytes + tvm)     TVM's workspace for the LIFO allocator
#ifndef MLFKIT_TVM_UPGRADE_ADAPTER_H_
#define MLFKIT_TVM_UPGRADE_ADAPTER_H_

#include <cstdint>
#include <string>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf::tvm_upgrade {

// TVM's run wrapper tvmgen_<mod>_run is renamed tvmgen_<mod> + kTvmRunSuffix.
inline constexpr char kTvmRunSuffix[] = "_tvm_run";

// The accessor of the moved pools: mlf_tvm_<mod>_pools.
std::string PoolAccessor(const std::string& c_module);

struct AdapterLayout {
  uint64_t pools_bytes = 0;          // a multiple of 64
  uint64_t tvm_workspace_bytes = 0;  // TVM's memory.functions.main[0].workspace_size_bytes
  // Graph executor modules: the graph function to call instead of TVM's run
  // wrapper (tvm/compat/graph_source.h), with the caller's whole
  // workspace and constants (pools and TVM workspace are then 0).
  std::string graph_run;
  // TVM 0.8 AOT modules whose code defines no struct run: the adapter calls
  // the positional tvmgen_<mod>_run_model(in0, ..., out0, ...) instead.
  bool run_model = false;
};

// The ABI v1 header of module `module` described by `m` (mlfkit metadata).
Result<std::string> InterfaceHeader(const std::string& module, const ModuleMetadata& m);

// The adapter source of module `module`.
Result<std::string> AdapterSource(const std::string& module, const ModuleMetadata& m,
                                  const AdapterLayout& layout);

}  // namespace mlf::tvm_upgrade

#endif  // MLFKIT_TVM_UPGRADE_ADAPTER_H_
