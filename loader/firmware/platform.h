// The platforms `mlf project` generates firmware for: the host itself, or a
// Cortex-M board described as data (board.h; docs/design.md, "Firmware
// loader"). Built-in boards are YAML files under boards/; `--board FILE.yaml`
// takes a user's own.
//
// `--platform` is the older flag and keeps its four names (host, mps2-an385,
// mps2-an386, mps2-an500); `--board` takes every built-in board and files.
#ifndef MLFKIT_LOADER_FIRMWARE_PLATFORM_H_
#define MLFKIT_LOADER_FIRMWARE_PLATFORM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "loader/firmware/board.h"

namespace mlf::firmware {

struct Platform {
  std::string name;         // "host", "mps2-an385", ...
  std::string description;  // "Arm MPS2 AN385, Cortex-M3 (QEMU: -M mps2-an385)"
  std::string cpu;          // "Cortex-M3"; "" for the host
  bool cortex_m = false;
  // Compiler flags selecting the core and its floating-point unit.
  std::vector<std::string> arch_flags;
  // The board (Cortex-M only).
  Board board;
  // Sizes of the regions of the constants (flash_bytes) and of the I/O
  // buffers (ram_bytes), and the stack; zero for the host.
  uint64_t flash_bytes = 0;
  uint64_t ram_bytes = 0;
  uint64_t stack_bytes = 0;

  // The tool prefix of the toolchain: "arm-none-eabi-" or "" (host).
  std::string tool_prefix() const { return cortex_m ? "arm-none-eabi-" : ""; }
  // The firmware's file name under build/: "app.elf" or "app" (host).
  std::string app_name() const { return cortex_m ? "app.elf" : "app"; }
  // Whether RunCommand() can run it: the host, or a board QEMU models.
  bool runnable() const { return !cortex_m || !board.qemu_machine.empty(); }
  // The command that runs build/<app>, relative to the project directory
  // (for a board without a QEMU model: empty).
  std::vector<std::string> RunCommand() const;
};

// The --platform `name`; kInvalidArgument listing the valid names.
Result<Platform> FindPlatform(const std::string& name);

// "host", "mps2-an385", "mps2-an386", "mps2-an500": the names of --platform.
std::vector<std::string> PlatformNames();

// The --board `spec`: "host", a built-in board's name, or a board file
// (a path ending in .yaml or .yml, or containing '/').
Result<Platform> ResolveBoard(const std::string& spec);

// The platform of a board.
Platform BoardPlatform(const Board& board);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PLATFORM_H_
