// The platforms `mlf project` generates firmware for: the host itself, and
// three Arm MPS2 FPGA boards that QEMU emulates (docs/design.md, "Firmware loader").
//
// The boards share one memory map (templates/mps2.ld): 4 MiB of ZBT SSRAM1
// at 0x00000000 used as flash, 4 MiB of ZBT SSRAM2/3 at 0x20000000 used as
// RAM, both as on the real boards (AN385, AN386 and AN500 application notes)
// and in QEMU's models of them.
#ifndef MLFKIT_LOADER_FIRMWARE_PLATFORM_H_
#define MLFKIT_LOADER_FIRMWARE_PLATFORM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::firmware {

struct Platform {
  std::string name;         // "host", "mps2-an385", ...
  std::string description;  // "Arm MPS2 AN385, Cortex-M3 (QEMU: -M mps2-an385)"
  std::string cpu;          // "Cortex-M3"; "" for the host
  bool cortex_m = false;
  // Compiler flags selecting the core and its floating-point unit.
  std::vector<std::string> arch_flags;
  // Memory of the Cortex-M boards; zero for the host.
  uint64_t flash_bytes = 0;
  uint64_t ram_bytes = 0;
  uint64_t stack_bytes = 0;

  // The tool prefix of the toolchain: "arm-none-eabi-" or "" (host).
  std::string tool_prefix() const { return cortex_m ? "arm-none-eabi-" : ""; }
  // The firmware's file name under build/: "app.elf" or "app" (host).
  std::string app_name() const { return cortex_m ? "app.elf" : "app"; }
  // The command that runs build/<app>, relative to the project directory.
  std::vector<std::string> RunCommand() const;
};

// The platform called `name`; kInvalidArgument listing the valid names.
Result<Platform> FindPlatform(const std::string& name);

// "host", "mps2-an385", "mps2-an386", "mps2-an500".
std::vector<std::string> PlatformNames();

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PLATFORM_H_
