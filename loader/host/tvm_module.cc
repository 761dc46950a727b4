#include "loader/host/tvm_module.h"

#include "artifact/c_name.h"
#include "artifact/dtype.h"
#include "loader/tvm_compat/compat.h"
#include "loader/tvm_compat/graph_source.h"

namespace mlf {
namespace {

std::string Quote(const std::string& s) { return "'" + s + "'"; }

constexpr char kCompatRoot[] = "mlf_tvm/";

bool EndsWith(const std::string& s, const char* suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The graph plan of graph module `module` from its captured members.
Result<tvm_compat::GraphPlan> PlanTvmGraph(const std::string& module, const ModuleMetadata& m,
                                           const std::map<std::string, std::string>& members) {
  const std::string who = "module " + Quote(module);
  auto graph = members.find(m.tvm->graph_path);
  if (graph == members.end()) {
    return Internal(who + ": its graph JSON " + m.tvm->graph_path + " was not captured");
  }
  std::string_view params;
  if (m.parameters) {
    auto p = members.find(m.parameters->path);
    if (p == members.end()) return Internal(who + ": " + m.parameters->path + " was not captured");
    params = p->second;
  }
  Result<tvm_compat::GraphPlan> plan = tvm_compat::PlanGraph(m, graph->second, params);
  if (!plan.ok()) return plan.status().WithContext(who + ": " + m.tvm->graph_path);
  return plan;
}

}  // namespace

std::string PlatformForCpu(const std::string& mcpu) {
  if (mcpu == "cortex-m3") return "mps2-an385";
  if (mcpu == "cortex-m4") return "mps2-an386";
  if (mcpu == "cortex-m7") return "mps2-an500";
  return "";
}

Status TvmHostSupport(const std::string& module, const ModuleMetadata& m) {
  const TvmModuleInfo& tvm = *m.tvm;
  const std::string who = "module " + Quote(module) + " (TVM archive, metadata version " +
                          std::to_string(tvm.version) + ")";
  if (m.style == "operator") {
    return FailedPrecondition(who + " is operator style: one TVM operator, without a model entry "
                                    "point; mlf run runs full models (mlf inspect shows its "
                                    "buffers)");
  }
  const bool graph = tvm.executor == "graph";
  if (graph && tvm.graph_path.empty()) {
    return FailedPrecondition(who + " uses TVM's graph executor but the archive has no graph "
                                    "JSON (executor-config/graph/)");
  }
  if (!tvm.foreign_target.empty()) {
    const std::string platform = PlatformForCpu(m.target.mcpu);
    return FailedPrecondition(
        who + " needs target " + tvm.foreign_target + ": " + tvm.foreign_evidence +
        "; it cannot run on this host (" + HostTriple() + "). Build a firmware project for it: mlf "
        "project ARCHIVE -o DIR --platform " + (platform.empty() ? "<board>" : platform));
  }
  if (!graph && (m.interface_api != "c" || tvm.run_function.empty())) {
    return FailedPrecondition(who + " has no C interface (no tvmgen_" + SanitizeCName(module) +
                              "_run in codegen/host/include/tvmgen_" + SanitizeCName(module) +
                              ".h): it was built for TVM's packed API; mlf run runs AOT modules "
                              "built with interface-api=c and graph executor modules");
  }
  if (m.sources.empty()) {
    return FailedPrecondition(who + " has no C sources" +
                              (tvm.object_files.empty() ? std::string()
                                                        : ", only object files of TVM's llvm target (" +
                                                              Join(tvm.object_files) + ")") +
                              "; mlf run compiles C sources");
  }
  for (const std::string& s : m.sources) {
    if (!EndsWith(s, ".c")) {
      return Unimplemented(who + ": " + s + " is C++; mlf run compiles C sources only");
    }
  }
  if (!graph && !tvm.extra_run_arguments.empty()) {
    return Unimplemented(who + ": its entry point tvmgen_" + SanitizeCName(module) +
                         "_run also takes " + Join(tvm.extra_run_arguments) +
                         " (workspace pools or devices the caller provides), which mlf run does "
                         "not provide");
  }
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorInfo& t : *list) {
      const char* kind = list == &m.inputs ? "input" : "output";
      if (t.dtype.empty()) {
        return FailedPrecondition(who + ": the archive does not say the dtype of " + kind + " " +
                                  Quote(t.name) + " (metadata.json has no memory " + kind +
                                  "s and there is no Relay text)");
      }
      if (t.size_bytes == 0 && !t.shape_known) {
        return FailedPrecondition(who + ": the archive does not say the size of " + kind + " " +
                                  Quote(t.name));
      }
    }
  }
  if (m.outputs.empty()) {
    return FailedPrecondition(who + ": the archive names no outputs");
  }
  return Status::Ok();
}

