#include "loader/firmware/project_readme.h"

#include <algorithm>
#include <cstdio>

#include "loader/firmware/linker_script.h"

#include "artifact/base/markdown_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "loader/firmware/build_files.h"
#include "loader/firmware/c_text.h"
#include "loader/firmware/templates.h"

namespace mlf::firmware {
namespace {

constexpr char kBegin[] = "<!-- mlf:size-report -->\n";
constexpr char kEnd[] = "<!-- /mlf:size-report -->";

std::string Tensors(const std::vector<TensorPlan>& tensors) {
  std::string out;
  for (const TensorPlan& t : tensors) {
    out += (out.empty() ? "" : "<br>") + ("`" + t.info.c_name + "` " + DTypeName(t.dtype)) +
           FormatShape(t.info.shape);
  }
  return out.empty() ? "none" : out;
}

std::string Workspace(const ModulePlan& plan) {
  if (plan.kind != ModuleKind::kMlf) {
    return std::to_string(plan.workspace_bytes) + " bytes (TVMBackendAllocWorkspace)";
  }
  const ModuleMetadata& m = *plan.metadata;
  std::string out = std::to_string(m.memory.workspace_size_bytes) + " bytes";
  if (m.memory.workspace_lower_bound_bytes) {
    return out +
           " (planner's lower bound: " + std::to_string(*m.memory.workspace_lower_bound_bytes) +
           ")";
  }
  return out + " (no lower bound recorded)";
}

std::string Parameters(const ModulePlan& m) {
  if (m.kind == ModuleKind::kTvmGraph) {
    if (m.constants.empty()) return "none";
    return std::to_string(m.constants_bytes) + " bytes from " +
           MarkdownText(m.metadata->parameters->path) + ", `" + m.constants_source + "`";
  }
  if (m.kind == ModuleKind::kTvmOperator) return "none";
  if (!m.metadata->parameters) return "none";
  if (m.constants.empty()) return "linked into the code";
  return std::to_string(m.metadata->memory.constants_size_bytes) + " bytes, `" +
         m.constants_source + "`";
}

std::string ModuleTable(const ProjectPlan& plan) {
  std::string out;
  for (const ModulePlan& m : plan.modules) {
    out += std::string(out.empty() ? "" : "\n") + "| `" + m.c_name + "` | " + Tensors(m.inputs) +
           " | " + Tensors(m.outputs) + " | " + Workspace(m) + " | " + Parameters(m) +
           " |";
  }
  return out;
}

// File-scope buffers of the example: "<mod>_<c_name>", never a local's name.
std::string ExampleBuffers(const ModulePlan& m, const std::string& macro) {
  std::string out;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorPlan& t : *list) {
      out += std::string("static ") + CElementType(t.dtype) + " " + m.c_name + "_" + t.info.c_name +
             "[" + std::to_string(t.count > 0 ? t.count : 1) + "]; /* " + DTypeName(t.dtype) + ", " +
             macro + "_" + ToMacroCase(t.info.c_name) + "_SIZE bytes */\n";
    }
  }
  if (!m.workspace.empty()) {
    out += "static uint8_t " + m.c_name + "_workspace[" + macro +
           "_WORKSPACE_SIZE] __attribute__((aligned(MLF_WORKSPACE_ALIGNMENT)));\n";
  }
  return out;
}

std::string ExampleFunction(const ModulePlan& m, const std::string& macro) {
  const std::string c = m.c_name;
  std::string out = "int32_t infer_" + c + "(void) {\n  struct tvmgen_" + c +
                    "_inputs inputs = {0};\n  struct tvmgen_" + c + "_outputs outputs = {0};\n" +
                    "  struct tvmgen_" + c + "_workspace_pools pools = {0};\n";
  for (const TensorPlan& t : m.inputs) {
    out += "  inputs." + t.info.c_name + " = " + c + "_" + t.info.c_name + ";\n";
  }
  for (const TensorPlan& t : m.outputs) {
    out += "  outputs." + t.info.c_name + " = " + c + "_" + t.info.c_name + ";\n";
  }
  out += m.workspace.empty() ? "  pools.workspace = NULL; /* " + macro + "_WORKSPACE_SIZE is 0 */\n"
                             : "  pools.workspace = " + c + "_workspace;\n";
  out += m.constants.empty() ? "  pools.constants = NULL; /* parameters linked into the code */\n"
                             : "  pools.constants = " + m.constants + ";\n";
  return out + "  return tvmgen_" + c + "_run(&inputs, &outputs, &pools); /* 0: success */\n}\n";
}

