#include "artifact/base/markdown_text.h"

#include <cctype>
#include <string>

#include <gtest/gtest.h>

#include "artifact/base/testing/hostile_text.h"

namespace mlf {
namespace {

TEST(MarkdownTextTest, PunctuationIsEscapedAndEverythingElseIsPrintableAscii) {
  EXPECT_EQ(MarkdownText("add"), "add");
  EXPECT_EQ(MarkdownText("my_model.v2"), "my\\_model\\.v2");
  EXPECT_EQ(MarkdownText("*x* [a](b) <i> &amp; |c| `d` # !"),
            "\\*x\\* \\[a\\]\\(b\\) \\<i\\> \\&amp\\; \\|c\\| \\`d\\` \\# \\!");
  EXPECT_EQ(MarkdownText("add\n$(shell echo X > PWNED)\n#"),
            "add\\x0a\\$\\(shell echo X \\> PWNED\\)\\x0a\\#");
  EXPECT_EQ(MarkdownText("a\\b"), "a\\\\b");
  EXPECT_EQ(MarkdownText("\xe2\x80\xae" "evil\x1b"), "\\xe2\\x80\\xaeevil\\x1b");
  EXPECT_EQ(MarkdownText("<!-- mlf:size-report -->"), "\\<\\!\\-\\- mlf\\:size\\-report \\-\\-\\>");
}

TEST(MarkdownTextTest, CodeSpansAreFencedLongerThanAnyBacktickRun) {
  EXPECT_EQ(MarkdownCodeSpan("op.tar"), "`op.tar`");
  EXPECT_EQ(MarkdownCodeSpan("a`b"), "``a`b``");
  EXPECT_EQ(MarkdownCodeSpan("a``b`"), "``` a``b` ```");
  EXPECT_EQ(MarkdownCodeSpan("`x"), "`` `x ``");
  EXPECT_EQ(MarkdownCodeSpan(" x "), "`  x  `");
  EXPECT_EQ(MarkdownCodeSpan("  "), "`  `");
  EXPECT_EQ(MarkdownCodeSpan(""), "` `");
  EXPECT_EQ(MarkdownCodeSpan("a\nb\\c"), "`a\\x0ab\\c`");
}

TEST(MarkdownTextTest, OutputIsOneLineOfPrintableAscii) {
  for (const std::string& s : testutil::HostileStrings()) {
    for (const std::string& md : {MarkdownText(s), MarkdownCodeSpan(s)}) {
      for (unsigned char c : md) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << md;
    }
    // In running text no punctuation is left unescaped.
    const std::string text = MarkdownText(s);
    for (size_t i = 0; i < text.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      const bool punctuation = c > 0x20 && c < 0x7f && !std::isalnum(c);
      if (c == '\\') {
        ++i;  // the escaped character, or the 'x' of \xNN
        continue;
      }
      EXPECT_FALSE(punctuation) << text;
    }
  }
}

}  // namespace
}  // namespace mlf
