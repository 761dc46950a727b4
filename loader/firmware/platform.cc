#include "loader/firmware/platform.h"

namespace mlf::firmware {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

Platform Mps2(const std::string& board, const std::string& image, const std::string& cpu,
              std::vector<std::string> flags) {
  Platform p;
  p.name = "mps2-" + board;
  p.cpu = cpu;
  p.description = "Arm MPS2 " + image + ", " + cpu + " (QEMU: -M " + p.name + ")";
  p.cortex_m = true;
  p.arch_flags = std::move(flags);
  p.flash_bytes = 4 * kMiB;
  p.ram_bytes = 4 * kMiB;
  p.stack_bytes = 8 * 1024;  // the output formatter needs under 1 KiB; the rest is the model's
  return p;
}

std::vector<Platform> AllPlatforms() {
  Platform host;
  host.name = "host";
  host.description = "this host, built with the system C compiler (cc)";
  return {host, Mps2("an385", "AN385", "Cortex-M3", {"-mcpu=cortex-m3", "-mthumb"}),
          Mps2("an386", "AN386", "Cortex-M4F",
               {"-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"}),
          Mps2("an500", "AN500", "Cortex-M7F",
               {"-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv5-d16"})};
}

}  // namespace

std::vector<std::string> Platform::RunCommand() const {
  const std::string app = "build/" + app_name();
  if (!cortex_m) return {"./" + app};
  return {"qemu-system-arm",         "-M",      name, "-nographic", "-semihosting-config",
          "enable=on,target=native", "-kernel", app};
}

Result<Platform> FindPlatform(const std::string& name) {
  std::string names;
  for (const Platform& p : AllPlatforms()) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return InvalidArgument("unknown platform '" + name + "' (choose one of: " + names + ")");
}

std::vector<std::string> PlatformNames() {
  std::vector<std::string> names;
  for (const Platform& p : AllPlatforms()) names.push_back(p.name);
  return names;
}

}  // namespace mlf::firmware
