#include "loader/firmware/tvm_sources.h"

#include <algorithm>
#include <map>

#include "artifact/dtype.h"
#include "loader/firmware/c_text.h"
#include "loader/firmware/project_sources.h"
#include "loader/firmware/templates.h"

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

// `int32_t f(void* args, int32_t* type_codes, int32_t num_args, ...)`.
std::string PackedDeclaration(const std::string& function) {
  return "int32_t " + function +
         "(void* args, int32_t* type_codes, int32_t num_args, void* out_ret_value,\n"
         "    int32_t* out_ret_tcode, void* resource_handle);\n";
}

// One DLTensor argument: set_tensor(&tensors[i], ..., data, ndim, shape, code, bits).
std::string TensorArgument(size_t i, const std::string& data, const std::string& shape,
                           const std::vector<int64_t>& dims, DType dtype) {
  const DLDataType dl = ToDLPack(dtype);
  return "  set_tensor(&tensors[" + Number(i) + "], &values[" + Number(i) + "], &codes[" +
         Number(i) + "], " + data + ", " + Number(dims.size()) + ", " +
         (dims.empty() ? "NULL" : shape) + ", " + Number(dl.code) + ", " + Number(dl.bits) + ");\n";
}

std::string ShapeArray(const std::string& name, const std::vector<int64_t>& dims) {
  if (dims.empty()) return "";
  std::string values;
  for (int64_t d : dims) values += (values.empty() ? "" : ", ") + std::to_string(d);
  return "  static const int64_t " + name + "[" + Number(dims.size()) + "] = {" + values + "};\n";
}

std::string CallPacked(const std::string& function, size_t args) {
  return "  status = " + function + "(values, codes, " + Number(args) +
         ", &ret_value, &ret_code, NULL);\n  if (status != 0) return status;\n";
}