// A self-contained example of calling module `m` with caller-owned memory.
std::string CallExample(const ModulePlan& m) {
  const std::string macro = "TVMGEN_" + ToMacroCase(m.c_name);
  std::string out = "Module `" + m.c_name +
                    "`:\n\n```c\n#include <stddef.h>\n\n#include \"tvmgen_" + m.c_name + ".h\"\n";
  if (!m.constants.empty()) {
    out += "#include \"model_data.h\" /* " + m.constants + ", in flash */\n";
  }
  return out + "\n" + ExampleBuffers(m, macro) + "\n" + ExampleFunction(m, macro) + "```\n";
}

std::string KiB(uint64_t bytes) {
  if (bytes % (1024 * 1024) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes / 1024) + " KiB";
}

std::string Hex(uint64_t v) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08llx", static_cast<unsigned long long>(v));
  return text;
}

// What the board puts into `r`.
std::string Holds(const Board& b, const MemoryRegion& r) {
  std::vector<std::string> parts;
  if (b.code == r.name) parts.push_back("vector table, code, initial values of .data");
  if (b.constants == r.name) parts.push_back("constants, parameters");
  if (b.stack == r.name) parts.push_back("stack (" + KiB(b.stack_bytes) + ", lowest)");
  if (b.workspace == r.name) parts.push_back("workspaces");
  if (b.io == r.name) parts.push_back(".data, .bss (input and output buffers)");
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out.empty() ? "-" : out;
}

std::string MemoryMap(const Platform& p) {
  if (!p.cortex_m) return "";
  const Board& b = p.board;
  std::string table =
      "\n## Memory map\n\n| region | address | size | holds |\n| --- | --- | --- | --- |\n";
  for (const MemoryRegion& r : b.memory) {
    table += "| " + r.name + " | " + Hex(r.base) + " | " + KiB(r.size) + " | " +
             (r.description.empty() ? "" : r.description + ": ") + Holds(b, r) + " |\n";
  }
  return table + "\nFrom the board description of " + b.name + " (`" + LinkerScriptPath(b) +
         "` is generated from it; `mlf boards` lists the built-in boards). "
         "The stack sits at the bottom of its region, so an overflow leaves the region instead of "
         "overwriting data. "
         "There is no heap: nothing links malloc (`platform/startup.c` explains how newlib's stdio "
         "set-up is kept from pulling it in), and `end`, where a heap would start, is the top of "
         "the region of .bss. A fault prints a `fault:` line and exits with status 1 through "
         "semihosting.\n";
}

// How a linker script of the user's own places the model's memory.
std::string Sections(const Platform& p) {
  if (!p.cortex_m) return "";
  return "## Placing the model's memory in your own firmware\n\n"
         "`" + LinkerScriptPath(p.board) + "` is generated from the board description; a firmware "
         "of your own has its own linker script. Every array of the model's memory is in a "
         "section named after it (`-fdata-sections`), and `src/model_data.h` defines a macro "
         "in front of each kind, empty unless your build defines it:\n\n"
         "| macro | what | default section |\n| --- | --- | --- |\n"
         "| `MLF_SECTION_CONSTANTS` | parameters (`parameters/`) | `.rodata.mlf_<module>_constants` |\n"
         "| `MLF_SECTION_SAMPLES` | sample inputs | `.rodata.mlf_sample_<module>_<input>` |\n"
         "| `MLF_SECTION_WORKSPACE` | workspaces | `.bss.mlf_workspace_<module>` |\n"
         "| `MLF_SECTION_IO` | input and output buffers | `.bss.mlf_in_*`, `.bss.mlf_out_*` |\n\n"
         "For example, to keep the workspace in a core-coupled memory that DMA need not reach "
         "and the parameters in external flash, add to the compiler flags (`CFLAGS` in the "
         "Makefile, `target_compile_definitions` in CMakeLists.txt)\n\n"
         "```sh\n-DMLF_SECTION_WORKSPACE='__attribute__((section(\".ccmram\")))'\n"
         "-DMLF_SECTION_CONSTANTS='__attribute__((section(\".qspi\")))'\n```\n\n"
         "and give those sections a place in your linker script:\n\n"
         "```ld\nSECTIONS\n{\n"
         "  .ccmram (NOLOAD) : { *(.ccmram) } > CCMRAM   /* not zeroed: a workspace needs no zeros */\n"
         "  .qspi : { KEEP(*(.qspi)) } > QSPI_FLASH\n"
         "  /* ... the rest of your script ... */\n}\n```\n\n"
         "Without the macros, matching the default names works as well, e.g. "
         "`*(.bss.mlf_workspace_*)` in an output section of the region you choose (that is what "
         "`" + LinkerScriptPath(p.board) + "` does when the board puts the workspace in its own "
         "region).\n\n";
}

