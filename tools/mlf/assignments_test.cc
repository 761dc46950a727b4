#include "tools/mlf/assignments.h"

#include <gtest/gtest.h>

namespace mlf::cli {
namespace {

ParsedArgs Parse(const std::vector<std::string>& words) {
  Result<ParsedArgs> args = ParseArgs({{"input", true, true, ""}}, words);
  EXPECT_TRUE(args.ok()) << args.status().message();
  return *args;
}

TEST(SplitAssignment, SplitsAtTheFirstEqualsSign) {
  auto pair = SplitAssignment("input", "x=a=b.npy");
  ASSERT_TRUE(pair.ok()) << pair.status().message();
  EXPECT_EQ(pair->first, "x");
  EXPECT_EQ(pair->second, "a=b.npy");
}

TEST(SplitAssignment, NamesTheFlagAndTheFormExpected) {
  EXPECT_EQ(SplitAssignment("input", "x.npy").status().message(),
            "--input needs NAME=FILE.npy, got 'x.npy'");
  EXPECT_EQ(SplitAssignment("input", "=x.npy").status().message(),
            "--input needs NAME=FILE.npy, got '=x.npy'");
  EXPECT_EQ(SplitAssignment("input-shape", "x=", "D0,D1,...").status().message(),
            "--input-shape needs NAME=D0,D1,..., got 'x='");
  // Typed text is escaped for the terminal.
  EXPECT_EQ(SplitAssignment("input", "\x1b[2J").status().message(),
            "--input needs NAME=FILE.npy, got '\\x1b[2J'");
}

TEST(Assignments, KeepsCommandLineOrder) {
  auto pairs = Assignments(Parse({"--input", "b=2.npy", "--input=a=1.npy"}), "input");
  ASSERT_TRUE(pairs.ok()) << pairs.status().message();
  ASSERT_EQ(pairs->size(), 2u);
  EXPECT_EQ((*pairs)[0], std::make_pair(std::string("b"), std::string("2.npy")));
  EXPECT_EQ((*pairs)[1], std::make_pair(std::string("a"), std::string("1.npy")));
}

TEST(Assignments, RefusesANameGivenTwice) {
  EXPECT_EQ(Assignments(Parse({"--input", "a=1.npy", "--input", "a=2.npy"}), "input")
                .status()
                .message(),
            "--input names 'a' more than once");
}

}  // namespace
}  // namespace mlf::cli
