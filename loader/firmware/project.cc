#include "loader/firmware/project.h"

#include "loader/firmware/build_files.h"
#include "loader/firmware/foreign_project.h"
#include "loader/firmware/instruction_count.h"
#include "loader/firmware/linker_script.h"
#include "loader/firmware/project_readme.h"
#include "loader/firmware/project_sources.h"
#include "loader/firmware/templates.h"

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

Result<std::vector<ProjectFile>> ComposeProject(const ProjectPlan& plan, const ProjectInput& input,
                                                const ForeignProjectModules* foreign) {
  if (plan.tvm && foreign == nullptr) {
    return Internal("a project of a TVM archive, but no TVM support was passed in");
  }
  std::vector<ProjectFile> files;
  for (const std::string& member : plan.copied_members) {
    files.push_back({member, input.members.at(member)});
  }
  for (const ModulePlan& m : plan.modules) {
    if (m.kind != ModuleKind::kMlf) {
      for (ProjectFile& f : foreign->ModuleFiles(m)) files.push_back(std::move(f));
      continue;
    }
    if (m.constants.empty()) continue;
    files.push_back(
        {m.constants_source, ParametersSource(m, input.members.at(m.constants_member))});
  }
  if (plan.tvm) {
    for (ProjectFile& f : foreign->RuntimeFiles()) files.push_back(std::move(f));
  }
  MLF_RETURN_IF_ERROR(
      Add(&files, "src/main.c", plan.tvm ? foreign->MainSource(plan) : MainSource(plan)));
  files.push_back({"src/model_data.h", ModelDataHeader(plan)});
  if (!plan.samples.empty()) files.push_back({"src/sample_inputs.c", SampleInputsSource(plan)});
  MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_print.c", "mlf_print.c"));
  MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_print.h", "mlf_print.h"));
  if (plan.count_instructions) {
    MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_cycles.c", "mlf_cycles.c"));
    MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_cycles.h", "mlf_cycles.h"));
    MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_stack.c", "mlf_stack.c"));
    MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_stack.h", "mlf_stack.h"));
  }
  if (plan.profile) {
    MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_profile.c", "mlf_profile.c"));
    MLF_RETURN_IF_ERROR(AddTemplateCopy(&files, "src/mlf_profile.h", "mlf_profile.h"));
  }
  if (plan.platform.cortex_m) {
    MLF_RETURN_IF_ERROR(Add(&files, "platform/startup.c", StartupSource(plan)));
    MLF_RETURN_IF_ERROR(Add(&files, LinkerScriptPath(plan.platform.board), LinkerScript(plan)));
  }
  MLF_RETURN_IF_ERROR(Add(&files, "Makefile", Makefile(plan)));
  MLF_RETURN_IF_ERROR(Add(&files, "CMakeLists.txt", CMakeLists(plan)));
  MLF_RETURN_IF_ERROR(Add(&files, "model.mk", ModelMakefile(plan)));
  MLF_RETURN_IF_ERROR(Add(&files, "README.md", ProjectReadme(plan)));
  return files;
}

Result<GeneratedProject> GenerateProject(const std::string& archive, const std::string& dir,
                                         const ProjectOptions& options) {
  Platform platform;
  if (options.target) {
    platform = *options.target;
  } else {
    MLF_ASSIGN_OR_RETURN(platform, FindPlatform(options.platform));
  }
  MLF_RETURN_IF_ERROR(CheckProjectDirectory(dir));
  const ForeignProjectModules* foreign = options.foreign_modules;
  VerifyOptions verify = options.verify;
  if (foreign != nullptr) verify.foreign_format = &foreign->format();
  MLF_ASSIGN_OR_RETURN(std::vector<VendorLibrary> vendor, LoadVendorLibraries(options.vendor_sources));
  const VendorProvision provision{VendorHeaders(vendor), VendorSourceFlags(options.vendor_sources)};
  MLF_ASSIGN_OR_RETURN(ProjectInput input, ReadProjectInput(archive, verify));
  std::map<std::string, ModuleKind> foreign_kinds;
  if (input.report.foreign) {
    if (foreign == nullptr) {
      return Internal("'" + archive + "' is a TVM archive, but no TVM support was passed in");
    }
    MLF_ASSIGN_OR_RETURN(foreign_kinds, foreign->Prepare(&input.metadata, platform, provision));
  }
  MLF_ASSIGN_OR_RETURN(SampleInputs samples,
                       ReadSampleInputs(input.metadata, options.sample_inputs,
                                        options.quantize_sample_inputs));
  MLF_ASSIGN_OR_RETURN(ProjectPlan plan, PlanProject(input, platform, std::move(samples),
                                                     BaseName(archive), foreign_kinds,
                                                     foreign));
  // Vendor libraries: compiled with the model, their include path before src/.
  for (const VendorLibrary& lib : vendor) {
    plan.model_sources.insert(plan.model_sources.end(), lib.sources.begin(), lib.sources.end());
    plan.include_dirs.insert(plan.include_dirs.end() - 1, lib.include_dirs.begin(), lib.include_dirs.end());
  }
  if (options.count_instructions) AddInstructionCounter(&plan);
  if (options.profile) MLF_RETURN_IF_ERROR(AddOperatorProfiler(&plan));
  MLF_ASSIGN_OR_RETURN(std::vector<ProjectFile> files, ComposeProject(plan, input, foreign));
  for (const VendorLibrary& lib : vendor) files.insert(files.end(), lib.files.begin(), lib.files.end());
  FitReport fit;
  if (platform.cortex_m && options.measure_fit) {
    MLF_ASSIGN_OR_RETURN(fit, MeasureFit(plan, files));
    if (fit.measured) MLF_RETURN_IF_ERROR(CheckFit(fit, platform));
  }
  MLF_RETURN_IF_ERROR(WriteProject(dir, files));
  GeneratedProject project;
  project.platform = platform;
  for (const ModulePlan& m : plan.modules) {
    project.modules.push_back(m.name);
    if (plan.count_instructions) project.counted.push_back({m.name, m.c_name, ModuleMacs(*m.metadata), m.metadata->operators});
  }
  project.profiled = plan.profile;
  for (const ProjectFile& f : files) project.files.push_back(f.path);
  project.report = std::move(input.report);
  project.fit = std::move(fit);
  return project;
}

}  // namespace mlf::firmware
