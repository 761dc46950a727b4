#include "artifact/base/printable_name.h"

#include <string>

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(PrintableNameTest, FindsC0DeleteAndC1ControlCharacters) {
  EXPECT_EQ(FirstControlCharacter("conv_1.weight"), std::nullopt);
  EXPECT_EQ(FirstControlCharacter("r */ $(x) `y` ?\?/ \\"), std::nullopt);
  EXPECT_EQ(FirstControlCharacter("caf\xc3\xa9 \xe2\x80\xae"), std::nullopt);
  EXPECT_EQ(FirstControlCharacter("a\nb"), 0x0au);
  EXPECT_EQ(FirstControlCharacter(std::string("a\0b", 3)), 0x00u);
  EXPECT_EQ(FirstControlCharacter("\x7f"), 0x7fu);
  EXPECT_EQ(FirstControlCharacter("x\xc2\x9b" "31m"), 0x9bu);
  EXPECT_EQ(FirstControlCharacter("\xc2\xa0"), std::nullopt);  // NO-BREAK SPACE
}

TEST(PrintableNameTest, MessagesNameTheFieldAndShowTheNameEscaped) {
  EXPECT_TRUE(CheckPrintableName("node 3: name", "relu").ok());
  EXPECT_EQ(CheckPrintableName("node 3: name", "r\n$(shell echo X > PWNED)\n#").ToString(),
            "invalid_argument: node 3: name 'r\\x0a$(shell echo X > PWNED)\\x0a#' contains a "
            "control character (U+000A); names must be printable");
  EXPECT_EQ(CheckPrintableName("input 0: name", "\x1b[2K'\"\\").ToString(),
            "invalid_argument: input 0: name '\\x1b[2K'\"\\\\' contains a control character "
            "(U+001B); names must be printable");
  EXPECT_EQ(CheckPrintableName("x", std::string(250, 'a') + "\t").ToString(),
            "invalid_argument: x '" + std::string(200, 'a') +
                "...' contains a control character (U+0009); names must be printable");
  EXPECT_EQ(CheckPrintableName("x", "a\r\tb\xc3\xa9\xc2\x85").ToString(),
            "invalid_argument: x 'a\\x0d\\x09b\xc3\xa9\\u{0085}' contains a control character "
            "(U+000D); names must be printable");
}

}  // namespace
}  // namespace mlf