std::string PackedLocals(size_t max_args) {
  const std::string n = Number(std::max<size_t>(max_args, 1));
  return "  DLTensor tensors[" + n + "];\n  TVMValue values[" + n + "];\n  int32_t codes[" + n +
         "];\n  TVMValue ret_value;\n  int32_t ret_code;\n  int32_t status;\n"
         "  (void)unused_inputs;\n  (void)unused_outputs;\n";
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

std::string RunFunction(const ModulePlan& m, const std::string& body, const std::string& what) {
  return "\nstatic int run_" + m.c_name + "(void) {\n  int32_t status;\n\n" + SampleCopies(m) +
         "  status = mlf_tvm_run_with_workspace(" + WorkspaceArgs(m) + ", " + body + "_" +
         m.c_name + ", NULL, NULL);\n  if (status != 0) return report_failure(" +
         CStringLiteral(what) + ", status);\n" + Prints(m) + "  return 0;\n}\n";
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

// ----------------------------------------------------------------- graph --

// What each storage id holds, for the comments.
std::map<int, std::string> StorageUse(const ModulePlan& m) {
  std::map<int, std::string> use;
  const GraphProgram& g = m.graph;
  for (const GraphArg& a : g.args) {
    std::string& text = use[g.entries[a.entry].storage_id];
    text += std::string(text.empty() ? "" : ", ") + "argument \"" + CCommentText(a.name) + "\"";
  }
  for (size_t i = 0; i < g.heads.size(); ++i) {
    int sid = g.entries[g.heads[i]].storage_id;
    use[sid] += std::string(use[sid].empty() ? "" : ", ") + "output \"" +
                CCommentText(m.outputs[i].info.name) + "\"";
  }
  return use;
}

std::string GraphStorage(const ModulePlan& m) {
  std::map<int, std::string> use = StorageUse(m);
  std::string out = "/* The graph's storage: one array per storage id of TVM's memory plan. */\n";
  for (const auto& [sid, name] : m.storage) {
    const std::string what = use.count(sid) ? use[sid] : "intermediates";
    if (name.empty()) {
      out += "/* storage " + Number(sid) + ": " + what + ", a parameter in flash (parameters/) */\n";
    } else {
      out += Array(name, m.graph.storage_bytes.at(sid), "storage " + Number(sid) + ": " + what);
    }
  }
  return out + WorkspaceArray(m);
}

// The data pointer of entry `e`: its storage array or its parameter.
std::string EntryData(const ModulePlan& m, int e) {
  const int sid = m.graph.entries[e].storage_id;
  const std::string& storage = m.storage.at(sid);
  if (!storage.empty()) return storage;
  for (const GraphParam& p : m.graph_params) {
    if (p.storage_id == sid) return "(void*)" + p.array;
  }
  return "NULL";
}

std::string GraphCallCode(const ModulePlan& m, const GraphCall& call) {
  const GraphProgram& g = m.graph;
  std::string out = "\n  /* node \"" + CCommentText(call.node_name) + "\"" +
                    (call.node_name == call.function ? "" : ": " + CCommentText(call.function)) +
                    " */\n";
  if (call.function == "__nop" || call.function == "__copy") {
    const std::string from = EntryData(m, call.args[0]), to = EntryData(m, call.args[1]);
    if (from == to) return out + "  /* the output shares its input's storage: nothing to do */\n";
    return out + "  memcpy(" + to + ", " + from + ", " + Number(g.entries[call.args[1]].bytes) + ");\n";
  }
  for (size_t i = 0; i < call.args.size(); ++i) {
    const GraphEntry& e = g.entries[call.args[i]];
    out += TensorArgument(i, EntryData(m, call.args[i]), "shape_" + Number(call.args[i]), e.shape,
                          e.dtype);
  }
  return out + CallPacked(call.function, call.args.size());
}

std::string GraphBlock(const ModulePlan& m) {
  const GraphProgram& g = m.graph;
  std::string out = "\n/* ---- module \"" + CCommentText(m.name) + "\": TVM graph executor, " +
                    CCommentText(m.metadata->tvm->graph_path) + " ---- */\n\n" + GraphStorage(m);
  std::map<std::string, bool> declared;
  size_t max_args = 1;
  for (const GraphCall& call : g.calls) {
    max_args = std::max(max_args, call.args.size());
    if (call.function == "__nop" || call.function == "__copy" || declared[call.function]) continue;
    declared[call.function] = true;
    out += "\n" + PackedDeclaration(call.function);
  }
  // The shapes of every entry a call uses ("shape_<entry id>").
  std::string shapes;
  std::map<int, bool> shaped;
  for (const GraphCall& call : g.calls) {
    if (call.function == "__nop" || call.function == "__copy") continue;
    for (int e : call.args) {
      if (!shaped[e]) shapes += ShapeArray("shape_" + Number(e), g.entries[e].shape);
      shaped[e] = true;
    }
  }
  out += "\n/* The graph's nodes in order, as TVM's graph executor runs them. */\n"
         "static int32_t graph_" + m.c_name + "(void* unused_inputs, void* unused_outputs) {\n" +
         shapes + PackedLocals(max_args);
  for (const GraphCall& call : g.calls) out += GraphCallCode(m, call);
  out += "  (void)tensors;\n  (void)values;\n  (void)codes;\n  (void)ret_value;\n  (void)ret_code;\n"
         "  (void)status;\n  return 0;\n}\n";
  return out + RunFunction(m, "graph", "the graph of module '" + m.name + "'");
}

// -------------------------------------------------------------- operator --

std::string OperatorBlock(const ModulePlan& m) {
  const std::vector<TvmOperatorBuffer>& buffers = m.metadata->tvm->operator_buffers;
  std::string out = "\n/* ---- module \"" + CCommentText(m.name) +
                    "\": TVM operator style ---- */\n\n/* Every buffer of the operators; all are "
                    "printed after the calls (TVM does not record which ones are written). */\n";
  for (const TensorPlan& t : m.inputs) out += Array(t.buffer, t.info.size_bytes, Describe(t));
  out += WorkspaceArray(m);
  std::vector<std::string> functions;
  size_t max_args = 1;
  for (const TvmOperatorBuffer& b : buffers) {
    if (std::find(functions.begin(), functions.end(), b.function) == functions.end()) {
      functions.push_back(b.function);
      out += "\n" + PackedDeclaration(b.function);
    }
  }
  std::string calls;
  for (const std::string& f : functions) {
    calls += "\n  /* " + f + " */\n";
    size_t arg = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].function != f) continue;
      const TensorPlan& t = m.inputs[i];
      calls += ShapeArray("shape_" + Number(i), t.info.shape) +
               TensorArgument(arg++, t.buffer, "shape_" + Number(i), t.info.shape, t.dtype);
    }
    max_args = std::max(max_args, arg);
    calls += CallPacked(f, arg);
  }
  out += "\nstatic int32_t operators_" + m.c_name +
         "(void* unused_inputs, void* unused_outputs) {\n" + PackedLocals(max_args) + calls +
         "  return 0;\n}\n";
  return out + RunFunction(m, "operators", "the operators of module '" + m.name + "'");
}

}  // namespace

