#include "tvm/host/tvm_module.h"

#include <memory>
#include <optional>

#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "tvm/compat/compat.h"
#include "tvm/compat/graph_source.h"
#include "tvm/compat/operator_source.h"
#include "tvm/format/tvm_archive.h"
#include "tvm/plan/tvm_plan.h"

namespace mlf {
namespace {

constexpr char kCompatRoot[] = "mlf_tvm/";

// A graph JSON or .params larger than this is not read for a host check
// (the archive scan does not analyse larger ones either).
constexpr uint64_t kMaxHostMemberBytes = kMaxTvmParamsBytes;

// The graph plan of graph module `module` from its captured members.
Result<tvm_compat::GraphPlan> PlanTvmGraph(const std::string& module, const ModuleMetadata& m,
                                           const std::map<std::string, std::string>& members) {
  const std::string who = "module " + QuoteForMessage(module);
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

Status TvmHostSupport(const std::string& module, const ModuleMetadata& m) {
  return PlanTvmModule(module, m).host;
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
  std::vector<TensorInfo> inputs = m.inputs, outputs = m.outputs;
  if (m.style == ModuleStyle::kOperator) {
    // Every buffer is an input and an output (operator_source.h).
    MLF_ASSIGN_OR_RETURN(inputs,
                         tvm_compat::OperatorBuffers("module " + QuoteForMessage(module), *m.tvm));
    outputs = inputs;
    const std::string ops = std::string(kCompatRoot) + "src/mlf_tvm_operators_" + c_module + ".c";
    b.files.push_back(StagedFile{ops, tvm_compat::OperatorRunSource(module, c_module, *m.tvm, inputs)});
    b.files.push_back(StagedFile{wrapper, tvm_compat::OperatorEntryWrapperSource(c_module)});
    b.sources.push_back(ops);
    b.workspace_bytes = tvm_compat::GraphAllocatorBytes(m);
    b.run_symbol = tvm_compat::OperatorRunSymbol(c_module);
    b.reentrant = true;
  } else if (m.tvm->executor == Executor::kGraph) {
    MLF_ASSIGN_OR_RETURN(tvm_compat::GraphPlan plan, PlanTvmGraph(module, m, members));
    const std::string graph = std::string(kCompatRoot) + "src/mlf_tvm_graph_" + c_module + ".c";
    b.files.push_back(StagedFile{
        graph, tvm_compat::GraphRunSource(module, c_module, m.tvm->graph_path, plan)});
    b.files.push_back(StagedFile{wrapper, tvm_compat::GraphEntryWrapperSource(c_module)});
    b.sources.push_back(graph);
    b.workspace_bytes = plan.workspace_bytes();
    b.constants = std::move(plan.constants);
    b.run_symbol = tvm_compat::GraphRunSymbol(c_module);
    b.reentrant = true;
  } else if (PlanTvmModule(module, m).entry == TvmEntryStyle::kRunModel) {
    b.files.push_back(StagedFile{wrapper, tvm_compat::RunModelEntryWrapperSource(
                                              c_module, m.inputs.size(), m.outputs.size())});
    b.workspace_bytes = m.memory.workspace_size_bytes;
    b.run_symbol = m.tvm->main_function;
  } else {
    b.files.push_back(StagedFile{wrapper, tvm_compat::EntryWrapperSource(c_module)});
    b.workspace_bytes = m.memory.workspace_size_bytes;
    b.run_symbol = m.tvm->run_function;
  }
  MLF_ASSIGN_OR_RETURN(b.inputs, TvmTensorSpecs(module, "input", inputs));
  MLF_ASSIGN_OR_RETURN(b.outputs, TvmTensorSpecs(module, "output", outputs));
  b.sources.push_back(wrapper);
  b.config = base;
  b.config.flags.push_back("-std=gnu11");
  b.config.flags.push_back("-fno-strict-aliasing");
  if (m.tvm->bundled_runtime) b.config.include_dirs.push_back("runtime/include");
  b.config.include_dirs.push_back(kCompatRoot + std::string(tvm_compat::kIncludeDir));
  b.entry_symbol = tvm_compat::EntrySymbol(c_module);
  b.last_error_symbol = tvm_compat::kLastErrorSymbol;
  return b;
}

namespace {

class TvmHostRunner final : public ForeignModuleRunner {
 public:
  const ForeignArchiveFormat& format() const override { return TvmArchiveFormat(); }

  std::set<std::string> WholeMembers(const ModuleMetadata& m) const override {
    std::set<std::string> paths;
    if (!m.tvm || m.tvm->executor != Executor::kGraph) return paths;
    if (!m.tvm->graph_path.empty()) paths.insert(m.tvm->graph_path);
    if (m.parameters) paths.insert(m.parameters->path);
    return paths;
  }

  // A bundled standalone C runtime's headers (-I runtime/include).
  bool StagesMember(const std::string& path) const override {
    return path.rfind("runtime/include/", 0) == 0;
  }

  Result<ForeignModuleBuild> Build(const std::string& module, const ModuleMetadata& m,
                                   const std::vector<StagedFile>& staged,
                                   const std::map<std::string, std::string>& members,
                                   const HostBuildConfig& base) const override {
    MLF_RETURN_IF_ERROR(TvmHostSupport(module, m));
    return MakeTvmHostBuild(module, m, staged, members, base);
  }
};

}  // namespace

const ForeignModuleRunner& TvmHostModules() {
  static const TvmHostRunner* runner = new TvmHostRunner();
  return *runner;
}

Status TvmHostCheck(const std::string& module, const ModuleMetadata& m,
                    const std::map<std::string, std::string>& members) {
  MLF_RETURN_IF_ERROR(TvmHostSupport(module, m));
  if (m.style == ModuleStyle::kOperator || m.tvm->executor != Executor::kGraph) return Status::Ok();
  return PlanTvmGraph(module, m, members).status();
}

std::set<std::string> TvmHostMemberPaths(const Metadata& metadata) {
  std::set<std::string> paths;
  for (const auto& [name, m] : metadata.modules) {
    if (!m.tvm || m.style == ModuleStyle::kOperator || m.tvm->executor != Executor::kGraph) continue;
    if (!m.tvm->graph_path.empty()) paths.insert(m.tvm->graph_path);
    if (m.parameters) paths.insert(m.parameters->path);
  }
  return paths;
}

Result<std::map<std::string, std::string>> ReadTvmHostMembers(const std::string& archive,
                                                              const Metadata& metadata,
                                                              const ReaderLimits& limits) {
  std::map<std::string, std::string> members;
  const std::set<std::string> wanted = TvmHostMemberPaths(metadata);
  if (wanted.empty()) return members;
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, ArchiveReader::Open(archive, limits));
  while (members.size() < wanted.size()) {
    MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> entry, reader->Next());
    if (!entry) break;
    if (!wanted.count(entry->name) || members.count(entry->name)) continue;
    MLF_ASSIGN_OR_RETURN(members[entry->name], reader->ReadAll(kMaxHostMemberBytes));
  }
  return members;
}

std::map<std::string, Status> TvmHostChecks(const std::string& archive, const Metadata& metadata,
                                            const ReaderLimits& limits) {
  const Result<std::map<std::string, std::string>> members =
      ReadTvmHostMembers(archive, metadata, limits);
  const std::set<std::string> wanted = TvmHostMemberPaths(metadata);
  std::map<std::string, Status> checks;
  for (const auto& [name, m] : metadata.modules) {
    if (!m.tvm) continue;
    Status support = TvmHostSupport(name, m);
    const bool needs_members = wanted.count(m.tvm->graph_path) > 0;
    if (support.ok() && needs_members && !members.ok()) {
      support =
          members.status().WithContext("module " + QuoteForMessage(name) + ": reading its graph");
    } else if (support.ok() && needs_members) {
      support = TvmHostCheck(name, m, *members);
    }
    checks.emplace(name, support);
  }
  return checks;
}

Result<std::vector<TensorSpec>> TvmTensorSpecs(const std::string& module, const char* kind,
                                               const std::vector<TensorInfo>& tensors) {
  std::vector<TensorSpec> specs;
  for (const TensorInfo& t : tensors) {
    Result<DType> dtype = t.dtype.Known();
    if (!dtype.ok()) {
      return dtype.status().WithContext("module " + QuoteForMessage(module) + ": " + kind + " " +
                                        QuoteForMessage(t.name));
    }
    TensorSpec spec{t.name, t.c_name, *dtype, t.shape, t.size_bytes, std::nullopt};
    if (!t.shape_known) {
      const uint64_t element = DTypeSize(*dtype);
      if (t.size_bytes % element != 0) {
        return FailedPrecondition("module " + QuoteForMessage(module) + ": " + kind + " " +
                                  QuoteForMessage(t.name) + " is " + std::to_string(t.size_bytes) +
                                  " bytes, not a whole number of " + DTypeName(*dtype) + " elements");
      }
      spec.shape = {static_cast<int64_t>(t.size_bytes / element)};
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace mlf
