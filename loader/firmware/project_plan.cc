#include "loader/firmware/project_plan.h"

#include <algorithm>
#include <set>

#include "artifact/c_name.h"
#include "artifact/dtype.h"
#include "loader/firmware/c_text.h"

namespace mlf::firmware {
namespace {

constexpr char kSourceDir[] = "codegen/host/src/";
constexpr char kIncludeDir[] = "codegen/host/include/";

// Hands out C identifiers, never the same one twice ("x", "x_2", ...).
class Identifiers {
 public:
  std::string Take(const std::string& base) {
    std::string name = base;
    for (int n = 2; !taken_.insert(name).second; ++n) name = base + "_" + std::to_string(n);
    return name;
  }

 private:
  std::set<std::string> taken_;
};

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<TensorPlan> PlanTensor(const TensorInfo& info, const std::string& prefix,
                              const std::string& module_c, bool qualified, Identifiers* ids) {
  TensorPlan t;
  t.info = info;
  MLF_ASSIGN_OR_RETURN(t.dtype, ParseDType(info.dtype));
  MLF_ASSIGN_OR_RETURN(t.count, ElementCount(info.shape));
  if (t.count > UINT32_MAX) {
    return OutOfRange("tensor '" + info.name + "' has " + std::to_string(t.count) +
                      " elements, more than a 32-bit microcontroller can address");
  }
  t.buffer = ids->Take(prefix + module_c + "_" + info.c_name);
  t.label = qualified ? module_c + "." + info.c_name : info.c_name;
  return t;
}

Status CheckSources(const std::string& module, const ModuleMetadata& m, const ProjectInput& input) {
  for (const std::string& source : m.sources) {
    if (!StartsWith(source, kSourceDir) || !EndsWith(source, ".c")) {
      return Unimplemented("source '" + source + "' is not a C file under " + kSourceDir +
                           ": a firmware project builds generated C only");
    }
    if (!IsBuildSafePath(source)) {
      return InvalidArgument("source path '" + source +
                             "' has characters a Makefile cannot hold safely (allowed: letters, "
                             "digits, '_', '-', '+', '.', '/')");
    }
    if (!input.members.count(source))
      return NotFound("source '" + source + "' is not in the archive");
  }
  const std::string header = kIncludeDir + ("tvmgen_" + SanitizeCName(module) + ".h");
  if (!input.members.count(header))
    return NotFound("the archive has no interface header " + header);
  return Status::Ok();
}

Result<ModulePlan> PlanModule(const std::string& name, const ModuleMetadata& m,
                              const ProjectInput& input, bool qualified, SampleInputs& samples,
                              Identifiers* ids) {
  MLF_RETURN_IF_ERROR(CheckSources(name, m, input));
  ModulePlan plan;
  plan.name = name;
  plan.c_name = SanitizeCName(name);
  plan.metadata = &m;
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    MLF_ASSIGN_OR_RETURN(TensorPlan t,
                         PlanTensor(m.inputs[i], "mlf_in_", plan.c_name, qualified, ids));
    auto sample = samples.find({name, static_cast<int>(i)});
    if (sample != samples.end()) {
      t.sample = ids->Take("mlf_sample_" + plan.c_name + "_" + t.info.c_name);
      t.sample_source = sample->second.source;
    }
    plan.inputs.push_back(std::move(t));
  }
  for (const TensorInfo& info : m.outputs) {
    MLF_ASSIGN_OR_RETURN(TensorPlan t, PlanTensor(info, "mlf_out_", plan.c_name, qualified, ids));
    plan.outputs.push_back(std::move(t));
  }
  if (m.memory.workspace_size_bytes > 0) plan.workspace = ids->Take("mlf_workspace_" + plan.c_name);
  if (m.parameters && m.parameters->storage == "file") {
    plan.constants = ids->Take("mlf_" + plan.c_name + "_constants");
    plan.constants_source = "parameters/" + plan.c_name + "_params.c";
    plan.constants_member = m.parameters->path;
    if (!input.members.count(plan.constants_member)) {
      return NotFound("parameter blob '" + plan.constants_member + "' is not in the archive");
    }
  }
  return plan;
}

std::string SizeText(uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

// On a board, everything static must fit before anything is built.
Status CheckFits(const ProjectPlan& plan, const ProjectInput& input) {
  const Platform& p = plan.platform;
  if (!p.cortex_m) return Status::Ok();
  uint64_t flash = 0, ram = p.stack_bytes;
  for (const ModulePlan& m : plan.modules) {
    if (!m.constants.empty()) flash += input.members.at(m.constants_member).size();
    ram += m.metadata->memory.workspace_size_bytes + m.metadata->memory.io_size_bytes;
  }
  for (const auto& [ref, sample] : plan.samples) flash += sample.bytes.size();
  if (flash > p.flash_bytes) {
    return OutOfRange("the parameters and sample inputs take " + SizeText(flash) +
                      ", more than the " + SizeText(p.flash_bytes) + " of flash of " + p.name);
  }
  if (ram > p.ram_bytes) {
    return OutOfRange("the workspaces, input and output buffers and the stack take " +
                      SizeText(ram) + ", more than the " + SizeText(p.ram_bytes) + " of RAM of " +
                      p.name);
  }
  return Status::Ok();
}

void AddUnique(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

void PlanFiles(ProjectPlan* plan, const ProjectInput& input) {
  for (const ModulePlan& m : plan->modules) {
    for (const std::string& source : m.metadata->sources) AddUnique(&plan->model_sources, source);
    if (!m.constants_source.empty()) plan->support_sources.push_back(m.constants_source);
  }
  if (!plan->samples.empty()) plan->support_sources.push_back("src/sample_inputs.c");
  plan->support_sources.push_back("src/main.c");
  plan->support_sources.push_back("src/mlf_print.c");
  if (plan->platform.cortex_m) plan->support_sources.push_back("platform/startup.c");
  for (const auto& [path, bytes] : input.members) {
    if (StartsWith(path, kSourceDir) || StartsWith(path, kIncludeDir))
      plan->copied_members.push_back(path);
  }
}

}  // namespace

Result<ProjectPlan> PlanProject(const ProjectInput& input, const Platform& platform,
                                SampleInputs samples, const std::string& archive_name) {
  ProjectPlan plan;
  plan.platform = platform;
  plan.archive_name = archive_name;
  plan.samples = std::move(samples);
  Identifiers ids;
  const bool qualified = input.metadata.modules.size() > 1;
  for (const auto& [name, m] : input.metadata.modules) {
    Result<ModulePlan> module = PlanModule(name, m, input, qualified, plan.samples, &ids);
    if (!module.ok()) return module.status().WithContext("module '" + name + "'");
    plan.title += (plan.title.empty() ? "" : ", ") + name;
    plan.modules.push_back(std::move(*module));
  }
  MLF_RETURN_IF_ERROR(CheckFits(plan, input));
  PlanFiles(&plan, input);
  return plan;
}

}  // namespace mlf::firmware
