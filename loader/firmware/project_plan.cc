#include "loader/firmware/project_plan.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "artifact/c_name.h"
#include "artifact/dtype.h"
#include "artifact/tvm_params.h"
#include "loader/firmware/c_text.h"

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
  // Packed-API modules (graph executor, operator style) have no interface header.
  if (kind == ModuleKind::kTvmGraph || kind == ModuleKind::kTvmOperator) return Status::Ok();
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

// The scratch TVMBackendAllocWorkspace hands out: the model's workspace, or
// for modules whose operators are called one by one, the largest operator's.
uint64_t TvmWorkspaceBytes(const ModuleMetadata& m) {
  uint64_t bytes = m.memory.workspace_size_bytes;
  for (const TvmOperatorFunction& f : m.tvm->operator_functions) {
    bytes = std::max(bytes, f.workspace_size_bytes);
  }
  return bytes;
}

// A graph argument that is a parameter: its tensor must be the entry's.
Status MatchParameter(const GraphEntry& entry, const NamedTensor& param) {
  if (entry.dtype != param.dtype || entry.shape != param.shape) {
    return InvalidArgument("parameter '" + param.name + "' is " + DTypeName(param.dtype) +
                           FormatShape(param.shape) + " in the .params file but " +
                           DTypeName(entry.dtype) + FormatShape(entry.shape) + " in the graph");
  }
  return Status::Ok();
}

Result<std::map<std::string, NamedTensor>> GraphParameters(const ModuleMetadata& m,
                                                           const ProjectInput& input) {
  std::map<std::string, NamedTensor> params;
  if (!m.parameters || !input.members.count(m.parameters->path)) return params;
  Result<std::vector<NamedTensor>> read = ReadTvmParams(input.members.at(m.parameters->path));
  if (!read.ok()) return read.status().WithContext(m.parameters->path);
  for (NamedTensor& t : *read) params[t.name] = std::move(t);
  return params;
}

// Graph arguments become parameters (const arrays) or the inputs' storage;
// every storage id that is not a parameter's gets a static array.
Status PlanGraphStorage(ModulePlan* plan, const ProjectInput& input, Identifiers* ids) {
  const GraphProgram& g = plan->graph;
  MLF_ASSIGN_OR_RETURN(auto params, GraphParameters(*plan->metadata, input));
  std::map<int, std::string> param_of;  // storage id -> parameter
  std::set<int> param_entries;
  for (const GraphArg& arg : g.args) {
    auto p = params.find(arg.name);
    if (p == params.end()) continue;
    const GraphEntry& entry = g.entries[arg.entry];
    MLF_RETURN_IF_ERROR(MatchParameter(entry, p->second));
    param_of[entry.storage_id] = arg.name;
    param_entries.insert(arg.entry);
    plan->graph_params.push_back(
        {arg.name, ids->Take("mlf_" + plan->c_name + "_param_" + SanitizeCName(arg.name)),
         std::move(p->second.data), entry.storage_id});
  }
  if (!plan->graph_params.empty()) plan->constants_source = "parameters/" + plan->c_name + "_params.c";
  for (size_t e = 0; e < g.entries.size(); ++e) {
    auto p = param_of.find(g.entries[e].storage_id);
    if (p != param_of.end() && !param_entries.count(static_cast<int>(e))) {
      return Unimplemented("storage " + std::to_string(p->first) + " holds parameter '" +
                           p->second + "' and other tensors; parameters stay in flash, so their "
                           "storage cannot be shared");
    }
  }
  for (const auto& [sid, bytes] : g.storage_bytes) {
    if (param_of.count(sid)) {
      plan->storage[sid] = "";
      continue;
    }
    plan->storage[sid] = ids->Take("mlf_workspace_" + plan->c_name + "_sid" + std::to_string(sid));
    plan->ram_bytes += bytes;
  }
  return Status::Ok();
}

// The inputs and outputs of a graph module live in its storage.
Status BindGraphTensors(ModulePlan* plan) {
  const GraphProgram& g = plan->graph;
  for (TensorPlan& t : plan->inputs) {
    const GraphArg* arg = nullptr;
    for (const GraphArg& a : g.args) {
      if (a.name == t.info.name) arg = &a;
    }
    if (arg == nullptr) return NotFound("input '" + t.info.name + "' is not an argument of the graph");
    const GraphEntry& e = g.entries[arg->entry];
    if (plan->storage.at(e.storage_id).empty()) {
      return InvalidArgument("input '" + t.info.name + "' is also a parameter in the .params file");
    }
    if (e.bytes != t.info.size_bytes) {
      return InvalidArgument("input '" + t.info.name + "' is " + std::to_string(t.info.size_bytes) +
                             " bytes, its graph entry " + std::to_string(e.bytes));
    }
    t.buffer = plan->storage.at(e.storage_id);
  }
  for (const GraphArg& a : g.args) {
    const bool is_input = std::any_of(plan->inputs.begin(), plan->inputs.end(),
                                      [&](const TensorPlan& t) { return t.info.name == a.name; });
    if (!is_input && !plan->storage.at(g.entries[a.entry].storage_id).empty()) {
      return NotFound("graph argument '" + a.name +
                      "' is neither an input of the module nor a parameter in the .params file");
    }
  }
  if (g.heads.size() != plan->outputs.size()) {
    return InvalidArgument("the graph has " + std::to_string(g.heads.size()) + " outputs, the metadata " +
                           std::to_string(plan->outputs.size()));
  }
  for (size_t i = 0; i < g.heads.size(); ++i) {
    const GraphEntry& e = g.entries[g.heads[i]];
    if (e.bytes != plan->outputs[i].info.size_bytes) {
      return InvalidArgument("output '" + plan->outputs[i].info.name + "' is " +
                             std::to_string(plan->outputs[i].info.size_bytes) + " bytes, its graph entry " +
                             std::to_string(e.bytes));
    }
    plan->outputs[i].buffer = plan->storage.at(e.storage_id);
    if (plan->outputs[i].buffer.empty()) {
      return Unimplemented("output '" + plan->outputs[i].info.name + "' is a parameter");
    }
  }
  return Status::Ok();
}