// The CPU flags the library is compiled with, which the user's build must
// agree with.
std::string LibraryArchText(const Platform& p) {
  if (!p.cortex_m) return "";
  std::string flags;
  for (const std::string& f : p.arch_flags) flags += (flags.empty() ? "" : " ") + f;
  return " It is compiled for " + p.name + "'s CPU, `" + flags + "` (`MODEL_ARCH` in `model.mk`, "
         "`MLFKIT_MODEL_ARCH_FLAGS` in CMake): the kernels choose their code by these flags, and "
         "your objects must use the same floating-point ABI.";
}

std::string SizeHowTo(const Platform& p) {
  if (!p.cortex_m) {
    return "`make size` (`size build/app`) shows the host binary's sections. The report by part "
           "below is made for the Cortex-M platforms, where it means flash and RAM.";
  }
  return "`make size` (or `arm-none-eabi-size build/app.elf`) prints text, data and bss: flash = "
         "text + data, RAM = data + bss (bss includes the stack). `build/app.map`, the linker map, "
         "lists every section the linker kept with the object file it came from, and "
         "`arm-none-eabi-nm -S --size-sort build/app.elf` lists symbols by size. "
         "`mlf project --build` adds the map up by part:";
}

std::string PlatformLayout(const ProjectPlan& plan) {
  const Platform& p = plan.platform;
  if (!p.cortex_m) return "";
  std::string script = LinkerScriptPath(p.board);
  script.resize(std::max<size_t>(script.size(), 23), ' ');
  return std::string(plan.count_instructions
              ? "src/mlf_cycles.[ch]     SysTick around each run: a \"systick <module> <ticks> <clock Hz>\"\n"
                "                        line per module, instructions = ticks x 1e9 / clock under QEMU\n"
                "                        -icount shift=0 (mlf project --run adds it)\n"
                "src/mlf_stack.[ch]      the stack painted before each run and scanned after: a\n"
                "                        \"stack <module> <bytes>\" line per module (its high-water mark)\n"
              : "") +
         (plan.profile
              ? "src/mlf_profile.[ch]    the MLF_PROFILE hook around each operator (-DMLF_PROFILE): a\n"
                "                        \"profile <module> <operator index> <ticks>\" line per operator\n"
                "                        (-DMLF_PROFILE_DWT: DWT cycles on real hardware instead)\n"
              : "") +
         std::string("platform/startup.c      vector table, reset and fault handlers, C runtime glue\n") +
         script + " linker script: the memory map below\n";
}

std::string ModuleNote(const ModulePlan& m) {
  const std::string c = "`" + m.c_name + "`";
  switch (m.kind) {
    case ModuleKind::kTvmAot:
      return "- " + c + " (AOT executor, C interface): `tvmgen_" + m.c_name +
             "_run(&inputs, &outputs)` from `tvmgen_" + m.c_name + ".h`, called through "
             "`mlf_tvm_run_with_workspace`. TVM's code is not reentrant when it keeps USMP pools "
             "as static arrays.";
    case ModuleKind::kTvmGraph:
      return "- " + c + " (graph executor): there is no graph interpreter in the firmware. `mlf "
             "project` read " + MarkdownCodeSpan(m.metadata->tvm->graph_path) +
             " and wrote the graph as one C function, `mlf_tvm_" + m.c_name + "_graph_run()` in `" + m.graph_source +
             "`, which calls the nodes' packed functions in order with `DLTensor` arguments (the "
             "same code `mlf run` and `mlf upgrade` generate). Graph storage is one static "
             "workspace; the parameters from `.params` are one const array" +
             (m.constants_source.empty() ? std::string() : " in `" + m.constants_source + "`") + ".";
    case ModuleKind::kTvmOperator:
      return "- " + c + " (operator style): `mlf_tvm_" + m.c_name + "_operators_run()` in `" +
             m.operator_source + "` calls each operator's packed function with `DLTensor`s over "
             "its buffers (the same code `mlf run` generates). TVM's metadata does not say which "
             "buffers an operator writes, so every buffer is an input (`--sample-input` fills it, "
             "else zeros) and every buffer is printed after the call.";
    case ModuleKind::kMlf: break;
  }
  return "";
}

