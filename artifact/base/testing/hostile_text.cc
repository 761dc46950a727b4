#include "artifact/base/testing/hostile_text.h"

namespace mlf {
namespace testutil {

std::vector<std::string> HostileStrings() {
  std::vector<std::string> out = {
      "r */ __attribute__((constructor)) static void pwn(void){ __builtin_puts(\"INJECTED\"); } /*",
      "add\n$(shell echo X > PWNED)\n#",
      "add $(shell touch PWNED) ; `touch PWNED`",
      "x\ny",
      "x\r\ny",
      "*/",
      "/*",
      "*/*/*//**/",
      "a*",
      "/a",
      "\"",
      "'",
      "it's \"quoted\"",
      "\\",
      "trailing\\",
      "two\\\\",
      "back\\slash\\n",
      "?\?/",
      "?\?/\n",
      "?\?=?\?(?\?)?\?<?\?>?\?'?\?!?\?-",
      "?\??",
      "$(HOME)",
      "${HOME}",
      "$$",
      "$",
      "$<TARGET_FILE:app>",
      "@CMAKE_COMMAND@",
      "`id`",
      "#",
      "# not a comment",
      "a#b",
      "\\#",
      "\\\\#",
      ";",
      "a;b;c",
      "#[[",
      "[[",
      "[=[ x ]=]",
      "\x1b[2K\rverified OK",
      "\x1b]0;title\x07",
      "\a",
      "\t",
      " leading",
      "trailing ",
      "  ",
      "\xe2\x80\xae" "evil",  // U+202E RIGHT-TO-LEFT OVERRIDE
      "\xc2\x9b" "31m",        // U+009B, the C1 CSI
      "caf\xc3\xa9",
      "\xff\xfe",
      "int",
      "restrict",
      "main",
      "{{TITLE}}",
      "<!-- mlf:size-report -->",
      "<script>alert(1)</script>",
      "[link](http://x)",
      "*emph* _u_ |cell| &amp;",
      "~",
      "~root",
      "-rf",
      "a=b",
      "%s%n",
      "\x7f",
  };
  out.push_back(std::string(5000, 'n'));
  std::string long_hostile;
  for (int i = 0; i < 100; ++i) long_hostile += "*/\n$(x)`y`?\?/\\";
  out.push_back(long_hostile);
  return out;
}

std::vector<std::string> SingleBytes() {
  std::vector<std::string> out;
  for (int b = 0; b < 256; ++b) out.push_back(std::string(1, static_cast<char>(b)));
  return out;
}

std::string AllBytes() {
  std::string out;
  for (int b = 0; b < 256; ++b) out += static_cast<char>(b);
  return out;
}

std::vector<std::string> HostileCorpus() { return HostileCorpusWithout(""); }

std::vector<std::string> HostileCorpusWithout(const std::string& unrepresentable) {
  const auto representable = [&](const std::string& s) {
    return s.find_first_of(unrepresentable) == std::string::npos;
  };
  std::vector<std::string> out;
  for (const std::string& s : HostileStrings()) {
    if (representable(s)) out.push_back(s);
  }
  for (const std::string& b : SingleBytes()) {
    if (representable(b)) out.push_back(b);
  }
  std::string all;
  for (char c : AllBytes()) {
    if (representable(std::string(1, c))) all += c;
  }
  out.push_back(all);
  return out;
}

}  // namespace testutil
}  // namespace mlf
