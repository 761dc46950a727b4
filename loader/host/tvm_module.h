// Running modules of TVM archives (metadata versions 5–7) on this host.
//
// What runs:
//   - TVM AOT modules with the C interface (interface_api "c", int32_t
//     tvmgen_<mod>_run(struct tvmgen_<mod>_inputs*, struct
//     tvmgen_<mod>_outputs*)), whatever the run wrapper calls inside
//     (tvmgen_<mod>___tvm_main__, or tvmgen_<mod>_run_model before Feb 2022);
//   - TVM graph executor modules: their graph JSON is turned into one C
//     function when the module is loaded (loader/tvm_compat/graph_source.h,
//     the code `mlf upgrade` and `mlf project` generate too); the executor's
//     workspace holds the graph storage and the allocator's memory, and the
//     .params tensors the graph uses are copied once into a 64-byte aligned
//     blob shared by all executors (the executor's constants).
// The archive's sources are compiled as they are. They are built through
// the content-addressed compile cache together with:
//   - the compatibility headers of loader/tvm_compat (tvm/runtime/*.h,
//     dlpack/dlpack.h), after the archive's own bundled runtime/include when
//     it has one (-I codegen/host/include -I runtime/include -I mlf_tvm/include);
//   - the compatibility runtime (the reentrant LIFO workspace allocator
//     behind TVMBackendAllocWorkspace) and a generated per-module wrapper
//     that installs the executor's workspace around tvmgen_<mod>_run (AOT)
//     or calls the graph function (graph executor);
//   - -std=gnu11 -fno-strict-aliasing after the configured flags (TVM's C
//     type-puns buffers freely).
// The executor gives the code a workspace of memory.workspace_size_bytes
// (TVM's memory.functions.main[0].workspace_size_bytes); USMP pools that the
// code keeps as static arrays need nothing from it, but make the code
// non-reentrant, so runs of one AOT module are serialised. The graph function
// keeps no mutable static data: runs of a graph module are not serialised.
//
// What is refused, at CreateExecutor, with a message saying why and what to
// do instead: operator-style archives, the packed API (AOT without the C
// interface), graphs the graph plan refuses (graph_plan.h),
// code for another architecture (e.g. CMSIS intrinsics for a Cortex-M: the
// message names the target and suggests `mlf project`), llvm object files,
// C++ sources, entry points that take user-provided pools or devices, and
// inputs or outputs whose dtype or size the archive does not say. Tensors
// whose shape is unknown are presented flat: [size / element size].
#ifndef MLFKIT_LOADER_HOST_TVM_MODULE_H_
#define MLFKIT_LOADER_HOST_TVM_MODULE_H_

#include <map>
#include <string>
#include <vector>

#include "artifact/host_build.h"
#include "artifact/metadata.h"
#include "artifact/status.h"
#include "loader/host/aot_executor.h"

namespace mlf {

// Ok when `module` (with m.tvm set) can run on this host; otherwise
// kFailedPrecondition (or kUnimplemented) saying why.
Status TvmHostSupport(const std::string& module, const ModuleMetadata& m);

struct TvmHostBuild {
  std::vector<StagedFile> files;     // the archive's staged files + compat files + wrapper
  std::vector<std::string> sources;  // the module's C sources + runtime + wrapper (+ graph)
  HostBuildConfig config;
  std::string entry_symbol;          // the wrapper: mlf_tvm_<c name>_run
  uint64_t workspace_bytes = 0;      // what each executor provides
  std::string constants;             // graph modules: the parameter blob (may be empty)
  bool reentrant = false;            // graph modules: runs need no lock
};

// The build of `module`. `members` holds the archive members a graph module
// needs (its graph JSON and .params, by path); errors of its graph plan
// name the module and the member.
Result<TvmHostBuild> MakeTvmHostBuild(const std::string& module, const ModuleMetadata& m,
                                      const std::vector<StagedFile>& staged,
                                      const std::map<std::string, std::string>& members,
                                      const HostBuildConfig& base);

// Inputs or outputs as executor specs; unknown shapes become [count].
Result<std::vector<TensorSpec>> TvmTensorSpecs(const std::string& module, const char* kind,
                                               const std::vector<TensorInfo>& tensors);

// The `mlf project` platform that has `mcpu` ("" when none matches).
std::string PlatformForCpu(const std::string& mcpu);

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_TVM_MODULE_H_
