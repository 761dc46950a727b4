#include "loader/firmware/project_sources.h"

#include <algorithm>

#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "loader/firmware/c_text.h"
#include "loader/firmware/templates.h"

namespace mlf::firmware {
namespace {

// Alignment of the input and output buffers: any element type, and 16-byte
// vector loads, which generated kernels may use.
constexpr int kBufferAlignment = 16;

// model_data.h's section macros (README.md of the project: "Placing the
// model's memory"): empty unless the build defines them.
constexpr char kSectionMacros[] =
    "/* Where each part of the model's memory goes. By default nowhere special:\n"
    " * -fdata-sections gives every array a section named after it, which\n"
    " * platform/<board>.ld places by name:\n"
    " *   MLF_SECTION_CONSTANTS  parameters (.rodata.mlf_<module>_constants)\n"
    " *   MLF_SECTION_SAMPLES    sample inputs (.rodata.mlf_sample_<module>_<input>)\n"
    " *   MLF_SECTION_WORKSPACE  workspaces (.bss.mlf_workspace_<module>)\n"
    " *   MLF_SECTION_IO         input and output buffers (.bss.mlf_in_..., .bss.mlf_out_...)\n"
    " * A linker script of your own can match those names, or define a macro to\n"
    " * put that part into a section of its choosing, e.g.\n"
    " *   -DMLF_SECTION_WORKSPACE='__attribute__((section(\".ccmram\")))'\n"
    " * (a NOLOAD section is not zeroed by the C start-up: the workspace needs no\n"
    " * zeroing, the buffers of inputs without a sample do). */\n"
    "#ifndef MLF_SECTION_CONSTANTS\n#define MLF_SECTION_CONSTANTS\n#endif\n"
    "#ifndef MLF_SECTION_SAMPLES\n#define MLF_SECTION_SAMPLES\n#endif\n"
    "#ifndef MLF_SECTION_WORKSPACE\n#define MLF_SECTION_WORKSPACE\n#endif\n"
    "#ifndef MLF_SECTION_IO\n#define MLF_SECTION_IO\n#endif\n\n";


// TVMGEN_<MOD>_<NAME>_SIZE, or 1 for an empty tensor (C has no empty arrays).
std::string SizeMacro(const ModulePlan& m, const TensorPlan& t) {
  if (t.info.size_bytes == 0) return "1 /* the tensor is empty */";
  return "TVMGEN_" + ToMacroCase(m.c_name) + "_" + ToMacroCase(t.info.c_name) + "_SIZE";
}

std::string Buffers(const ModulePlan& m) {
  std::string out;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorPlan& t : *list) {
      out += "/* " + Describe(t) + " */\nMLF_SECTION_IO static uint8_t " + t.buffer + "[" + SizeMacro(m, t) +
             "] __attribute__((aligned(" + std::to_string(kBufferAlignment) + ")));\n";
    }
  }
  if (m.workspace.empty())
    return out + "/* no workspace: TVMGEN_" + ToMacroCase(m.c_name) + "_WORKSPACE_SIZE is 0 */\n";
  return out + "MLF_SECTION_WORKSPACE static uint8_t " + m.workspace + "[TVMGEN_" + ToMacroCase(m.c_name) +
         "_WORKSPACE_SIZE] __attribute__((aligned(MLF_WORKSPACE_ALIGNMENT)));\n";
}

}  // namespace

std::string Describe(const TensorPlan& t) {
  return "\"" + CCommentText(t.info.name) + "\": " + DTypeName(t.dtype) + FormatShape(t.info.shape);
}

std::string SetInputs(const ModulePlan& m) {
  std::string out;
  for (const TensorPlan& t : m.inputs) {
    if (!t.sample.empty()) {
      out += "  memcpy(" + t.buffer + ", " + t.sample + ", sizeof " + t.buffer + "); /* from " +
             CCommentText(t.sample_source) + " */\n";
    }
    out += "  inputs." + t.info.c_name + " = " + t.buffer + ";" +
           (t.sample.empty() ? " /* zeros: no sample input given */" : "") + "\n";
  }
  return out;
}

