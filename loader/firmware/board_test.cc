// Boards as data (board.h): the built-in boards parse, and a board file's
// mistakes are named by their field, in the file's own words.
#include "loader/firmware/board.h"

#include <gtest/gtest.h>

#include "loader/firmware/linker_script.h"
#include "loader/firmware/platform.h"

namespace mlf::firmware {
namespace {

constexpr char kGood[] = R"(name: tiny
cpu: cortex-m4f
memory:
  - {name: FLASH, base: 0x08000000, size: 0x10000, executable: true}
  - {name: RAM, base: 0x20000000, size: 8192}
placement: {code: FLASH, constants: FLASH, workspace: RAM, io: RAM, stack: RAM}
stack_size: 2048
console: {type: semihosting}
)";

std::string Edit(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string Error(const std::string& yaml) {
  Result<Board> b = ParseBoard(yaml, "board.yaml");
  EXPECT_FALSE(b.ok());
  return b.status().message();
}

TEST(BoardTest, EveryBuiltinBoardParses) {
  EXPECT_EQ(BuiltinBoardNames(),
            (std::vector<std::string>{"microbit", "mps2-an385", "mps2-an386", "mps2-an500",
                                      "mps2-an505", "mps3-an547", "netduinoplus2", "stm32f405"}));
  for (const std::string& name : BuiltinBoardNames()) {
    Result<Board> b = BuiltinBoard(name);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(b->name, name);
  }
}

TEST(BoardTest, ParsesAGoodFile) {
  Result<Board> b = ParseBoard(kGood, "board.yaml");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->memory.size(), 2u);
  EXPECT_EQ(b->memory[0].base, 0x08000000u);
  EXPECT_EQ(b->memory[1].size, 8192u);
  EXPECT_TRUE(b->fpu);
  EXPECT_TRUE(b->dsp);
  EXPECT_EQ(b->stack_bytes, 2048u);
  EXPECT_EQ(CpuFlags(*b), (std::vector<std::string>{"-mcpu=cortex-m4", "-mthumb",
                                                    "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"}));
}

TEST(BoardTest, OneTableOfCompilerFlags) {
  auto flags = [](const std::string& name) { return CpuFlags(*BuiltinBoard(name)); };
  EXPECT_EQ(flags("mps2-an385"), (std::vector<std::string>{"-mcpu=cortex-m3", "-mthumb"}));
  EXPECT_EQ(flags("mps2-an500"), (std::vector<std::string>{"-mcpu=cortex-m7", "-mthumb",
                                                           "-mfloat-abi=hard", "-mfpu=fpv5-d16"}));
  EXPECT_EQ(flags("microbit"), (std::vector<std::string>{"-mcpu=cortex-m0", "-mthumb"}));
  EXPECT_EQ(flags("mps2-an505"), (std::vector<std::string>{"-mcpu=cortex-m33", "-mthumb",
                                                           "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"}));
  EXPECT_EQ(flags("mps3-an547"), (std::vector<std::string>{"-mcpu=cortex-m55", "-mthumb",
                                                           "-mfloat-abi=hard", "-mfpu=auto"}));
}

TEST(BoardTest, SchemaErrorsNameTheField) {
  EXPECT_EQ(Error(Edit(kGood, "base: 0x20000000", "base: 0x20000002")),
            "board.yaml: memory[1].base: value 536870914 is not a multiple of 4 (multipleOf)");
  EXPECT_EQ(Error(Edit(kGood, "base: 0x20000000", "base: twelve")),
            "board.yaml: memory[1].base: value \"twelve\" is not of type integer (type)");
  EXPECT_EQ(Error(Edit(kGood, "cortex-m4f", "cortex-m99")),
            "board.yaml: cpu: value \"cortex-m99\" is not one of the allowed values (enum)");
  EXPECT_EQ(Error(Edit(kGood, "stack_size: 2048\n", "")),
            "board.yaml: (top level): missing required property \"stack_size\" (required)");
  EXPECT_EQ(Error(Edit(kGood, "name: tiny", "name: tiny\nflash: 1")),
            "board.yaml: (top level): unexpected property \"flash\" (additionalProperties)");
  EXPECT_EQ(Error(Edit(kGood, "{type: semihosting}", "{type: nrf-uart}")),
            "board.yaml: console: missing required property \"address\" (required)");
}

TEST(BoardTest, InconsistenciesNameTheField) {
  EXPECT_EQ(Error(Edit(kGood, "workspace: RAM", "workspace: CCM")),
            "board.yaml: placement.workspace: no memory region is named CCM (the regions are "
            "FLASH, RAM)");
  EXPECT_EQ(Error(Edit(kGood, "base: 0x20000000", "base: 0x08008000")),
            "board.yaml: memory[1].base: region RAM (0x8008000..0x800a000) overlaps region FLASH "
            "(0x8000000..0x8010000)");
  EXPECT_EQ(Error(Edit(kGood, "cortex-m4f", "cortex-m3\nfeatures: {fpu: true}")),
            "board.yaml: features.fpu: cortex-m3 has no FPU");
  EXPECT_EQ(Error(Edit(kGood, "cortex-m4f", "cortex-m4\nfeatures: {fpu: true}")),
            "board.yaml: features.fpu: cortex-m4 has no FPU (a Cortex-M4 with an FPU is cpu: "
            "cortex-m4f)");
  EXPECT_EQ(Error(Edit(kGood, "code: FLASH", "code: RAM")),
            "board.yaml: placement.code: region RAM is not executable (executable: true)");
  EXPECT_EQ(Error(Edit(kGood, "stack_size: 2048", "stack_size: 16384")),
            "board.yaml: stack_size: 16384 bytes do not fit region RAM (8192 bytes)");
  EXPECT_EQ(Error(Edit(kGood, "size: 8192", "size: 0xfffffffc")),
            "board.yaml: memory[1].size: region RAM ends at 0x11ffffffc, beyond the 32-bit "
            "address space");
  EXPECT_EQ(Error(Edit(Edit(kGood, "{name: RAM,", "{name: INCLUDE,"), "io: RAM", "io: INCLUDE")),
            "board.yaml: memory[1].name: region name INCLUDE is a word of linker scripts");
  EXPECT_EQ(Error(Edit(kGood, "{name: RAM,", "{name: FLASH,")),
            "board.yaml: memory[1].name: region name FLASH is also memory[0]'s");
  EXPECT_EQ(Error("name: [unclosed"), "board.yaml:1: not valid YAML: end of sequence flow not found");
}

TEST(BoardTest, HostileNamesAreRefusedByTheSchema) {
  EXPECT_EQ(Error(Edit(kGood, "name: tiny", "name: \"a\\\"b$(reboot)\\n\"")),
            "board.yaml: name: value \"a\\\"b$(reboot)\\n\" does not match pattern "
            "\"^[a-z0-9][a-z0-9.-]{0,47}$\" (pattern)");
  EXPECT_EQ(Error(Edit(Edit(kGood, "{name: RAM,", "{name: \"RAM;x\","), "io: RAM", "io: RAM")),
            "board.yaml: memory[1].name: value \"RAM;x\" does not match pattern "
            "\"^[A-Za-z_][A-Za-z0-9_]{0,31}$\" (pattern)");
}

TEST(BoardTest, LinkerScriptPlacesEachPart) {
  Result<Board> b = BuiltinBoard("stm32f405");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(LinkerScriptPath(*b), "platform/stm32f405.ld");
  EXPECT_EQ(LinkerScriptPath(*BuiltinBoard("mps2-an505")), "platform/mps2.ld");
  const std::string script = LinkerScript(*b);
  for (const char* line : {"  CCM (rw) : ORIGIN = 0x10000000, LENGTH = 0x00010000\n",
                           "  FLASH (rwx) : ORIGIN = 0x08000000, LENGTH = 0x00100000\n",
                           "    *(.bss.mlf_workspace_*)\n", "  } > CCM\n",
                           "  } > SRAM AT > FLASH\n", "  end = ORIGIN(SRAM) + LENGTH(SRAM);\n"}) {
    EXPECT_NE(script.find(line), std::string::npos) << line << "\nin:\n" << script;
  }
}

TEST(BoardTest, PlatformKeepsItsFourNamesAndBoardsTakeFiles) {
  EXPECT_EQ(PlatformNames(),
            (std::vector<std::string>{"host", "mps2-an385", "mps2-an386", "mps2-an500"}));
  EXPECT_EQ(FindPlatform("microbit").status().message(),
            "unknown platform 'microbit' (choose one of: host, mps2-an385, mps2-an386, mps2-an500)");
  Result<Platform> p = ResolveBoard("mps3-an547");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->cpu, "Cortex-M55");
  EXPECT_EQ(p->RunCommand()[2], "mps3-an547");
  EXPECT_TRUE(ResolveBoard("stm32f405")->RunCommand().empty());
  EXPECT_EQ(ResolveBoard("nope").status().message(),
            "unknown board 'nope' (built in: microbit, mps2-an385, mps2-an386, mps2-an500, "
            "mps2-an505, mps3-an547, netduinoplus2, stm32f405; or give a board file, NAME.yaml)");
  EXPECT_EQ(ResolveBoard("/nonexistent/b.yaml").status().message(),
            "cannot read board file /nonexistent/b.yaml");
}

}  // namespace
}  // namespace mlf::firmware
