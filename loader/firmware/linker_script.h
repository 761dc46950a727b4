// The linker script of a board's firmware, generated from the board
// (board.h): one MEMORY line per region, and each part of the image in the
// region the board's placement names (docs: loader/firmware/README.md,
// "Boards").
//
//   code        .vectors (first: the core reads its vector table there), .text
//   constants   .rodata (parameters, sample inputs, the model's constants)
//   workspace   .bss.mlf_workspace_* (src/main.c's workspaces)
//   io          .data, .bss (the input and output buffers, the C library's data)
//   stack       .stack, at the bottom of its region: an overflow leaves the
//               region instead of overwriting data
//
// The names come from the board file, whose schema restricts region names to
// C identifiers and board names to [a-z0-9.-]: nothing here is escaped
// because nothing can need it.
#ifndef MLFKIT_LOADER_FIRMWARE_LINKER_SCRIPT_H_
#define MLFKIT_LOADER_FIRMWARE_LINKER_SCRIPT_H_

#include <string>

#include "loader/firmware/board.h"

namespace mlf::firmware {

// "platform/<family>.ld", the family being the board's name up to its first
// '-': "platform/mps2.ld" for mps2-an385, "platform/microbit.ld".
std::string LinkerScriptPath(const Board& board);

// Whether the workspace has an output section (and a zeroing loop in the
// startup code) of its own: it is in another region than .bss.
bool SeparateWorkspace(const Board& board);

// The script's text.
std::string LinkerScript(const Board& board);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_LINKER_SCRIPT_H_
