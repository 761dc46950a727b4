// The firmware loader: turns an mlfkit archive into a standalone C project
// for a microcontroller or the host (docs/design.md, "Firmware loader"), e.g.
//
//   ProjectOptions options;
//   options.platform = "mps2-an385";
//   MLF_ASSIGN_OR_RETURN(GeneratedProject p, GenerateProject("m.tar", "fw", options));
//   MLF_ASSIGN_OR_RETURN(BuiltFirmware b, BuildProject("fw", p.platform, {}));   // project_build.h
//
// GenerateProject verifies the archive in one pass (the same checks as
// `mlf verify`, and the signature policy of options.verify) before anything
// is written, plans the project (project_plan.h has the layout), and writes
// it atomically (project_writer.h). All modules of the archive go into one
// firmware, run one after the other.
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_H_

#include <optional>
#include <string>
#include <vector>

#include "artifact/archive/verify.h"
#include "artifact/base/status.h"
#include "loader/firmware/fit.h"
#include "loader/firmware/foreign_project.h"
#include "loader/firmware/instruction_count.h"
#include "loader/firmware/operator_profile.h"
#include "loader/firmware/stack_usage.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/project_input.h"
#include "loader/firmware/project_plan.h"
#include "loader/firmware/project_writer.h"
#include "loader/firmware/sample_input.h"
#include "loader/firmware/vendor_source.h"

namespace mlf::firmware {

struct ProjectOptions {
  std::string platform = "host";               // platform.h: a --platform name
  // The target when set (ResolveBoard, platform.h: --board), else `platform`.
  std::optional<Platform> target;
  std::vector<SampleInputSpec> sample_inputs;  // sample_input.h
  // --quantize-inputs: float32 samples of quantized inputs are quantized.
  bool quantize_sample_inputs = false;
  VerifyOptions verify;                        // signature policy and reader limits
  // Modules of a foreign archive (TVM's: tvm_wing::FirmwareModules() of the
  // TVM wing, tvm/tvm.h), through the seam of foreign_project.h; its format
  // becomes verify.foreign_format. Null: TVM archives are refused
  // (kUnimplemented, artifact/archive/verify.h).
  const ForeignProjectModules* foreign_modules = nullptr;
  // On a board: build the project once in a scratch directory first and
  // refuse it when it does not fit (fit.h); `mlf project` always does. Off:
  // only the static check of parameters and buffers (project_plan.h).
  bool measure_fit = false;
  // --vendor-source NAME=DIR (vendor_source.h): libraries added to the project.
  std::vector<VendorSourceSpec> vendor_sources;
  // Measure each module's run with SysTick under QEMU (instruction_count.h):
  // src/mlf_cycles.[ch] and a systick line per module in the output. Only
  // on boards CanCountInstructions() accepts, for mlfkit archives; elsewhere
  // ignored. `mlf project --run` sets it.
  bool count_instructions = false;
  // With count_instructions: the MLF_PROFILE hook's harness too
  // (operator_profile.h), a profile line per operator. A project that cannot
  // count is kFailedPrecondition. `mlf project --run --profile` sets it.
  bool profile = false;
};

struct GeneratedProject {
  Platform platform;
  std::vector<std::string> modules;  // module names, in the order they run
  std::vector<std::string> files;    // paths written, relative to the directory
  VerifyReport report;               // what verification established
  FitReport fit;                     // on a board with measure_fit (fit.h)
  // The modules the firmware counts instructions of (count_instructions,
  // when the board allows it), in the order they run; else empty.
  std::vector<CountedModule> counted;
  bool profiled = false;  // the firmware prints per-operator profiles (ProjectOptions::profile)
};

// Every file of the project planned for `input` (no disk access); `foreign`
// writes a foreign (TVM) archive's own files (foreign_project.h).
Result<std::vector<ProjectFile>> ComposeProject(const ProjectPlan& plan, const ProjectInput& input,
                                                const ForeignProjectModules* foreign = nullptr);

// Verifies `archive`, then writes its project into `dir` (missing or empty).
Result<GeneratedProject> GenerateProject(const std::string& archive, const std::string& dir,
                                         const ProjectOptions& options);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_H_
