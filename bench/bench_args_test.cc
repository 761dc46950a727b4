#include "bench/bench_args.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace mlf::bench {
namespace {

TEST(BenchArgsTest, HelpAnywhereOnTheLine) {
  char prog[] = "bench", rounds[] = "--rounds", five[] = "5", help[] = "--help";
  char* with[] = {prog, rounds, five, help};
  char* without[] = {prog, rounds, five};
  EXPECT_TRUE(WantsHelp(4, with));
  EXPECT_FALSE(WantsHelp(3, without));
}

TEST(BenchArgsTest, FlagValueIsTheNextArgument) {
  char prog[] = "bench", rounds[] = "--rounds", five[] = "5", calls[] = "--calls";
  char* argv[] = {prog, rounds, five, calls};
  EXPECT_STREQ(FlagValue(4, argv, "--rounds"), "5");
  EXPECT_EQ(FlagValue(4, argv, "--calls"), nullptr);  // last: no value after it
  EXPECT_EQ(FlagValue(4, argv, "--param-mib"), nullptr);
}

TEST(BenchArgsTest, WorkDirIsNewAndUnderTheTemporaryDirectory) {
  const std::string a = MakeWorkDir("mlf-bench-args-test");
  const std::string b = MakeWorkDir("mlf-bench-args-test");
  ASSERT_NE(a, "");
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::filesystem::is_directory(a));
  EXPECT_EQ(std::filesystem::path(a).parent_path(), std::filesystem::temp_directory_path());
  EXPECT_EQ(std::filesystem::path(a).filename().string().rfind("mlf-bench-args-test-", 0), 0u);
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

}  // namespace
}  // namespace mlf::bench
