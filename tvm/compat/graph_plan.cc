#include "tvm/compat/graph_plan.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "tvm/format/tvm_params.h"

namespace mlf::tvm_compat {
namespace {

constexpr uint64_t kStorageAlignment = 64;

uint64_t AlignUp(uint64_t n) { return (n + kStorageAlignment - 1) / kStorageAlignment * kStorageAlignment; }

bool IsExecutorOp(const std::string& function) { return function == "__nop" || function == "__copy"; }

Status CheckCalls(const GraphProgram& g) {
  for (const GraphCall& call : g.calls) {
    if (!IsExecutorOp(call.function)) {
      MLF_RETURN_IF_ERROR(CheckPackedFunctionName(call.function));
      continue;
    }
    if (call.num_inputs != 1 || call.args.size() != 2 ||
        g.entries[call.args[0]].bytes != g.entries[call.args[1]].bytes) {
      return InvalidArgument(call.function + " node " + QuoteForMessage(call.node_name) +
                             " does not have one input and one output of the same size");
    }
  }
  return Status::Ok();
}

Status MatchParameter(const GraphEntry& entry, const NamedTensor& param) {
  if (entry.dtype != param.dtype || entry.shape != param.shape) {
    return InvalidArgument("parameter " + QuoteForMessage(param.name) + " is " +
                           DTypeName(param.dtype) + FormatShape(param.shape) +
                           " in the .params file but " + DTypeName(entry.dtype) +
                           FormatShape(entry.shape) + " in the graph");
  }
  return Status::Ok();
}

Status MatchTensor(const char* kind, const TensorInfo& t, const GraphEntry& e) {
  if (e.bytes != t.size_bytes) {
    return InvalidArgument(std::string(kind) + " " + QuoteForMessage(t.name) + " is " +
                           std::to_string(t.size_bytes) + " bytes, its graph entry " +
                           std::to_string(e.bytes));
  }
  if (t.dtype.stated() && t.dtype != e.dtype) {
    return InvalidArgument(std::string(kind) + " " + QuoteForMessage(t.name) + " is " + ToString(t.dtype) +
                           ", its graph entry " + DTypeName(e.dtype));
  }
  return Status::Ok();
}

// Graph arguments: module inputs or parameters (into the blob).
Status BindArguments(const ModuleMetadata& m, const std::vector<NamedTensor>& params,
                     GraphPlan* plan) {
  const GraphProgram& g = plan->program;
  plan->input_entries.assign(m.inputs.size(), -1);
  ParamBlobBuilder blob;
  for (const GraphArg& arg : g.args) {
    auto input = std::find_if(m.inputs.begin(), m.inputs.end(),
                              [&](const TensorInfo& t) { return t.name == arg.name; });
    if (input != m.inputs.end()) {
      MLF_RETURN_IF_ERROR(MatchTensor("input", *input, g.entries[arg.entry]));
      plan->input_entries[input - m.inputs.begin()] = arg.entry;
      continue;
    }
    auto param = std::find_if(params.begin(), params.end(),
                              [&](const NamedTensor& p) { return p.name == arg.name; });
    if (param == params.end()) {
      return NotFound("graph argument " + QuoteForMessage(arg.name) +
                      " is neither an input of the module nor a parameter in the .params file");
    }
    MLF_RETURN_IF_ERROR(MatchParameter(g.entries[arg.entry], *param));
    if (plan->storage.count(g.entries[arg.entry].storage_id)) continue;  // the same argument twice
    MLF_RETURN_IF_ERROR(blob.Add(param->name, param->dtype, param->shape, param->data));
    plan->storage[g.entries[arg.entry].storage_id] = {StorageHome::kConstant,
                                                       blob.index().back().offset};
  }
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    if (plan->input_entries[i] < 0) {
      return NotFound("input " + QuoteForMessage(m.inputs[i].name) +
                      " is not an argument of the graph");
    }
  }
  plan->constants_index = blob.index();
  MLF_ASSIGN_OR_RETURN(plan->constants, blob.Finish());
  return Status::Ok();
}

Status CheckOutputs(const ModuleMetadata& m, const GraphProgram& g) {
  if (g.heads.size() != m.outputs.size()) {
    return InvalidArgument("the graph has " + std::to_string(g.heads.size()) +
                           " outputs, the metadata " + std::to_string(m.outputs.size()));
  }
  for (size_t i = 0; i < g.heads.size(); ++i) {
    MLF_RETURN_IF_ERROR(MatchTensor("output", m.outputs[i], g.entries[g.heads[i]]));
  }
  return Status::Ok();
}

// The home of every storage id that is not a parameter's.
Status PlaceStorage(GraphPlan* plan) {
  const GraphProgram& g = plan->program;
  std::map<int, std::vector<int>> entries_of;
  for (size_t e = 0; e < g.entries.size(); ++e) entries_of[g.entries[e].storage_id].push_back(e);
  std::set<int> arg_entries;
  for (const GraphArg& a : g.args) arg_entries.insert(a.entry);
  for (const auto& [sid, entries] : entries_of) {
    auto home = plan->storage.find(sid);
    if (home != plan->storage.end()) {
      if (home->second.kind == StorageHome::kConstant && entries.size() > 1) {
        return Unimplemented("storage " + std::to_string(sid) +
                             " holds a parameter and other tensors; parameters are read only, so "
                             "their storage cannot be shared");
      }
      continue;
    }
    if (entries.size() == 1) {
      const int e = entries[0];
      auto input = std::find(plan->input_entries.begin(), plan->input_entries.end(), e);
      if (input != plan->input_entries.end() &&
          std::count(plan->input_entries.begin(), plan->input_entries.end(), e) == 1) {
        plan->storage[sid] = {StorageHome::kInput,
                              static_cast<uint64_t>(input - plan->input_entries.begin())};
        continue;
      }
      auto head = std::find(g.heads.begin(), g.heads.end(), e);
      if (head != g.heads.end() && std::count(g.heads.begin(), g.heads.end(), e) == 1 &&
          !arg_entries.count(e)) {
        plan->storage[sid] = {StorageHome::kOutput, static_cast<uint64_t>(head - g.heads.begin())};
        continue;
      }
    }
    plan->storage[sid] = {StorageHome::kWorkspace, plan->storage_bytes};
    plan->storage_bytes += AlignUp(g.storage_bytes.at(sid));
  }
  return Status::Ok();
}

}  // namespace

