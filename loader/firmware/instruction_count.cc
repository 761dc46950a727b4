#include "loader/firmware/instruction_count.h"

#include <cstdio>
#include <sstream>

#include "artifact/base/display_text.h"
#include "loader/firmware/decimal.h"
#include "loader/firmware/stack_usage.h"

namespace mlf::firmware {
namespace {

constexpr uint64_t kNanosecondsPerSecond = 1000000000;
constexpr char kLinePrefix[] = "systick ";

const CountedModule* FindModule(const std::vector<CountedModule>& modules, const std::string& label) {
  for (const CountedModule& m : modules) {
    if (m.c_name == label) return &m;
  }
  return nullptr;
}

}  // namespace

bool CanCountInstructions(const Platform& platform) {
  return platform.cortex_m && platform.runnable() && platform.board.clock_hz > 0;
}

void AddInstructionCounter(ProjectPlan* plan) {
  if (plan->tvm || !CanCountInstructions(plan->platform)) return;
  plan->count_instructions = true;
  plan->support_sources.push_back("src/mlf_cycles.c");
  // The stack beside it (stack_usage.h): painted in the run, bounded from
  // the compiler's figures.
  plan->support_sources.push_back("src/mlf_stack.c");
  for (const std::string& f : StackUsageFlags()) plan->compile_flags.push_back(f);
  plan->defines.push_back("MLF_SYSTICK_HZ=" + std::to_string(plan->platform.board.clock_hz));
}

uint64_t ModuleMacs(const ModuleMetadata& metadata) {
  uint64_t macs = 0;
  for (const OperatorInfo& op : metadata.operators) macs += op.macs;
  return macs;
}

Result<std::vector<InstructionCount>> ReadInstructionCounts(const std::string& output,
                                                            const std::vector<CountedModule>& modules) {
  std::vector<InstructionCount> counts;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, sizeof(kLinePrefix) - 1, kLinePrefix) != 0) continue;
    std::istringstream fields(line.substr(sizeof(kLinePrefix) - 1));
    std::string label, ticks_text, clock_text, extra;
    fields >> label >> ticks_text >> clock_text;
    const std::optional<uint64_t> ticks = ParseDecimal(ticks_text);
    const std::optional<uint64_t> clock = ParseDecimal(clock_text);
    if (!ticks || !clock || *clock == 0 || (fields >> extra)) {
      return DataLoss("the firmware printed a malformed counter line '" + line +
                      "' (expected 'systick <module> <ticks> <clock Hz>')");
    }
    const CountedModule* m = FindModule(modules, label);
    if (m == nullptr) {
      return DataLoss("the firmware printed a counter line for '" + label +
                      "', which is no module of the project: '" + line + "'");
    }
    InstructionCount c;
    c.module = m->name;
    c.ticks = *ticks;
    c.clock_hz = *clock;
    const unsigned __int128 scaled = static_cast<unsigned __int128>(*ticks) * kNanosecondsPerSecond;
    c.instructions = static_cast<uint64_t>((scaled + *clock / 2) / *clock);
    c.resolution = (kNanosecondsPerSecond + *clock - 1) / *clock;
    c.macs = m->macs;
    if (m->macs > 0) c.instructions_per_mac = static_cast<double>(c.instructions) / m->macs;
    counts.push_back(c);
  }
  return counts;
}

std::string FormatInstructionCount(const InstructionCount& c) {
  std::string out = "module " + DisplayText(c.module) + ": instructions per inference: " +
                    std::to_string(c.instructions) + " (to one SysTick tick, " +
                    std::to_string(c.resolution) + " instructions, under QEMU -icount shift=0), ";
  if (!c.instructions_per_mac) return out + "instructions per MAC: - (the metadata counts no MACs)";
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.2f", *c.instructions_per_mac);
  return out + "instructions per MAC: " + ratio + " (" + std::to_string(c.macs) + " MACs)";
}

}  // namespace mlf::firmware
