#include "artifact/base/c_text.h"

#include <cstdio>

namespace mlf {
namespace {

void AppendHex(unsigned char c, std::string* out) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "\\x%02x", c);
  *out += hex;
}

}  // namespace

std::string CStringLiteral(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f && c != '?') {
      out += static_cast<char>(c);
    } else {
      char octal[8];
      std::snprintf(octal, sizeof octal, "\\%03o", c);
      out += octal;
    }
  }
  return out + "\"";
}

std::string CCommentText(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // `previous` is the last character written, so a pair split by an
    // escape ("*\x0a/") is no pair; escapes end in a hex digit.
    const char previous = out.empty() ? '\0' : out.back();
    const bool printable = c >= 0x20 && c < 0x7f;
    const bool pairs = c == '/' || c == '*' || c == '?';
    // At either end the neighbour is the caller's text ("/*" before, "*/"
    // after): a pair could form with it.
    const bool at_end = i == 0 || i + 1 == text.size();
    const bool closes = c == '/' && previous == '*';
    const bool opens = c == '*' && previous == '/';
    const bool trigraph = c == '?' && previous == '?';
    if (!printable || c == '\\' || closes || opens || trigraph || (pairs && at_end)) {
      AppendHex(c, &out);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace mlf