Status CheckPackedFunctionName(const std::string& function) {
  if (function.empty() || SanitizeCName(function) != function ||
      std::isdigit(static_cast<unsigned char>(function[0])) || function.rfind("mlf_", 0) == 0) {
    return InvalidArgument("function " + QuoteForMessage(function) +
                           " is not a C identifier the generated code can call (names starting "
                           "with mlf_ are mlfkit's)");
  }
  return Status::Ok();
}

uint64_t GraphAllocatorBytes(const ModuleMetadata& m) {
  uint64_t bytes = m.memory.workspace_size_bytes;
  if (m.tvm) {
    for (const TvmOperatorFunction& f : m.tvm->operator_functions) {
      bytes = std::max(bytes, f.workspace_size_bytes);
    }
  }
  return bytes;
}

Result<GraphPlan> PlanGraph(const ModuleMetadata& m, std::string_view graph_json,
                            std::string_view params_file) {
  GraphPlan plan;
  MLF_ASSIGN_OR_RETURN(plan.program, ParseGraphProgram(graph_json));
  MLF_RETURN_IF_ERROR(CheckCalls(plan.program));
  std::vector<NamedTensor> params;
  if (!params_file.empty()) {
    MLF_ASSIGN_OR_RETURN(params, ReadTvmParams(params_file));
  }
  MLF_RETURN_IF_ERROR(BindArguments(m, params, &plan));
  MLF_RETURN_IF_ERROR(CheckOutputs(m, plan.program));
  MLF_RETURN_IF_ERROR(PlaceStorage(&plan));
  plan.allocator_bytes = AlignUp(GraphAllocatorBytes(m));
  return plan;
}

}  // namespace mlf::tvm_compat
