#include "artifact/c_text.h"

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(CTextTest, StringLiteralsEscapeEverythingRisky) {
  EXPECT_EQ(CStringLiteral("x"), "\"x\"");
  EXPECT_EQ(CStringLiteral("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(CStringLiteral("?"
                           "?="),
            "\"\\077\\077=\"");  // no trigraphs
  EXPECT_EQ(CStringLiteral(std::string("\n\0\xff", 3)), "\"\\012\\000\\377\"");
  EXPECT_EQ(CStringLiteral("a\"b\\c\n?\x01\xc3\xa9"), "\"a\\\"b\\\\c\\012\\077\\001\\303\\251\"");
}

TEST(CTextTest, CommentTextCannotCloseOrNestComments) {
  EXPECT_EQ(CCommentText("a */ b"), "a * / b");
  EXPECT_EQ(CCommentText("a /* b"), "a / * b");
  EXPECT_EQ(CCommentText("x*/y/*z"), "x* /y/ *z");
  EXPECT_EQ(CCommentText("/*/"), "/ * /");
  EXPECT_EQ(CCommentText("x\ny\x7f"), "x?y?");
  EXPECT_EQ(CCommentText("\n/"), "?/");
}

}  // namespace
}  // namespace mlf
