#include "loader/firmware/project_document.h"

namespace mlf::firmware {
namespace {

nlohmann::json BuiltJson(const BuiltFirmware& built) {
  nlohmann::json j = {{"path", built.path}};
  if (built.sizes) {
    nlohmann::json parts = nlohmann::json::array();
    for (const SizePart& part : built.sizes->parts) {
      parts.push_back({{"name", part.name}, {"flash", part.flash}, {"ram", part.ram}});
    }
    j["sizes"] = {{"flash", built.sizes->flash}, {"ram", built.sizes->ram}, {"parts", parts}};
  }
  return j;
}

nlohmann::json CountsJson(const std::vector<InstructionCount>& counts) {
  nlohmann::json list = nlohmann::json::array();
  for (const InstructionCount& c : counts) {
    list.push_back({{"module", c.module},
                    {"instructions", c.instructions},
                    {"resolution", c.resolution},
                    {"ticks", c.ticks},
                    {"clock_hz", c.clock_hz},
                    {"macs", c.macs},
                    {"instructions_per_mac", c.instructions_per_mac
                                                 ? nlohmann::json(*c.instructions_per_mac)
                                                 : nlohmann::json(nullptr)}});
  }
  return list;
}

nlohmann::json ProfilesJson(const std::vector<OperatorProfile>& profiles) {
  nlohmann::json list = nlohmann::json::array();
  for (const OperatorProfile& p : profiles) {
    nlohmann::json operators = nlohmann::json::array();
    for (const OperatorProfileRow& r : p.rows) {
      operators.push_back({{"index", r.index},
                           {"name", r.name},
                           {"kind", r.kind},
                           {"ticks", r.ticks},
                           {"instructions", r.instructions},
                           {"share", r.share}});
    }
    list.push_back({{"module", p.module},
                    {"inference_instructions", p.inference_instructions},
                    {"operator_instructions", p.operator_instructions},
                    {"resolution", p.resolution},
                    {"operators", operators}});
  }
  return list;
}

nlohmann::json StackJson(const RunMeasurements& m) {
  nlohmann::json measured = nlohmann::json::array();
  for (const StackMeasurement& s : m.stack) measured.push_back({{"module", s.module}, {"bytes", s.bytes}});
  auto bound = [](const StackBound& b) {
    nlohmann::json j = {{"bounded", b.bounded},
                        {"bytes", b.bounded ? nlohmann::json(b.bytes) : nlohmann::json(nullptr)},
                        {"why_unbounded", b.why_unbounded},
                        {"path", b.deepest_path},
                        {"library_call_allowance", kLibraryCallAllowance},
                        {"exception_bytes", b.exception_bytes}};
    if (!b.module.empty()) j["module"] = b.module;
    return j;
  };
  nlohmann::json inferences = nlohmann::json::array();
  for (const StackBound& b : m.stack_bounds.inferences) inferences.push_back(bound(b));
  return {{"size", m.stack_bytes},
          {"measured", measured},
          {"bounds", inferences},
          {"program_bound", bound(m.stack_bounds.program)}};
}

}  // namespace

Result<std::optional<RunMeasurements>> ReadRunMeasurements(const std::string& dir, const GeneratedProject& project,
                                                           const FirmwareRun& run) {
  if (project.counted.empty()) return std::optional<RunMeasurements>();
  RunMeasurements m;
  MLF_ASSIGN_OR_RETURN(m.counts, ReadInstructionCounts(run.output, project.counted));
  if (project.profiled) {
    MLF_ASSIGN_OR_RETURN(m.profiles, ReadOperatorProfiles(run.output, project.counted, m.counts));
  }
  MLF_ASSIGN_OR_RETURN(m.stack, ReadStackMeasurements(run.output, project.counted));
  MLF_ASSIGN_OR_RETURN(m.stack_bounds, StaticStackBounds(dir, project.platform, project.counted));
  m.stack_bytes = project.platform.board.stack_bytes;
  return std::optional<RunMeasurements>(std::move(m));
}

nlohmann::json ProjectDocument(const std::string& dir, const GeneratedProject& project,
                               const BuiltFirmware* built, const FirmwareRun* run,
                               const RunMeasurements* measured) {
  nlohmann::json j = {{"ok", true},
                      {"project", dir},
                      {"platform", project.platform.name},
                      {"modules", project.modules},
                      {"files", project.files.size()}};
  if (built) j["built"] = BuiltJson(*built);
  if (run) {
    j["ok"] = run->exit_code == 0;
    j["run"] = {{"exit_status", run->exit_code}, {"output", run->output}};
    if (measured) {
      j["run"]["instructions"] = CountsJson(measured->counts);
      j["run"]["stack"] = StackJson(*measured);
      if (!measured->profiles.empty()) j["run"]["profile"] = ProfilesJson(measured->profiles);
    }
  }
  return j;
}

}  // namespace mlf::firmware