Result<TvmHostBuild> MakeTvmHostBuild(const std::string& module, const ModuleMetadata& m,
                                      const std::vector<StagedFile>& staged,
                                      const std::map<std::string, std::string>& members,
                                      const HostBuildConfig& base) {
  const std::string c_module = SanitizeCName(module);
  TvmHostBuild b;
  b.files = staged;
  for (const tvm_compat::File& f : tvm_compat::Files()) {
    b.files.push_back(StagedFile{kCompatRoot + std::string(f.path), std::string(f.content)});
  }
  b.sources = m.sources;
  b.sources.push_back(kCompatRoot + std::string(tvm_compat::kRuntimeSource));
  const std::string wrapper = std::string(kCompatRoot) + "src/mlf_tvm_entry_" + c_module + ".c";
  if (m.tvm->executor == "graph") {
    MLF_ASSIGN_OR_RETURN(tvm_compat::GraphPlan plan, PlanTvmGraph(module, m, members));
    const std::string graph = std::string(kCompatRoot) + "src/mlf_tvm_graph_" + c_module + ".c";
    b.files.push_back(StagedFile{
        graph, tvm_compat::GraphRunSource(module, c_module, m.tvm->graph_path, plan)});
    b.files.push_back(StagedFile{wrapper, tvm_compat::GraphEntryWrapperSource(c_module)});
    b.sources.push_back(graph);
    b.workspace_bytes = plan.workspace_bytes();
    b.constants = std::move(plan.constants);
    b.reentrant = true;
  } else {
    b.files.push_back(StagedFile{wrapper, tvm_compat::EntryWrapperSource(c_module)});
    b.workspace_bytes = m.memory.workspace_size_bytes;
  }
  b.sources.push_back(wrapper);
  b.config = base;
  b.config.flags.push_back("-std=gnu11");
  b.config.flags.push_back("-fno-strict-aliasing");
  if (m.tvm->bundled_runtime) b.config.include_dirs.push_back("runtime/include");
  b.config.include_dirs.push_back(kCompatRoot + std::string(tvm_compat::kIncludeDir));
  b.entry_symbol = tvm_compat::EntrySymbol(c_module);
  return b;
}

Result<std::vector<TensorSpec>> TvmTensorSpecs(const std::string& module, const char* kind,
                                               const std::vector<TensorInfo>& tensors) {
  std::vector<TensorSpec> specs;
  for (const TensorInfo& t : tensors) {
    Result<DType> dtype = ParseDType(t.dtype);
    if (!dtype.ok()) return dtype.status().WithContext("module " + Quote(module) + ": " + kind + " " + Quote(t.name));
    TensorSpec spec{t.name, t.c_name, *dtype, t.shape, t.size_bytes};
    if (!t.shape_known) {
      const uint64_t element = DTypeSize(*dtype);
      if (t.size_bytes % element != 0) {
        return FailedPrecondition("module " + Quote(module) + ": " + kind + " " + Quote(t.name) +
                                  " is " + std::to_string(t.size_bytes) + " bytes, not a whole number of " +
                                  t.dtype + " elements");
      }
      spec.shape = {static_cast<int64_t>(t.size_bytes / element)};
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace mlf
