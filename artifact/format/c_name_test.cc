#include "artifact/format/c_name.h"

#include <string>

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(CNameTest, SanitisesLikeTvm) {
  EXPECT_EQ(SanitizeCName("serving_default_input_1:0"), "serving_default_input_1_0");
  EXPECT_EQ(SanitizeCName("input.1"), "input_1");
  EXPECT_EQ(SanitizeCName("a-b/c d"), "a_b_c_d");
  EXPECT_EQ(SanitizeCName("0x"), "_0x");
  EXPECT_EQ(SanitizeCName(""), "_");
}

TEST(CNameTest, RecognisesIdentifiers) {
  EXPECT_TRUE(IsCIdentifier("input_0"));
  EXPECT_TRUE(IsCIdentifier("_x"));
  EXPECT_FALSE(IsCIdentifier("0x"));
  EXPECT_FALSE(IsCIdentifier("a:b"));
  EXPECT_FALSE(IsCIdentifier(""));
}

TEST(CNameTest, MacroCase) { EXPECT_EQ(ToMacroCase("input_0x"), "INPUT_0X"); }

TEST(CNameTest, SafeMemberPaths) {
  EXPECT_TRUE(IsSafeMemberPath("codegen/host/src/default_lib0.c"));
  EXPECT_TRUE(IsSafeMemberPath("a..b/c"));
  EXPECT_FALSE(IsSafeMemberPath("/etc/passwd"));
  EXPECT_FALSE(IsSafeMemberPath("a/../../b"));
  EXPECT_FALSE(IsSafeMemberPath("./a"));
  EXPECT_FALSE(IsSafeMemberPath("a//b"));
  EXPECT_FALSE(IsSafeMemberPath("a/"));
  EXPECT_FALSE(IsSafeMemberPath("a\\b"));
  EXPECT_FALSE(IsSafeMemberPath(std::string("a\0b", 3)));
  EXPECT_FALSE(IsSafeMemberPath(""));
}

}  // namespace
}  // namespace mlf
