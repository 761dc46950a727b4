#include "artifact/base/c_text.h"

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
using testutil::ReadFile;
using testutil::WriteFile;

TEST(CTextTest, StringLiteralsEscapeEverythingRisky) {
  EXPECT_EQ(CStringLiteral("x"), "\"x\"");
  EXPECT_EQ(CStringLiteral("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(CStringLiteral("?"
                           "?="),
            "\"\\077\\077=\"");  // no trigraphs
  EXPECT_EQ(CStringLiteral(std::string("\n\0\xff", 3)), "\"\\012\\000\\377\"");
  EXPECT_EQ(CStringLiteral("a\"b\\c\n?\x01\xc3\xa9"), "\"a\\\"b\\\\c\\012\\077\\001\\303\\251\"");
  EXPECT_EQ(CStringLiteral("\0011"), "\"\\0011\"");  // three digits: the '1' stays a '1'
}

TEST(CTextTest, CommentTextIsPrintableAsciiThatCannotEndTheComment) {
  EXPECT_EQ(CCommentText("conv_1.weight"), "conv_1.weight");
  EXPECT_EQ(CCommentText("a */ b"), "a *\\x2f b");
  EXPECT_EQ(CCommentText("a /* b"), "a /\\x2a b");
  EXPECT_EQ(CCommentText("x*/y/*z"), "x*\\x2fy/\\x2az");
  EXPECT_EQ(CCommentText("/*/"), "\\x2f*\\x2f");
  EXPECT_EQ(CCommentText("*/*/"), "\\x2a/\\x2a\\x2f");
  EXPECT_EQ(CCommentText("x\ny\x7f"), "x\\x0ay\\x7f");
  EXPECT_EQ(CCommentText("*\n/"), "\\x2a\\x0a\\x2f");
  EXPECT_EQ(CCommentText("a*"), "a\\x2a");
  EXPECT_EQ(CCommentText("/a?"), "\\x2fa\\x3f");
  EXPECT_EQ(CCommentText("?\?/"), "\\x3f?\\x2f");
  EXPECT_EQ(CCommentText("a?\?/b"), "a?\\x3f/b");
  EXPECT_EQ(CCommentText("?\??"), "\\x3f?\\x3f");
  EXPECT_EQ(CCommentText("end\\"), "end\\x5c");
  EXPECT_EQ(CCommentText("caf\xc3\xa9"), "caf\\xc3\\xa9");
  EXPECT_EQ(CCommentText("\xe2\x80\xae"), "\\xe2\\x80\\xae");
  EXPECT_EQ(CCommentText(""), "");
  EXPECT_EQ(CCommentText("r */ __attribute__((constructor)) static void pwn(void){ "
                         "__builtin_puts(\"INJECTED\"); } /*"),
            "r *\\x2f __attribute__((constructor)) static void pwn(void){ "
            "__builtin_puts(\"INJECTED\"); } /\\x2a");
}

TEST(CTextTest, CommentTextHasNoControlBytesAndNoClosingSequence) {
  for (const std::string& s : HostileCorpus()) {
    const std::string c = CCommentText(s);
    for (unsigned char ch : c) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << c;
    EXPECT_EQ(c.find("*/"), std::string::npos) << c;
    EXPECT_EQ(c.find("/*"), std::string::npos) << c;
    EXPECT_EQ(c.find("?\?"), std::string::npos) << c;
    EXPECT_NE(c.empty() ? ' ' : c.back(), '\\') << c;
    for (char end : {'/', '*', '?'}) {
      EXPECT_NE(c.empty() ? ' ' : c.front(), end) << c;
      EXPECT_NE(c.empty() ? ' ' : c.back(), end) << c;
    }
  }
}

// Compiles `source` with the system cc as C99 (trigraphs on) with -Wall
// -Werror, runs it and returns its output.
std::string CompileAndRun(const std::string& dir, const std::string& source) {
  WriteFile(dir + "/t.c", source);
  Result<ProcessResult> cc = RunProcess(
      // C99 only promises 4095-byte literals; gcc takes any length.
      {"cc", "-std=c99", "-pedantic", "-Wall", "-Werror", "-Wno-overlength-strings", "-o",
       dir + "/t", dir + "/t.c"});
  EXPECT_TRUE(cc.ok()) << cc.status().ToString();
  if (!cc.ok()) return "";
  EXPECT_EQ(cc->exit_code, 0) << cc->output;
  Result<ProcessResult> run = RunProcess({dir + "/t"});
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  if (!run.ok()) return "";
  EXPECT_EQ(run->exit_code, 0) << run->output;
  return run->output;
}

// Read back by C: every literal, compiled and written out byte for byte,
// is the original text (all 256 byte values, NUL included).
TEST(CTextTest, StringLiteralsCompileToTheOriginalBytes) {
  const std::vector<std::string> corpus = HostileCorpus();
  std::string source = "#include <stdio.h>\n";
  std::string writes;
  std::string expected;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    source += "static const char s" + n + "[] = " + CStringLiteral(corpus[i]) + ";\n";
    writes += "  fwrite(s" + n + ", 1, sizeof s" + n + " - 1, stdout);\n  putchar('|');\n";
    expected += corpus[i] + "|";
  }
  source += "int main(void) {\n" + writes + "  return 0;\n}\n";
  const std::string dir = FreshDir("c_string_literals");
  const std::string output = CompileAndRun(dir, source);
  EXPECT_EQ(output.size(), expected.size());
  EXPECT_TRUE(output == expected) << "the compiled literals differ from the original bytes";
}

// Read back by C: the comment text, in a /* */ comment and after //, stays
// a comment. A payload after it ("*/ COMMENT_ESCAPED", a new line of code)
// would not compile; the declaration after each comment, on the same line
// and on the next, must compile and run.
TEST(CTextTest, CommentTextStaysACommentWhenCompiled) {
  const std::vector<std::string> corpus = HostileCorpus();
  std::string source = "#include <stdio.h>\n";
  std::string sum = "0";
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::string n = std::to_string(i);
    const std::string payload = corpus[i] + " */ COMMENT_ESCAPED; /*\nCOMMENT_ESCAPED;";
    source += "/* " + CCommentText(payload) + " */ static int a" + n + " = 1;\n";
    source += "/*" + CCommentText(corpus[i]) + "*/ static int b" + n + " = 1;\n";
    source += "// " + CCommentText(payload) + "\nstatic int c" + n + " = 1;\n";
    source += "//" + CCommentText(corpus[i]) + "\nstatic int d" + n + " = 1;\n";
    sum += " + a" + n + " + b" + n + " + c" + n + " + d" + n;
  }
  source += "int main(void) {\n  printf(\"%d\\n\", " + sum + ");\n  return 0;\n}\n";
  const std::string dir = FreshDir("c_comments");
  EXPECT_EQ(CompileAndRun(dir, source), std::to_string(4 * corpus.size()) + "\n");
  for (unsigned char ch : ReadFile(dir + "/t.c")) {
    ASSERT_TRUE((ch >= 0x20 && ch < 0x7f) || ch == '\n') << "a control byte in the source";
  }
}

}  // namespace
}  // namespace mlf
