#include "loader/firmware/build_files.h"

#include "artifact/base/cmake_text.h"
#include "artifact/base/make_text.h"
#include "loader/firmware/console.h"
#include "loader/firmware/linker_script.h"
#include "loader/firmware/templates.h"

namespace mlf::firmware {
namespace {

// Link flags of a bare-metal image: our linker script and startup code
// (-nostartfiles), newlib-nano, and librdimon for semihosting I/O and exit.
constexpr char kCortexMLinkFlags[] = "--specs=nano.specs --specs=rdimon.specs -nostartfiles";

// Set before project(): cross-compiling for a bare-metal Cortex-M, unless
// the project is a subdirectory of the user's build (whose compiler is set).
constexpr char kCMakeToolchain[] =
    "\n# A bare-metal Cortex-M: the GNU Arm Embedded toolchain and no OS. A toolchain\n"
    "# file given with -DCMAKE_TOOLCHAIN_FILE, or the build this project is a\n"
    "# subdirectory of, takes precedence.\n"
    "if(NOT CMAKE_TOOLCHAIN_FILE AND CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR)\n"
    "  set(CMAKE_SYSTEM_NAME Generic)\n"
    "  set(CMAKE_SYSTEM_PROCESSOR arm)\n"
    "  set(CMAKE_C_COMPILER arm-none-eabi-gcc)\n"
    "  # CMake's compiler check cannot link a program without startup code.\n"
    "  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)\n"
    "endif()\n";

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string MakeList(const std::vector<std::string>& paths) {
  return "  " + Join(paths, " \\\n  ");
}

std::string CMakeList(const std::vector<std::string>& paths) { return "  " + Join(paths, "\n  "); }

// What libmodel.a holds besides the model's sources, as a comment.
std::string LibraryDataText(const ProjectPlan& plan) {
  std::vector<std::string> parts;
  for (const ModulePlan& m : plan.modules) {
    if (!m.constants_source.empty()) {
      parts.push_back("the parameters the archive keeps in a file (const arrays)");
      break;
    }
  }
  if (plan.tvm) parts.push_back("mlfkit's runtime for TVM's code");
  if (parts.empty()) return "The library holds nothing besides the model's sources (no parameter file).";
  return "Also in the library, compiled for size: " + Join(parts, " and ") + ".";
}

std::string SizeTool(const Platform& p) { return p.tool_prefix() + "size"; }

std::string RunText(const Platform& p) {
  if (!p.runnable()) return "(QEMU has no model of " + p.name + ": flash build/app.elf to the board)";
  return p.cortex_m ? "run it in QEMU (" + p.name + "); semihosting carries output and exit status"
                    : "run it";
}

// `make run` on a board QEMU does not model says so and fails.
constexpr char kNoRun[] = "echo \"no QEMU model of this board: flash build/app.elf to it\"; exit 1";

// What the Makefile and CMakeLists.txt share; `title` is the plan's title
// as comment text of the file's language (the module names come from the
// archive).
TemplateValues CommonValues(const ProjectPlan& plan, const std::string& title) {
  const Platform& p = plan.platform;
  return {{"TITLE", title},
          {"PLATFORM_TEXT", p.description},
          {"APP", p.app_name()},
          {"RUN_TEXT", RunText(p)},
          {"SIZE", SizeTool(p)},
          {"SUPPORT_LIST", p.cortex_m ? "main(), the output code and the startup code"
                                      : "main() and the output code"}};
}

}  // namespace

std::string RunCommandText(const Platform& platform) {
  if (!platform.runnable()) return "(none: QEMU has no model of " + platform.name + ")";
  return Join(platform.RunCommand(), " ");
}

Result<std::string> Makefile(const ProjectPlan& plan) {
  const Platform& p = plan.platform;
  TemplateValues v = CommonValues(plan, MakeCommentText(plan.title));
  v["CC"] = p.cortex_m ? "arm-none-eabi-gcc" : "cc";
  v["ARCH_FLAGS"] = Join(p.arch_flags, " ");
  v["MODEL_SOURCES"] = MakeList(plan.model_sources);
  v["SUPPORT_SOURCES"] = MakeList(plan.support_sources);
  std::string defines;
  for (const std::string& d : plan.defines) defines += " -D" + d;
  for (const std::string& f : plan.compile_flags) defines += " " + f;
  v["DEFINES"] = defines;
  std::string includes;
  for (const std::string& dir : plan.include_dirs) includes += (includes.empty() ? "-I" : " -I") + dir;
  v["INCLUDE_FLAGS"] = includes;
  v["MODEL_CFLAGS"] = plan.model_flags.empty() ? "" : " " + plan.model_flags;
  const std::string script = p.cortex_m ? LinkerScriptPath(p.board) : "";
  v["LINK_FLAGS"] = p.cortex_m ? " -T " + script + " " + kCortexMLinkFlags : "";
  v["LINK_DEPENDS"] = p.cortex_m ? " " + script : "";
  v["RUN_COMMAND"] = p.runnable() ? RunCommandText(p) : "@" + std::string(kNoRun);
  return FillTemplate("Makefile", v);
}

Result<std::string> ModelMakefile(const ProjectPlan& plan) {
  const Platform& p = plan.platform;
  TemplateValues v = {{"TITLE", MakeCommentText(plan.title)}, {"PLATFORM_TEXT", p.description}};
  v["CC"] = p.cortex_m ? "arm-none-eabi-gcc" : "cc";
  v["AR"] = p.tool_prefix() + "ar";
  v["ARCH_FLAGS"] = Join(p.arch_flags, " ");
  std::string includes;
  for (const std::string& dir : plan.include_dirs) includes += (includes.empty() ? "" : " ") + ("-I$(MODEL_DIR)/" + dir);
  v["INCLUDE_FLAGS"] = includes;
  v["LANGUAGE_FLAGS"] = plan.model_flags.empty() ? "" : " " + plan.model_flags;
  std::string defines;
  for (const std::string& d : plan.library_defines) defines += " -D" + d;
  v["DEFINES"] = defines;
  std::vector<std::string> sources, data;
  for (const std::string& s : plan.model_sources) sources.push_back("$(MODEL_DIR)/" + s);
  for (const std::string& s : plan.library_sources) data.push_back("$(MODEL_DIR)/" + s);
  v["MODEL_SOURCES"] = MakeList(sources);
  v["DATA_TEXT"] = LibraryDataText(plan);
  v["DATA_SOURCES"] = data.empty() ? "" : " \\\n" + MakeList(data);
  return FillTemplate("model.mk", v);
}

Result<std::string> CMakeLists(const ProjectPlan& plan) {
  const Platform& p = plan.platform;
  const std::string arch = p.arch_flags.empty() ? "" : Join(p.arch_flags, " ") + " ";
  const std::string script_path = p.cortex_m ? LinkerScriptPath(p.board) : "";
  const std::string script = "-T${CMAKE_SOURCE_DIR}/" + script_path + " ";
  TemplateValues v = CommonValues(plan, CMakeCommentText(plan.title));
  v["MODEL_SOURCES"] = CMakeList(plan.model_sources);
  v["SUPPORT_SOURCES"] = CMakeList(plan.support_sources);
  v["DATA_TEXT"] = LibraryDataText(plan);
  v["DATA_SOURCES"] = plan.library_sources.empty() ? "" : "\n" + CMakeList(plan.library_sources) + "\n";
  v["LIBRARY_ARCH"] = Join(p.arch_flags, ";");
  std::vector<std::string> library_includes;
  for (const std::string& dir : plan.include_dirs) library_includes.push_back("${CMAKE_CURRENT_SOURCE_DIR}/" + dir);
  v["LIBRARY_INCLUDE_DIRS"] = Join(library_includes, " ");
  v["LIBRARY_DEFINES"] = plan.library_defines.empty()
                             ? ""
                             : "target_compile_definitions(mlfkit_model PRIVATE " +
                                   Join(plan.library_defines, " ") + ")\n";
  v["CMAKE_PROJECT"] = "mlf_firmware";
  v["TOOLCHAIN"] = p.cortex_m ? kCMakeToolchain : "";
  v["DEFINES"] = plan.defines.empty() ? ""
                                      : "target_compile_definitions(app PRIVATE " +
                                            Join(plan.defines, " ") + ")\n";
  v["INCLUDE_DIRS"] = Join(plan.include_dirs, " ");
  std::string model_options = "-O2";
  for (size_t start = 0, end; start < plan.model_flags.size(); start = end + 1) {
    end = plan.model_flags.find(' ', start);
    if (end == std::string::npos) end = plan.model_flags.size();
    model_options += ";" + plan.model_flags.substr(start, end - start);
  }
  v["MODEL_OPTIONS"] = model_options;
  v["COMPILE_OPTIONS"] = arch + "-Wall -ffunction-sections -fdata-sections";
  for (const std::string& f : plan.compile_flags) v["COMPILE_OPTIONS"] += " " + f;
  v["LINK_OPTIONS"] = arch + (p.cortex_m ? script + kCortexMLinkFlags + "\n    " : "") +
                      "-Wl,--gc-sections -Wl,-Map=${CMAKE_BINARY_DIR}/app.map";
  v["LINK_DEPENDS"] = p.cortex_m ? " LINK_DEPENDS ${CMAKE_SOURCE_DIR}/" + script_path : "";
  std::vector<std::string> run = p.RunCommand();
  if (run.empty()) {
    run = {"sh", "-c", "'" + std::string(kNoRun) + "'"};
  } else {
    run.back() = "$<TARGET_FILE:app>";
  }
  v["RUN_COMMAND"] = Join(run, " ");
  return FillTemplate("CMakeLists.txt", v);
}

// The vector table stops at HardFault unless SysTick's exception counts the
// counter's wraps for the instruction count (instruction_count.h).
constexpr char kShortVectorText[] =
    ".\n"
    " * It stops there on purpose (48 bytes of flash saved): this program enables\n"
    " * no interrupt and no configurable fault, and at reset MemManage, BusFault\n"
    " * and UsageFault are disabled, so every fault escalates to HardFault, and\n"
    " * SVCall, PendSV, SysTick and the debug monitor are never raised. Firmware\n"
    " * that enables any of them must extend the table to the exception's entry\n"
    " * (16 words for the system exceptions, more for device interrupts).";
constexpr char kSysTickVectorText[] =
    ", then\n"
    " * the other system exceptions up to SysTick (16 entries): SysTick is\n"
    " * mlf_systick_handler (src/mlf_cycles.c: it counts the wraps of the counter\n"
    " * that measures instructions per inference), every other one the fault\n"
    " * handler. Nothing else enables an interrupt; device interrupts would need\n"
    " * the table extended beyond entry 15.";
constexpr char kSysTickVectors[] =
    "    fault_handler,       /* MemManage */\n"
    "    fault_handler,       /* BusFault */\n"
    "    fault_handler,       /* UsageFault */\n"
    "    fault_handler,       /* SecureFault (Armv8-M), else reserved */\n"
    "    0,                   /* reserved */\n"
    "    0,                   /* reserved */\n"
    "    0,                   /* reserved */\n"
    "    fault_handler,       /* SVCall */\n"
    "    fault_handler,       /* debug monitor */\n"
    "    0,                   /* reserved */\n"
    "    fault_handler,       /* PendSV */\n"
    "    mlf_systick_handler, /* SysTick: src/mlf_cycles.c */\n";

Result<std::string> StartupSource(const ProjectPlan& plan) {
  const Board& b = plan.platform.board;
  const ConsoleCode console = ConsoleSource(b);
  const bool workspace = SeparateWorkspace(b);
  return FillTemplate(
      "startup.c",
      {{"BOARD", plan.platform.name},
       {"CPU", plan.platform.cpu},
       {"LINKER_SCRIPT", LinkerScriptPath(b).substr(9)},
       {"ZERO_TEXT", workspace ? " and the workspaces (region " + b.workspace + ")" : ""},
       {"ZERO_SYMBOLS", workspace ? "\nextern uint32_t __mlf_workspace_start[], __mlf_workspace_end[];" : ""},
       {"ZERO_CODE", workspace ? "  memset(__mlf_workspace_start, 0,\n"
                                 "         (size_t)((char*)__mlf_workspace_end - (char*)__mlf_workspace_start));\n"
                               : ""},
       {"CONSOLE_TEXT", console.description},
       {"CONSOLE_CODE", console.definitions},
       {"CONSOLE_INIT", console.init},
       {"VECTOR_TEXT", plan.count_instructions ? kSysTickVectorText : kShortVectorText},
       {"VECTOR_COUNT", plan.count_instructions ? "16" : "4"},
       {"VECTOR_INCLUDE", plan.count_instructions
                              ? "\n/* src/mlf_cycles.c: counts SysTick's wraps. */\n"
                                "void mlf_systick_handler(void);\n"
                              : ""},
       {"EXTRA_VECTORS", plan.count_instructions ? kSysTickVectors : ""}});
}

Result<std::string> LinkerScript(const ProjectPlan& plan) { return LinkerScript(plan.platform.board); }

}  // namespace mlf::firmware
