#include "loader/firmware/console.h"

#include <cstdio>

namespace mlf::firmware {
namespace {

std::string Hex(uint64_t v) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08llxu", static_cast<unsigned long long>(v));
  return text;
}

// The UART's registers as 32-bit words from its base address.
std::string Registers(const Board& b) {
  return "\n/* The console UART (" + ConsoleName(b.console) + " at " + Hex(b.console_address) +
         "): polled, no interrupts. */\n#define MLF_UART ((volatile uint32_t*)" +
         Hex(b.console_address) + ")\n";
}

ConsoleCode Cmsdk(const Board& b) {
  ConsoleCode c;
  c.definitions = Registers(b) +
                  "/* CMSDK APB UART: DATA 0x00, STATE 0x04 (bit 0: TX buffer full), CTRL 0x08\n"
                  " * (bit 0: TX enable), BAUDDIV 0x10 (PCLK / baud, at least 16). */\n"
                  "void mlf_console_write(const char* text, size_t size) {\n"
                  "  for (size_t i = 0; i < size; ++i) {\n"
                  "    while (MLF_UART[1] & 1u) {\n    }\n"
                  "    MLF_UART[0] = (uint8_t)text[i];\n  }\n}\n";
  const uint64_t div = b.clock_hz / kConsoleBaud;
  c.init = "  MLF_UART[4] = " + std::to_string(div < 16 ? 16 : div) +
           "u; /* BAUDDIV */\n  MLF_UART[2] = 1u;  /* CTRL: transmitter on */\n";
  c.description = ", then UART0 (CMSDK APB UART) for the output";
  return c;
}

ConsoleCode Stm32(const Board& b) {
  ConsoleCode c;
  c.definitions = Registers(b) +
                  "/* STM32 USART (F2/F4 register layout): SR 0x00 (bit 7: TXE), DR 0x04,\n"
                  " * BRR 0x08, CR1 0x0C (bit 13: UE, bit 3: TE). On the chip, the USART's\n"
                  " * clock (RCC) and its TX pin (GPIO alternate function) must be enabled\n"
                  " * first: that is the board's own start-up code, not done here. */\n"
                  "void mlf_console_write(const char* text, size_t size) {\n"
                  "  for (size_t i = 0; i < size; ++i) {\n"
                  "    while (!(MLF_UART[0] & (1u << 7))) {\n    }\n"
                  "    MLF_UART[1] = (uint8_t)text[i];\n  }\n}\n";
  const uint64_t clock = b.clock_hz != 0 ? b.clock_hz : 16000000;
  c.init = "  MLF_UART[2] = " + std::to_string(clock / kConsoleBaud) +
           "u; /* BRR: baud rate */\n  MLF_UART[3] = (1u << 13) | (1u << 3); /* CR1: UE, TE */\n";
  c.description = ", then the USART for the output";
  return c;
}

ConsoleCode Nrf(const Board& b) {
  ConsoleCode c;
  c.definitions = Registers(b) +
                  "/* nRF51 UART (word offsets): TASKS_STARTTX 0x008, EVENTS_TXDRDY 0x11C,\n"
                  " * ENABLE 0x500 (4: on), TXD 0x51C, BAUDRATE 0x524. The TX pin (PSELTXD\n"
                  " * 0x50C) is the board's: left as it is. */\n"
                  "void mlf_console_write(const char* text, size_t size) {\n"
                  "  for (size_t i = 0; i < size; ++i) {\n"
                  "    MLF_UART[0x11C / 4] = 0u;\n"
                  "    MLF_UART[0x51C / 4] = (uint8_t)text[i];\n"
                  "    while (MLF_UART[0x11C / 4] == 0u) {\n    }\n  }\n}\n";
  c.init = "  MLF_UART[0x524 / 4] = 0x01D7E000u; /* BAUDRATE: 115200 */\n"
           "  MLF_UART[0x500 / 4] = 4u;          /* ENABLE */\n"
           "  MLF_UART[0x008 / 4] = 1u;          /* TASKS_STARTTX */\n";
  c.description = ", then the UART for the output";
  return c;
}

}  // namespace

ConsoleCode ConsoleSource(const Board& board) {
  switch (board.console) {
    case ConsoleKind::kSemihosting: return {};
    case ConsoleKind::kCmsdkUart: return Cmsdk(board);
    case ConsoleKind::kStm32Usart: return Stm32(board);
    case ConsoleKind::kNrfUart: return Nrf(board);
  }
  return {};
}

}  // namespace mlf::firmware
