// mlf project: an archive as a standalone firmware project; optionally built and run.
#include <iostream>

#include "artifact/archive/signature.h"
#include "artifact/base/display_text.h"
#include "loader/firmware/project.h"
#include "loader/firmware/project_build.h"
#include "loader/firmware/project_document.h"
#include "tools/mlf/archive_formats.h"
#include "tools/mlf/command.h"
#include "tools/mlf/model_io.h"
#include "tools/mlf/output_path.h"

namespace mlf::cli {
namespace {

using firmware::BuildSystem;

constexpr char kUsage[] =
    "usage: mlf project ARCHIVE -o DIR [--platform host|mps2-an385|mps2-an386|mps2-an500]\n"
    "                   [--board NAME|FILE.yaml]\n"
    "                   [--build-system make|cmake] [--sample-input NAME=FILE.npy]...\n"
    "                   [--quantize-inputs]\n"
    "                   [--vendor-source NAME=DIR]...\n"
    "                   [--build] [--run [--profile]] [--key NAME.pub] [--require-signature]\n"
    "                   [--json]\n\n"
    "Turns an mlfkit archive into a standalone C project in DIR: a Makefile and a\n"
    "CMakeLists.txt, the model sources and headers, parameters as const arrays in\n"
    "flash, a static workspace and static buffers (no heap), and a main.c that runs\n"
    "every module once and prints one line per output:\n\n"
    "  output <name> <count> <v0> <v1> ...     (floats as %.9g, integers in full)\n\n"
    "<name> is the output's C name, or <module>.<name> when the archive has several\n"
    "modules. Cortex-M projects also get startup code and a linker script. The archive\n"
    "is verified first, as `mlf verify` does; DIR must be missing or empty, and it\n"
    "appears complete or not at all. See the project's README.md.\n\n"
    "Apache TVM archives (metadata 5-7) are built as they are, with mlfkit's TVM\n"
    "compatibility headers and runtime (TVMBackendAllocWorkspace over a static\n"
    "workspace): AOT modules with the C interface, graph-executor modules (a static\n"
    "sequence of packed-function calls) and operator-style modules (every buffer is\n"
    "printed). Code for another core is refused, naming the platforms that run it.\n\n"
    "options:\n"
    "  -o, --output DIR         the project directory (required)\n"
    "  --board B                host (default), a built-in board (`mlf boards` lists\n"
    "                           them: MPS2/MPS3, netduinoplus2, stm32f405, microbit)\n"
    "                           or a board file FILE.yaml of your own (its CPU, memory\n"
    "                           regions, placement, console; loader/firmware/README.md)\n"
    "  --platform P             the older flag: host, mps2-an385 (Cortex-M3),\n"
    "                           mps2-an386 (Cortex-M4F) or mps2-an500 (Cortex-M7F)\n"
    "  --build-system S         make (default) or cmake: what --build runs (the\n"
    "                           project always has both)\n"
    "  --sample-input NAME=F    the input NAME (raw or C name, MODULE.NAME when several\n"
    "                           modules have one) starts as the .npy file F; others as zeros\n"
    "  --quantize-inputs        a float32 sample for a quantized (e.g. int8) input is\n"
    "                           quantized with the input's scale and zero point\n"
    "  --vendor-source NAME=DIR a vendor library the archive's code includes (CMSIS-NN,\n"
    "                           ESP-DL, ...): every *.c under DIR is compiled with the\n"
    "                           model, *.c and *.h are copied to vendor/NAME/, whose\n"
    "                           include path is vendor/NAME and its Include/ or include/\n"
    "  --build                  build it; on Cortex-M print flash and RAM by part and\n"
    "                           add that report to DIR/README.md\n"
    "  --run                    build and run it (in QEMU on Cortex-M), print its output\n"
    "                           and exit with its exit status; on a board QEMU models,\n"
    "                           also each module's instructions per inference (SysTick\n"
    "                           around its run under QEMU -icount shift=0, exact to one\n"
    "                           tick) and per MAC, and the stack: its high-water mark\n"
    "                           (painted before each run, scanned after) beside the\n"
    "                           static bound from -fstack-usage and -fcallgraph-info=su\n"
    "  --profile                with --run: also instructions per operator (index,\n"
    "                           name, kind, instructions, share of the inference),\n"
    "                           from the MLF_PROFILE hook the model's code calls\n"
    "                           around each operator\n"
    "  --key, --require-signature   as for `mlf verify`\n"
    "  --json                   print one JSON report at the end (docs/cli-json.md);\n"
    "                           the firmware's output is in it as a string\n\n"
    "Building needs make or cmake, and for Cortex-M arm-none-eabi-gcc with newlib;\n"
    "running needs qemu-system-arm. Their output is shown only when they fail.\n";

Result<firmware::ProjectOptions> Options(const ParsedArgs& args, const firmware::Platform& target) {
  firmware::ProjectOptions options;
  options.target = target;
  options.measure_fit = true;  // a misfit is refused before anything is written
  options.count_instructions = args.Has("run");
  options.profile = args.Has("profile");
  options.foreign_modules = ForeignFirmwareModules();
  options.verify.require_signature = args.Has("require-signature");
  if (args.Has("key")) {
    MLF_ASSIGN_OR_RETURN(std::string key, ReadKeyFile(args.Get("key")));
    options.verify.public_key_pem = key;
  }
  for (const std::string& assignment : args.GetAll("sample-input")) {
    MLF_ASSIGN_OR_RETURN(auto pair, SplitAssignment("sample-input", assignment));
    options.sample_inputs.push_back({pair.first, pair.second});
  }
  options.quantize_sample_inputs = args.Has("quantize-inputs");
  for (const std::string& value : args.GetAll("vendor-source")) {
    MLF_ASSIGN_OR_RETURN(firmware::VendorSourceSpec spec, firmware::ParseVendorSourceFlag(value));
    options.vendor_sources.push_back(spec);
  }
  return options;
}

void PrintGenerated(const std::string& dir, const firmware::GeneratedProject& p) {
  if (JsonOutput()) return;
  std::string modules;
  for (const std::string& m : p.modules) modules += (modules.empty() ? "" : ", ") + DisplayText(m);
  std::cout << "project " << dir << ": " << p.platform.name << ", "
            << (p.modules.size() == 1 ? "module " : "modules ") << modules << ", " << p.files.size()
            << " files\n";
}

void PrintBuilt(const firmware::BuiltFirmware& built) {
  if (JsonOutput()) return;
  std::cout << "built " << built.path << "\n";
  if (built.sizes) std::cout << "\n" << firmware::FormatSizeReport(*built.sizes) << "\n";
}

// Generates, then builds and runs as asked; returns the exit code.
Result<int> Project(const ParsedArgs& args, BuildSystem system, const firmware::Platform& target) {
  MLF_ASSIGN_OR_RETURN(firmware::ProjectOptions options, Options(args, target));
  const std::string dir = args.Get("output");
  MLF_ASSIGN_OR_RETURN(firmware::GeneratedProject p,
                       firmware::GenerateProject(args.positionals()[0], dir, options));
  PrintGenerated(dir, p);
  if (!args.Has("build") && !args.Has("run")) {
    if (JsonOutput()) PrintJsonReport(firmware::ProjectDocument(dir, p));
    return kExitOk;
  }
  firmware::BuildOptions build;
  build.system = system;
  MLF_ASSIGN_OR_RETURN(firmware::BuiltFirmware built,
                       firmware::BuildProject(dir, p.platform, build));
  PrintBuilt(built);
  if (!args.Has("run")) {
    if (JsonOutput()) PrintJsonReport(firmware::ProjectDocument(dir, p, &built));
    return kExitOk;
  }
  MLF_ASSIGN_OR_RETURN(firmware::FirmwareRun run, firmware::RunFirmware(dir, p.platform));
  MLF_ASSIGN_OR_RETURN(std::optional<firmware::RunMeasurements> measured,
                       firmware::ReadRunMeasurements(dir, p, run));
  if (JsonOutput()) {
    PrintJsonReport(firmware::ProjectDocument(dir, p, &built, &run, measured ? &*measured : nullptr));
  } else {
    std::cout << run.output;
    if (measured) {
      for (const firmware::InstructionCount& c : measured->counts) std::cout << FormatInstructionCount(c) << "\n";
      std::cout << firmware::FormatStack(measured->stack, measured->stack_bounds, measured->stack_bytes);
      for (const firmware::OperatorProfile& profile : measured->profiles) {
        std::cout << firmware::FormatOperatorProfile(profile);
      }
    }
    std::cout << std::flush;
  }
  if (run.exit_code != 0) {
    std::cerr << "mlf: error: the firmware exited with status " << run.exit_code << "\n";
  }
  return run.exit_code;
}

// DIR may be neither the archive nor a file the project is made from, nor contain one.
Status CheckProjectDirectory(const ParsedArgs& args) {
  std::vector<NamedPath> read = {FlagPath("ARCHIVE", args.positionals()[0])};
  if (args.Has("key")) read.push_back(FlagPath("--key", args.Get("key")));
  for (const std::string& assignment : args.GetAll("sample-input")) {
    Result<std::pair<std::string, std::string>> pair = SplitAssignment("sample-input", assignment);
    if (pair.ok()) read.push_back(FlagPath("--sample-input", pair->second));
  }
  return CheckOutputDirectory(FlagPath("-o", args.Get("output")), read);
}

int RunProject(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("project", args, 1, 1, &code)) return code;
  if (!args.Has("output")) return ReportUsageError("project", "missing required option '-o DIR'");
  Status distinct = CheckProjectDirectory(args);
  if (!distinct.ok()) return ReportUsageError("project", distinct.message());
  if (args.Has("platform") && args.Has("board")) {
    return ReportUsageError("project", "give --board or --platform, not both (--board takes every "
                                       "board --platform knows)");
  }
  Result<firmware::Platform> platform =
      args.Has("board") ? firmware::ResolveBoard(args.Get("board"))
                        : firmware::FindPlatform(args.Get("platform", "host"));
  if (!platform.ok()) {
    // A board file that is wrong is bad input (exit 1); a name nobody knows is bad usage.
    if (args.Has("board") && platform.status().code() != StatusCode::kInvalidArgument) {
      return ReportFailure(platform.status());
    }
    if (args.Has("board") && platform.status().message().rfind("unknown board", 0) != 0) {
      return ReportFailure(platform.status());
    }
    return ReportUsageError("project", platform.status().message());
  }
  if (args.Has("profile") && !args.Has("run")) {
    return ReportUsageError("project", "--profile needs --run (the profile is measured by running the "
                                       "firmware under QEMU)");
  }
  Result<BuildSystem> system = firmware::ParseBuildSystem(args.Get("build-system", "make"));
  if (!system.ok()) return ReportUsageError("project", system.status().message());
  Result<int> result = Project(args, *system, *platform);
  if (!result.ok()) return ReportFailure(result.status());
  return *result;
}

std::vector<FlagSpec> ProjectFlags() {
  std::vector<FlagSpec> flags = {
      {"output", true, false, "o"},      {"platform", true, false, ""},
      {"board", true, false, ""},
      {"build-system", true, false, ""}, {"sample-input", true, true, ""},
      {"quantize-inputs", false, false, ""},
      {"vendor-source", true, true, ""},
      {"build", false, false, ""},       {"run", false, false, ""},
      {"profile", false, false, ""},
      {"json", false, false, ""}};
  for (const FlagSpec& f : TrustFlags()) flags.push_back(f);
  return flags;
}

}  // namespace

const Command& ProjectCommand() {
  static const Command command{"project",
                               "an archive as a firmware project (Make, CMake, Cortex-M)", kUsage,
                               ProjectFlags(), RunProject};
  return command;
}

}  // namespace mlf::cli
