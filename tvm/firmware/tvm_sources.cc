#include "tvm/firmware/tvm_sources.h"

#include <algorithm>
#include <map>

#include "artifact/format/dtype.h"
#include "loader/firmware/c_text.h"
#include "loader/firmware/project_sources.h"
#include "loader/firmware/templates.h"
#include "tvm/compat/graph_source.h"
#include "tvm/compat/compat.h"
#include "tvm/compat/operator_source.h"
#include "tvm/plan/tvm_plan.h"

namespace mlf::firmware {
namespace {

// TVM's workspace alignment (kDefaultWorkspaceAlignment); also enough for
// any element type and the 16-byte vector loads of generated kernels.
constexpr char kAlign[] = " __attribute__((aligned(16)))";

std::string Array(const std::string& name, uint64_t bytes, const std::string& comment) {
  return "static uint8_t " + name + "[" + std::to_string(std::max<uint64_t>(bytes, 1)) + "]" +
         kAlign + ";" + (comment.empty() ? "" : " /* " + comment + " */") + "\n";
}

std::string WorkspaceArray(const ModulePlan& m) {
  if (m.workspace.empty()) return "/* no workspace: TVMBackendAllocWorkspace has nothing to hand out */\n";
  return Array(m.workspace, m.workspace_bytes,
               "behind TVMBackendAllocWorkspace (the metadata's workspace size)");
}

std::string WorkspaceArgs(const ModulePlan& m) {
  return m.workspace.empty() ? "NULL, 0" : m.workspace + ", sizeof " + m.workspace;
}

std::string Number(uint64_t v) { return std::to_string(v); }

// The graph plan of kTvmGraph module `m` (always a TvmGraphData: only
// TvmProjectModules() plans graph modules).
const tvm_compat::GraphPlan& Graph(const ModulePlan& m) {
  return static_cast<const TvmGraphData&>(*m.foreign).plan;
}

std::string SampleCopies(const ModulePlan& m) {
  std::string out;
  for (const TensorPlan& t : m.inputs) {
    if (t.sample.empty()) {
      out += "  /* " + Describe(t) + ": zeros (static storage), no sample input given */\n";
    } else {
      out += "  memcpy(" + t.buffer + ", " + t.sample + ", " + Number(t.info.size_bytes) +
             "); /* " + Describe(t) + ", from " + CCommentText(t.sample_source) + " */\n";
    }
  }
  return out;
}

// ------------------------------------------------------------------- aot --

Result<std::string> AotBlock(const ModulePlan& m) {
  std::string buffers;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorPlan& t : *list) buffers += Array(t.buffer, t.info.size_bytes, Describe(t));
  }
  buffers += WorkspaceArray(m);
  return FillTemplate("tvm_aot_module.c", {{"MODULE", CCommentText(m.name)},
                                           {"MOD", m.c_name},
                                           {"BUFFERS", buffers},
                                           {"SET_INPUTS", SetInputs(m)},
                                           {"SET_OUTPUTS", SetOutputs(m)},
                                           {"WORKSPACE", m.workspace.empty() ? "NULL" : m.workspace},
                                           {"WORKSPACE_SIZE", m.workspace.empty()
                                                                  ? "0"
                                                                  : "sizeof " + m.workspace},
                                           {"PRINTS", Prints(m)}});
}

