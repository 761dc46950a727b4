// What a module of a TVM archive (metadata versions 5-7) needs, and how it
// runs here: the one answer the host adapter (`mlf run`, tvm/host), the
// firmware adapter (`mlf project`, tvm/firmware) and `mlf upgrade`
// (tvm/upgrade) read, and `mlf inspect` / `mlf verify` report through them.
//
// The plan is derived once from the normalised metadata (ModuleMetadata and
// its TvmModuleInfo, which the archive scan and the code scan filled:
// tvm/format/tvm_archive.h, tvm_code.h). It holds what the archive's code
// looks like (executor, interface, entry point, parameters, pools, runtime
// pieces, headers, target) and three verdicts: whether it runs on this host,
// in which firmware projects, and whether upgrade can make an mlfkit module
// of it, each with the exact reason when not. Checks that need member bytes
// (a graph executor module's graph plan, the interface header's structs, the
// sources upgrade rewrites) stay with the consumer that reads those members.
//
// What the scan does not establish yet is not in the plan (not guessed):
// USMP pools the code keeps as static arrays. It does establish (issue 16)
// whether the code links its parameters (__tvm_param__, constant pools,
// .rodata.tvm constants), TVM 0.8's positional run_model entry and the
// parameter list of TVM 0.8's packed run wrapper.
#ifndef MLFKIT_TVM_PLAN_TVM_PLAN_H_
#define MLFKIT_TVM_PLAN_TVM_PLAN_H_

#include <set>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/platform.h"

namespace mlf {

// How a loader drives the module.
enum class TvmRunKind {
  kAot,        // TVM's AOT executor: the code has a model entry point
  kGraph,      // TVM's graph executor: graph JSON + packed operators
  kOperators,  // operator style: TVM operators over named buffers, no model
  kUnknown,    // an executor mlfkit does not know (TvmModulePlan::executor_text)
};

// The model entry point of an AOT module.
enum class TvmEntryStyle {
  kNone,       // graph executor, operator style or an unknown executor
  kStructRun,  // the C interface: int32_t tvmgen_<mod>_run(struct tvmgen_<mod>_inputs*,
               // struct tvmgen_<mod>_outputs*[, caller pools]), declared by the interface header
  kPackedApi,  // no C interface: TVM's packed API (interface-api=packed, or no header
               // declaring the struct run)
  kRunModel,   // TVM 0.8 (before Feb 2022): the sources define no struct run, only the
               // positional int32_t tvmgen_<mod>_run_model(void* in0, ..., void* out0, ...)
               // (inputs, then outputs, TVM's order), perhaps under a packed
               // tvmgen_<mod>_run wrapper; the loaders call run_model directly
};

// What the C interface's run wrapper calls.
enum class TvmInnerEntry {
  kNone,      // no source defines either
  kTvmMain,   // tvmgen_<mod>___tvm_main__
  kRunModel,  // tvmgen_<mod>_run_model (TVM before Feb 2022)
};

struct TvmModulePlan {
  std::string module;  // the module's name
  std::string c_name;  // its C name (tvmgen_<c_name>_...)
  int metadata_version = 0;

