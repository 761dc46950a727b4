#include "loader/firmware/operator_profile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "artifact/base/display_text.h"
#include "loader/firmware/decimal.h"

namespace mlf::firmware {
namespace {

constexpr uint64_t kNanosecondsPerSecond = 1000000000;
constexpr char kLinePrefix[] = "profile ";

std::string Kind(const OperatorInfo& op) {
  std::string kind;
  for (const std::string& o : op.ops) kind += (kind.empty() ? "" : "+") + o;
  return kind;
}

// 1234567 -> "1,234,567".
std::string Grouped(uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Percent(double share) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f%%", share * 100.0);
  return text;
}

std::string PadRight(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string PadLeft(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// The ticks of each operator of each module label, from the profile lines.
Result<std::map<std::string, std::map<uint64_t, uint64_t>>> ProfileLines(const std::string& output) {
  std::map<std::string, std::map<uint64_t, uint64_t>> ticks;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, sizeof(kLinePrefix) - 1, kLinePrefix) != 0) continue;
    std::istringstream fields(line.substr(sizeof(kLinePrefix) - 1));
    std::string label, index_text, ticks_text, extra;
    fields >> label >> index_text >> ticks_text;
    const std::optional<uint64_t> index = ParseDecimal(index_text);
    const std::optional<uint64_t> count = ParseDecimal(ticks_text);
    if (!index || !count || (fields >> extra)) {
      return DataLoss("the firmware printed a malformed profile line " + QuoteForMessage(line) +
                      " (expected 'profile <module> <operator index> <ticks>')");
    }
    if (!ticks[label].emplace(*index, *count).second) {
      return DataLoss("the firmware printed operator " + index_text + " of module " + QuoteForMessage(label) +
                      " twice in its profile: " + QuoteForMessage(line));
    }
  }
  return ticks;
}

uint64_t Instructions(uint64_t ticks, uint64_t clock_hz) {
  const unsigned __int128 scaled = static_cast<unsigned __int128>(ticks) * kNanosecondsPerSecond;
  return static_cast<uint64_t>((scaled + clock_hz / 2) / clock_hz);
}

}  // namespace

Status AddOperatorProfiler(ProjectPlan* plan) {
  if (!plan->count_instructions) {
    return FailedPrecondition(
        "--profile needs a board QEMU models and whose board file gives clock_hz (the profile is "
        "counted in SysTick ticks under QEMU), and an archive written by mlfkit; " +
        plan->platform.name + (plan->tvm ? " with a TVM archive" : "") + " cannot count");
  }
  size_t most = 1;
  for (const ModulePlan& m : plan->modules) most = std::max(most, m.metadata->operators.size());
  plan->profile = true;
  plan->support_sources.push_back("src/mlf_profile.c");
  plan->defines.push_back("MLF_PROFILE");
  plan->defines.push_back("MLF_PROFILE_MAX_OPERATORS=" + std::to_string(most));
  return Status::Ok();
}

Result<std::vector<OperatorProfile>> ReadOperatorProfiles(const std::string& output,
                                                          const std::vector<CountedModule>& modules,
                                                          const std::vector<InstructionCount>& counts) {
  MLF_ASSIGN_OR_RETURN(auto lines, ProfileLines(output));
  std::vector<OperatorProfile> profiles;
  for (const InstructionCount& count : counts) {
    const auto m = std::find_if(modules.begin(), modules.end(),
                                [&](const CountedModule& c) { return c.name == count.module; });
    if (m == modules.end()) return Internal("no counted module " + QuoteForMessage(count.module));
    auto found = lines.find(m->c_name);
    if (found == lines.end() && !m->operators.empty()) {
      return FailedPrecondition("module " + QuoteForMessage(m->name) +
                                " printed no per-operator profile: its code has no MLF_PROFILE hooks "
                                "(it was exported before mlfkit wrote them); export the model again");
    }
    std::map<uint64_t, uint64_t> ticks = found == lines.end() ? std::map<uint64_t, uint64_t>() : found->second;
    if (found != lines.end()) lines.erase(found);
    OperatorProfile p;
    p.module = m->name;
    p.inference_instructions = count.instructions;
    p.resolution = count.resolution;
    for (size_t i = 0; i < m->operators.size(); ++i) {
      auto t = ticks.find(i);
      if (t == ticks.end()) {
        return DataLoss("the firmware printed no profile line for operator " + std::to_string(i) + " (" +
                        QuoteForMessage(m->operators[i].name) + ") of module " + QuoteForMessage(m->name));
      }
      OperatorProfileRow row;
      row.index = i;
      row.name = m->operators[i].name;
      row.kind = Kind(m->operators[i]);
      row.ticks = t->second;
      row.instructions = Instructions(t->second, count.clock_hz);
      row.share = count.instructions > 0 ? static_cast<double>(row.instructions) / count.instructions : 0;
      p.operator_instructions += row.instructions;
      p.rows.push_back(std::move(row));
      ticks.erase(t);
    }
    if (!ticks.empty()) {
      return DataLoss("the firmware printed a profile line for operator " + std::to_string(ticks.begin()->first) +
                      " of module " + QuoteForMessage(m->name) + ", which has " +
                      std::to_string(m->operators.size()) + " operators");
    }
    profiles.push_back(std::move(p));
  }
  if (!lines.empty()) {
    return DataLoss("the firmware printed a profile for " + QuoteForMessage(lines.begin()->first) +
                    ", which is no module that ran");
  }
  return profiles;
}

std::string FormatOperatorProfile(const OperatorProfile& p) {
  std::vector<std::vector<std::string>> cells = {{"#", "operator", "kind", "instructions", "share"}};
  for (const OperatorProfileRow& r : p.rows) {
    cells.push_back({std::to_string(r.index), DisplayText(r.name), DisplayText(r.kind), Grouped(r.instructions),
                     Percent(r.share)});
  }
  const uint64_t outside =
      p.inference_instructions > p.operator_instructions ? p.inference_instructions - p.operator_instructions : 0;
  cells.push_back({"", "(outside the operators)", "", Grouped(outside),
                   Percent(p.inference_instructions ? static_cast<double>(outside) / p.inference_instructions : 0)});
  std::vector<size_t> width(5, 0);
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out = "module " + DisplayText(p.module) +
                    ": instructions per operator (under QEMU -icount shift=0, each to one SysTick tick, " +
                    std::to_string(p.resolution) + " instructions):\n";
  for (const auto& row : cells) {
    out += "  " + PadLeft(row[0], width[0]) + "  " + PadRight(row[1], width[1]) + "  " + PadRight(row[2], width[2]) +
           "  " + PadLeft(row[3], width[3]) + "  " + PadLeft(row[4], width[4]) + "\n";
  }
  return out;
}

}  // namespace mlf::firmware
