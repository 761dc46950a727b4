#include "loader/firmware/instruction_count.h"

#include <gtest/gtest.h>

namespace mlf::firmware {
namespace {

const std::vector<CountedModule> kModules = {{"kws int8", "kws_int8", 2656000, {}}, {"copy", "copy", 0, {}}};

TEST(ReadInstructionCountsTest, TicksBecomeInstructionsAtTheBoardClock) {
  auto counts = ReadInstructionCounts(
      "output kws_int8.y 1 0.5\nsystick kws_int8 12345 25000000\noutput copy.y 1 1\n"
      "systick copy 3 168000000\n",
      kModules);
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  ASSERT_EQ(counts->size(), 2u);
  const InstructionCount& a = (*counts)[0];
  EXPECT_EQ(a.module, "kws int8");
  EXPECT_EQ(a.ticks, 12345u);
  EXPECT_EQ(a.clock_hz, 25000000u);
  EXPECT_EQ(a.instructions, 493800u);  // 40 instructions per tick
  EXPECT_EQ(a.resolution, 40u);
  EXPECT_EQ(a.macs, 2656000u);
  ASSERT_TRUE(a.instructions_per_mac.has_value());
  EXPECT_DOUBLE_EQ(*a.instructions_per_mac, 493800.0 / 2656000.0);
  const InstructionCount& b = (*counts)[1];
  EXPECT_EQ(b.instructions, 18u);  // 3 x 5.95 = 17.86
  EXPECT_EQ(b.resolution, 6u);
  EXPECT_FALSE(b.instructions_per_mac.has_value());
}

TEST(ReadInstructionCountsTest, WrappedCountersAndLargeFiguresStayExact) {
  // 2^40 ticks at 25 MHz: the product with 1e9 needs more than 64 bits.
  auto counts = ReadInstructionCounts("systick copy 1099511627776 25000000\n", kModules);
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ((*counts)[0].instructions, 43980465111040u);
}

TEST(ReadInstructionCountsTest, AModuleThatDidNotRunHasNoCount) {
  auto counts = ReadInstructionCounts("error: tvmgen_kws_int8_run returned 1\n", kModules);
  ASSERT_TRUE(counts.ok());
  EXPECT_TRUE(counts->empty());
}

TEST(ReadInstructionCountsTest, RefusesMalformedLinesNamingThem) {
  EXPECT_EQ(ReadInstructionCounts("systick copy 12x 25000000\n", kModules).status().message(),
            "the firmware printed a malformed counter line 'systick copy 12x 25000000' (expected "
            "'systick <module> <ticks> <clock Hz>')");
  EXPECT_EQ(ReadInstructionCounts("systick copy 12 0\n", kModules).status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(ReadInstructionCounts("systick copy 12 25000000 7\n", kModules).status().code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(ReadInstructionCounts("systick copy 99999999999999999999 1\n", kModules).status().code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(ReadInstructionCounts("systick other 12 25000000\n", kModules).status().message(),
            "the firmware printed a counter line for 'other', which is no module of the project: "
            "'systick other 12 25000000'");
}

TEST(FormatInstructionCountTest, SaysInstructionsPerInferenceAndPerMac) {
  InstructionCount c;
  c.module = "kws int8";
  c.instructions = 5312000;
  c.resolution = 40;
  c.macs = 2656000;
  c.instructions_per_mac = 2.0;
  EXPECT_EQ(FormatInstructionCount(c),
            "module kws int8: instructions per inference: 5312000 (to one SysTick tick, 40 "
            "instructions, under QEMU -icount shift=0), instructions per MAC: 2.00 (2656000 MACs)");
  c.instructions_per_mac.reset();
  c.macs = 0;
  EXPECT_EQ(FormatInstructionCount(c),
            "module kws int8: instructions per inference: 5312000 (to one SysTick tick, 40 "
            "instructions, under QEMU -icount shift=0), instructions per MAC: - (the metadata "
            "counts no MACs)");
}

TEST(CanCountInstructionsTest, NeedsABoardQemuModelsWithAClock) {
  Platform host;
  EXPECT_FALSE(CanCountInstructions(host));
  Platform board;
  board.cortex_m = true;
  board.board.qemu_machine = "mps2-an386";
  EXPECT_FALSE(CanCountInstructions(board));  // no clock
  board.board.clock_hz = 25000000;
  EXPECT_TRUE(CanCountInstructions(board));
  board.board.qemu_machine = "";
  EXPECT_FALSE(CanCountInstructions(board));  // built, not run
}

}  // namespace
}  // namespace mlf::firmware
