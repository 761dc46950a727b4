#include "tvm/upgrade/module_upgrade.h"

#include "artifact/archive/archive_assembler.h"
#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "artifact/format/param_blob.h"
#include "tvm/compat/graph_source.h"
#include "tvm/format/tvm_code.h"
#include "tvm/plan/tvm_plan.h"
#include "tvm/upgrade/adapter.h"
#include "tvm/upgrade/c_rewrite.h"

namespace mlf::tvm_upgrade {
namespace {

uint64_t Align64(uint64_t n) { return (n + 63) / 64 * 64; }

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// TVM's interface header must declare the structs the adapter's header
// redeclares: same members, same order.
Status CheckHeaderStructs(const std::string& who, const std::string& c, const ModuleMetadata& m,
                          const std::map<std::string, std::string>& members) {
  const std::string& path = m.tvm->header_path;
  auto header = members.find(path);
  if (path.empty() || header == members.end()) {
    return FailedPrecondition(who + ": the archive has no interface header codegen/host/include/tvmgen_" +
                              c + ".h");
  }
  const TvmInterfaceHeader h = ParseTvmInterfaceHeader(header->second, c);
  for (const auto* list : {&m.inputs, &m.outputs}) {
    const bool inputs = list == &m.inputs;
    std::vector<std::string> names;
    for (const TensorInfo& t : *list) names.push_back(t.c_name);
    const std::vector<std::string>& declared = inputs ? h.inputs : h.outputs;
    if ((inputs ? h.has_inputs_struct : h.has_outputs_struct) && declared != names) {
      return FailedPrecondition(who + ": struct tvmgen_" + c + (inputs ? "_inputs" : "_outputs") +
                                " in " + path + " has members (" + Join(declared) +
                                ") but the metadata names (" + Join(names) + ")");
    }
  }
  return Status::Ok();
}

std::optional<ParametersInfo> LinkedParameters(const ModuleMetadata& m) {
  if (!m.parameters || m.parameters->tensors.empty()) return std::nullopt;
  ParametersInfo p{ParamStorage::kLinked, "", {}};
  uint64_t offset = 0;  // offsets of linked tensors are notional, as mlfkit's compiler writes them
  for (const ParamTensorInfo& t : m.parameters->tensors) {
    p.tensors.push_back(ParamTensorInfo{t.name, t.dtype, t.shape, offset, t.size_bytes, std::nullopt, ""});
    offset += (t.size_bytes + kParamAlignment - 1) / kParamAlignment * kParamAlignment;
  }
  return p;
}

struct RewrittenCode {
  std::vector<StagedFile> sources;
  uint64_t pools_bytes = 0;
  std::vector<std::string> notes;
};

// `run_model`: the adapter calls TVM 0.8's positional run_model, so no
// source needs to define the struct run wrapper.
Result<RewrittenCode> RewriteSources(const std::string& who, const std::string& c,
                                     const ModuleMetadata& m,
                                     const std::map<std::string, std::string>& members,
                                     bool run_model) {
  const std::string run = "tvmgen_" + c + "_run";
  const std::string renamed = "tvmgen_" + c + kTvmRunSuffix;
  RewrittenCode out;
  int defined = 0;
  for (const std::string& path : m.sources) {
    auto member = members.find(path);
    if (member == members.end()) return NotFound(who + ": source " + path + " is not in the archive");
    for (const std::string& taken : {renamed, "tvmgen_" + c + "_metadata", "tvmgen_" + c + "_run_ctx",
                                     PoolAccessor(c)}) {
      if (CountIdentifier(member->second, taken) > 0) {
        return FailedPrecondition(who + ": " + path + " already uses the name " + taken +
                                  ", which upgrade needs for the mlfkit entry point");
      }
    }
    std::string text = member->second;
    const int uses = CountIdentifier(text, run);
    if (uses > 0) {
      text = RenameIdentifiers(text, {{run, renamed}});
      out.notes.push_back(path + ": " + run + " renamed " + renamed);
      defined += 1;
    }
    std::vector<StaticPool> pools;
    std::vector<uint64_t> offsets;
    for (const StaticPool& p : FindStaticPools(text)) {
      if (text.substr(p.begin, p.end - p.begin).find(".bss.noinit.tvm") == std::string::npos) continue;
      pools.push_back(p);
      offsets.push_back(out.pools_bytes);
      out.pools_bytes += Align64(p.size);
      out.notes.push_back(path + ": USMP pool " + p.name + " (" + std::to_string(p.size) +
                          " bytes) moved into the caller's workspace");
    }
    if (!pools.empty()) text = MovePoolsToCallerMemory(text, pools, offsets, PoolAccessor(c));
    out.sources.push_back(StagedFile{path, std::move(text)});
  }
  if (defined == 0 && !run_model) {
    return FailedPrecondition(who + ": no source defines " + run + ", TVM's C-interface entry point");
  }
  return out;
}

// A graph module's plan, from its graph JSON and .params members.
Result<tvm_compat::GraphPlan> PlanModuleGraph(const std::string& who, const ModuleMetadata& m,
                                              const std::map<std::string, std::string>& members) {
  const std::string& path = m.tvm->graph_path;
  auto graph = members.find(path);
  if (graph == members.end()) return NotFound(who + ": " + path + " is not in the archive");
  std::string_view params;
  if (m.parameters) {
    auto p = members.find(m.parameters->path);
    if (p == members.end()) return NotFound(who + ": " + m.parameters->path + " is not in the archive");
    params = p->second;
  }
  Result<tvm_compat::GraphPlan> plan = tvm_compat::PlanGraph(m, graph->second, params);
  if (!plan.ok()) return plan.status().WithContext(who + ": " + path);
  return plan;
}

// A graph module's TVM sources, carried unchanged: they only define packed
// functions, but must leave the mlfkit names free.
Result<RewrittenCode> CarryGraphSources(const std::string& who, const std::string& c,
                                        const ModuleMetadata& m,
                                        const std::map<std::string, std::string>& members) {
  RewrittenCode out;
  for (const std::string& path : m.sources) {
    auto member = members.find(path);
    if (member == members.end()) return NotFound(who + ": " + path + " is not in the archive");
    for (const std::string& taken : {"tvmgen_" + c + "_run", "tvmgen_" + c + "_metadata",
                                     "tvmgen_" + c + "_run_ctx", tvm_compat::GraphRunSymbol(c)}) {
      if (CountIdentifier(member->second, taken) > 0) {
        return FailedPrecondition(who + ": " + path + " already uses the name " + taken +
                                  ", which upgrade needs for the mlfkit entry point");
      }
    }
    out.sources.push_back(StagedFile{path, member->second});
  }
  return out;
}

// The graph's parameter blob as mlfkit "file" parameters.
std::optional<ParametersInfo> BlobParameters(const std::string& c, const tvm_compat::GraphPlan& plan) {
  if (plan.constants_index.empty()) return std::nullopt;
  ParametersInfo p{ParamStorage::kFile, "parameters/" + c + ".bin", {}};
  for (const ParamTensor& t : plan.constants_index) {
    p.tensors.push_back(ParamTensorInfo{t.name, t.dtype, t.shape, t.offset, t.size_bytes, std::nullopt, ""});
  }
  return p;
}

}  // namespace

Status CheckUpgradable(const std::string& name, const ModuleMetadata& m) {
  return PlanTvmModule(name, m).upgrade;
}

Result<UpgradedModule> UpgradeModule(const std::string& name, const ModuleMetadata& m,
                                     const std::map<std::string, std::string>& members,
                                     const std::string& metadata_sha256) {
  MLF_RETURN_IF_ERROR(CheckUpgradable(name, m));
  const TvmModuleInfo& tvm = *m.tvm;
  const std::string c = SanitizeCName(name);
  const std::string who = "module " + QuoteForMessage(name);
  const bool graph = tvm.executor == Executor::kGraph;
  const bool run_model = PlanTvmModule(name, m).entry == TvmEntryStyle::kRunModel;
  RewrittenCode code;
  tvm_compat::GraphPlan plan;
  if (graph) {
    MLF_ASSIGN_OR_RETURN(plan, PlanModuleGraph(who, m, members));
    MLF_ASSIGN_OR_RETURN(code, CarryGraphSources(who, c, m, members));
  } else if (run_model) {
    // The code defines no struct run; the adapter calls run_model with
    // the pointers of the mlfkit structs, whatever TVM's header says.
    MLF_ASSIGN_OR_RETURN(code, RewriteSources(who, c, m, members, true));
  } else {
    MLF_RETURN_IF_ERROR(CheckHeaderStructs(who, c, m, members));
    MLF_ASSIGN_OR_RETURN(code, RewriteSources(who, c, m, members, false));
  }

  UpgradedModule out;
  ModuleMetadata& v = out.metadata;
  v.model_name = m.model_name;
  v.target = m.target;
  if (v.target.kind.empty()) v.target.kind = "c";
  v.source = SourceInfo{SourceFormat::kTvm, std::nullopt, metadata_sha256, std::string(kProvenanceDir) + "metadata.json", {}, {}};
  v.description = "Upgraded by mlfkit from a TVM Model Library Format archive: metadata version " +
                  std::to_string(tvm.version) + ", model_name \"" + m.model_name + "\"" +
                  (tvm.targets.empty() ? std::string() : ", target \"" + tvm.targets[0] + "\"") +
                  ". The original members are under src/tvm/.";
  v.inputs = m.inputs;
  v.outputs = m.outputs;
  // A shape the archive does not say is written flat, as mlf run shows it.
  for (auto* list : {&v.inputs, &v.outputs}) {
    for (TensorInfo& t : *list) {
      if (t.shape_known) continue;
      MLF_RETURN_IF_ERROR(FlattenUnknownShape(who, t));
      out.notes.push_back(who + ": the archive does not say the shape of " + QuoteForMessage(t.name) +
                          "; written as " + FormatShape(t.shape) + " (" +
                          std::to_string(t.size_bytes) + " bytes of " + ToString(t.dtype) +
                          "), the shape mlf run shows");
    }
  }
  uint64_t io = 0;
  for (const auto* list : {&v.inputs, &v.outputs}) {
    for (const TensorInfo& t : *list) io += t.size_bytes;
  }
  AdapterLayout layout{code.pools_bytes, m.memory.workspace_size_bytes, "", run_model};
  v.memory.workspace_size_bytes = layout.pools_bytes + layout.tvm_workspace_bytes;
  v.memory.constants_size_bytes = 0;
  v.memory.io_size_bytes = io;
  v.memory.alignment_bytes = 64;
  v.parameters = LinkedParameters(m);
  if (graph) {
    layout = AdapterLayout{0, 0, tvm_compat::GraphRunSymbol(c)};
    v.memory.workspace_size_bytes = plan.workspace_bytes();
    v.memory.constants_size_bytes = plan.constants.size();
    v.parameters = BlobParameters(c, plan);
    out.constants = std::move(plan.constants);
  }
  for (const TvmOperatorFunction& f : tvm.operator_functions) v.operators.push_back(OperatorInfo{f.name, {}, 0, std::nullopt});

  const std::string adapter = std::string(kHostSourceDir) + c + "_mlf_adapter.c";
  if (graph) {
    code.sources.push_back(StagedFile{std::string(kHostSourceDir) + c + "_mlf_graph.c",
                                      tvm_compat::GraphRunSource(name, c, tvm.graph_path, plan)});
  }
  for (const StagedFile& s : code.sources) v.sources.push_back(s.path);
  v.sources.push_back(adapter);
  v.sources.push_back(kRuntimeSource);
  MLF_ASSIGN_OR_RETURN(std::string header, InterfaceHeader(name, v));
  MLF_ASSIGN_OR_RETURN(std::string adapter_text, AdapterSource(name, v, layout));
  out.code = std::move(code.sources);
  out.code.push_back(StagedFile{adapter, std::move(adapter_text)});
  out.code.push_back(StagedFile{std::string(kHostIncludeDir) + "tvmgen_" + c + ".h", std::move(header)});
  for (const std::string& n : code.notes) out.notes.push_back(who + ": " + n);
  if (!tvm.foreign_target.empty()) {
    out.not_for_host = "its code needs target " + tvm.foreign_target + " (" + tvm.foreign_evidence + ")";
  }
  if (!tvm.external_headers.empty()) {
    out.notes.push_back(who + ": its code includes headers from outside the archive (" +
                        Join(tvm.external_headers) + "): a build needs them on the include path");
  }
  return out;
}

}  // namespace mlf::tvm_upgrade
