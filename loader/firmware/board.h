// A microcontroller board as data (docs/design.md, "Firmware loader";
// loader/firmware/README.md, "Boards"): a YAML file validated by
// schemas/board-v1.schema.json, then checked for what a schema cannot say
// (placements name existing regions, regions do not overlap, the CPU has the
// features claimed). Built-in boards are such files (boards/*.yaml), compiled
// into the binaries.
//
//   MLF_ASSIGN_OR_RETURN(Board b, ParseBoard(yaml_text, "board.yaml"));
//   MLF_ASSIGN_OR_RETURN(Board b, BuiltinBoard("mps3-an547"));
//
// Every name a board file carries reaches a linker script, a Makefile or C
// only after the schema restricted it to plain characters (board names
// [a-z0-9.-], region names C identifiers, descriptions letters, digits and a
// few punctuation marks), so none can be code in any of them.
#ifndef MLFKIT_LOADER_FIRMWARE_BOARD_H_
#define MLFKIT_LOADER_FIRMWARE_BOARD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::firmware {

struct MemoryRegion {
  std::string name;  // a C identifier: the linker script's MEMORY name
  uint64_t base = 0;
  uint64_t size = 0;
  bool executable = false;
  bool dma = false;   // DMA can reach it
  bool fast = false;  // zero-wait-state (TCM, CCM)
  std::string description;
};

enum class ConsoleKind { kSemihosting, kCmsdkUart, kStm32Usart, kNrfUart };

struct Board {
  std::string name;
  std::string description;
  std::string cpu;  // "cortex-m0", ..., "cortex-m55" (the schema's enum)
  bool fpu = false, dsp = false, mve = false;
  std::vector<MemoryRegion> memory;
  // Region names of each part.
  std::string code, constants, workspace, io, stack;
  uint64_t stack_bytes = 0;
  ConsoleKind console = ConsoleKind::kSemihosting;
  uint64_t console_address = 0;
  uint64_t clock_hz = 0;      // 0: not given
  std::string qemu_machine;   // "": QEMU has no model of it

  const MemoryRegion& Region(const std::string& region_name) const;  // must exist
};

// The board described by `yaml` (the text of `file`, which only names it in
// errors). kInvalidArgument "<file>: <field>: <what>", the field written as
// in the YAML (memory[1].base), for schema violations and inconsistencies.
Result<Board> ParseBoard(std::string_view yaml, const std::string& file);

// Reads and parses the board file at `path`.
Result<Board> ReadBoardFile(const std::string& path);

// A built-in board by name; kInvalidArgument listing the names.
Result<Board> BuiltinBoard(const std::string& name);

// The built-in boards' names, sorted.
std::vector<std::string> BuiltinBoardNames();

// "Cortex-M4F", "Cortex-M7F", "Cortex-M55": the CPU as people write it.
std::string CpuDisplayName(const Board& board);

// The compiler flags of the board's core: -mcpu, -mthumb, and the
// floating-point ABI and unit (one table for every CPU, board.cc).
std::vector<std::string> CpuFlags(const Board& board);

// "console.type" values as in the file.
std::string ConsoleName(ConsoleKind kind);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_BOARD_H_
