#include "loader/firmware/project.h"

#include "loader/firmware/build_files.h"
#include "loader/firmware/project_readme.h"
#include "loader/firmware/project_sources.h"
#include "loader/firmware/templates.h"
#include "tvm/compat/compat.h"
#include "tvm/firmware/tvm_sources.h"
#include "tvm/firmware/tvm_support.h"

namespace mlf::firmware {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status Add(std::vector<ProjectFile>* files, const std::string& path, Result<std::string> content) {
  if (!content.ok()) return content.status().WithContext(path);
  files->push_back({path, std::move(*content)});
  return Status::Ok();
}

Status AddTemplateCopy(std::vector<ProjectFile>* files, const std::string& path, const char* name) {
  std::optional<std::string_view> text = ProjectTemplate(name);
  if (!text) return Internal(std::string("no project template named '") + name + "'");
  files->push_back({path, std::string(*text)});
  return Status::Ok();
}

}  // namespace

Result<std::vector<ProjectFile>> ComposeProject(const ProjectPlan& plan,
                                                const ProjectInput& input) {
  std::vector<ProjectFile> files;
  for (const std::string& member : plan.copied_members) {
    files.push_back({member, input.members.at(member)});
  }
  for (const ModulePlan& m : plan.modules) {
    if (m.kind == ModuleKind::kTvmGraph) {
      files.push_back({m.graph_source, GraphSource(m)});
      if (!m.constants.empty()) files.push_back({m.constants_source, GraphParametersSource(m)});
      continue;
    }
    if (m.kind == ModuleKind::kTvmOperator) {
      files.push_back({m.operator_source, OperatorSource(m)});
      continue;
    }
    if (m.constants.empty()) continue;
    files.push_back(
        {m.constants_source, ParametersSource(m, input.members.at(m.constants_member))});
  }
  if (plan.tvm) {
    // mlfkit's stand-ins for TVM's runtime headers and runtime (tvm/compat).
    for (const tvm_compat::File& f : tvm_compat::Files()) {
      files.push_back({"mlf_tvm/" + std::string(f.path), std::string(f.content)});
    }
  }
  MLF_RETURN_IF_ERROR(Add(&files, "src/main.c", plan.tvm ? TvmMainSource(plan) : MainSource(plan)));
  files.push_back({"src/model_data.h", ModelDataHeader(plan)});
  if (!plan.samples.empty()) files.push_back({"src/sample_inputs.c", SampleInputsSource(plan)});
  MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_print.c", "mlf_print.c"));
  MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_print.h", "mlf_print.h"));
  if (plan.platform.cortex_m) {
    MLF_RETURN_IF_ERROR(Add(&files, "platform/startup.c", StartupSource(plan)));
    MLF_RETURN_IF_ERROR(Add(&files, "platform/mps2.ld", LinkerScript(plan)));
  }
  MLF_RETURN_IF_ERROR(Add(&files, "Makefile", Makefile(plan)));
  MLF_RETURN_IF_ERROR(Add(&files, "CMakeLists.txt", CMakeLists(plan)));
  MLF_RETURN_IF_ERROR(Add(&files, "README.md", ProjectReadme(plan)));
  return files;
}

Result<GeneratedProject> GenerateProject(const std::string& archive, const std::string& dir,
                                         const ProjectOptions& options) {
  MLF_ASSIGN_OR_RETURN(Platform platform, FindPlatform(options.platform));
  MLF_RETURN_IF_ERROR(CheckProjectDirectory(dir));
  MLF_ASSIGN_OR_RETURN(ProjectInput input, ReadProjectInput(archive, options.verify));
  std::map<std::string, ModuleKind> tvm_kinds;
  if (IsTvmMetadataVersion(input.metadata.version)) {
    MLF_ASSIGN_OR_RETURN(tvm_kinds, PrepareTvmMetadata(&input.metadata, platform));
  }
  MLF_ASSIGN_OR_RETURN(SampleInputs samples,
                       ReadSampleInputs(input.metadata, options.sample_inputs));
  MLF_ASSIGN_OR_RETURN(ProjectPlan plan, PlanProject(input, platform, std::move(samples),
                                                     BaseName(archive), tvm_kinds));
  MLF_ASSIGN_OR_RETURN(std::vector<ProjectFile> files, ComposeProject(plan, input));
  MLF_RETURN_IF_ERROR(WriteProject(dir, files));
  GeneratedProject project;
  project.platform = platform;
  for (const ModulePlan& m : plan.modules) project.modules.push_back(m.name);
  for (const ProjectFile& f : files) project.files.push_back(f.path);
  project.report = std::move(input.report);
  return project;
}

}  // namespace mlf::firmware
