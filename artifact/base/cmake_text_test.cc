#include "artifact/base/cmake_text.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/base/subprocess.h"
#include "artifact/base/testing/hostile_text.h"
#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::FreshDir;
using testutil::HostileCorpus;
using testutil::HostileCorpusWithout;
using testutil::ReadFile;
using testutil::WriteFile;

TEST(CMakeTextTest, CommentTextIsOneLineAndOpensNoBracketComment) {
  EXPECT_EQ(CMakeCommentText("add"), "add");
  EXPECT_EQ(CMakeCommentText("add\nexecute_process(COMMAND touch PWNED)"),
            "add\\x0aexecute_process(COMMAND touch PWNED)");
  EXPECT_EQ(CMakeCommentText("[[x"), "\\x5b[x");
  EXPECT_EQ(CMakeCommentText("a[[x"), "a[[x");
  EXPECT_EQ(CMakeCommentText("x\\\r"), "x\\x5c\\x0d");
}

TEST(CMakeTextTest, QuotedArgumentsEscapeWhatCMakeEvaluates) {
  EXPECT_EQ(*CMakeQuotedArgument("add"), "\"add\"");
  EXPECT_EQ(*CMakeQuotedArgument("${HOME} $ENV{HOME}"), "\"\\${HOME} \\$ENV{HOME}\"");
  EXPECT_EQ(*CMakeQuotedArgument("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(*CMakeQuotedArgument("a\nb\tc\rd;e"), "\"a\\nb\\tc\\rd;e\"");
  EXPECT_EQ(*CMakeQuotedArgument(""), "\"\"");
  EXPECT_EQ(*CMakeQuotedArgument("@CMAKE_COMMAND@"), "\"\\@CMAKE_COMMAND\\@\"");
  Result<std::string> nul = CMakeQuotedArgument(std::string("a\0b", 3));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().ToString(), "invalid_argument: a CMake argument cannot hold NUL characters");
}

Result<ProcessResult> RunCMakeScript(const std::string& dir, const std::string& script) {
  WriteFile(dir + "/t.cmake", script);
  ProcessOptions options;
  options.cwd = dir;
  return RunProcess({"cmake", "-P", dir + "/t.cmake"}, options);
}

// Read back by CMake: each quoted argument, set() into a variable and
// written with file(WRITE), gives the original bytes; message() prints it.
TEST(CMakeTextTest, QuotedArgumentsReadBackByCMakeHoldTheOriginalBytes) {
  // Every byte but NUL, which no CMake argument can hold.
  const std::vector<std::string> corpus = HostileCorpusWithout(std::string(1, '\0'));
  const std::string dir = FreshDir("cmake_arguments");
  std::string script;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    Result<std::string> arg = CMakeQuotedArgument(corpus[i]);
    ASSERT_TRUE(arg.ok()) << arg.status().ToString();
    script += "set(V" + n + " " + *arg + ")\nfile(WRITE v" + n + " \"${V" + n + "}\")\n";
    script += "file(WRITE w" + n + " " + *arg + ")\n";
  }
  script += "message(" + *CMakeQuotedArgument("$(shell x) `y` ${z};w") + ")\n";
  Result<ProcessResult> cmake = RunCMakeScript(dir, script);
  ASSERT_TRUE(cmake.ok()) << cmake.status().ToString();
  ASSERT_EQ(cmake->exit_code, 0) << cmake->output;
  EXPECT_EQ(cmake->output, "$(shell x) `y` ${z};w\n");
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    EXPECT_TRUE(ReadFile(dir + "/v" + n) == corpus[i]) << "argument " << n;
    EXPECT_TRUE(ReadFile(dir + "/w" + n) == corpus[i]) << "argument " << n;
  }
}

// Read back by CMake: the comment text stays a comment, right after the
// '#' and after "# ": the next line still runs and the payload does not.
TEST(CMakeTextTest, CommentTextStaysACommentInCMake) {
  const std::vector<std::string> corpus = HostileCorpus();
  const std::string dir = FreshDir("cmake_comments");
  std::string script;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    const std::string payload = corpus[i] + "\nmessage(FATAL_ERROR \"escaped " + n + "\")";
    script += "# " + CMakeCommentText(payload) + "\nset(A" + n + " 1)\n";
    script += "#" + CMakeCommentText(corpus[i]) + "\nset(B" + n + " 1)\n";
    script += "if(NOT A" + n + " OR NOT B" + n + ")\n  message(FATAL_ERROR \"swallowed " + n +
              "\")\nendif()\n";
  }
  script += "message(\"done\")\n";
  Result<ProcessResult> cmake = RunCMakeScript(dir, script);
  ASSERT_TRUE(cmake.ok()) << cmake.status().ToString();
  EXPECT_EQ(cmake->exit_code, 0) << cmake->output;
  EXPECT_EQ(cmake->output, "done\n");
}

}  // namespace
}  // namespace mlf