std::string SetOutputs(const ModulePlan& m) {
  std::string out;
  for (const TensorPlan& t : m.outputs)
    out += "  outputs." + t.info.c_name + " = " + t.buffer + ";\n";
  return out;
}

std::string Prints(const ModulePlan& m) {
  std::string out;
  for (const TensorPlan& t : m.outputs) {
    out += "  mlf_print_output(" + CStringLiteral(t.label) + ", " + t.buffer + ", " +
           std::to_string(t.count) + "u, " + FormatFunction(t.dtype) + ");\n";
  }
  return out;
}

namespace {

// The harness around a module's run when counting (instruction_count.h):
// the stack painted before and scanned after (stack_usage.h), the operators'
// totals cleared and printed when profiling (operator_profile.h).
struct Harness {
  std::string declaration, before, after, print;
};

Harness ModuleHarness(const ModulePlan& m, const ProjectPlan& plan) {
  Harness h;
  if (!plan.count_instructions) return h;
  const std::string label = CStringLiteral(m.c_name);
  h.declaration = "  uint64_t ticks;\n  uint32_t stack;\n";
  h.before = "  mlf_stack_paint();\n";
  if (plan.profile) h.before += "  mlf_profile_reset();\n";
  h.before += "  ticks = mlf_cycles_now();\n";
  h.after = "  ticks = mlf_cycles_now() - ticks;\n  stack = mlf_stack_used();\n";
  h.print = "  mlf_cycles_print(" + label + ", ticks);\n  mlf_stack_print(" + label + ", stack);\n";
  if (plan.profile) {
    h.print += "  mlf_profile_print(" + label + ", " + std::to_string(m.metadata->operators.size()) + "u);\n";
  }
  return h;
}

Result<std::string> ModuleBlock(const ModulePlan& m, const ProjectPlan& plan) {
  const Harness h = ModuleHarness(m, plan);
  return FillTemplate("module.c", {{"MODULE", CCommentText(m.name)},
                                   {"MOD", m.c_name},
                                   {"BUFFERS", Buffers(m)},
                                   {"SET_INPUTS", SetInputs(m)},
                                   {"SET_OUTPUTS", SetOutputs(m)},
                                   {"WORKSPACE", m.workspace.empty() ? "NULL" : m.workspace},
                                   {"CONSTANTS", m.constants.empty() ? "NULL" : m.constants},
                                   {"PRINTS", Prints(m)},
                                   {"COUNT_DECLARATION", h.declaration},
                                   {"COUNT_BEFORE", h.before},
                                   {"COUNT_AFTER", h.after},
                                   {"COUNT_PRINT", h.print}});
}

}  // namespace

Result<std::string> FillMainTemplate(const std::string& template_name, const ProjectPlan& plan,
                                     const MainParts& parts) {
  const bool several = plan.modules.size() > 1;
  return FillTemplate(
      template_name,
      {{"TITLE", CCommentText(plan.title)},
       {"LABEL_FORMAT", several ? "<module>.<name>" : "<name>"},
       {"LABEL_TEXT", several ? "<module> is the module's C name, <name> the output's C name."
                              : "<name> is the output's C name."},
       {"INCLUDES", parts.includes},
       {"MODULES", parts.modules},
       {"CALLS", parts.calls}});
}

Result<std::string> MainSource(const ProjectPlan& plan) {
  MainParts parts;
  if (plan.count_instructions) {
    parts.includes += "#include \"mlf_cycles.h\"\n#include \"mlf_stack.h\"\n";
    parts.calls += "  mlf_cycles_start(); /* instructions per inference: src/mlf_cycles.h */\n";
  }
  if (plan.profile) {
    parts.includes += "#include \"mlf_profile.h\"\n";
    parts.calls += "  mlf_profile_start(); /* per-operator profiles: src/mlf_profile.h */\n";
  }
  for (const ModulePlan& m : plan.modules) {
    parts.includes += "#include \"tvmgen_" + m.c_name + ".h\"\n";
    MLF_ASSIGN_OR_RETURN(std::string block, ModuleBlock(m, plan));
    parts.modules += block;
    parts.calls += "  if (run_" + m.c_name + "() != 0) return 1;\n";
  }
  return FillMainTemplate("main.c", plan, parts);
}

