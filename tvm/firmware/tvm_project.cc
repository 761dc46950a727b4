#include "tvm/firmware/tvm_project.h"

#include "tvm/compat/compat.h"
#include "tvm/compat/graph_plan.h"
#include "tvm/firmware/tvm_sources.h"
#include "tvm/firmware/tvm_support.h"
#include "tvm/format/tvm_archive.h"

namespace mlf::firmware {
namespace {

class TvmProject final : public ForeignProjectModules {
 public:
  const ForeignArchiveFormat& format() const override { return TvmArchiveFormat(); }

  Result<std::map<std::string, ModuleKind>> Prepare(Metadata* metadata, const Platform& platform,
                                                   const VendorProvision& vendor) const override {
    return PrepareTvmMetadata(metadata, platform, vendor);
  }

  // The graph becomes a function (src/<mod>_graph.c) over the module's input
  // and output buffers, one static workspace and the parameter blob in flash.
  Result<ForeignGraphPlan> PlanGraph(const ModuleMetadata& m,
                                     const ProjectInput& input) const override {
    const std::string& path = m.tvm->graph_path;
    auto text = input.members.find(path);
    if (text == input.members.end()) {
      return NotFound("graph JSON '" + path + "' is not in the archive");
    }
    std::string_view params;
    if (m.parameters && input.members.count(m.parameters->path)) {
      params = input.members.at(m.parameters->path);
    }
    Result<tvm_compat::GraphPlan> graph = tvm_compat::PlanGraph(m, text->second, params);
    if (!graph.ok()) return graph.status().WithContext(path);
    auto data = std::make_shared<TvmGraphData>();
    data->plan = std::move(*graph);
    ForeignGraphPlan plan;
    plan.workspace_bytes = data->plan.workspace_bytes();
    plan.constants_bytes = data->plan.constants.size();
    plan.data = std::move(data);
    return plan;
  }

  uint64_t OperatorWorkspaceBytes(const ModuleMetadata& m) const override {
    return tvm_compat::GraphAllocatorBytes(m);
  }

  std::vector<ProjectFile> ModuleFiles(const ModulePlan& m) const override {
    std::vector<ProjectFile> files;
    if (m.kind == ModuleKind::kTvmGraph) {
      files.push_back({m.graph_source, GraphSource(m)});
      if (!m.constants.empty()) files.push_back({m.constants_source, GraphParametersSource(m)});
    }
    if (m.kind == ModuleKind::kTvmOperator) files.push_back({m.operator_source, OperatorSource(m)});
    return files;
  }

  // mlfkit's stand-ins for TVM's runtime headers and runtime (tvm/compat).
  std::vector<ProjectFile> RuntimeFiles() const override {
    std::vector<ProjectFile> files;
    for (const tvm_compat::File& f : tvm_compat::Files()) {
      files.push_back({"mlf_tvm/" + std::string(f.path), std::string(f.content)});
    }
    return files;
  }

  Result<std::string> MainSource(const ProjectPlan& plan) const override {
    return TvmMainSource(plan);
  }
};

}  // namespace

const ForeignProjectModules& TvmProjectModules() {
  static const TvmProject* modules = new TvmProject();
  return *modules;
}

}  // namespace mlf::firmware
