#include "tvm/plan/tvm_plan.h"

#include <algorithm>

#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"
#include "artifact/toolchain/host_build.h"
#include "tvm/compat/operator_source.h"
#include "tvm/plan/header_class.h"
#include "tvm/plan/target_platforms.h"

namespace mlf {
namespace {

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  for (const std::string& x : list) {
    if (x == item) return true;
  }
  return false;
}

std::string Join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

bool IsTvmRuntimeHeader(const std::string& path) {
  return StartsWith(path, "tvm/") || StartsWith(path, "dlpack/");
}

// ---- The facts ----

// run_model takes one void* per input and output and nothing else.
bool PositionalVoidPointers(const TvmModuleInfo& tvm) {
  if (tvm.main_parameters.empty()) return false;
  for (const std::string& p : tvm.main_parameters) {
    if (p != "void*" && !StartsWith(p, "void* ")) return false;
  }
  return true;
}

void DescribeCode(const std::string& name, const ModuleMetadata& m, TvmModulePlan* p) {
  const TvmModuleInfo& tvm = *m.tvm;
  p->module = name;
  p->c_name = SanitizeCName(name);
  p->metadata_version = tvm.version;
  p->executor_text = tvm.executor ? ToString(*tvm.executor) : "";
  if (m.style == ModuleStyle::kOperator) {
    p->run_kind = TvmRunKind::kOperators;
  } else if (tvm.executor == Executor::kGraph) {
    p->run_kind = TvmRunKind::kGraph;
  } else if (tvm.executor == Executor::kUnknown) {
    p->run_kind = TvmRunKind::kUnknown;
  } else {
    p->run_kind = TvmRunKind::kAot;  // also when metadata.json names no executor
  }
  p->interface_api = m.interface_api;
  p->run_function = tvm.run_function;
  p->inner_function = tvm.main_function;
  p->inner_parameters = tvm.main_parameters;
  if (EndsWith(tvm.main_function, "___tvm_main__")) p->inner = TvmInnerEntry::kTvmMain;
  if (EndsWith(tvm.main_function, "_run_model")) p->inner = TvmInnerEntry::kRunModel;
  const bool struct_run_defined =
      tvm.run_defined && !tvm.run_defined_parameters.empty() &&
      StartsWith(tvm.run_defined_parameters[0], "struct tvmgen_");
  if (tvm.run_defined && !struct_run_defined) p->packed_run_parameters = tvm.run_defined_parameters;
  if (p->run_kind == TvmRunKind::kAot) {
    if (m.interface_api == InterfaceApi::kC && !tvm.run_function.empty()) {
      p->entry = TvmEntryStyle::kStructRun;
    } else if (p->inner == TvmInnerEntry::kRunModel && !struct_run_defined && PositionalVoidPointers(tvm)) {
      p->entry = TvmEntryStyle::kRunModel;
    } else {
      p->entry = TvmEntryStyle::kPackedApi;
    }
  }
  p->linked_params = tvm.linked_params;
  p->caller_pools = tvm.extra_run_arguments;
  if (m.parameters && m.parameters->storage == ParamStorage::kTvmParams) {
    p->params_member = m.parameters->path;
  }
  p->params_member_unused =
      p->run_kind == TvmRunKind::kAot && !p->linked_params.empty() && !p->params_member.empty();
  p->graph_member = tvm.graph_path;
  p->bundled_runtime = tvm.bundled_runtime;
  p->runtime_headers = tvm.runtime_headers;
  p->system_lib_registry = Contains(tvm.runtime_headers, "tvm/runtime/crt/module.h");
  p->c_metadata_module = Contains(tvm.runtime_headers, "tvm/runtime/metadata_types.h");
  for (const std::string& h : tvm.external_headers) {
    if (!IsTvmRuntimeHeader(h)) p->non_tvm_headers.push_back(h);
    switch (ClassifyHeader(h)) {
      case HeaderClass::kVendor: p->vendor_headers.push_back(h); break;
      case HeaderClass::kIntrinsics:
        p->intrinsics_headers.push_back({h, std::string(IntrinsicsArchitecture(h))});
        break;
      case HeaderClass::kTvmRuntimeNotSupplied: p->unsupplied_runtime_headers.push_back(h); break;
      default: break;  // the reader lists no other class as external
    }
  }
  std::sort(p->vendor_headers.begin(), p->vendor_headers.end());
  std::sort(p->unsupplied_runtime_headers.begin(), p->unsupplied_runtime_headers.end());
  std::sort(p->intrinsics_headers.begin(), p->intrinsics_headers.end(),
            [](const auto& a, const auto& b) { return a.header < b.header; });
  for (const std::string& s : m.sources) (EndsWith(s, ".c") ? p->c_sources : p->other_sources).push_back(s);
  p->object_files = tvm.object_files;
  p->target_cpu = m.target.mcpu;
  p->foreign_target = tvm.foreign_target;
  p->foreign_evidence = tvm.foreign_evidence;
  p->firmware_platforms =
      tvm.foreign_target.empty() ? firmware::PlatformNames() : PlatformsForTarget(tvm.foreign_target);
}

// ---- The verdicts ----
// Each consumer refuses in its own order and words (the CLI tests assert
// them); the facts they read are the plan's.

// "module 'm' (TVM archive, metadata version 7)": run and project.
std::string LoaderWho(const TvmModulePlan& p) {
  return "module " + QuoteForMessage(p.module) + " (TVM archive, metadata version " +
         std::to_string(p.metadata_version) + ")";
}

// Header names come from archive bytes: shown through the display guard.
std::string HeaderList(const std::vector<std::string>& headers) {
  std::vector<std::string> shown;
  for (const std::string& h : headers) shown.push_back(DisplayText(h));
  return Join(shown);
}

std::vector<std::string> MissingVendorHeaders(const TvmModulePlan& p,
                                              const std::set<std::string>& provided) {
  std::vector<std::string> missing;
  for (const std::string& h : p.vendor_headers) {
    if (!provided.count(h)) missing.push_back(h);
  }
  return missing;
}

// What every verdict says first: headers nothing here provides. Vendor
// libraries before TVM runtime headers mlfkit lacks; `tail` says what the
// command can do about it.
Status HeadersVerdict(const std::string& who, const TvmModulePlan& p,
                      const std::vector<std::string>& vendor, const std::string& tail) {
  if (!vendor.empty()) {
    return FailedPrecondition(who + " needs vendor library: " + HeaderList(vendor) + tail);
  }
  if (!p.unsupplied_runtime_headers.empty()) {
    return Unimplemented(who + " includes TVM runtime header" +
                         (p.unsupplied_runtime_headers.size() == 1 ? " " : "s ") +
                         HeaderList(p.unsupplied_runtime_headers) +
                         ", which mlfkit does not supply (tvm/compat)");
  }
  return Status::Ok();
}

constexpr char kHostVendorTail[] =
    "; it runs nowhere here: mlf run cannot build it (mlf project --vendor-source NAME=DIR adds "
    "the library to a firmware project)";
constexpr char kProjectVendorTail[] =
    "; give the library's sources with --vendor-source NAME=DIR";
constexpr char kUpgradeVendorTail[] =
    "; an mlfkit archive cannot carry it, so upgrade refuses the module";

bool HasSources(const TvmModulePlan& p) { return !p.c_sources.empty() || !p.other_sources.empty(); }

// "... has no C sources[, only object files of TVM's llvm target (...)]<tail>"
Status NoSources(const std::string& who, const TvmModulePlan& p, const std::string& tail) {
  return FailedPrecondition(who + " has no C sources" +
                            (p.object_files.empty()
                                 ? std::string()
                                 : ", only object files of TVM's llvm target (" + Join(p.object_files) + ")") +
                            tail);
}

// A tensor whose dtype mlfkit does not know (kept as the archive wrote it):
// no loader can size or pass it, and version 8 cannot record it.
Status UnknownDType(const std::string& who, const char* kind, const TensorInfo& t) {
  return Unimplemented(who + ": " + kind + " " + QuoteForMessage(t.name) + ": dtype " +
                       QuoteForMessage(ToString(t.dtype)) + " is not supported by mlfkit");
}

// TVM 0.8's run_model takes one pointer per input and output, in order.
Status CheckRunModelArity(const std::string& who, const TvmModulePlan& p, const ModuleMetadata& m) {
  if (p.entry != TvmEntryStyle::kRunModel) return Status::Ok();
  if (p.inner_parameters.size() == m.inputs.size() + m.outputs.size()) return Status::Ok();
  return FailedPrecondition(who + ": its entry point " + p.inner_function + " takes " +
                            std::to_string(p.inner_parameters.size()) +
                            " tensors but the archive names " + std::to_string(m.inputs.size()) +
                            " input(s) and " + std::to_string(m.outputs.size()) + " output(s)");
}

// The dtype and size checks run and project share (`mlf run` shows tensors
// of unknown shape flat, so their size must be known).
Status CheckLoaderTensors(const std::string& who, const ModuleMetadata& m) {
  for (const auto* list : {&m.inputs, &m.outputs}) {
    const char* kind = list == &m.inputs ? "input" : "output";
    for (const TensorInfo& t : *list) {
      if (!t.dtype.stated()) {
        return FailedPrecondition(who + ": the archive does not say the dtype of " + kind + " " +
                                  QuoteForMessage(t.name) + " (neither metadata.json, the Relay text nor the C "
                                  "types of the code's entry point say it)");
      }
      if (!t.dtype.known()) return UnknownDType(who, kind, t);
      if (t.size_bytes == 0 && !t.shape_known) {
        return FailedPrecondition(who + ": the archive does not say the size of " + kind + " " +
                                  QuoteForMessage(t.name));
      }
    }
  }
  return Status::Ok();
}

Status HostVerdict(const TvmModulePlan& p, const ModuleMetadata& m) {
  const std::string who = LoaderWho(p);
  const bool op = p.run_kind == TvmRunKind::kOperators;
  const bool graph = p.run_kind == TvmRunKind::kGraph;
  MLF_RETURN_IF_ERROR(HeadersVerdict(who, p, p.vendor_headers, kHostVendorTail));
  if (p.run_kind == TvmRunKind::kUnknown) {
    return Unimplemented(who + " uses executor " + QuoteForMessage(p.executor_text) +
                         "; mlf run runs TVM's aot and graph executors");
  }
  if (graph && p.graph_member.empty()) {
    return FailedPrecondition(who + " uses TVM's graph executor but the archive has no graph "
                                    "JSON (executor-config/graph/)");
  }
  if (!p.foreign_target.empty()) {
    const std::string platform = p.firmware_platforms.empty() ? "<board>" : p.firmware_platforms[0];
    return FailedPrecondition(
        who + " needs target " + p.foreign_target + ": " + p.foreign_evidence +
        "; it cannot run on this host (" + HostTriple() + "). Build a firmware project for it: mlf "
        "project ARCHIVE -o DIR --platform " + platform);
  }
  if (p.entry == TvmEntryStyle::kPackedApi) {
    return FailedPrecondition(who + " has no C interface (no tvmgen_" + p.c_name +
                              "_run in codegen/host/include/tvmgen_" + p.c_name +
                              ".h): it was built for TVM's packed API; mlf run runs AOT modules "
                              "built with interface-api=c and graph executor modules");
  }
  if (!HasSources(p)) return NoSources(who, p, "; mlf run compiles C sources");
  if (!p.other_sources.empty()) {
    return Unimplemented(who + ": " + p.other_sources[0] + " is C++; mlf run compiles C sources only");
  }
  if (op) return tvm_compat::OperatorBuffers(who, *m.tvm).status();
  if (!graph && !p.caller_pools.empty()) {
    return Unimplemented(who + ": its entry point tvmgen_" + p.c_name + "_run also takes " +
                         Join(p.caller_pools) +
                         " (workspace pools or devices the caller provides), which mlf run does "
                         "not provide");
  }
  MLF_RETURN_IF_ERROR(CheckLoaderTensors(who, m));
  if (m.outputs.empty()) return FailedPrecondition(who + ": the archive names no outputs");
  return CheckRunModelArity(who, p, m);
}

// What `mlf project` says on a platform that can build the code.
Status FirmwareKindVerdict(const TvmModulePlan& p, const ModuleMetadata& m) {
  const std::string who = LoaderWho(p);
  if (p.run_kind == TvmRunKind::kOperators) {
    if (m.tvm->operator_buffers.empty()) {
      return FailedPrecondition(who + " is operator style but its metadata lists no buffers");
    }
  } else if (p.run_kind == TvmRunKind::kGraph) {
    if (p.graph_member.empty()) {
      return FailedPrecondition(who + " uses the graph executor but the archive has no graph "
                                      "JSON (executor-config/graph/)");
    }
  } else if (p.executor_text != ToString(Executor::kAot)) {
    return Unimplemented(who + " uses executor " + QuoteForMessage(p.executor_text) +
                         "; mlf project builds TVM's aot and graph executors");
  } else if (p.entry == TvmEntryStyle::kPackedApi) {
    return FailedPrecondition(who + " has no C interface (no tvmgen_" + p.c_name +
                              "_run in codegen/host/include/tvmgen_" + p.c_name +
                              ".h): it was built for TVM's packed API; mlf project builds AOT "
                              "modules built with interface-api=c");
  } else if (!p.caller_pools.empty()) {
    return Unimplemented(who + ": its entry point tvmgen_" + p.c_name + "_run also takes " +
                         Join(p.caller_pools) +
                         " (workspace pools or devices the caller provides), which the generated "
                         "main.c does not provide");
  } else if (m.outputs.empty()) {
    return FailedPrecondition(who + ": the archive names no outputs");
  }
  if (!HasSources(p)) return NoSources(who, p, "; a firmware project compiles C sources");
  if (!p.other_sources.empty()) {
    return Unimplemented(who + ": " + p.other_sources[0] +
                         " is not C; a firmware project compiles C sources only");
  }
  if (p.run_kind != TvmRunKind::kOperators) {
    MLF_RETURN_IF_ERROR(CheckLoaderTensors(who, m));
    return CheckRunModelArity(who, p, m);
  }
  return Status::Ok();
}

constexpr char kNotRunnable[] = "; an mlfkit archive runs TVM AOT modules with the C interface "
                                "and graph executor modules only, so upgrade cannot make it "
                                "runnable (mlf inspect and mlf verify read the original)";

Status UpgradeVerdict(const TvmModulePlan& p, const ModuleMetadata& m) {
  const std::string who = "module " + QuoteForMessage(p.module) + " (TVM metadata version " +
                          std::to_string(p.metadata_version) + ")";
  if (p.run_kind == TvmRunKind::kOperators) {
    // Version-8 modules are full models whose inputs and outputs are
    // distinct tensors with distinct C names (the ABI's size macros); an
    // operator's buffers are neither, and TVM does not say which it writes.
    return FailedPrecondition(
        who + " is operator style: TVM operators over named buffers, without a model entry point, "
              "and TVM's metadata does not say which buffers they write; an mlfkit module is a "
              "full model whose inputs and outputs are distinct tensors, so upgrade would have to "
              "guess. mlf run and mlf project take the original archive (every buffer is an input "
              "and an output there)");
  }
  const bool graph = p.run_kind == TvmRunKind::kGraph;
  MLF_RETURN_IF_ERROR(HeadersVerdict(who, p, p.vendor_headers, kUpgradeVendorTail));
  if (p.run_kind == TvmRunKind::kUnknown) {
    return Unimplemented(who + " uses executor " + QuoteForMessage(p.executor_text) +
                         "; upgrade converts TVM's aot and graph executors");
  }
  if (graph && p.graph_member.empty()) {
    return FailedPrecondition(who + " uses TVM's graph executor but the archive has no graph JSON "
                                    "(executor-config/graph/)" + kNotRunnable);
  }
  if (p.entry == TvmEntryStyle::kPackedApi) {
    return FailedPrecondition(who + " has no C interface (no tvmgen_" + p.c_name +
                              "_run in its interface header): it was built for TVM's packed API" +
                              kNotRunnable);
  }
  if (!HasSources(p)) return NoSources(who, p, "; mlfkit archives carry C sources");
  if (!p.other_sources.empty()) {
    return Unimplemented(who + ": " + p.other_sources[0] + " is C++; upgrade carries C sources only");
  }
  if (!graph && !p.caller_pools.empty()) {
    return Unimplemented(who + ": its entry point tvmgen_" + p.c_name + "_run also takes " +
                         Join(p.caller_pools) +
                         " (workspace pools or devices the caller provides), which ABI version 1 "
                         "has no place for");
  }
  // Version-8 metadata records every dtype and shape.
  for (const auto* list : {&m.inputs, &m.outputs}) {
    const char* kind = list == &m.inputs ? "input" : "output";
    for (const TensorInfo& t : *list) {
      if (!t.dtype.stated()) {
        return FailedPrecondition(who + ": the archive does not say the dtype of " + kind + " " +
                                  QuoteForMessage(t.name) +
                                  "; mlfkit's metadata records every dtype");
      }
      if (!t.dtype.known()) return UnknownDType(who, kind, t);
      // An unknown shape with a known size is written flat, [size / element
      // size]: the shape mlf run and mlf project present it in.
      if (!t.shape_known && t.size_bytes == 0) {
        return FailedPrecondition(who + ": the shape and size of " + kind + " " +
                                  QuoteForMessage(t.name) +
                                  " are unknown; mlfkit's metadata records every shape");
      }
    }
  }
  if (m.outputs.empty()) return FailedPrecondition(who + ": the archive names no outputs");
  return CheckRunModelArity(who, p, m);
}

}  // namespace

