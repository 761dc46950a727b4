#include "artifact/base/display_text.h"

#include <ostream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(DisplayTextTest, PlainTextIsUnchanged) {
  EXPECT_EQ(DisplayText("serving_default_input_1:0"), "serving_default_input_1:0");
  EXPECT_EQ(DisplayText("a b/c.d 'q' \"x\" $(y) `z` #;?\?/"), "a b/c.d 'q' \"x\" $(y) `z` #;?\?/");
  EXPECT_EQ(DisplayText("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(DisplayText(""), "");
}

TEST(DisplayTextTest, EscapesC0ControlsAndDel) {
  EXPECT_EQ(DisplayText("codegen/\x1b[2K\rverified OK\n"), "codegen/\\x1b[2K\\x0dverified OK\\x0a");
  EXPECT_EQ(DisplayText(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(DisplayText("\a\b\t\v\f\x1f\x7f"), "\\x07\\x08\\x09\\x0b\\x0c\\x1f\\x7f");
}

TEST(DisplayTextTest, EscapesBackslashSoEscapesAreUnambiguous) {
  EXPECT_EQ(DisplayText("a\\x1b"), "a\\\\x1b");
  EXPECT_NE(DisplayText("\\x1b"), DisplayText("\x1b"));
}

TEST(DisplayTextTest, EscapesC1AndBidiControls) {
  EXPECT_EQ(DisplayText("\xc2\x80\xc2\x85\xc2\x9b\xc2\x9f\xc2\xa0"),
            "\\u{0080}\\u{0085}\\u{009B}\\u{009F}\xc2\xa0");
  // U+202A..U+202E, U+2066..U+2069, U+2028, U+2029; U+2029's neighbours pass.
  EXPECT_EQ(DisplayText("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae"),
            "\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{202E}");
  EXPECT_EQ(DisplayText("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9"),
            "\\u{2066}\\u{2067}\\u{2068}\\u{2069}");
  EXPECT_EQ(DisplayText("\xe2\x80\xa8\xe2\x80\xa9"), "\\u{2028}\\u{2029}");
  EXPECT_EQ(DisplayText("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa"),
            "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa");
  EXPECT_EQ(DisplayText("abc\xe2\x80\xae" "fdp.exe"), "abc\\u{202E}fdp.exe");
}

TEST(DisplayTextTest, EscapesBidiMarks) {
  // LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK, ARABIC LETTER MARK: they reorder
  // a line like the overrides do. Their neighbours pass.
  EXPECT_EQ(DisplayText("a\xe2\x80\x8e"
                        "b\xe2\x80\x8f"
                        "c\xd8\x9c"
                        "d"),
            "a\\u{200E}b\\u{200F}c\\u{061C}d");
  EXPECT_EQ(DisplayText("\xe2\x80\x8d\xe2\x80\x90\xd8\x9b\xd8\x9d"),
            "\xe2\x80\x8d\xe2\x80\x90\xd8\x9b\xd8\x9d");
}

TEST(QuoteForMessageTest, QuotesPlainNamesAsTheyAre) {
  EXPECT_EQ(QuoteForMessage("conv1.weight"), "'conv1.weight'");
  EXPECT_EQ(QuoteForMessage(""), "''");
  EXPECT_EQ(QuoteForMessage("caf\xc3\xa9 \"x\" $(y)"), "'caf\xc3\xa9 \"x\" $(y)'");
}

TEST(QuoteForMessageTest, EscapesLikeDisplayText) {
  EXPECT_EQ(QuoteForMessage("nl\n\x1b[2K\rverified OK"), "'nl\\x0a\\x1b[2K\\x0dverified OK'");
  EXPECT_EQ(QuoteForMessage("rlo\xe2\x80\xae"
                            "gpj.exe\xe2\x80\x8f"),
            "'rlo\\u{202E}gpj.exe\\u{200F}'");
  EXPECT_EQ(QuoteForMessage("\xff\xc2\x9b"), "'\\xff\\u{009B}'");
  // A name spelling an escape differs from the escaped character...
  EXPECT_EQ(QuoteForMessage("\\x1b"), "'\\\\x1b'");
  EXPECT_EQ(QuoteForMessage("\x1b"), "'\\x1b'");
  // Quotes are text like any other.
  EXPECT_EQ(QuoteForMessage("dict(descr='<f4'"), "'dict(descr='<f4''");
}

TEST(QuoteForMessageTest, CutsLongTextAtACharacter) {
  EXPECT_EQ(QuoteForMessage(std::string(200, 'L')), "'" + std::string(200, 'L') + "'");
  EXPECT_EQ(QuoteForMessage(std::string(201, 'L')), "'" + std::string(200, 'L') + "...'");
  EXPECT_EQ(
      QuoteForMessage(std::string(5000, '\n')), "'" + [] {
        std::string s;
        for (int i = 0; i < 200; ++i) s += "\\x0a";
        return s;
      }() + "...'");
  // The cut never splits a character: U+00E9 at bytes 39-40 is left out whole.
  EXPECT_EQ(QuoteForMessage(std::string(39, 'a') + "\xc3\xa9z", 40),
            "'" + std::string(39, 'a') + "...'");
  EXPECT_EQ(QuoteForMessage(std::string(38, 'a') + "\xc3\xa9z", 40),
            "'" + std::string(38, 'a') + "\xc3\xa9...'");
  // Continuation bytes without a lead are cut where they are.
  EXPECT_EQ(QuoteForMessage(std::string(10, '\x80'), 4), "'\\x80...'");
  EXPECT_EQ(QuoteForMessage("/tmp/" + std::string(4000, 'p'), kQuotedPathBytes),
            "'/tmp/" + std::string(4000, 'p') + "'");
}

TEST(DisplayTextTest, EscapesEveryByteOfInvalidUtf8) {
  EXPECT_EQ(DisplayText("\x80"), "\\x80");                   // stray continuation
  EXPECT_EQ(DisplayText("\xc3"), "\\xc3");                   // truncated at the end
  EXPECT_EQ(DisplayText("\xc3x"), "\\xc3x");                 // truncated before ASCII
  EXPECT_EQ(DisplayText("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(DisplayText("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");  // overlong, 3 bytes
  EXPECT_EQ(DisplayText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate U+D800
  EXPECT_EQ(DisplayText("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(DisplayText("\xff\xfe"), "\\xff\\xfe");
  // A C1 control written as its raw byte is invalid UTF-8: escaped as a byte.
  EXPECT_EQ(DisplayText("\x9b" "31m"), "\\x9b31m");
}

TEST(DisplayTextTest, OutputHasNoControlBytes) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string shown = DisplayText(all);
  for (unsigned char c : shown) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7F) << static_cast<int>(c);
  }
}

TEST(DisplayLinesTest, KeepsLineBreaksAndTabsOnly) {
  EXPECT_EQ(DisplayLines("cc failed:\n\tx.c:1: error\n"), "cc failed:\n\tx.c:1: error\n");
  EXPECT_EQ(DisplayLines("a\r\x1b[2Kb\xe2\x80\xae\xc2\x9b\xff"),
            "a\\x0d\\x1b[2Kb\\u{202E}\\u{009B}\\xff");
  EXPECT_EQ(DisplayLines("C:\\dir 'x\\\\y'"), "C:\\dir 'x\\\\y'");
}

TEST(DisplayStreamBufTest, EscapesWhatIsWrittenThroughIt) {
  std::ostringstream sink;
  {
    DisplayStreamBuf guard(sink.rdbuf());
    std::ostream out(&guard);
    out << "mlf: error: member 'codegen/\x1b[2K\rverified OK\n': bad\n" << 42 << '\x07';
  }
  EXPECT_EQ(sink.str(), "mlf: error: member 'codegen/\\x1b[2K\\x0dverified OK\n': bad\n42\\x07");
}

TEST(DisplayStreamBufTest, HoldsASplitSequenceUntilItIsComplete) {
  std::ostringstream sink;
  DisplayStreamBuf guard(sink.rdbuf());
  std::ostream out(&guard);
  out << "x\xe2\x80" << std::flush;
  EXPECT_EQ(sink.str(), "x");
  out << "\xae" "y\xc3\xa9";
  EXPECT_EQ(sink.str(), "x\\u{202E}y\xc3\xa9");
  out << "\xf0\x9f";
  guard.Finish();
  EXPECT_EQ(sink.str(), "x\\u{202E}y\xc3\xa9\\xf0\\x9f");
}

TEST(DisplayStreamBufTest, CharacterAtATime) {
  std::ostringstream sink;
  {
    DisplayStreamBuf guard(sink.rdbuf());
    std::ostream out(&guard);
    for (char c : std::string("\xe2\x81\xa6z\x1b")) out.put(c);
  }
  EXPECT_EQ(sink.str(), "\\u{2066}z\\x1b");
}

}  // namespace
}  // namespace mlf