// The packed functions main.c declares must be plain C identifiers.
Status CheckFunctionName(const std::string& function) {
  if (function.empty() || SanitizeCName(function) != function ||
      std::isdigit(static_cast<unsigned char>(function[0])) || function.rfind("mlf_", 0) == 0) {
    return InvalidArgument("function '" + function + "' is not a C identifier main.c can call");
  }
  return Status::Ok();
}

Status PlanGraph(ModulePlan* plan, const ProjectInput& input, Identifiers* ids) {
  const std::string& path = plan->metadata->tvm->graph_path;
  auto text = input.members.find(path);
  if (text == input.members.end()) return NotFound("graph JSON '" + path + "' is not in the archive");
  Result<GraphProgram> program = ParseGraphProgram(text->second);
  if (!program.ok()) return program.status().WithContext(path);
  plan->graph = std::move(*program);
  for (const GraphCall& call : plan->graph.calls) {
    if (call.function == "__nop" || call.function == "__copy") {
      if (call.num_inputs != 1 || call.args.size() != 2) {
        return InvalidArgument(path + ": " + call.function + " node '" + call.node_name +
                               "' does not have one input and one output");
      }
      continue;
    }
    MLF_RETURN_IF_ERROR(CheckFunctionName(call.function));
  }
  MLF_RETURN_IF_ERROR(PlanGraphStorage(plan, input, ids));
  return BindGraphTensors(plan);
}

Status PlanTvm(ModulePlan* plan, const ProjectInput& input, Identifiers* ids) {
  const ModuleMetadata& m = *plan->metadata;
  plan->workspace_bytes =
      plan->kind == ModuleKind::kTvmAot ? m.memory.workspace_size_bytes : TvmWorkspaceBytes(m);
  plan->workspace = plan->workspace_bytes > 0 ? ids->Take("mlf_workspace_" + plan->c_name) : "";
  plan->ram_bytes = plan->workspace_bytes;
  if (plan->kind == ModuleKind::kTvmGraph) return PlanGraph(plan, input, ids);
  if (plan->kind == ModuleKind::kTvmOperator) {
    for (const TvmOperatorBuffer& b : m.tvm->operator_buffers) MLF_RETURN_IF_ERROR(CheckFunctionName(b.function));
    // Each buffer is both an input and an output (tvm_support.h): one array.
    for (size_t i = 0; i < plan->outputs.size(); ++i) plan->outputs[i].buffer = plan->inputs[i].buffer;
    plan->ram_bytes += TensorBytes(m.inputs);
    return Status::Ok();
  }
  plan->ram_bytes += TensorBytes(m.inputs) + TensorBytes(m.outputs);
  return Status::Ok();
}

Result<ModulePlan> PlanModule(const std::string& name, const ModuleMetadata& m,
                              const ProjectInput& input, bool qualified, SampleInputs& samples,
                              ModuleKind kind, Identifiers* ids) {
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
    MLF_RETURN_IF_ERROR(PlanTvm(&plan, input, ids));
    return plan;
  }
  plan.ram_bytes = m.memory.workspace_size_bytes + m.memory.io_size_bytes;
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
    for (const GraphParam& p : m.graph_params) flash += p.bytes.size();
    ram += m.ram_bytes;
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
  plan->include_dirs = {"codegen/host/include"};
  if (plan->platform.cortex_m) plan->defines.push_back("MLF_SEMIHOSTING");
  if (plan->tvm) {
    bool bundled = false;
    for (const ModulePlan& m : plan->modules) bundled |= m.metadata->tvm->bundled_runtime;
    // The archive's own TVM runtime headers take precedence (as for mlf run).
    if (bundled) plan->include_dirs.push_back("runtime/include");
    plan->include_dirs.push_back("mlf_tvm/include");
    plan->support_sources.push_back(kTvmCompatRuntime);
    if (plan->platform.cortex_m) plan->defines.push_back("MLF_TVM_BARE_METAL");
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
                                const std::map<std::string, ModuleKind>& tvm_kinds) {
  ProjectPlan plan;
  plan.tvm = !tvm_kinds.empty();
  plan.platform = platform;
  plan.archive_name = archive_name;
  plan.samples = std::move(samples);
  Identifiers ids;
  const bool qualified = input.metadata.modules.size() > 1;
  for (const auto& [name, m] : input.metadata.modules) {
    auto kind = tvm_kinds.find(name);
    Result<ModulePlan> module =
        PlanModule(name, m, input, qualified, plan.samples,
                   kind == tvm_kinds.end() ? ModuleKind::kMlf : kind->second, &ids);
    if (!module.ok()) return module.status().WithContext("module '" + name + "'");
    plan.title += (plan.title.empty() ? "" : ", ") + name;
    plan.modules.push_back(std::move(*module));
  }
  MLF_RETURN_IF_ERROR(CheckFits(plan, input));
  PlanFiles(&plan, input);
  return plan;
}

}  // namespace mlf::firmware
