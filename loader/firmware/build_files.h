// The build side of a firmware project, filled in from templates/: the
// Makefile and the CMakeLists.txt (both always written, both build the same
// build/<app> with the same flags), model.mk (the model alone as a library,
// which CMakeLists.txt also defines) and, for Cortex-M boards, the startup
// code and the linker script.
#ifndef MLFKIT_LOADER_FIRMWARE_BUILD_FILES_H_
#define MLFKIT_LOADER_FIRMWARE_BUILD_FILES_H_

#include <string>

#include "artifact/base/status.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

Result<std::string> Makefile(const ProjectPlan& plan);
Result<std::string> CMakeLists(const ProjectPlan& plan);

// model.mk: the Make fragment that builds the model alone as libmodel.a
// (plan.model_sources and plan.library_sources) for the user's own
// firmware; CMakeLists.txt's mlfkit::model target is the same library.
Result<std::string> ModelMakefile(const ProjectPlan& plan);

// platform/startup.c and platform/mps2.ld (Cortex-M platforms only).
Result<std::string> StartupSource(const ProjectPlan& plan);
Result<std::string> LinkerScript(const ProjectPlan& plan);

// "qemu-system-arm -M mps2-an385 ... -kernel build/app.elf" or "./build/app":
// how the README and the build files run the firmware.
std::string RunCommandText(const Platform& platform);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_BUILD_FILES_H_
