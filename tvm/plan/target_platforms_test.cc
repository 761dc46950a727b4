#include "tvm/plan/target_platforms.h"

#include <gtest/gtest.h>

#include "loader/firmware/platform.h"
#include "tvm/format/tvm_code.h"

namespace mlf {
namespace {

using Names = std::vector<std::string>;

TEST(TargetPlatformsTest, CortexMCoresRunOnEveryBoardOfTheirArchitectureOrAbove) {
  const Names all_boards = {"mps2-an385", "mps2-an386", "mps2-an500"};
  // ARMv6-M code runs on the Cortex-M3 board too (the host adapter used to
  // know no board for these).
  EXPECT_EQ(PlatformsForTarget("cortex-m0"), all_boards);
  EXPECT_EQ(PlatformsForTarget("cortex-m0plus"), all_boards);
  EXPECT_EQ(PlatformsForTarget("cortex-m1"), all_boards);
  EXPECT_EQ(PlatformsForTarget("cortex-m3"), all_boards);
  EXPECT_EQ(PlatformsForTarget("cortex-m4"), (Names{"mps2-an386", "mps2-an500"}));
  EXPECT_EQ(PlatformsForTarget(CodeArchName(CodeArch::kArmCortexM)),
            (Names{"mps2-an386", "mps2-an500"}));
  EXPECT_EQ(PlatformsForTarget("cortex-m7"), (Names{"mps2-an500"}));
}

TEST(TargetPlatformsTest, OtherTargetsHaveNoBoard) {
  EXPECT_EQ(PlatformsForTarget(""), Names{});
  EXPECT_EQ(PlatformsForTarget("cortex-m33"), Names{});
  EXPECT_EQ(PlatformsForTarget("cortex-a53"), Names{});
  EXPECT_EQ(PlatformsForTarget(CodeArchName(CodeArch::kX86)), Names{});
  EXPECT_EQ(PlatformsForTarget(CodeArchName(CodeArch::kRiscV)), Names{});
}

// Every board's own core maps to a list that starts with that board: the
// first platform is what a refusal suggests, so it must be the smallest board
// that runs the code.
TEST(TargetPlatformsTest, EachBoardIsFirstForItsOwnCore) {
  int boards = 0;
  for (const std::string& name : firmware::PlatformNames()) {
    Result<firmware::Platform> p = firmware::FindPlatform(name);
    ASSERT_TRUE(p.ok()) << name;
    if (!p->cortex_m) continue;
    std::string core;
    for (const std::string& f : p->arch_flags) {
      if (f.rfind("-mcpu=", 0) == 0) core = f.substr(6);
    }
    const Names platforms = PlatformsForTarget(core);
    ASSERT_FALSE(platforms.empty()) << name << " (" << core << ")";
    EXPECT_EQ(platforms.front(), name) << core;
    ++boards;
  }
  EXPECT_EQ(boards, 3);
}

}  // namespace
}  // namespace mlf
