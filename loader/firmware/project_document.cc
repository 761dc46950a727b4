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

}  // namespace

nlohmann::json ProjectDocument(const std::string& dir, const GeneratedProject& project,
                               const BuiltFirmware* built, const FirmwareRun* run,
                               const std::vector<InstructionCount>* counts) {
  nlohmann::json j = {{"ok", true},
                      {"project", dir},
                      {"platform", project.platform.name},
                      {"modules", project.modules},
                      {"files", project.files.size()}};
  if (built) j["built"] = BuiltJson(*built);
  if (run) {
    j["ok"] = run->exit_code == 0;
    j["run"] = {{"exit_status", run->exit_code}, {"output", run->output}};
    if (counts) j["run"]["instructions"] = CountsJson(*counts);
  }
  return j;
}

}  // namespace mlf::firmware
