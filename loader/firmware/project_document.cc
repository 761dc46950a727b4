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

}  // namespace

nlohmann::json ProjectDocument(const std::string& dir, const GeneratedProject& project,
                               const BuiltFirmware* built, const FirmwareRun* run) {
  nlohmann::json j = {{"ok", true},
                      {"project", dir},
                      {"platform", project.platform.name},
                      {"modules", project.modules},
                      {"files", project.files.size()}};
  if (built) j["built"] = BuiltJson(*built);
  if (run) {
    j["ok"] = run->exit_code == 0;
    j["run"] = {{"exit_status", run->exit_code}, {"output", run->output}};
  }
  return j;
}

}  // namespace mlf::firmware