std::string ModelDataHeader(const ProjectPlan& plan) {
  std::string out =
      "/*\n * model_data.h - const data the firmware keeps in flash: parameters the archive\n"
      " * stores in a file (parameters/) and sample inputs (sample_inputs.c).\n"
      " * Generated by `mlf project`; see README.md.\n */\n"
      "#ifndef MLF_MODEL_DATA_H_\n#define MLF_MODEL_DATA_H_\n\n#include <stdint.h>\n\n" +
      std::string(kSectionMacros);
  for (const ModulePlan& m : plan.modules) {
    if (!m.constants.empty()) {
      out += "/* Module \"" + CCommentText(m.name) + "\": pass as pools.constants. */\n" +
             "extern const uint8_t " + m.constants + "[];\n";
    }
    for (const TensorPlan& t : m.inputs) {
      if (!t.sample.empty()) {
        out += "/* Sample for input " + Describe(t) + " of module \"" + CCommentText(m.name) +
               "\". */\nextern const uint8_t " + t.sample + "[];\n";
      }
    }
  }
  return out + "\n#endif /* MLF_MODEL_DATA_H_ */\n";
}

std::string ParametersSource(const ModulePlan& m, const std::string& blob) {
  std::string out = "/*\n * Parameters of module \"" + CCommentText(m.name) + "\", " +
                    std::to_string(blob.size()) + " bytes from " +
                    CCommentText(m.constants_member) +
                    ",\n * as a const array in flash. main.c passes it to tvmgen_" + m.c_name +
                    "_run as pools.constants.\n * Generated by `mlf project`; see README.md.\n *\n";
  for (const ParamTensorInfo& t : m.metadata->parameters->tensors) {
    out += " *   " + CCommentText(t.name) + ": " + ToString(t.dtype) + FormatShape(t.shape) + " at offset " +
           std::to_string(t.offset) + " (" + std::to_string(t.size_bytes) + " bytes)\n";
  }
  return out +
         " */\n#include <stdint.h>\n\n#include \"mlf/model_abi.h\"\n#include \"model_data.h\"\n\n" +
         "MLF_SECTION_CONSTANTS const uint8_t " + m.constants + "[" +
         std::to_string(std::max<size_t>(blob.size(), 1)) +
         "] __attribute__((aligned(MLF_WORKSPACE_ALIGNMENT))) = " + CByteInitializer(blob) + ";\n";
}

std::string SampleInputsSource(const ProjectPlan& plan) {
  std::string out =
      "/*\n * sample_inputs.c - the inputs main.c starts from, given to `mlf project`\n"
      " * with --sample-input. Generated by `mlf project`; see README.md.\n */\n"
      "#include <stdint.h>\n\n#include \"model_data.h\"\n";
  for (const ModulePlan& m : plan.modules) {
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      const TensorPlan& t = m.inputs[i];
      if (t.sample.empty()) continue;
      const std::string& bytes = plan.samples.at({m.name, static_cast<int>(i)}).bytes;
      out += "\n/* Module \"" + CCommentText(m.name) + "\", input " + Describe(t) + ", from " +
             CCommentText(t.sample_source) + ". */\nMLF_SECTION_SAMPLES const uint8_t " + t.sample + "[" +
             std::to_string(std::max<size_t>(bytes.size(), 1)) +
             "] __attribute__((aligned(16))) = " + CByteInitializer(bytes) + ";\n";
    }
  }
  return out;
}

}  // namespace mlf::firmware
