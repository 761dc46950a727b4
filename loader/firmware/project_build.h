// Building and running a generated firmware project: drives make or CMake,
// then QEMU (Cortex-M boards) or the binary itself (host). Tools run without
// a shell (artifact/base/subprocess.h), in the project directory, and write only
// under it (build/). Their output is kept quiet unless they fail: a failed
// build is kFailedPrecondition with the command and the tool's output.
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_BUILD_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_BUILD_H_

#include <optional>
#include <string>

#include "artifact/base/status.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/size_report.h"

namespace mlf::firmware {

enum class BuildSystem { kMake, kCMake };

// "make" or "cmake"; anything else is kInvalidArgument.
Result<BuildSystem> ParseBuildSystem(const std::string& name);

struct BuildOptions {
  BuildSystem system = BuildSystem::kMake;
  int jobs = 0;               // parallel compile jobs; 0: the number of CPUs
  int timeout_seconds = 900;  // for each tool run
};

struct BuiltFirmware {
  std::string path;                 // <dir>/build/app.elf or <dir>/build/app
  std::optional<SizeReport> sizes;  // Cortex-M only (size_report.h)
};

// Builds the project in `dir` for `platform` (the platform it was generated
// for). On Cortex-M it then measures flash and RAM and writes the report
// into the project's README.md.
Result<BuiltFirmware> BuildProject(const std::string& dir, const Platform& platform,
                                   const BuildOptions& options);

struct FirmwareRun {
  int exit_code = 0;   // the firmware's exit status (semihosting on Cortex-M)
  std::string output;  // what it printed, standard output and error interleaved
};

// Runs the built firmware once and returns its exit status and output; a
// non-zero status is a result, not an error. Not finishing within
// `timeout_seconds` is kFailedPrecondition naming the timeout.
Result<FirmwareRun> RunFirmware(const std::string& dir, const Platform& platform,
                                int timeout_seconds = 120);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_BUILD_H_
