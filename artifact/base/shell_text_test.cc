#include "artifact/base/shell_text.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/base/subprocess.h"
#include "artifact/base/testing/hostile_text.h"
#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::FreshDir;
using testutil::ReadFile;
using testutil::WriteFile;

TEST(ShellTextTest, PlainWordsStayBareAndTheRestIsSingleQuoted) {
  EXPECT_EQ(ShellWord("cc"), "cc");
  EXPECT_EQ(ShellWord("-Wl,-Map=build/app.map"), "-Wl,-Map=build/app.map");
  EXPECT_EQ(ShellWord("a b"), "'a b'");
  EXPECT_EQ(ShellWord("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellWord("$(touch PWNED) `id`"), "'$(touch PWNED) `id`'");
  EXPECT_EQ(ShellWord("A=1"), "'A=1'");
  EXPECT_EQ(ShellWord("~root"), "'~root'");
  EXPECT_EQ(ShellWord(""), "''");
  EXPECT_EQ(ShellWord(std::string("a\0b", 3)), "'ab'");
}

// Read back by /bin/sh: printf '%s' WORD writes the original bytes (every
// byte but NUL, which no argv string can hold).
TEST(ShellTextTest, WordsReadBackByTheShellHoldTheOriginalBytes) {
  const std::vector<std::string> corpus = testutil::HostileCorpusWithout(std::string(1, '\0'));
  const std::string dir = FreshDir("shell_words");
  std::string script;
  for (size_t i = 0; i < corpus.size(); ++i) {
    script += "printf '%s' " + ShellWord(corpus[i]) + " > " + dir + "/w" + std::to_string(i) + "\n";
  }
  WriteFile(dir + "/t.sh", script);
  ProcessOptions options;
  options.cwd = dir;
  Result<ProcessResult> sh = RunProcess({"/bin/sh", dir + "/t.sh"}, options);
  ASSERT_TRUE(sh.ok()) << sh.status().ToString();
  ASSERT_EQ(sh->exit_code, 0) << sh->output;
  EXPECT_EQ(sh->output, "");
  for (size_t i = 0; i < corpus.size(); ++i) {
    EXPECT_TRUE(ReadFile(dir + "/w" + std::to_string(i)) == corpus[i]) << "word " << i;
  }
  EXPECT_FALSE(testutil::Exists(dir + "/PWNED"));
}

}  // namespace
}  // namespace mlf