Result<std::string> TvmMainSource(const ProjectPlan& plan) {
  std::string includes, modules, calls;
  bool packed = false;
  for (const ModulePlan& m : plan.modules) {
    if (m.kind == ModuleKind::kTvmAot) {
      includes += "#include \"tvmgen_" + m.c_name + ".h\"\n";
      MLF_ASSIGN_OR_RETURN(std::string block, AotBlock(m));
      modules += block;
    } else if (m.kind == ModuleKind::kTvmGraph) {
      modules += GraphBlock(m);
      packed = true;
    } else if (m.kind == ModuleKind::kTvmOperator) {
      modules += OperatorBlock(m);
      packed = true;
    } else {
      return Internal("module '" + m.name + "' of a TVM archive is planned as an mlfkit module");
    }
    calls += "  if (run_" + m.c_name + "() != 0) return 1;\n";
  }
  std::string helpers;
  if (packed) {
    std::optional<std::string_view> text = ProjectTemplate("tvm_packed_helpers.c");
    if (!text) return Internal("no project template named 'tvm_packed_helpers.c'");
    helpers = std::string(*text);
  }
  const bool several = plan.modules.size() > 1;
  return FillTemplate(
      "tvm_main.c",
      {{"TITLE", CCommentText(plan.title)},
       {"LABEL_FORMAT", several ? "<module>.<name>" : "<name>"},
       {"LABEL_TEXT", several ? "<module> is the module's C name, <name> the output's C name."
                              : "<name> is the output's C name."},
       {"INCLUDES", includes},
       {"PACKED_HELPERS", helpers},
       {"MODULES", modules},
       {"CALLS", calls}});
}

std::string GraphParametersPath(const ModulePlan& m) { return m.constants_source; }

std::string GraphParametersSource(const ModulePlan& m) {
  std::string out = "/*\n * Parameters of module \"" + CCommentText(m.name) + "\" from " +
                    CCommentText(m.metadata->parameters->path) +
                    " (TVM's .params), as const arrays in flash:\n"
                    " * main.c passes them to the graph's functions as DLTensor data.\n"
                    " * Generated by `mlf project`; see README.md.\n */\n"
                    "#include <stdint.h>\n\n#include \"model_data.h\"\n";
  for (const GraphParam& p : m.graph_params) {
    const GraphEntry* entry = nullptr;
    for (const GraphArg& a : m.graph.args) {
      if (a.name == p.name) entry = &m.graph.entries[a.entry];
    }
    out += "\n/* \"" + CCommentText(p.name) + "\"" +
           (entry ? std::string(": ") + DTypeName(entry->dtype) + FormatShape(entry->shape) : "") +
           ", graph storage " + Number(p.storage_id) + " */\nconst uint8_t " + p.array + "[" +
           Number(std::max<size_t>(p.bytes.size(), 1)) + "]" + kAlign + " = " +
           CByteInitializer(p.bytes) + ";\n";
  }
  return out;
}

}  // namespace mlf::firmware
