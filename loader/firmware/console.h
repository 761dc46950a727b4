// The console of a board's firmware (board.h, `console:`): where the output
// lines go. Semihosting needs no code here (librdimon's _write); a UART gets
// a polled driver in platform/startup.c, mlf_console_write(), which
// src/mlf_print.c calls when MLF_UART_CONSOLE is defined. The program still
// ends through semihosting (SYS_EXIT), so QEMU reports its exit status.
#ifndef MLFKIT_LOADER_FIRMWARE_CONSOLE_H_
#define MLFKIT_LOADER_FIRMWARE_CONSOLE_H_

#include <string>

#include "loader/firmware/board.h"

namespace mlf::firmware {

struct ConsoleCode {
  std::string definitions;  // file-level C: registers, init and write functions
  std::string init;         // statements of the reset handler, after .bss is zeroed
  std::string description;  // for the startup file's comment: ", then UART0 ..."
};

// Empty for semihosting.
ConsoleCode ConsoleSource(const Board& board);

// The baud rate the UART drivers set.
inline constexpr unsigned kConsoleBaud = 115200;

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_CONSOLE_H_
