// Whether a firmware fits its board, decided when the project is generated
// (docs/design.md, "Firmware loader"; loader/firmware/README.md, "Fit"):
// the project is built once in a scratch directory with a linker script that
// gives every region of the board 256 MiB, and the linked image's output
// sections (code, constants, .data, the workspace, the I/O buffers and .bss,
// the stack) are added up per region of the real board. The code is thus
// measured as compiled and linked (--gc-sections, the C library), not
// estimated.
//
//   MLF_ASSIGN_OR_RETURN(FitReport fit, MeasureFit(plan, files));
//   MLF_RETURN_IF_ERROR(CheckFit(fit, plan.platform));   // kOutOfRange with the numbers
#ifndef MLFKIT_LOADER_FIRMWARE_FIT_H_
#define MLFKIT_LOADER_FIRMWARE_FIT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/project_plan.h"
#include "loader/firmware/project_writer.h"

namespace mlf::firmware {

struct RegionUse {
  std::string region;
  uint64_t size = 0;  // the board's
  uint64_t used = 0;
  std::vector<std::pair<std::string, uint64_t>> parts;  // ("code", 1234), ... in script order
};

struct FitReport {
  // False when the image could not be built here (no arm-none-eabi-gcc, or
  // code that does not compile): nothing was measured, regions is empty.
  bool measured = false;
  std::string why_not;  // when !measured
  std::vector<RegionUse> regions;
};

// Builds `files` (the project planned by `plan`, for a Cortex-M board) in a
// scratch directory and measures each region's use.
Result<FitReport> MeasureFit(const ProjectPlan& plan, const std::vector<ProjectFile>& files,
                             int timeout_seconds = 600);

// Parses `arm-none-eabi-size -A` of the measuring image (exposed for tests).
Result<FitReport> RegionUseFromSizes(const Board& board, const std::string& size_output);

// kOutOfRange when a region is over, e.g.
//   the firmware does not fit tiny (measured by building it):
//     RAM: needs 9000 bytes, has 8192, over by 808 (stack 2048, I/O buffers and .bss 6952)
//   what could help: ...
Status CheckFit(const FitReport& fit, const Platform& platform);

// The kOutOfRange error for the regions of `uses` that are over, `how` the
// way the numbers were found ("measured by building it").
Status MisfitError(const Platform& platform, const std::vector<RegionUse>& uses,
                   const std::string& how);

// The board used for measuring: every region 256 MiB, at 256 MiB steps.
Board MeasuringBoard(const Board& board);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_FIT_H_
