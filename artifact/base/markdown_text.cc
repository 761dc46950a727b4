#include "artifact/base/markdown_text.h"

#include <algorithm>
#include <cstdio>

namespace mlf {
namespace {

void AppendHex(unsigned char c, std::string* out) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "\\x%02x", c);
  *out += hex;
}

bool IsAsciiPunctuation(unsigned char c) {
  return (c >= 0x21 && c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) ||
         (c >= 0x7b && c <= 0x7e);
}

}  // namespace

std::string MarkdownText(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f) {
      AppendHex(c, &out);
    } else {
      if (IsAsciiPunctuation(c)) out += '\\';
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string MarkdownCodeSpan(std::string_view text) {
  std::string body;
  size_t run = 0, longest = 0;
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f) {
      AppendHex(c, &body);
    } else {
      body += static_cast<char>(c);
    }
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (body.empty()) body = " ";
  const bool all_spaces = body.find_first_not_of(' ') == std::string::npos;
  const bool pad = body.front() == '`' || body.back() == '`' ||
                   (body.front() == ' ' && body.back() == ' ' && !all_spaces);
  if (pad) body = " " + body + " ";
  const std::string fence(longest + 1, '`');
  return fence + body + fence;
}

}  // namespace mlf
