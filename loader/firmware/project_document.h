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

// What the run of a counting project (GeneratedProject::counted) measured,
// read from its output and its build.
struct RunMeasurements {
  std::vector<InstructionCount> counts;     // instruction_count.h
  std::vector<OperatorProfile> profiles;    // operator_profile.h, when profiled
  std::vector<StackMeasurement> stack;      // stack_usage.h: painted, per module
  StackBounds stack_bounds;                 // from the build's -fcallgraph-info
  uint64_t stack_bytes = 0;                 // the board's stack
};

// The measurements of `run` of the project in `dir`; nullopt when the
// project does not count (nothing to read).
Result<std::optional<RunMeasurements>> ReadRunMeasurements(const std::string& dir, const GeneratedProject& project,
                                                           const FirmwareRun& run);

// {ok, project, platform, modules, files}, then "built" {path, sizes?} when
// `built` is given and "run" {exit_status, output} when `run` is (ok is
// then whether the firmware exited with 0); with `measured`,
// run.instructions lists the counts: {module, instructions, resolution,
// ticks, clock_hz, macs, instructions_per_mac (null without MACs)};
// run.stack is {size, measured: [{module, bytes}], bound: {bounded, bytes
// (null when unbounded), why_unbounded, path, library_call_allowance,
// exception_bytes}}; and with a profile, run.profile lists per module
// {module, inference_instructions, operator_instructions, resolution,
// operators: [{index, name, kind, ticks, instructions, share}]}.
nlohmann::json ProjectDocument(const std::string& dir, const GeneratedProject& project,
                               const BuiltFirmware* built = nullptr, const FirmwareRun* run = nullptr,
                               const RunMeasurements* measured = nullptr);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_DOCUMENT_H_
