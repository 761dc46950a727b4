// Boards as data through the CLI, as a firmware engineer uses them
// (loader/firmware/README.md, "Boards"): `mlf boards`, every built-in board
// generated, every board QEMU models built and run with the right console,
// the STM32F405 with its CCM built, a board file of one's own, a firmware
// that does not fit refused with the numbers and nothing written, and the
// exact error for each kind of bad board file, hostile names included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string RunfilesPath(const std::string& path) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/mlfkit/" + path;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A board of one's own: AN547's memory with the constants in SRAM rather
// than ITCM and the workspace in DTCM, the stack at DTCM's bottom.
constexpr char kOwnBoard[] = R"(# A hand-written board file.
name: my-an547
description: "AN547 with constants in SRAM"
cpu: cortex-m55
features: {fpu: true, dsp: true, mve: true}
memory:
  - {name: ITCM, base: 0x00000000, size: 0x80000, executable: true, fast: true}
  - {name: DTCM, base: 0x20000000, size: 0x80000, fast: true}
  - {name: BULK, base: 0x21000000, size: 0x200000, dma: true}
placement: {code: ITCM, constants: BULK, workspace: DTCM, io: BULK, stack: DTCM}
stack_size: 4096
console: {type: cmsdk-uart, address: 0x49303000}
clock_hz: 32000000
qemu: {machine: mps3-an547}
)";

// Too small for tiny_cnn's RAM: 3 KiB with a 2 KiB stack.
constexpr char kTinyBoard[] = R"(name: tiny
cpu: cortex-m3
memory:
  - {name: FLASH, base: 0x00000000, size: 0x40000, executable: true}
  - {name: RAM, base: 0x20000000, size: 3072}
placement: {code: FLASH, constants: FLASH, workspace: RAM, io: RAM, stack: RAM}
stack_size: 2048
console: {type: semihosting}
qemu: {machine: mps2-an385}
)";

class FirmwareBoardsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(FreshDir("firmware_boards"));
    tiny_ = new std::string(*dir_ + "/tiny_cnn.tar");
    CommandResult r = RunCommand({MlfBinary(), "export", RunfilesPath("examples/tiny_cnn/model.yaml"),
                                  "-o", *tiny_, "--link-params"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    CommandResult host = RunCommand({MlfBinary(), "project", *tiny_, "-o", *dir_ + "/host", "--run"});
    ASSERT_EQ(host.exit_code, 0) << host.err;
    reference_ = new std::string(OutputLine(host.out));
  }

  // The firmware's one output line.
  static std::string OutputLine(const std::string& out) {
    const size_t at = out.find("output logits ");
    if (at == std::string::npos) return "";
    return out.substr(at, out.find('\n', at) - at);
  }

  static void ExpectMatchesHost(const std::string& out, const std::string& board) {
    std::istringstream got(OutputLine(out)), want(*reference_);
    std::string word_got, word_want;
    for (int i = 0; i < 3; ++i) {
      got >> word_got;
      want >> word_want;
      EXPECT_EQ(word_got, word_want) << board;
    }
    for (int i = 0; i < 10; ++i) {
      double g = NAN, w = NAN;
      got >> g;
      want >> w;
      EXPECT_NEAR(g, w, 1e-6) << board << " logit " << i << ": " << out;
    }
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = Fresh(name);
    std::ofstream(path) << text;
    return path;
  }

  std::string Fresh(const std::string& name) { return *dir_ + "/" + name + std::to_string(n_++); }

  CommandResult Project(const std::string& board, const std::string& out,
                        std::vector<std::string> more = {}) {
    std::vector<std::string> argv = {MlfBinary(), "project", *tiny_, "-o", out, "--board", board};
    argv.insert(argv.end(), more.begin(), more.end());
    return RunCommand(argv);
  }

  static std::string* dir_;
  static std::string* tiny_;
  static std::string* reference_;
  int n_ = 0;
};

std::string* FirmwareBoardsTest::dir_ = nullptr;
std::string* FirmwareBoardsTest::tiny_ = nullptr;
std::string* FirmwareBoardsTest::reference_ = nullptr;

