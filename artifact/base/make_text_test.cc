#include "artifact/base/make_text.h"

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

TEST(MakeTextTest, CommentTextIsOneLineOfPrintableAsciiWithoutBackslashes) {
  EXPECT_EQ(MakeCommentText("add"), "add");
  EXPECT_EQ(MakeCommentText("add\n$(shell echo X > PWNED)\n#"),
            "add\\x0a$(shell echo X > PWNED)\\x0a#");
  EXPECT_EQ(MakeCommentText("x\\"), "x\\x5c");
  EXPECT_EQ(MakeCommentText("\r\t\x7f\xc3\xa9"), "\\x0d\\x09\\x7f\\xc3\\xa9");
}

TEST(MakeTextTest, VariableValuesEscapeWhatMakeReads) {
  EXPECT_EQ(*MakeVariableValue("src/a.c"), "src/a.c");
  EXPECT_EQ(*MakeVariableValue("$(shell touch PWNED)"), "$$(shell touch PWNED)");
  EXPECT_EQ(*MakeVariableValue("a#b"), "a\\#b");
  EXPECT_EQ(*MakeVariableValue("a\\#b"), "a\\\\\\#b");
  EXPECT_EQ(*MakeVariableValue("a\\b"), "a\\b");
  EXPECT_EQ(*MakeVariableValue("x\\"), "x\\$()");
  EXPECT_EQ(*MakeVariableValue(" x "), "$() x $()");
  EXPECT_EQ(*MakeVariableValue("`id`;"), "`id`;");
  EXPECT_EQ(*MakeVariableValue(""), "");
  for (const char* bad : {"a\nb", "a\rb"}) {
    Result<std::string> v = MakeVariableValue(bad);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().ToString(),
              "invalid_argument: a Make variable cannot hold NUL, line feed or carriage return "
              "characters");
  }
  EXPECT_FALSE(MakeVariableValue(std::string("a\0b", 3)).ok());
}

// Read back by make: each value, assigned with = and with :=, is written by
// $(file) to a file of its own and compared byte for byte.
TEST(MakeTextTest, VariablesReadBackByMakeHoldTheOriginalBytes) {
  // No NUL, line feed or carriage return: a Make variable cannot hold them.
  const std::vector<std::string> corpus = HostileCorpusWithout(std::string("\0\n\r", 3));
  const std::string dir = FreshDir("make_values");
  std::string makefile;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    Result<std::string> value = MakeVariableValue(corpus[i]);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    makefile += "R" + n + " = " + *value + "\nS" + n + " := " + *value + "\n";
    makefile += "$(file >r" + n + ",$(R" + n + "))\n$(file >s" + n + ",$(S" + n + "))\n";
  }
  makefile += "all: ;@:\n";
  WriteFile(dir + "/Makefile", makefile);
  Result<ProcessResult> make = RunProcess({"make", "-s", "-C", dir});
  ASSERT_TRUE(make.ok()) << make.status().ToString();
  ASSERT_EQ(make->exit_code, 0) << make->output;
  EXPECT_EQ(make->output, "");
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    EXPECT_TRUE(ReadFile(dir + "/r" + n) == corpus[i] + "\n") << "value " << n;
    EXPECT_TRUE(ReadFile(dir + "/s" + n) == corpus[i] + "\n") << "value " << n;
  }
}

// Read back by make: the comment text stays a comment. A following
// assignment on the next line must still be made, and the payload
// ($(error), a new line) must not be read.
TEST(MakeTextTest, CommentTextStaysACommentInMake) {
  const std::vector<std::string> corpus = HostileCorpus();
  const std::string dir = FreshDir("make_comments");
  std::string makefile;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    const std::string payload = corpus[i] + "\n$(error escaped " + n + ")\\";
    makefile += "# " + MakeCommentText(payload) + "\nKEPT" + n + " = 1\n";
    makefile += "#" + MakeCommentText(corpus[i]) + "\n$(if $(KEPT" + n + "),,$(error swallowed " +
                n + "))\n";
  }
  makefile += "all: ;@echo done\n";
  WriteFile(dir + "/Makefile", makefile);
  Result<ProcessResult> make = RunProcess({"make", "-s", "-C", dir});
  ASSERT_TRUE(make.ok()) << make.status().ToString();
  EXPECT_EQ(make->exit_code, 0) << make->output;
  EXPECT_EQ(make->output, "done\n");
}

}  // namespace
}  // namespace mlf
