#include "artifact/base/closest_word.h"

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(EditDistance, CountsEachKindOfEditOnce) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("inspect", "inspect"), 0u);
  EXPECT_EQ(EditDistance("inspec", "inspect"), 1u);   // insertion
  EXPECT_EQ(EditDistance("inspectt", "inspect"), 1u); // deletion
  EXPECT_EQ(EditDistance("inspekt", "inspect"), 1u);  // substitution
  EXPECT_EQ(EditDistance("inpsect", "inspect"), 1u);  // neighbours swapped
  EXPECT_EQ(EditDistance("", "run"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

const std::vector<std::string> kCommands = {"export", "pack", "unpack", "inspect", "verify",
                                            "keygen", "sign", "run", "bench", "project", "upgrade"};

TEST(ClosestWord, SuggestsTypos) {
  EXPECT_EQ(ClosestWord("inpsect", kCommands), "inspect");
  EXPECT_EQ(ClosestWord("verfy", kCommands), "verify");
  EXPECT_EQ(ClosestWord("exprot", kCommands), "export");
  EXPECT_EQ(ClosestWord("projcet", kCommands), "project");
  EXPECT_EQ(ClosestWord("unpak", kCommands), "unpack");
  EXPECT_EQ(ClosestWord("upack", kCommands), "pack");  // "unpack" is as close: the first wins
}

TEST(ClosestWord, StaysSilentForOtherWords) {
  EXPECT_EQ(ClosestWord("frob", kCommands), "");
  EXPECT_EQ(ClosestWord("x", kCommands), "");     // too short to be a typo of anything
  EXPECT_EQ(ClosestWord("rn", kCommands), "");    // 2 letters: no edit allowed
  EXPECT_EQ(ClosestWord("compile", kCommands), "");
  EXPECT_EQ(ClosestWord("", kCommands), "");
}

}  // namespace
}  // namespace mlf
