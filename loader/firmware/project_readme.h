// README.md of a firmware project (templates/README.md): how to build and
// run it, what it prints, the memory map, flash and RAM, and how to call the
// model from one's own firmware. The size report section is filled in by
// `mlf project --build` (ReplaceSizeReport).
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_README_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_README_H_

#include <string>
#include <string_view>

#include "artifact/base/status.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

Result<std::string> ProjectReadme(const ProjectPlan& plan);

// `readme` with the text between the size-report markers replaced by
// `report`. kFailedPrecondition when the markers are gone (edited by hand).
Result<std::string> ReplaceSizeReport(std::string_view readme, const std::string& report);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_README_H_
