#include "loader/firmware/operator_profile.h"

#include <gtest/gtest.h>

namespace mlf::firmware {
namespace {

std::vector<CountedModule> Modules() {
  OperatorInfo conv{"conv\x1b[2J\n*/", {"Conv", "Relu"}, 100, std::nullopt};
  OperatorInfo fc{"fc", {"Gemm"}, 10, std::nullopt};
  return {{"m", "m", 110, {conv, fc}}};
}

InstructionCount Count(uint64_t ticks) {
  InstructionCount c;
  c.module = "m";
  c.ticks = ticks;
  c.clock_hz = 25000000;
  c.instructions = ticks * 40;
  c.resolution = 40;
  return c;
}

TEST(OperatorProfileTest, ReadsEveryOperatorOnce) {
  Result<std::vector<OperatorProfile>> p =
      ReadOperatorProfiles("output y 1 0\nsystick m 100 25000000\nprofile m 0 75\nprofile m 1 20\n", Modules(), {Count(100)});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->size(), 1u);
  const OperatorProfile& m = (*p)[0];
  EXPECT_EQ(m.inference_instructions, 4000u);
  EXPECT_EQ(m.operator_instructions, 3800u);
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_EQ(m.rows[0].kind, "Conv+Relu");
  EXPECT_EQ(m.rows[0].instructions, 3000u);
  EXPECT_DOUBLE_EQ(m.rows[0].share, 0.75);
  EXPECT_EQ(FormatOperatorProfile(m),
            "module m: instructions per operator (under QEMU -icount shift=0, each to one SysTick tick, 40 "
            "instructions):\n"
            "  #  operator                 kind       instructions  share\n"
            "  0  conv\\x1b[2J\\x0a*/        Conv+Relu         3,000  75.0%\n"
            "  1  fc                       Gemm                800  20.0%\n"
            "     (outside the operators)                      200   5.0%\n");
}

TEST(OperatorProfileTest, RefusesMissingRepeatedAndUnknownLines) {
  Result<std::vector<OperatorProfile>> none = ReadOperatorProfiles("systick m 100 25000000\n", Modules(), {Count(100)});
  EXPECT_EQ(none.status().message(),
            "module 'm' printed no per-operator profile: its code has no MLF_PROFILE hooks (it was exported "
            "before mlfkit wrote them); export the model again");
  Result<std::vector<OperatorProfile>> missing = ReadOperatorProfiles("profile m 0 5\n", Modules(), {Count(100)});
  EXPECT_EQ(missing.status().message(), "the firmware printed no profile line for operator 1 ('fc') of module 'm'");
  Result<std::vector<OperatorProfile>> twice =
      ReadOperatorProfiles("profile m 0 5\nprofile m 0 6\n", Modules(), {Count(100)});
  EXPECT_EQ(twice.status().message(),
            "the firmware printed operator 0 of module 'm' twice in its profile: 'profile m 0 6'");
  Result<std::vector<OperatorProfile>> extra =
      ReadOperatorProfiles("profile m 0 5\nprofile m 1 5\nprofile m 2 5\n", Modules(), {Count(100)});
  EXPECT_EQ(extra.status().message(),
            "the firmware printed a profile line for operator 2 of module 'm', which has 2 operators");
  Result<std::vector<OperatorProfile>> bad = ReadOperatorProfiles("profile m x 5\n", Modules(), {Count(100)});
  EXPECT_EQ(bad.status().message(),
            "the firmware printed a malformed profile line 'profile m x 5' (expected 'profile <module> "
            "<operator index> <ticks>')");
}

}  // namespace
}  // namespace mlf::firmware
