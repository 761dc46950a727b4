// Instructions per inference under QEMU (issue 14 point 5, issue 19 point 4):
// the harness templates/mlf_cycles.[ch] that a project gets when asked to
// count, and the report read back from the firmware's output.
//
// QEMU runs every board with `-icount shift=0` (platform.h: RunCommand), so
// one guest instruction is one nanosecond of virtual time, and SysTick, on
// the processor clock, counts virtual time: an inference of T ticks executed
// T * 1e9 / clock_hz instructions, exact to one tick (1e9 / clock_hz
// instructions: 40 at the MPS2 boards' 25 MHz). The DWT cycle counter is no
// use here: QEMU does not model it (it reads 0).
//
// The harness is outside the counted runtime: main.c reads the counter just
// before and after each tvmgen_<mod>_run() call, and prints one line per
// module after its outputs,
//
//   systick <module C name> <ticks> <clock Hz>
//
// which ReadInstructionCounts turns into instructions and, with the MACs the
// module's metadata counts over its operators, instructions per MAC.
#ifndef MLFKIT_LOADER_FIRMWARE_INSTRUCTION_COUNT_H_
#define MLFKIT_LOADER_FIRMWARE_INSTRUCTION_COUNT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

// Whether a project for `platform` can count: a Cortex-M board QEMU models,
// whose clock the board file gives. (On other boards the harness is absent.)
bool CanCountInstructions(const Platform& platform);

// Adds the harness to a planned project (mlfkit modules only: a TVM archive's
// main.c is the TVM wing's, which does not call it): src/mlf_cycles.c among
// the support sources, MLF_SYSTICK_HZ among the defines, and
// plan->count_instructions, which main.c, startup.c and the README follow.
// Does nothing when !CanCountInstructions(plan->platform) or plan->tvm.
void AddInstructionCounter(ProjectPlan* plan);

// The MACs of a module: the sum over its metadata's operators.
uint64_t ModuleMacs(const ModuleMetadata& metadata);

// A module of a counting project, as its systick line names it.
struct CountedModule {
  std::string name;    // the metadata key
  std::string c_name;  // the label of its systick line
  uint64_t macs = 0;   // ModuleMacs
  // The metadata's operators, for the per-operator profile (operator_profile.h).
  std::vector<OperatorInfo> operators;
};

struct InstructionCount {
  std::string module;    // the metadata key
  uint64_t ticks = 0;    // SysTick ticks around tvmgen_<mod>_run()
  uint64_t clock_hz = 0;
  uint64_t instructions = 0;  // ticks * 1e9 / clock_hz, rounded
  uint64_t resolution = 0;    // instructions per tick (1e9 / clock_hz, rounded up)
  uint64_t macs = 0;
  // instructions / macs; nullopt when the metadata counts no MACs.
  std::optional<double> instructions_per_mac;
};

// The counts of `modules` from the firmware's `output`: one systick line
// each. A module without its line (the firmware stopped before it) is left
// out; a malformed line or one naming no module is kDataLoss naming the line.
Result<std::vector<InstructionCount>> ReadInstructionCounts(const std::string& output,
                                                            const std::vector<CountedModule>& modules);

// "instructions per inference: 123440 (+-40, SysTick at 25000000 Hz under
// QEMU -icount), instructions per MAC: 1.52 (81200 MACs)", prefixed with
// "module <name>: ".
std::string FormatInstructionCount(const InstructionCount& count);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_INSTRUCTION_COUNT_H_