TEST_F(FirmwareBoardsTest, BoardsListsTheBuiltinBoards) {
  CommandResult r = RunCommand({MlfBinary(), "boards"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out,
            "board          cpu         memory                                  console      qemu\n"
            "microbit       Cortex-M0   FLASH 256 KiB, RAM 16 KiB               nrf-uart     microbit\n"
            "mps2-an385     Cortex-M3   FLASH 4 MiB, RAM 4 MiB                  semihosting  mps2-an385\n"
            "mps2-an386     Cortex-M4F  FLASH 4 MiB, RAM 4 MiB                  semihosting  mps2-an386\n"
            "mps2-an500     Cortex-M7F  FLASH 4 MiB, RAM 4 MiB                  semihosting  mps2-an500\n"
            "mps2-an505     Cortex-M33  SSRAM1 4 MiB, SSRAM23 4 MiB             semihosting  mps2-an505\n"
            "mps3-an547     Cortex-M55  ITCM 512 KiB, DTCM 512 KiB, SRAM 2 MiB  cmsdk-uart   mps3-an547\n"
            "netduinoplus2  Cortex-M4F  FLASH 1 MiB, SRAM 192 KiB               stm32-usart  netduinoplus2\n"
            "stm32f405      Cortex-M4F  FLASH 1 MiB, SRAM 128 KiB, CCM 64 KiB   stm32-usart  -\n");
  CommandResult json = RunCommand({MlfBinary(), "boards", "--json"});
  EXPECT_EQ(json.exit_code, 0);
  const nlohmann::json report = nlohmann::json::parse(json.out);
  ASSERT_EQ(report.at("boards").size(), 8u);
  const nlohmann::json& an547 = report.at("boards").at(5);
  EXPECT_EQ(an547.at("name"), "mps3-an547");
  EXPECT_EQ(an547.at("cpu"), "cortex-m55");
  EXPECT_EQ(an547.at("features"), nlohmann::json({{"fpu", true}, {"dsp", true}, {"mve", true}}));
  EXPECT_EQ(an547.at("memory").at(1),
            nlohmann::json({{"name", "DTCM"}, {"base", 0x20000000}, {"size", 0x80000},
                            {"executable", false}, {"dma", false}, {"fast", true}}));
  EXPECT_EQ(an547.at("console"), "cmsdk-uart");
  EXPECT_EQ(report.at("boards").at(7).at("qemu_machine"), nullptr);  // stm32f405
}

// Every board QEMU models runs tiny_cnn with the host's results, each
// through its own console; the STM32F405 (no model) is built only.
TEST_F(FirmwareBoardsTest, EveryBuiltinBoardGeneratesAndEachQemuBoardRuns) {
  const std::map<std::string, std::string> consoles = {
      {"microbit", "nrf-uart"},          {"mps2-an385", "semihosting"},
      {"mps2-an386", "semihosting"},     {"mps2-an500", "semihosting"},
      {"mps2-an505", "semihosting"},     {"mps3-an547", "cmsdk-uart"},
      {"netduinoplus2", "stm32-usart"},  {"stm32f405", "stm32-usart"}};
  for (const auto& [board, console] : consoles) {
    const std::string out = Fresh(board);
    const bool runs = board != "stm32f405";
    CommandResult r = Project(board, out, {runs ? "--run" : "--build"});
    ASSERT_EQ(r.exit_code, 0) << board << ": " << r.err;
    const std::string family = board.substr(0, board.find('-'));
    EXPECT_TRUE(Exists(out + "/platform/" + family + ".ld")) << board;
    const std::string makefile = ReadFile(out + "/Makefile");
    // A UART board prints through its UART driver, never semihosting's write.
    EXPECT_EQ(Contains(makefile, "-DMLF_UART_CONSOLE"), console != "semihosting") << board;
    const std::string startup = ReadFile(out + "/platform/startup.c");
    EXPECT_EQ(Contains(startup, "The console UART (" + console + " at "), console != "semihosting")
        << board;
    if (runs) ExpectMatchesHost(r.out, board);
  }
}

TEST_F(FirmwareBoardsTest, Stm32f405PutsTheWorkspaceInCcmAndIsNotRun) {
  const std::string out = Fresh("stm32f405");
  CommandResult r = Project("stm32f405", out, {"--run"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "mlf: error: board stm32f405 has no QEMU model: the firmware is built "
                              "(build/app.elf) but cannot be run here\n"))
      << r.err;
  CommandResult nm = RunCommand({"arm-none-eabi-nm", out + "/build/app.elf"});
  EXPECT_TRUE(Contains(nm.out, "10002000 b mlf_workspace_default\n")) << nm.out;  // CCM, above the stack
  EXPECT_TRUE(Contains(nm.out, "10002000 B __stack_top\n")) << nm.out;
  EXPECT_TRUE(Contains(nm.out, " b mlf_in_default_image\n")) << nm.out;
  EXPECT_TRUE(Contains(nm.out, "200000")) << nm.out;  // the buffers in SRAM
}

TEST_F(FirmwareBoardsTest, AHandWrittenBoardFileBuildsAndRuns) {
  const std::string board = Write("my-an547.yaml", kOwnBoard);
  const std::string out = Fresh("own");
  CommandResult r = Project(board, out, {"--run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // With --run: src/mlf_cycles.[ch] and src/mlf_stack.[ch] among them, and
  // the Gemm head's kernel headers (mlf_kernel_common.h, mlf_kernel_gemm_f32.h).
  EXPECT_TRUE(Contains(r.out, "project " + out + ": my-an547, module default, 20 files\n")) << r.out;
  ExpectMatchesHost(r.out, "my-an547");
  const std::string script = ReadFile(out + "/platform/my.ld");
  EXPECT_TRUE(Contains(script, "  .constants :\n  {\n    *(.rodata .rodata.*)\n    . = ALIGN(4);\n  } > BULK\n"))
      << script;
  CommandResult nm = RunCommand({"arm-none-eabi-nm", out + "/build/app.elf"});
  EXPECT_TRUE(Contains(nm.out, "20001000 b mlf_workspace_default\n")) << nm.out;  // DTCM, after the stack
}

// Buffers and stack alone over the RAM: refused before anything is built.
TEST_F(FirmwareBoardsTest, BuffersThatDoNotFitAreRefusedWithTheNumbers) {
  const std::string board = Write("tiny.yaml", kTinyBoard);
  const std::string out = Fresh("misfit");
  CommandResult r = Project(board, out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "mlf: error: the firmware does not fit tiny (its parameters, buffers and stack alone, "
            "before building):\n"
            "  RAM: needs 3624 bytes, has 3072, over by 552 (stack 2048, workspaces 1280, I/O "
            "buffers 296)\n"
            "what could help:\n"
            "  - int8 activations (a quarter of float32's workspace and buffers)\n"
            "  - a smaller stack_size, or the workspace in another region (placement.workspace in "
            "a board file)\n"
            "  - a bigger board (`mlf boards` lists the built-in ones)\n");
  EXPECT_FALSE(Exists(out));
}

// Code and constants over the flash: found by building the project in a
// scratch directory (the code's size is the compiler's, so the numbers are
// checked for consistency rather than pinned).
TEST_F(FirmwareBoardsTest, CodeThatDoesNotFitIsRefusedWithTheMeasuredNumbers) {
  std::string text = kTinyBoard;
  text.replace(text.find("size: 0x40000"), 13, "size: 8192");
  text.replace(text.find("size: 3072"), 10, "size: 8192");
  const std::string board = Write("small-flash.yaml", text);
  const std::string out = Fresh("misfit");
  CommandResult r = Project(board, out);
  EXPECT_EQ(r.exit_code, 1);
  const std::string head = "mlf: error: the firmware does not fit tiny (measured by building it):\n"
                           "  FLASH: needs ";
  ASSERT_EQ(r.err.rfind(head, 0), 0u) << r.err;
  unsigned long needs = 0, has = 0, over = 0, code = 0, data = 0;
  ASSERT_EQ(std::sscanf(r.err.c_str() + head.size(),
                        "%lu bytes, has %lu, over by %lu (code and constants %lu, initial values of "
                        ".data %lu)\n",
                        &needs, &has, &over, &code, &data),
            5)
      << r.err;
  EXPECT_EQ(has, 8192u);
  EXPECT_EQ(needs - has, over);
  EXPECT_EQ(code + data, needs);
  EXPECT_GT(code, 2760u);  // at least the linked parameters
  EXPECT_TRUE(Contains(r.err,
                       ")\nwhat could help:\n"
                       "  - int8 parameters (a quarter of float32's flash)\n"
                       "  - exporting without --link-params: the parameters become one blob "
                       "(parameters/<module>_params.c) that MLF_SECTION_CONSTANTS can place in "
                       "another region or external flash\n"
                       "  - a bigger board (`mlf boards` lists the built-in ones)\n"))
      << r.err;
  EXPECT_FALSE(Exists(out));
}

TEST_F(FirmwareBoardsTest, BoardErrorsNameTheFileAndTheField) {
  struct Bad {
    std::string edit_from, edit_to, error;
  };
  const std::vector<Bad> bad = {
      {"base: 0x20000000", "base: 0x20000001", "memory[1].base: value 536870913 is not a multiple of 4 (multipleOf)"},
      {"size: 3072", "size: 512", "memory[1].size: value 512 is less than the minimum 1024 (minimum)"},
      {"cpu: cortex-m3", "cpu: cortex-a53", "cpu: value \"cortex-a53\" is not one of the allowed values (enum)"},
      {"stack_size: 2048\n", "", "(top level): missing required property \"stack_size\" (required)"},
      {"{type: semihosting}", "{type: cmsdk-uart}", "console: missing required property \"address\" (required)"},
      {"io: RAM", "io: SRAM", "placement.io: no memory region is named SRAM (the regions are FLASH, RAM)"},
      {"cpu: cortex-m3", "cpu: cortex-m3\nfeatures: {mve: true}", "features.mve: cortex-m3 has no MVE (Helium)"},
  };
  for (const Bad& b : bad) {
    std::string text = kTinyBoard;
    text.replace(text.find(b.edit_from), b.edit_from.size(), b.edit_to);
    const std::string file = Write("bad.yaml", text);
    const std::string out = Fresh("bad");
    CommandResult r = Project(file, out);
    EXPECT_EQ(r.exit_code, 1) << b.error;
    EXPECT_EQ(r.err, "mlf: error: " + file + ": " + b.error + "\n");
    EXPECT_FALSE(Exists(out));
  }
}

// Names from a board file reach the linker script, the build files and C:
// anything that is not plain text there is refused, naming the field.
TEST_F(FirmwareBoardsTest, HostileNamesInABoardFileAreRefused) {
  struct Hostile {
    std::string from, to, error;
  };
  const std::vector<Hostile> hostile = {
      {"name: tiny", "name: \"x\\\"\\n$(touch pwned)\"",
       "name: value \"x\\\"\\n$(touch pwned)\" does not match pattern \"^[a-z0-9][a-z0-9.-]{0,47}$\" (pattern)"},
      {"{name: RAM,", "{name: \"RAM; } INCLUDE /etc/passwd\",",
       "memory[1].name: value \"RAM; } INCLUDE /etc/passwd\" does not match pattern "
       "\"^[A-Za-z_][A-Za-z0-9_]{0,31}$\" (pattern)"},
      {"io: RAM", "io: \"RAM;x\"",
       "placement.io: value \"RAM;x\" does not match pattern \"^[A-Za-z_][A-Za-z0-9_]{0,31}$\" (pattern)"},
      {"name: tiny", "name: tiny\ndescription: \"*/ int pwned; /*\"",
       "description: value \"*/ int pwned; /*\" does not match pattern \"^[A-Za-z0-9 ,.()+:/_-]{0,120}$\" (pattern)"},
      {"mps2-an385}", "\"mps2-an385 -append $(id)\"}",
       "qemu.machine: value \"mps2-an385 -append $(id)\" does not match pattern "
       "\"^[a-z0-9][a-z0-9.-]{0,47}$\" (pattern)"},
  };
  for (const Hostile& h : hostile) {
    std::string text = kTinyBoard;
    text.replace(text.find(h.from), h.from.size(), h.to);
    const std::string file = Write("hostile.yaml", text);
    const std::string out = Fresh("hostile");
    CommandResult r = Project(file, out);
    EXPECT_EQ(r.exit_code, 1) << h.error;
    EXPECT_EQ(r.err, "mlf: error: " + file + ": " + h.error + "\n");
    EXPECT_FALSE(Exists(out));
  }
}

TEST_F(FirmwareBoardsTest, BoardAndPlatformFlags) {
  CommandResult both = Project("microbit", Fresh("both"), {"--platform", "mps2-an385"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err.rfind("mlf: error: give --board or --platform, not both (--board takes every "
                           "board --platform knows)\n", 0),
            0u)
      << both.err;
  CommandResult unknown = Project("stm32", Fresh("unknown"));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind("mlf: error: unknown board 'stm32' (built in: microbit, mps2-an385, "
                              "mps2-an386, mps2-an500, mps2-an505, mps3-an547, netduinoplus2, "
                              "stm32f405; or give a board file, NAME.yaml)\n", 0),
            0u)
      << unknown.err;
  CommandResult missing = Project(*dir_ + "/missing.yaml", Fresh("missing"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "mlf: error: cannot read board file " + *dir_ + "/missing.yaml\n");
}

}  // namespace
}  // namespace mlf