Status FlattenUnknownShape(const std::string& who, TensorInfo& t) {
  if (t.shape_known) return Status::Ok();
  MLF_ASSIGN_OR_RETURN(DType dtype, t.dtype.Known());
  if (t.size_bytes % DTypeSize(dtype) != 0) {
    return FailedPrecondition(who + ": " + QuoteForMessage(t.name) + " is " +
                              std::to_string(t.size_bytes) + " bytes, not a whole number of " +
                              DTypeName(dtype) + " elements");
  }
  t.shape = {static_cast<int64_t>(t.size_bytes / DTypeSize(dtype))};
  t.shape_known = true;
  return Status::Ok();
}

TvmModulePlan PlanTvmModule(const std::string& name, const ModuleMetadata& m) {
  TvmModulePlan p;
  DescribeCode(name, m, &p);
  p.host = HostVerdict(p, m);
  p.firmware = FirmwareKindVerdict(p, m);
  p.upgrade = UpgradeVerdict(p, m);
  return p;
}

Status FirmwareVerdict(const TvmModulePlan& p, const firmware::Platform& platform,
                       const std::set<std::string>& vendor_provided, const std::string& vendor_flags) {
  const std::vector<std::string> missing = MissingVendorHeaders(p, vendor_provided);
  if (!missing.empty() && !vendor_flags.empty()) {
    return FailedPrecondition(LoaderWho(p) + ": " + HeaderList(missing) +
                              (missing.size() == 1 ? " is" : " are") + " not in " + vendor_flags);
  }
  MLF_RETURN_IF_ERROR(HeadersVerdict(LoaderWho(p), p, missing, kProjectVendorTail));
  if (p.foreign_target.empty() || Contains(p.firmware_platforms, platform.name)) return p.firmware;
  const std::string built_for =
      platform.cortex_m ? platform.cpu : std::string("this host, ") + HostTriple();
  return FailedPrecondition(
      LoaderWho(p) + " needs target " + p.foreign_target + ": " + p.foreign_evidence +
      "; it cannot be built for platform " + platform.name + " (" + built_for + ")" +
      (p.firmware_platforms.empty() ? ", nor for any other platform of mlf project"
                                    : ". Build it with --platform " + Join(p.firmware_platforms, " or ")));
}

std::string RunsWhere(const TvmModulePlan& p, const Status& host) {
  if (!p.vendor_headers.empty() || !p.unsupplied_runtime_headers.empty()) return "nowhere here";
  if (host.ok()) return "host";
  if (p.firmware.ok() && !p.firmware_platforms.empty()) {
    return "firmware only (mlf project --platform " + Join(p.firmware_platforms, " or ") + ")";
  }
  return "nowhere here";
}

}  // namespace mlf
