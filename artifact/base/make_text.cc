#include "artifact/base/make_text.h"

#include <cstdio>

namespace mlf {
namespace {

void AppendHex(unsigned char c, std::string* out) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "\\x%02x", c);
  *out += hex;
}

// What make strips around a value (isspace without the line breaks).
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

}  // namespace

std::string MakeCommentText(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      AppendHex(c, &out);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result<std::string> MakeVariableValue(std::string_view value) {
  std::string out;
  if (!value.empty() && IsBlank(value.front())) out += "$()";
  size_t backslashes = 0;  // the run of '\' just written
  for (char c : value) {
    if (c == '\0' || c == '\n' || c == '\r') {
      return InvalidArgument(
          "a Make variable cannot hold NUL, line feed or carriage return characters");
    }
    if (c == '#') {
      // make halves a run of backslashes before '#' and an odd run quotes
      // the '#': n backslashes and a '#' are written as 2n+1 and the '#'.
      out.append(backslashes + 1, '\\');
      out += '#';
    } else if (c == '$') {
      out += "$$";
    } else {
      out += c;
    }
    backslashes = c == '\\' ? backslashes + 1 : 0;
  }
  if (!value.empty() && (IsBlank(value.back()) || value.back() == '\\')) out += "$()";
  return out;
}

}  // namespace mlf
