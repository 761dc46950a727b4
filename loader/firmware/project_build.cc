#include "loader/firmware/project_build.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "artifact/base/atomic_file.h"
#include "artifact/base/subprocess.h"
#include "loader/firmware/project_readme.h"

namespace mlf::firmware {
namespace {

// The end of a tool's output is where its error is.
constexpr size_t kShownOutput = 8192;

std::string Tail(const std::string& output) {
  if (output.size() <= kShownOutput) return output;
  return "...\n" + output.substr(output.size() - kShownOutput);
}

Status Run(const std::vector<std::string>& argv, const std::string& dir, int timeout_seconds,
           std::string* output = nullptr) {
  ProcessOptions options;
  options.cwd = dir;
  options.timeout_seconds = timeout_seconds;
  Result<ProcessResult> r = RunProcess(argv, options);
  if (!r.ok()) return r.status().WithContext("cannot run '" + argv[0] + "' (is it installed?)");
  if (r->exit_code != 0) {
    return FailedPrecondition("`" + CommandLine(argv) + "` failed (exit status " +
                              std::to_string(r->exit_code) + ") in " + dir + ":\n" +
                              Tail(r->output));
  }
  if (output) *output = std::move(r->output);
  return Status::Ok();
}

int Jobs(const BuildOptions& options) {
  if (options.jobs > 0) return options.jobs;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 ? static_cast<int>(cpus) : 1;
}

Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return IoError("cannot read " + path);
  return text.str();
}

// Sizes from `size` and the linker map; the report also goes into README.md.
Result<SizeReport> Measure(const std::string& dir, const Platform& platform, int timeout_seconds) {
  std::string size_output;
  MLF_RETURN_IF_ERROR(Run({platform.tool_prefix() + "size", "build/" + platform.app_name()}, dir,
                          timeout_seconds, &size_output));
  MLF_ASSIGN_OR_RETURN(std::string map, ReadText(dir + "/build/app.map"));
  MLF_ASSIGN_OR_RETURN(SizeReport report, ParseSizeReport(size_output, map));
  MLF_ASSIGN_OR_RETURN(std::string readme, ReadText(dir + "/README.md"));
  MLF_ASSIGN_OR_RETURN(std::string updated, ReplaceSizeReport(readme, FormatSizeReport(report)));
  MLF_RETURN_IF_ERROR(WriteFileAtomically(dir + "/README.md", updated));
  return report;
}

}  // namespace

Result<BuildSystem> ParseBuildSystem(const std::string& name) {
  if (name == "make") return BuildSystem::kMake;
  if (name == "cmake") return BuildSystem::kCMake;
  return InvalidArgument("unknown build system '" + name + "' (choose make or cmake)");
}

Result<BuiltFirmware> BuildProject(const std::string& dir, const Platform& platform,
                                   const BuildOptions& options) {
  const std::string jobs = std::to_string(Jobs(options));
  if (options.system == BuildSystem::kMake) {
    MLF_RETURN_IF_ERROR(Run({"make", "-j" + jobs}, dir, options.timeout_seconds));
  } else {
    MLF_RETURN_IF_ERROR(Run({"cmake", "-S", ".", "-B", "build"}, dir, options.timeout_seconds));
    MLF_RETURN_IF_ERROR(
        Run({"cmake", "--build", "build", "-j", jobs}, dir, options.timeout_seconds));
  }
  BuiltFirmware built;
  built.path = dir + "/build/" + platform.app_name();
  if (platform.cortex_m) {
    MLF_ASSIGN_OR_RETURN(SizeReport sizes, Measure(dir, platform, options.timeout_seconds));
    built.sizes = sizes;
  }
  return built;
}

Result<FirmwareRun> RunFirmware(const std::string& dir, const Platform& platform,
                                int timeout_seconds) {
  ProcessOptions options;
  options.cwd = dir;
  options.timeout_seconds = timeout_seconds;
  if (!platform.runnable()) {
    return FailedPrecondition("board " + platform.name +
                              " has no QEMU model: the firmware is built (build/" +
                              platform.app_name() + ") but cannot be run here");
  }
  const std::vector<std::string> argv = platform.RunCommand();
  Result<ProcessResult> r = RunProcess(argv, options);
  if (!r.ok()) return r.status().WithContext("cannot run '" + argv[0] + "' (is it installed?)");
  if (r->exit_code == 128 + 9) {
    return FailedPrecondition("the firmware did not finish within " +
                              std::to_string(timeout_seconds) + " seconds (`" + CommandLine(argv) +
                              "` in " + dir + "); output:\n" + Tail(r->output));
  }
  return FirmwareRun{r->exit_code, std::move(r->output)};
}

}  // namespace mlf::firmware
