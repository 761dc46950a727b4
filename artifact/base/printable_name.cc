#include "artifact/base/printable_name.h"

#include <cstdio>

namespace mlf {

std::optional<uint32_t> FirstControlCharacter(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f) return c;
    if (c == 0xc2 && i + 1 < name.size()) {
      const unsigned char next = static_cast<unsigned char>(name[i + 1]);
      if (next >= 0x80 && next <= 0x9f) return next;  // U+0080-U+009F
    }
  }
  return std::nullopt;
}

std::string QuoteNameForMessage(std::string_view name) {
  constexpr size_t kShown = 40;
  std::string out = "\"";
  for (size_t i = 0; i < name.size() && i < kShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (name.size() > kShown) out += "...";
  return out + "\"";
}

Status CheckPrintableName(std::string_view subject, std::string_view name) {
  const std::optional<uint32_t> control = FirstControlCharacter(name);
  if (!control) return Status::Ok();
  char code[16];
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(*control));
  return InvalidArgument(std::string(subject) + " " + QuoteNameForMessage(name) +
                         " contains a control character (" + code + "); names must be printable");
}

}  // namespace mlf
