#include "artifact/base/subprocess.h"

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(SubprocessTest, CollectsOutputAndExitCode) {
  auto r = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_NE(r->output.find("out\n"), std::string::npos);
  EXPECT_NE(r->output.find("err\n"), std::string::npos);
}

TEST(SubprocessTest, ArgumentsAreNotInterpretedByAShell) {
  auto r = RunProcess({"printf", "%s", "a b; echo injected"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output, "a b; echo injected");
}

TEST(SubprocessTest, RunsInTheGivenDirectoryWithExtraEnvironment) {
  ProcessOptions options;
  options.cwd = "/";
  options.env = {"MLF_SUBPROCESS_TEST=42"};
  auto r = RunProcess({"sh", "-c", "pwd; echo $MLF_SUBPROCESS_TEST"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output, "/\n42\n");
}

TEST(SubprocessTest, MissingProgramIsNotFound) {
  auto r = RunProcess({"mlf-no-such-program-xyz"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "cannot run 'mlf-no-such-program-xyz': program not found");
}

TEST(SubprocessTest, TimeoutKillsTheProcess) {
  ProcessOptions options;
  options.timeout_seconds = 1;
  auto r = RunProcess({"sleep", "30"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 128 + 9);
}

TEST(SubprocessTest, OutputIsTruncatedAtTheBound) {
  ProcessOptions options;
  options.max_output = 10;
  auto r = RunProcess({"sh", "-c", "yes | head -c 100000"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output.size(), 10u);
  EXPECT_EQ(r->exit_code, 0);
}

}  // namespace
}  // namespace mlf
