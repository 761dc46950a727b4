// Running modules of TVM archives (metadata versions 5–7) on this host.
//
// What runs:
//   - TVM AOT modules with the C interface (interface_api "c", int32_t
//     tvmgen_<mod>_run(struct tvmgen_<mod>_inputs*, struct
//     tvmgen_<mod>_outputs*)), whatever the run wrapper calls inside
//     (tvmgen_<mod>___tvm_main__, or tvmgen_<mod>_run_model before Feb 2022);
//   - TVM graph executor modules: their graph JSON is turned into one C
//     function when the module is loaded (tvm/compat/graph_source.h,
//     the code `mlf upgrade` and `mlf project` generate too); the executor's
//     workspace holds the graph storage and the allocator's memory, and the
//     .params tensors the graph uses are copied once into a 64-byte aligned
//     blob shared by all executors (the executor's constants);
//   - TVM operator-style modules: their operators are called through one
//     generated C function (tvm/compat/operator_source.h, the code
//     `mlf project` builds too). TVM's metadata does not say which buffers an
//     operator writes, so every buffer is both an input and an output, under
//     the same name ("<binding>", or "<function>.<binding>" with several
//     functions): a run copies the inputs into the outputs and calls the
//     operators over the outputs, so the inputs stay as set and the outputs
//     hold every buffer after the call.
// The archive's sources are compiled as they are. They are built through
// the content-addressed compile cache together with:
//   - the compatibility headers of tvm/compat (tvm/runtime/*.h,
//     dlpack/dlpack.h), after the archive's own bundled runtime/include when
//     it has one (-I codegen/host/include -I runtime/include -I mlf_tvm/include);
//   - the compatibility runtime (the reentrant LIFO workspace allocator
//     behind TVMBackendAllocWorkspace) and a generated per-module wrapper
//     that installs the executor's workspace around tvmgen_<mod>_run (AOT)
//     or calls the graph or operators function;
//   - -std=gnu11 -fno-strict-aliasing after the configured flags (TVM's C
//     type-puns buffers freely).
// The executor gives the code a workspace of memory.workspace_size_bytes
// (TVM's memory.functions.main[0].workspace_size_bytes); USMP pools that the
// code keeps as static arrays need nothing from it, but make the code
// non-reentrant, so runs of one AOT module are serialised. The graph function
// and the operators function keep no mutable static data: runs of graph
// and operator-style modules are not serialised.
//
// What is refused, at CreateExecutor, with a message saying why and what to
// do instead: the packed API (AOT without the C interface), graphs the
// graph plan refuses (graph_plan.h),
// code for another architecture (e.g. CMSIS intrinsics for a Cortex-M: the
// message names the target and suggests `mlf project`), llvm object files,
// C++ sources, entry points that take user-provided pools or devices, and
// inputs or outputs whose dtype or size the archive does not say. Tensors
// whose shape is unknown are presented flat: [size / element size].
#ifndef MLFKIT_TVM_HOST_TVM_MODULE_H_
#define MLFKIT_TVM_HOST_TVM_MODULE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "artifact/archive/archive_reader.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"
#include "loader/host/aot_executor.h"
#include "loader/host/foreign_module.h"

namespace mlf {

// Ok when `module` (with m.tvm set) can run on this host as far as its
// metadata says; otherwise kFailedPrecondition (or kUnimplemented) saying
// why: the host verdict of its plan (tvm/plan/tvm_plan.h). A graph module
// also needs its graph plan: TvmHostCheck.
Status TvmHostSupport(const std::string& module, const ModuleMetadata& m);

// Everything CreateExecutor checks before compiling: TvmHostSupport, and
// for a graph module its graph plan (graph_plan.h) from `members` (the
// members TvmHostMemberPaths names, by path). Compiles nothing. The error is
// the one CreateExecutor gives.
Status TvmHostCheck(const std::string& module, const ModuleMetadata& m,
                    const std::map<std::string, std::string>& members);

// The members TvmHostCheck needs: graph modules' graph JSON and .params.
std::set<std::string> TvmHostMemberPaths(const Metadata& metadata);

// Those members of `archive`, read again (each up to kMaxTvmParamsBytes).
Result<std::map<std::string, std::string>> ReadTvmHostMembers(const std::string& archive,
                                                              const Metadata& metadata,
                                                              const ReaderLimits& limits = {});

// TvmHostCheck of every TVM module of `metadata` (read from `archive`), by
// module name, for `mlf inspect` and `mlf verify`: what they say about this
// host is what `mlf run` does. A failure to read the members a graph module
// needs becomes that module's status.
std::map<std::string, Status> TvmHostChecks(const std::string& archive, const Metadata& metadata,
                                            const ReaderLimits& limits = {});

// The host loader's seam (loader/host/foreign_module.h) for TVM modules: its
// format is TvmArchiveFormat(); it captures a graph module's graph JSON and
// .params and stages a bundled runtime/include/; Build is TvmHostSupport,
// then MakeTvmHostBuild. One immutable instance, safe to share.
const ForeignModuleRunner& TvmHostModules();

// A TVM module's build: files = the archive's staged files + compat files +
// wrapper; sources = the module's C sources + runtime + wrapper (+ graph);
// entry_symbol = the wrapper mlf_tvm_<c name>_run; operator style: every
// buffer is in inputs and outputs; graph modules: constants = the parameter
// blob, reentrant.
using TvmHostBuild = ForeignModuleBuild;

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

}  // namespace mlf

#endif  // MLFKIT_TVM_HOST_TVM_MODULE_H_