  // The code.
  TvmRunKind run_kind = TvmRunKind::kAot;
  std::string executor_text;  // the executor as written ("" for operator style)
  InterfaceApiValue interface_api = InterfaceApi::kC;
  TvmEntryStyle entry = TvmEntryStyle::kNone;
  std::string run_function;    // "tvmgen_<c>_run" with the C interface, else ""
  TvmInnerEntry inner = TvmInnerEntry::kNone;
  std::string inner_function;  // the symbol of `inner`, "" for kNone
  // `inner_function`'s parameters as the source defines them, "<type> <name>".
  std::vector<std::string> inner_parameters;
  // The parameter types of TVM 0.8's packed tvmgen_<mod>_run(args, type codes,
  // count, out value, out type code, resource handle) when a source defines
  // it; empty otherwise.
  std::vector<std::string> packed_run_parameters;
  // Where the code binds its parameters itself ("<member> defines
  // __tvm_param__p0"), "" when it shows none. Such an AOT module does not
  // read `params_member`: `params_member_unused`.
  std::string linked_params;
  bool params_member_unused = false;
  // Workspace pools or devices the entry point takes from its caller
  // (USMP with user pools): the struct names after tvmgen_<mod>_.
  std::vector<std::string> caller_pools;
  std::string params_member;  // parameters/<mod>.params, "" when the archive has none
  std::string graph_member;   // the graph executor's JSON, "" when none
  // Runtime pieces, known from the headers the code includes.
  bool bundled_runtime = false;      // the archive carries TVM's standalone CRT (runtime/include/)
  bool system_lib_registry = false;  // includes tvm/runtime/crt/module.h (TVMSystemLibEntryPoint)
  bool c_metadata_module = false;    // includes tvm/runtime/metadata_types.h
  // The TVM runtime headers (tvm/..., dlpack/...) the module's sources
  // include, whoever provides them, in the order first seen.
  std::vector<std::string> runtime_headers;
  // Headers from outside the archive that are neither the C library's nor
  // TVM's runtime: compiler intrinsics (arm_acle.h) or vendor libraries
  // (arm_nnfunctions.h, esp_kernel.h).
  std::vector<std::string> non_tvm_headers;
  // The same headers by class (tvm/plan/header_class.h), each list sorted:
  // vendor libraries nobody here provides (the verdicts refuse them before
  // compiling: "needs vendor library: esp_kernel.h"), compiler intrinsics
  // with the architecture they need, and TVM runtime headers mlfkit does not
  // supply (tvm/compat).
  std::vector<std::string> vendor_headers;
  struct IntrinsicsHeader {
    std::string header;        // e.g. "arm_acle.h"
    std::string architecture;  // e.g. "Arm Cortex-M with the DSP extension"
  };
  std::vector<IntrinsicsHeader> intrinsics_headers;
  std::vector<std::string> unsupplied_runtime_headers;
  std::vector<std::string> c_sources;     // members ending in .c
  std::vector<std::string> other_sources; // C++ and other sources
  std::vector<std::string> object_files;  // codegen/host/lib/*.o (TVM's llvm target)
  std::string target_cpu;        // -mcpu of the target, "" when it names none
  // Non-empty when the code builds only for another architecture: the target
  // it needs and the evidence (TvmModuleInfo::foreign_target).
  std::string foreign_target;
  std::string foreign_evidence;

  // The verdicts. Ok, or why not (the messages `mlf run`, `mlf project` and
  // `mlf upgrade` print).
  // mlf run on this host, as far as the metadata says (a graph executor
  // module also needs its graph plan: TvmHostCheck, tvm/host/tvm_module.h).
  Status host;
  // mlf project on the platforms in `firmware_platforms` (every platform when
  // the code is portable C; the boards whose core runs `foreign_target`
  // otherwise); other platforms are refused by FirmwareVerdict.
  Status firmware;
  std::vector<std::string> firmware_platforms;
  // mlf upgrade to a runnable mlfkit module, as far as the metadata says.
  Status upgrade;
};

// Gives a tensor whose shape the archive does not say the flat shape
// [size / element size], the one mlf run shows and mlf project and mlf
// upgrade write (a no-op when the shape is known). An unknown dtype or a size
// that is not a whole number of elements is an error naming `who` and the
// tensor.
Status FlattenUnknownShape(const std::string& who, TensorInfo& t);

// The plan of module `name`; `m.tvm` must be set.
TvmModulePlan PlanTvmModule(const std::string& name, const ModuleMetadata& m);

// `plan.firmware` for `platform`, or why `platform` cannot build the module's
// code (naming the platforms that can). `vendor_provided`: the headers the
// user's vendor libraries provide (mlf project --vendor-source, given as
// `vendor_flags`); a module whose vendor headers are all among them is built
// like any other, one with a header still missing is refused naming the flags.
Status FirmwareVerdict(const TvmModulePlan& plan, const firmware::Platform& platform,
                       const std::set<std::string>& vendor_provided = {},
                       const std::string& vendor_flags = "");

// Where the module runs here, for mlf inspect and mlf verify: "host" (mlf
// run), "firmware only" (mlf project, on the boards of firmware_platforms) or
// "nowhere here". `host` is what mlf run checks (the plan's host verdict and
// the checks that need member bytes).
std::string RunsWhere(const TvmModulePlan& plan, const Status& host);

}  // namespace mlf

#endif  // MLFKIT_TVM_PLAN_TVM_PLAN_H_
