#include "loader/firmware/project_plan.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "loader/firmware/c_text.h"
#include "loader/firmware/fit.h"
#include "loader/firmware/foreign_project.h"

namespace mlf::firmware {
namespace {

constexpr char kSourceDir[] = "codegen/host/src/";
constexpr char kIncludeDir[] = "codegen/host/include/";
constexpr char kTvmRuntimeIncludeDir[] = "runtime/include/";
constexpr char kTvmCompatRuntime[] = "mlf_tvm/src/mlf_tvm_runtime.c";

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
  MLF_ASSIGN_OR_RETURN(t.dtype, info.dtype.Known());
  MLF_ASSIGN_OR_RETURN(t.count, ElementCount(info.shape));
  if (t.count > UINT32_MAX) {
    return OutOfRange("tensor '" + info.name + "' has " + std::to_string(t.count) +
                      " elements, more than a 32-bit microcontroller can address");
  }
  t.buffer = ids->Take(prefix + module_c + "_" + info.c_name);
  t.label = qualified ? module_c + "." + info.c_name : info.c_name;
  return t;
}

Status CheckSources(const std::string& module, const ModuleMetadata& m, const ProjectInput& input,
                    ModuleKind kind) {
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
  // Packed-API modules (graph executor, operator style) have no interface
  // header, nor have AOT modules without the C interface that the foreign
  // adapter accepted (TVM 0.8's positional run_model, called directly).
  if (kind == ModuleKind::kTvmGraph || kind == ModuleKind::kTvmOperator) return Status::Ok();
  if (kind == ModuleKind::kTvmAot && m.interface_api != InterfaceApi::kC) return Status::Ok();
  const std::string header = kIncludeDir + ("tvmgen_" + SanitizeCName(module) + ".h");
  if (!input.members.count(header))
    return NotFound("the archive has no interface header " + header);
  return Status::Ok();
}

uint64_t TensorBytes(const std::vector<TensorInfo>& tensors) {
  uint64_t total = 0;
  for (const TensorInfo& t : tensors) total += t.size_bytes;
  return total;
}

// The graph becomes a function (src/<mod>_graph.c) over the module's input and
// output buffers, one static workspace and the parameter blob in flash.
Status PlanGraph(ModulePlan* plan, const ProjectInput& input,
                 const ForeignProjectModules& foreign, Identifiers* ids) {
  const ModuleMetadata& m = *plan->metadata;
  MLF_ASSIGN_OR_RETURN(ForeignGraphPlan graph, foreign.PlanGraph(m, input));
  plan->foreign = std::move(graph.data);
  plan->constants_bytes = graph.constants_bytes;
  plan->graph_source = "src/" + plan->c_name + "_graph.c";
  plan->workspace_bytes = graph.workspace_bytes;
  plan->workspace = plan->workspace_bytes > 0 ? ids->Take("mlf_workspace_" + plan->c_name) : "";
  plan->ram_bytes = plan->workspace_bytes + TensorBytes(m.inputs) + TensorBytes(m.outputs);
  if (plan->constants_bytes > 0) {
    plan->constants = ids->Take("mlf_" + plan->c_name + "_constants");
    plan->constants_source = "parameters/" + plan->c_name + "_params.c";
  }
  return Status::Ok();
}

Status PlanForeign(ModulePlan* plan, const ProjectInput& input,
                   const ForeignProjectModules* foreign, Identifiers* ids) {
  if (foreign == nullptr) {
    return Internal("module '" + plan->name + "' is a TVM module, but no TVM support was passed in");
  }
  const ModuleMetadata& m = *plan->metadata;
  if (plan->kind == ModuleKind::kTvmGraph) return PlanGraph(plan, input, *foreign, ids);
  plan->workspace_bytes = plan->kind == ModuleKind::kTvmAot ? m.memory.workspace_size_bytes
                                                            : foreign->OperatorWorkspaceBytes(m);
  plan->workspace = plan->workspace_bytes > 0 ? ids->Take("mlf_workspace_" + plan->c_name) : "";
  plan->ram_bytes = plan->workspace_bytes;
  if (plan->kind == ModuleKind::kTvmOperator) {
    // Function names were checked with the buffers (tvm/firmware/tvm_support.h).
    plan->operator_source = "src/" + plan->c_name + "_operators.c";
    // Each buffer is both an input and an output (tvm/firmware/tvm_support.h): one array.
    for (size_t i = 0; i < plan->outputs.size(); ++i) plan->outputs[i].buffer = plan->inputs[i].buffer;
    plan->ram_bytes += TensorBytes(m.inputs);
    return Status::Ok();
  }
  plan->ram_bytes += TensorBytes(m.inputs) + TensorBytes(m.outputs);
  return Status::Ok();
}

Result<ModulePlan> PlanModule(const std::string& name, const ModuleMetadata& m,
                              const ProjectInput& input, bool qualified, SampleInputs& samples,
                              ModuleKind kind, const ForeignProjectModules* foreign,
                              Identifiers* ids) {
  MLF_RETURN_IF_ERROR(CheckSources(name, m, input, kind));
  ModulePlan plan;
  plan.name = name;
  plan.c_name = SanitizeCName(name);
  plan.metadata = &m;
  plan.kind = kind;
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
  if (kind != ModuleKind::kMlf) {
    MLF_RETURN_IF_ERROR(PlanForeign(&plan, input, foreign, ids));
    return plan;
  }
  plan.ram_bytes = m.memory.workspace_size_bytes + m.memory.io_size_bytes;
  if (m.memory.workspace_size_bytes > 0) plan.workspace = ids->Take("mlf_workspace_" + plan.c_name);
  if (m.parameters && m.parameters->storage == ParamStorage::kFile) {
    plan.constants = ids->Take("mlf_" + plan.c_name + "_constants");
    plan.constants_source = "parameters/" + plan.c_name + "_params.c";
    plan.constants_member = m.parameters->path;
    if (!input.members.count(plan.constants_member)) {
      return NotFound("parameter blob '" + plan.constants_member + "' is not in the archive");
    }
  }
  return plan;
}

// On a board, everything static must fit before anything is built (the
// whole image is measured later, fit.h; this refuses the obvious early).
Status CheckFits(const ProjectPlan& plan, const ProjectInput& input) {
  const Platform& p = plan.platform;
  if (!p.cortex_m) return Status::Ok();
  const Board& b = p.board;
  uint64_t parameter_bytes = 0, sample_bytes = 0;
  uint64_t workspace_bytes = 0, io_bytes = 0;
  for (const ModulePlan& m : plan.modules) {
    if (!m.constants.empty()) {
      parameter_bytes += m.kind == ModuleKind::kTvmGraph ? m.constants_bytes
                                               : input.members.at(m.constants_member).size();
    }
    const uint64_t workspace =
        m.kind == ModuleKind::kMlf ? m.metadata->memory.workspace_size_bytes : m.workspace_bytes;
    workspace_bytes += workspace;
    io_bytes += m.ram_bytes - workspace;
  }
  for (const auto& [ref, sample] : plan.samples) sample_bytes += sample.bytes.size();
  std::vector<RegionUse> uses;
  for (const MemoryRegion& r : b.memory) uses.push_back({r.name, r.size, 0, {}});
  auto add = [&](const std::string& region, const std::string& part, uint64_t bytes) {
    for (RegionUse& u : uses) {
      if (u.region != region || bytes == 0) continue;
      u.used += bytes;
      u.parts.push_back({part, bytes});
    }
  };
  add(b.constants, "parameters", parameter_bytes);
  add(b.constants, "sample inputs", sample_bytes);
  add(b.stack, "stack", b.stack_bytes);
  add(b.workspace, "workspaces", workspace_bytes);
  add(b.io, "I/O buffers", io_bytes);
  return MisfitError(p, uses, "its parameters, buffers and stack alone, before building");
}

void AddUnique(std::vector<std::string>* list, const std::string& item) {
  if (std::find(list->begin(), list->end(), item) == list->end()) list->push_back(item);
}

void PlanFiles(ProjectPlan* plan, const ProjectInput& input) {
  for (const ModulePlan& m : plan->modules) {
    for (const std::string& source : m.metadata->sources) AddUnique(&plan->model_sources, source);
    if (!m.graph_source.empty()) plan->model_sources.push_back(m.graph_source);
    if (!m.operator_source.empty()) plan->model_sources.push_back(m.operator_source);
    if (m.constants_source.empty()) continue;
    plan->support_sources.push_back(m.constants_source);
    plan->library_sources.push_back(m.constants_source);
  }
  plan->include_dirs = {"codegen/host/include"};
  if (plan->platform.cortex_m) plan->defines.push_back("MLF_SEMIHOSTING");
  if (plan->platform.cortex_m && plan->platform.board.console != ConsoleKind::kSemihosting) {
    plan->defines.push_back("MLF_UART_CONSOLE");
  }
  if (plan->tvm) {
    bool bundled = false;
    for (const ModulePlan& m : plan->modules) bundled |= m.metadata->tvm->bundled_runtime;
    // The archive's own TVM runtime headers take precedence (as for mlf run).
    if (bundled) plan->include_dirs.push_back("runtime/include");
    plan->include_dirs.push_back("mlf_tvm/include");
    plan->support_sources.push_back(kTvmCompatRuntime);
    plan->library_sources.push_back(kTvmCompatRuntime);
    if (plan->platform.cortex_m) {
      plan->defines.push_back("MLF_TVM_BARE_METAL");
      plan->library_defines.push_back("MLF_TVM_BARE_METAL");
    }
    // TVM's C type-puns buffers freely and uses GNU C (as mlf run builds it).
    plan->model_flags = "-std=gnu11 -fno-strict-aliasing";
  }
  plan->include_dirs.push_back("src");
  if (!plan->samples.empty()) plan->support_sources.push_back("src/sample_inputs.c");
  plan->support_sources.push_back("src/main.c");
  plan->support_sources.push_back("src/mlf_print.c");
  if (plan->platform.cortex_m) plan->support_sources.push_back("platform/startup.c");
  for (const auto& [path, bytes] : input.members) {
    if (StartsWith(path, kSourceDir) || StartsWith(path, kIncludeDir) ||
        (plan->tvm && StartsWith(path, kTvmRuntimeIncludeDir)))
      plan->copied_members.push_back(path);
  }
}

}  // namespace

Result<ProjectPlan> PlanProject(const ProjectInput& input, const Platform& platform,
                                SampleInputs samples, const std::string& archive_name,
                                const std::map<std::string, ModuleKind>& foreign_kinds,
                                const ForeignProjectModules* foreign) {
  ProjectPlan plan;
  plan.tvm = !foreign_kinds.empty();
  plan.platform = platform;
  plan.archive_name = archive_name;
  plan.samples = std::move(samples);
  Identifiers ids;
  const bool qualified = input.metadata.modules.size() > 1;
  for (const auto& [name, m] : input.metadata.modules) {
    auto kind = foreign_kinds.find(name);
    Result<ModulePlan> module =
        PlanModule(name, m, input, qualified, plan.samples,
                   kind == foreign_kinds.end() ? ModuleKind::kMlf : kind->second, foreign, &ids);
    if (!module.ok()) return module.status().WithContext("module '" + name + "'");
    plan.title += (plan.title.empty() ? "" : ", ") + name;
    plan.modules.push_back(std::move(*module));
  }
  MLF_RETURN_IF_ERROR(CheckFits(plan, input));
  PlanFiles(&plan, input);
  return plan;
}

}  // namespace mlf::firmware
