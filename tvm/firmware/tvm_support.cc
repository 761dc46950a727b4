#include "tvm/firmware/tvm_support.h"

#include <set>

#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "artifact/toolchain/host_build.h"
#include "tvm/compat/operator_source.h"
#include "tvm/format/tvm_code.h"

namespace mlf::firmware {
namespace {

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Who(const std::string& name, const ModuleMetadata& m) {
  return "module " + QuoteForMessage(name) + " (TVM archive, metadata version " +
         std::to_string(m.tvm->version) + ")";
}

Status CheckTarget(const std::string& who, const TvmModuleInfo& tvm, const Platform& platform) {
  if (tvm.foreign_target.empty()) return Status::Ok();
  const std::vector<std::string> platforms = PlatformsForTarget(tvm.foreign_target);
  for (const std::string& p : platforms) {
    if (p == platform.name) return Status::Ok();
  }
  const std::string built_for =
      platform.cortex_m ? platform.cpu : std::string("this host, ") + HostTriple();
  return FailedPrecondition(
      who + " needs target " + tvm.foreign_target + ": " + tvm.foreign_evidence +
      "; it cannot be built for platform " + platform.name + " (" + built_for + ")" +
      (platforms.empty() ? ", nor for any other platform of mlf project"
                         : ". Build it with --platform " + Join(platforms, " or ")));
}

Status CheckSources(const std::string& who, const ModuleMetadata& m) {
  const TvmModuleInfo& tvm = *m.tvm;
  if (m.sources.empty()) {
    return FailedPrecondition(who + " has no C sources" +
                              (tvm.object_files.empty()
                                   ? std::string()
                                   : ", only object files of TVM's llvm target (" +
                                         Join(tvm.object_files, ", ") + ")") +
                              "; a firmware project compiles C sources");
  }
  for (const std::string& s : m.sources) {
    if (!EndsWith(s, ".c")) {
      return Unimplemented(who + ": " + s + " is not C; a firmware project compiles C sources only");
    }
  }
  return Status::Ok();
}

Status CheckTensors(const std::string& who, const ModuleMetadata& m) {
  for (const auto* list : {&m.inputs, &m.outputs}) {
    const char* kind = list == &m.inputs ? "input" : "output";
    for (const TensorInfo& t : *list) {
      if (t.dtype.empty()) {
        return FailedPrecondition(who + ": the archive does not say the dtype of " + kind + " " +
                                  QuoteForMessage(t.name) + " (metadata.json has no memory " +
                                  kind + "s and there is no Relay text)");
      }
      if (t.size_bytes == 0 && !t.shape_known) {
        return FailedPrecondition(who + ": the archive does not say the size of " + kind + " " +
                                  QuoteForMessage(t.name));
      }
    }
  }
  return Status::Ok();
}

Result<ModuleKind> KindOf(const std::string& who, const std::string& name, const ModuleMetadata& m) {
  const TvmModuleInfo& tvm = *m.tvm;
  if (m.style == ModuleStyle::kOperator) {
    if (tvm.operator_buffers.empty()) {
      return FailedPrecondition(who + " is operator style but its metadata lists no buffers");
    }
    return ModuleKind::kTvmOperator;
  }
  if (tvm.executor == Executor::kGraph) {
    if (tvm.graph_path.empty()) {
      return FailedPrecondition(who + " uses the graph executor but the archive has no graph "
                                      "JSON (executor-config/graph/)");
    }
    return ModuleKind::kTvmGraph;
  }
  if (tvm.executor != Executor::kAot) {
    return Unimplemented(who + " uses executor " + QuoteForMessage(tvm.executor ? ToString(*tvm.executor) : "") +
                         "; mlf project builds TVM's aot and graph executors");
  }
  const std::string c = SanitizeCName(name);
  if (m.interface_api != InterfaceApi::kC || tvm.run_function.empty()) {
    return FailedPrecondition(who + " has no C interface (no tvmgen_" + c +
                              "_run in codegen/host/include/tvmgen_" + c +
                              ".h): it was built for TVM's packed API; mlf project builds AOT "
                              "modules built with interface-api=c");
  }
  if (!tvm.extra_run_arguments.empty()) {
    return Unimplemented(who + ": its entry point tvmgen_" + c + "_run also takes " +
                         Join(tvm.extra_run_arguments, ", ") +
                         " (workspace pools or devices the caller provides), which the generated "
                         "main.c does not provide");
  }
  if (m.outputs.empty()) return FailedPrecondition(who + ": the archive names no outputs");
  return ModuleKind::kTvmAot;
}

// Unknown shapes become [size / element size].
Status Flatten(const std::string& who, std::vector<TensorInfo>* tensors) {
  for (TensorInfo& t : *tensors) {
    if (t.shape_known) continue;
    MLF_ASSIGN_OR_RETURN(DType dtype, ParseDType(t.dtype));
    if (t.size_bytes % DTypeSize(dtype) != 0) {
      return FailedPrecondition(who + ": " + QuoteForMessage(t.name) + " is " +
                                std::to_string(t.size_bytes) + " bytes, not a whole number of " +
                                t.dtype + " elements");
    }
    t.shape = {static_cast<int64_t>(t.size_bytes / DTypeSize(dtype))};
    t.shape_known = true;
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> PlatformsForTarget(const std::string& target) {
  if (target == "cortex-m0" || target == "cortex-m0plus" || target == "cortex-m1" ||
      target == "cortex-m3") {
    return {"mps2-an385", "mps2-an386", "mps2-an500"};
  }
  // The DSP extension (and the Arm C Language Extensions' SIMD32
  // intrinsics) needs a Cortex-M4 or M7.
  if (target == "cortex-m4" || target == CodeArchName(CodeArch::kArmCortexM)) {
    return {"mps2-an386", "mps2-an500"};
  }
  if (target == "cortex-m7") return {"mps2-an500"};
  return {};
}

Result<ModuleKind> TvmModuleKind(const std::string& name, const ModuleMetadata& m,
                                 const Platform& platform) {
  const std::string who = Who(name, m);
  MLF_RETURN_IF_ERROR(CheckTarget(who, *m.tvm, platform));
  MLF_ASSIGN_OR_RETURN(ModuleKind kind, KindOf(who, name, m));
  MLF_RETURN_IF_ERROR(CheckSources(who, m));
  if (kind != ModuleKind::kTvmOperator) MLF_RETURN_IF_ERROR(CheckTensors(who, m));
  return kind;
}

Result<std::map<std::string, ModuleKind>> PrepareTvmMetadata(Metadata* metadata,
                                                            const Platform& platform) {
  std::map<std::string, ModuleKind> kinds;
  for (auto& [name, m] : metadata->modules) {
    if (!m.tvm) {
      return Internal("module " + QuoteForMessage(name) + " of a TVM archive has no TVM details");
    }
    MLF_ASSIGN_OR_RETURN(ModuleKind kind, TvmModuleKind(name, m, platform));
    const std::string who = Who(name, m);
    if (kind == ModuleKind::kTvmOperator) {
      MLF_ASSIGN_OR_RETURN(m.inputs, tvm_compat::OperatorBuffers(who, *m.tvm));
      m.outputs = m.inputs;
    }
    MLF_RETURN_IF_ERROR(Flatten(who, &m.inputs));
    MLF_RETURN_IF_ERROR(Flatten(who, &m.outputs));
    kinds[name] = kind;
  }
  return kinds;
}

}  // namespace mlf::firmware