std::string ModelLayout(const ProjectPlan& plan) {
  if (!plan.tvm) {
    return "codegen/host/include/   the models' C interface: tvmgen_<mod>.h and mlf/model_abi.h\n"
           "codegen/host/src/       the models' generated C sources, exactly as in the archive\n"
           "parameters/             parameters the archive keeps in a file, as const arrays (flash)\n";
  }
  bool bundled = false;
  for (const ModulePlan& m : plan.modules) bundled |= m.metadata->tvm->bundled_runtime;
  return std::string("codegen/host/include/   TVM's C interface headers (AOT modules), as in the archive\n") +
         "codegen/host/src/       TVM's generated C sources, exactly as in the archive\n" +
         (bundled ? "runtime/include/        the archive's bundled TVM runtime headers (used first)\n" : "") +
         "mlf_tvm/                mlfkit's stand-ins for TVM's runtime headers and runtime\n"
         "parameters/             a graph module's .params as one const array (flash)\n";
}

Result<std::string> Calling(const ProjectPlan& plan) {
  if (!plan.tvm) {
    std::string examples;
    for (const ModulePlan& m : plan.modules)
      examples += (examples.empty() ? "" : "\n") + CallExample(m);
    return FillTemplate("calling.md", {{"CALL_EXAMPLES", examples}});
  }
  std::string notes;
  bool bundled = false;
  for (const ModulePlan& m : plan.modules) {
    notes += (notes.empty() ? "" : "\n") + ModuleNote(m);
    bundled |= m.metadata->tvm->bundled_runtime;
  }
  return FillTemplate(
      "tvm_calling.md",
      {{"TVM_VERSION", std::to_string(plan.modules.front().metadata->tvm->version)},
       {"BUNDLED_TEXT", bundled ? " The archive's own `runtime/include/` comes first on the "
                                  "include path, so its headers are the ones used."
                                : ""},
       {"MODULE_NOTES", notes}});
}

}  // namespace

Result<std::string> ProjectReadme(const ProjectPlan& plan) {
  const Platform& p = plan.platform;
  const bool several = plan.modules.size() > 1;
  MLF_ASSIGN_OR_RETURN(std::string calling, Calling(plan));
  return FillTemplate(
      "README.md",
      {{"TITLE", MarkdownText(plan.title)},
       {"ARCHIVE", MarkdownCodeSpan(plan.archive_name)},
       {"PLATFORM", p.name},
       {"PLATFORM_TEXT", p.description},
       {"MODULES_TEXT",
        several ? "its " + std::to_string(plan.modules.size()) + " modules" : "the model"},
       {"MODULE_TABLE", ModuleTable(plan)},
       {"REQUIREMENTS",
        p.cortex_m ? "Needs `arm-none-eabi-gcc` with newlib (Debian: `gcc-arm-none-eabi "
                     "libnewlib-arm-none-eabi`) and, to run without a board, `qemu-system-arm`."
                   : "Needs a C compiler (`cc`) and make or CMake."},
       {"APP", p.app_name()},
       {"RUN_TEXT", RunCommandText(p)},
       {"LABEL_FORMAT", several ? "<module>.<name>" : "<name>"},
       {"LABEL_TEXT", several ? "`<module>` is the module's C name and `<name>` the output's."
                              : "`<name>` is the output's C name."},
       {"PLATFORM_LAYOUT", PlatformLayout(plan)},
       {"MEMORY_MAP", MemoryMap(p)},
       {"SIZE_HOWTO", SizeHowTo(p)},
       {"SIZE_REPORT", p.cortex_m ? "Not measured yet: `mlf project --build` fills in this table."
                                  : "(Cortex-M platforms only.)"},
       {"MODEL_LAYOUT", ModelLayout(plan)},
       {"SECTIONS", Sections(p)},
       {"LIBRARY_ARCH_TEXT", LibraryArchText(p)},
       {"CALLING", calling}});
}

Result<std::string> ReplaceSizeReport(std::string_view readme, const std::string& report) {
  const size_t begin = readme.find(kBegin);
  const size_t end = readme.find(kEnd);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    return FailedPrecondition("README.md has no size report section (its markers were removed)");
  }
  const size_t from = begin + sizeof(kBegin) - 1;
  return std::string(readme.substr(0, from)) + report + std::string(readme.substr(end));
}

}  // namespace mlf::firmware