// TVM 0.8's positional entry: tvmgen_<mod>_run_model(in0, ..., out0, ...),
// no struct run in the code (and perhaps no interface header).
std::string RunModelBlock(const ModulePlan& m) {
  std::string out = "\n/* ---- module \"" + CCommentText(m.name) +
                    "\": TVM AOT executor, positional tvmgen_" + m.c_name +
                    "_run_model (TVM 0.8: inputs, then outputs) ---- */\n\n";
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorPlan& t : *list) out += Array(t.buffer, t.info.size_bytes, Describe(t));
  }
  out += WorkspaceArray(m);
  std::string params;
  for (size_t i = 0; i < m.inputs.size() + m.outputs.size(); ++i) params += i ? ", void*" : "void*";
  out += "\nint32_t tvmgen_" + m.c_name + "_run_model(" + params + ");\n\nstatic int32_t call_" +
         m.c_name + "(void* inputs, void* outputs) {\n  void* const* in = (void* const*)inputs;\n"
         "  void* const* out = (void* const*)outputs;\n  (void)in;\n  (void)out;\n  return " +
         tvm_compat::RunModelCall(m.c_name, m.inputs.size(), m.outputs.size(), "in", "out") +
         ";\n}\n\nstatic int run_" + m.c_name + "(void) {\n  void* inputs[" +
         Number(std::max<size_t>(m.inputs.size(), 1)) + "];\n  void* outputs[" +
         Number(std::max<size_t>(m.outputs.size(), 1)) + "];\n  int32_t status;\n\n" +
         SampleCopies(m);
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    out += "  inputs[" + Number(i) + "] = " + m.inputs[i].buffer + ";\n";
  }
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    out += "  outputs[" + Number(i) + "] = " + m.outputs[i].buffer + ";\n";
  }
  return out + "  status = mlf_tvm_run_with_workspace(" +
         (m.workspace.empty() ? "NULL" : m.workspace) + ", " +
         (m.workspace.empty() ? "0" : "sizeof " + m.workspace) + ", call_" + m.c_name +
         ", inputs, outputs);\n  if (status != 0) return report_failure(" +
         CStringLiteral("tvmgen_" + m.c_name + "_run_model") + ", status);\n" + Prints(m) +
         "  return 0;\n}\n";
}

// ----------------------------------------------------------------- graph --

// The module's buffers and workspace, and a call of its graph function
// (src/<mod>_graph.c, tvm/compat/graph_source.h).
std::string GraphBlock(const ModulePlan& m) {
  std::string out = "\n/* ---- module \"" + CCommentText(m.name) + "\": TVM graph executor, " +
                    CCommentText(m.metadata->tvm->graph_path) + ", as the function in " +
                    m.graph_source + " ---- */\n\n";
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorPlan& t : *list) out += Array(t.buffer, t.info.size_bytes, Describe(t));
  }
  if (m.workspace.empty()) {
    out += "/* no workspace: the graph's storage is its inputs, outputs and parameters */\n";
  } else {
    out += Array(m.workspace, m.workspace_bytes,
                 Number(Graph(m).storage_bytes) + " bytes of graph storage, then " +
                     Number(Graph(m).allocator_bytes) + " behind TVMBackendAllocWorkspace");
  }
  out += "\n" + tvm_compat::GraphRunDeclaration(m.c_name) + "\nstatic int run_" + m.c_name +
         "(void) {\n  void* inputs[" + Number(std::max<size_t>(m.inputs.size(), 1)) +
         "];\n  void* outputs[" + Number(std::max<size_t>(m.outputs.size(), 1)) +
         "];\n  int32_t status;\n\n" + SampleCopies(m);
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    out += "  inputs[" + Number(i) + "] = " + m.inputs[i].buffer + ";\n";
  }
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    out += "  outputs[" + Number(i) + "] = " + m.outputs[i].buffer + ";\n";
  }
  return out + "  status = " + tvm_compat::GraphRunSymbol(m.c_name) + "(inputs, outputs, " +
         (m.workspace.empty() ? "NULL" : m.workspace) + ", " +
         (m.constants.empty() ? "NULL" : m.constants) + ");\n  if (status != 0) return report_failure(" +
         CStringLiteral(tvm_compat::GraphRunSymbol(m.c_name)) + ", status);\n" + Prints(m) +
         "  return 0;\n}\n";
}

// -------------------------------------------------------------- operator --

