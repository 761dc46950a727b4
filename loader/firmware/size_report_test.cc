#include "loader/firmware/size_report.h"

#include <gtest/gtest.h>

namespace mlf::firmware {
namespace {

// The shape of a GNU ld map of a make build (abridged), with a long section
// name wrapped onto two lines, fill, symbols and a discarded section.
constexpr char kMap[] = R"(Archive member included to satisfy reference by file (symbol)

Discarded input sections

 .text.unused   0x00000000       0x40 build/src/main.o

Memory Configuration

Linker script and memory map

LOAD build/codegen/host/src/m_lib0.o
.text           0x00000000      0x400
 *(.vectors)
 .vectors       0x00000000       0x40 build/platform/startup.o
                0x00000000                vector_table
 .text.reset_handler
                0x00000040       0x58 build/platform/startup.o
 .text.tvmgen_m_run
                0x00000098      0x100 build/codegen/host/src/m_lib0.o
 *fill*         0x00000198        0x8 
 .text.main     0x000001a0       0x50 build/src/main.o
 .text.mlf_format_g9
                0x000001f0      0x200 build/src/mlf_print.o
 .text          0x000003f0       0x10 /usr/lib/gcc/arm-none-eabi/12.2.1/thumb/v7-m/nofp/libgcc.a(_udivsi3.o)
 .rodata.kWeight
                0x00000400       0x30 build/codegen/host/src/m_lib0.o
 .rodata.mlf_m_constants
                0x00000440       0x80 build/parameters/m_params.o
 .rodata.mlf_sample_m_x
                0x000004c0       0x10 build/src/sample_inputs.o

.stack          0x20000000     0x2000
                0x20002000                __stack_top = .

.data           0x20002000       0x20 load address 0x000004d0
 .data          0x20002000       0x20 /usr/lib/libc_nano.a(lib_a-impure.o)

.bss            0x20002020      0x100
 .bss.mlf_in_m_x
                0x20002020       0x10 build/src/main.o
 .bss.mlf_out_m_y
                0x20002030       0x10 build/src/main.o
 .bss.mlf_workspace_m
                0x20002040       0x40 build/src/main.o
 COMMON         0x20002080       0xa0 /usr/lib/librdimon_nano.a(rdimon-syscalls.o)

.ARM.attributes
                0x00000000       0x2e
 .ARM.attributes
                0x00000000       0x2e build/src/main.o
)";

constexpr char kSize[] =
    "   text\t   data\t    bss\t    dec\t    hex\tfilename\n"
    "   1232\t     32\t   8448\t   9712\t   25f0\tbuild/app.elf\n";

TEST(SizeReportTest, AttributesSectionsByObjectAndSymbol) {
  auto report = ParseSizeReport(kSize, kMap);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->flash, 1264u);
  EXPECT_EQ(report->ram, 8480u);
  EXPECT_EQ(report->Part("model code").flash, 0x100u);
  EXPECT_EQ(report->Part("model constants").flash, 0x30u);
  EXPECT_EQ(report->Part("parameters").flash, 0x80u);
  EXPECT_EQ(report->Part("sample inputs").flash, 0x10u);
  EXPECT_EQ(report->Part("startup").flash, 0x40u + 0x58u);
  EXPECT_EQ(report->Part("main").flash, 0x50u);  // the discarded section is not counted
  EXPECT_EQ(report->Part("output formatting").flash, 0x200u);
  EXPECT_EQ(report->Part("workspace").ram, 0x40u);
  EXPECT_EQ(report->Part("I/O buffers").ram, 0x20u);
  EXPECT_EQ(report->Part("stack").ram, 0x2000u);
  EXPECT_EQ(report->Part("C library").flash, 0x10u + 0x20u);  // .data's initial values too
  EXPECT_EQ(report->Part("C library").ram, 0x20u + 0xa0u);
  EXPECT_EQ(report->OverheadFlash(), 0x40u + 0x58u + 0x50u + 0x200u);
  uint64_t flash = 0, ram = 0;
  for (const SizePart& p : report->parts) {
    flash += p.flash;
    ram += p.ram;
  }
  EXPECT_EQ(flash, report->flash);  // the rest is padding
  EXPECT_EQ(ram, report->ram);
  EXPECT_EQ(report->Part("padding").flash, 1264u - 0x4d8u);
}

TEST(SizeReportTest, FormatsAMarkdownTable) {
  auto report = ParseSizeReport(kSize, kMap);
  ASSERT_TRUE(report.ok());
  const std::string text = FormatSizeReport(*report);
  EXPECT_NE(text.find("| part | flash (bytes) | RAM (bytes) |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| model code | 256 | 0 |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| total | 1264 | 8480 |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("C library: 744 bytes (startup 152, main 80, output formatting 512)"),
            std::string::npos)
      << text;
}

TEST(SizeReportTest, RefusesWhatIsNotAMapOrSizeOutput) {
  EXPECT_EQ(ParseSizeReport(kSize, "hello").status().message(), "not a GNU ld map file");
  EXPECT_FALSE(ParseSizeReport("text data bss\nx y z\n", kMap).ok());
}

}  // namespace
}  // namespace mlf::firmware
