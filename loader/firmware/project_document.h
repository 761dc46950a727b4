// The report of one `mlf project` (docs/cli-json.md, "project"): what was
// generated, and what building and running it gave. `mlf project --json`
// prints it and the Python package's `project()` returns it, so the two
// cannot disagree.
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_DOCUMENT_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_DOCUMENT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "loader/firmware/instruction_count.h"
#include "loader/firmware/project.h"
#include "loader/firmware/project_build.h"

namespace mlf::firmware {

// {ok, project, platform, modules, files}, then "built" {path, sizes?} when
// `built` is given and "run" {exit_status, output} when `run` is (ok is
// then whether the firmware exited with 0); with `counts`, run.instructions
// lists them: {module, instructions, resolution, ticks, clock_hz, macs,
// instructions_per_mac (null without MACs)}.
nlohmann::json ProjectDocument(const std::string& dir, const GeneratedProject& project,
                               const BuiltFirmware* built = nullptr, const FirmwareRun* run = nullptr,
                               const std::vector<InstructionCount>* counts = nullptr);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_DOCUMENT_H_
