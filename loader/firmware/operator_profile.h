// Per-operator profiles (issue 19 point 4; `mlf project --run --profile`):
// the harness templates/mlf_profile.[ch] behind the MLF_PROFILE hook that
// the model's run function calls around each operator, and the table read
// back from the firmware's output.
//
// The generated run function brackets operator i (its index in the
// metadata's operators) with MLF_PROFILE_BEGIN(i) / MLF_PROFILE_END(i)
// (codegen/emit/module_emitter.cc), which are nothing unless the build
// defines MLF_PROFILE. A profiling project defines it, and its harness adds
// the SysTick ticks between the two calls to the operator's total; main.c
// prints, after the module's systick line (instruction_count.h),
//
//   profile <module C name> <operator index> <ticks>
//
// for every operator. Only indices reach C and the firmware's output: the
// operators' names and kinds come from the metadata on the host, and are
// printed through DisplayText.
#ifndef MLFKIT_LOADER_FIRMWARE_OPERATOR_PROFILE_H_
#define MLFKIT_LOADER_FIRMWARE_OPERATOR_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "loader/firmware/instruction_count.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

// Adds the profiling harness to a project that counts instructions
// (AddInstructionCounter first): src/mlf_profile.c, MLF_PROFILE and
// MLF_PROFILE_MAX_OPERATORS (the most operators of a module, at least 1),
// and plan->profile. kFailedPrecondition when the project does not count
// (a board QEMU does not model or without a clock, the host, a TVM archive).
Status AddOperatorProfiler(ProjectPlan* plan);

struct OperatorProfileRow {
  uint64_t index = 0;     // in the metadata's operators
  std::string name;       // the operator's name (from the model: display it escaped)
  std::string kind;       // its ops, joined by '+', e.g. "QLinearConv+Relu"
  uint64_t ticks = 0;
  uint64_t instructions = 0;  // ticks * 1e9 / clock_hz, rounded
  double share = 0;           // of the whole inference's instructions, 0..1
};

struct OperatorProfile {
  std::string module;              // the metadata key
  uint64_t inference_instructions = 0;  // the module's systick count
  uint64_t operator_instructions = 0;   // the rows' sum
  uint64_t resolution = 0;              // instructions per tick
  std::vector<OperatorProfileRow> rows;  // every operator, in order
};

// The profiles of `modules` from the firmware's `output`, one per module
// of `counts` (the modules that ran: ReadInstructionCounts). Every operator
// of such a module must have exactly one profile line; a module that has
// none (code without the hook: an archive exported before it existed) is
// kFailedPrecondition saying to export it again, other missing, repeated,
// malformed or unknown lines kDataLoss naming the line.
Result<std::vector<OperatorProfile>> ReadOperatorProfiles(const std::string& output,
                                                          const std::vector<CountedModule>& modules,
                                                          const std::vector<InstructionCount>& counts);

// The table, names escaped for a terminal:
//   module tiny: instructions per operator (under QEMU -icount shift=0, each to one SysTick tick, 40 instructions):
//      #  operator  kind         instructions   share
//      0  conv1     Conv+Relu          12,345   35.7%
//     ...
//         (outside the operators)         123    0.4%
std::string FormatOperatorProfile(const OperatorProfile& profile);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_OPERATOR_PROFILE_H_
