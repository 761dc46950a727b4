#include "artifact/base/cmake_text.h"

#include <cstdio>

namespace mlf {

std::string CMakeCommentText(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c >= 0x7f || c == '\\' || (c == '[' && out.empty())) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

Result<std::string> CMakeQuotedArgument(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '\0':
        return InvalidArgument("a CMake argument cannot hold NUL characters");
      case '\\':
      case '"':
      case '$':
      case '@':
        out += '\\';
        out += c;
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

}  // namespace mlf
