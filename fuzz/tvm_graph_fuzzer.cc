// The TVM graph executor path over arbitrary bytes: ParseGraphProgram,
// PlanGraph and GraphRunSource, what every loader runs on a graph module's
// JSON and .params before any code is compiled.
//
// Input: the graph JSON, optionally followed by a NUL byte and a .params file
// (JSON text never holds a raw NUL, so the split is unambiguous). The module
// the plan is made for is derived from the program itself, the way the TVM
// normaliser describes a graph module: its inputs are the graph arguments
// that are not in .params, its outputs the heads ("output<i>").
//
// Invariants besides "no sanitizer finding":
//   - every error of the JSON starts with "graph executor JSON:";
//   - a parsed program's indices are in range: call arguments, heads and
//     arguments name entries, every entry's storage id has a size;
//   - a plan gives every storage id a home inside what it describes:
//     workspace regions 64-byte aligned within storage_bytes, constants within
//     the blob, inputs and outputs within the module's lists;
//   - the generated C defines the run function.
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "tvm/compat/graph_plan.h"
#include "tvm/compat/graph_source.h"
#include "tvm/format/tvm_params.h"

namespace {

using mlf::tvm_compat::GraphPlan;
using mlf::tvm_compat::GraphProgram;
using mlf::tvm_compat::StorageHome;

void CheckProgram(const GraphProgram& program) {
  const int entries = static_cast<int>(program.entries.size());
  auto in_range = [entries](int e) { return e >= 0 && e < entries; };
  for (const auto& call : program.calls) {
    MLF_FUZZ_CHECK(call.num_inputs >= 0 && call.num_inputs <= static_cast<int>(call.args.size()),
                   "call " + call.node_name + " has more inputs than arguments");
    for (int arg : call.args) {
      MLF_FUZZ_CHECK(in_range(arg), "call " + call.node_name + " argument out of range");
    }
  }
  for (int head : program.heads) MLF_FUZZ_CHECK(in_range(head), "head out of range");
  for (const auto& arg : program.args) MLF_FUZZ_CHECK(in_range(arg.entry), "argument out of range");
  for (const auto& entry : program.entries) {
    MLF_FUZZ_CHECK(program.storage_bytes.count(entry.storage_id) == 1,
                   "storage " + std::to_string(entry.storage_id) + " has no size");
    MLF_FUZZ_CHECK(program.storage_bytes.at(entry.storage_id) >= entry.bytes,
                   "storage " + std::to_string(entry.storage_id) + " smaller than its entry");
  }
}

mlf::TensorInfo EntryTensor(const std::string& name, const mlf::tvm_compat::GraphEntry& entry) {
  return mlf::TensorInfo{name, name, entry.dtype, entry.shape, entry.bytes, true, std::nullopt};
}

// The module a TVM graph archive's normalised metadata would describe.
mlf::ModuleMetadata ModuleOf(const GraphProgram& program, const std::set<std::string>& params) {
  mlf::ModuleMetadata m;
  m.tvm = mlf::TvmModuleInfo{};
  m.tvm->executor = mlf::Executor::kGraph;
  for (const auto& arg : program.args) {
    if (params.count(arg.name) == 0) m.inputs.push_back(EntryTensor(arg.name, program.entries[arg.entry]));
  }
  for (size_t i = 0; i < program.heads.size(); ++i) {
    m.outputs.push_back(EntryTensor("output" + std::to_string(i), program.entries[program.heads[i]]));
  }
  return m;
}

void CheckPlan(const GraphPlan& plan, const mlf::ModuleMetadata& m) {
  MLF_FUZZ_CHECK(plan.input_entries.size() == m.inputs.size(), "one entry per input");
  MLF_FUZZ_CHECK(plan.storage_bytes % 64 == 0, "storage_bytes a multiple of 64");
  for (const auto& [id, bytes] : plan.program.storage_bytes) {
    MLF_FUZZ_CHECK(plan.storage.count(id) == 1, "storage " + std::to_string(id) + " has no home");
    const StorageHome& home = plan.storage.at(id);
    switch (home.kind) {
      case StorageHome::kWorkspace:
        MLF_FUZZ_CHECK(home.at % 64 == 0 && home.at <= plan.storage_bytes &&
                           bytes <= plan.storage_bytes - home.at,
                       "workspace region of storage " + std::to_string(id) + " out of bounds");
        break;
      case StorageHome::kConstant:
        MLF_FUZZ_CHECK(home.at <= plan.constants.size() && bytes <= plan.constants.size() - home.at,
                       "constant of storage " + std::to_string(id) + " outside the blob");
        break;
      case StorageHome::kInput:
        MLF_FUZZ_CHECK(home.at < m.inputs.size(), "input index out of range");
        break;
      case StorageHome::kOutput:
        MLF_FUZZ_CHECK(home.at < m.outputs.size(), "output index out of range");
        break;
    }
  }
}

}  // namespace

MLF_FUZZ_TARGET(tvm_graph) {
  const std::string_view input = mlf::fuzz::AsView(data, size);
  const size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view params_file =
      nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);

  auto program = mlf::tvm_compat::ParseGraphProgram(json);
  if (!program.ok()) {
    MLF_FUZZ_CHECK(program.status().message().rfind("graph executor JSON:", 0) == 0,
                   "error without its prefix: " + program.status().ToString());
    return 0;
  }
  CheckProgram(*program);

  std::set<std::string> params;
  if (!params_file.empty()) {
    auto tensors = mlf::ReadTvmParams(params_file);
    if (tensors.ok()) {
      for (const auto& t : *tensors) params.insert(t.name);
    }
  }
  const mlf::ModuleMetadata m = ModuleOf(*program, params);
  auto plan = mlf::tvm_compat::PlanGraph(m, json, params_file);
  if (!plan.ok()) return 0;
  CheckPlan(*plan, m);

  const std::string source =
      mlf::tvm_compat::GraphRunSource("default", "default", "graph.json", *plan);
  MLF_FUZZ_CHECK(source.find(mlf::tvm_compat::GraphRunSymbol("default") + "(") != std::string::npos,
                 "generated C does not define the run function");
  return 0;
}