// The buffers, one array each, are the function's inputs and outputs.
std::string OperatorBlock(const ModulePlan& m) {
  std::string out = "\n/* ---- module \"" + CCommentText(m.name) +
                    "\": TVM operator style, as the function in " + m.operator_source +
                    " ---- */\n\n/* Every buffer of the operators; all are printed after the "
                    "calls (TVM does not record which ones are written). */\n";
  for (const TensorPlan& t : m.inputs) out += Array(t.buffer, t.info.size_bytes, Describe(t));
  out += WorkspaceArray(m);
  const std::string n = Number(std::max<size_t>(m.inputs.size(), 1));
  out += "\n" + tvm_compat::OperatorRunDeclaration(m.c_name) + "\nstatic int run_" + m.c_name +
         "(void) {\n  void* buffers[" + n + "];\n  int32_t status;\n\n" + SampleCopies(m);
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    out += "  buffers[" + Number(i) + "] = " + m.inputs[i].buffer + ";\n";
  }
  return out + "  status = " + tvm_compat::OperatorRunSymbol(m.c_name) + "(buffers, buffers, " +
         WorkspaceArgs(m) + ");\n  if (status != 0) return report_failure(" +
         CStringLiteral("the operators of module '" + m.name + "'") + ", status);\n" + Prints(m) +
         "  return 0;\n}\n";
}

}  // namespace

Result<std::string> TvmMainSource(const ProjectPlan& plan) {
  MainParts parts;
  for (const ModulePlan& m : plan.modules) {
    if (m.kind == ModuleKind::kTvmAot &&
        PlanTvmModule(m.name, *m.metadata).entry == TvmEntryStyle::kRunModel) {
      parts.modules += RunModelBlock(m);
    } else if (m.kind == ModuleKind::kTvmAot) {
      parts.includes += "#include \"tvmgen_" + m.c_name + ".h\"\n";
      MLF_ASSIGN_OR_RETURN(std::string block, AotBlock(m));
      parts.modules += block;
    } else if (m.kind == ModuleKind::kTvmGraph) {
      parts.modules += GraphBlock(m);
    } else if (m.kind == ModuleKind::kTvmOperator) {
      parts.modules += OperatorBlock(m);
    } else {
      return Internal("module '" + m.name + "' of a TVM archive is planned as an mlfkit module");
    }
    parts.calls += "  if (run_" + m.c_name + "() != 0) return 1;\n";
  }
  return FillMainTemplate("tvm_main.c", plan, parts);
}

std::string GraphSource(const ModulePlan& m) {
  return tvm_compat::GraphRunSource(m.name, m.c_name, m.metadata->tvm->graph_path, Graph(m));
}

std::string OperatorSource(const ModulePlan& m) {
  return tvm_compat::OperatorRunSource(m.name, m.c_name, *m.metadata->tvm, m.metadata->inputs);
}

std::string GraphParametersSource(const ModulePlan& m) {
  std::string out = "/*\n * Parameters of module \"" + CCommentText(m.name) + "\" from " +
                    CCommentText(m.metadata->parameters->path) + " (TVM's .params), " +
                    Number(Graph(m).constants.size()) +
                    " bytes as one const array in flash:\n"
                    " * main.c passes it to " + tvm_compat::GraphRunSymbol(m.c_name) +
                    " as its constants.\n * Generated by `mlf project`; see README.md.\n *\n";
  for (const ParamTensor& t : Graph(m).constants_index) {
    out += " *   " + CCommentText(t.name) + ": " + DTypeName(t.dtype) + FormatShape(t.shape) +
           " at offset " + Number(t.offset) + " (" + Number(t.size_bytes) + " bytes)\n";
  }
  return out + " */\n#include <stdint.h>\n\n#include \"model_data.h\"\n\nconst uint8_t " +
         m.constants + "[" + Number(std::max<size_t>(Graph(m).constants.size(), 1)) + "]" +
         " __attribute__((aligned(64))) = " + CByteInitializer(Graph(m).constants) + ";\n";
}

}  // namespace mlf::firmware
