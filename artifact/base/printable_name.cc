#include "artifact/base/printable_name.h"

#include <cstdio>

#include "artifact/base/display_text.h"

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

Status CheckPrintableName(std::string_view subject, std::string_view name) {
  const std::optional<uint32_t> control = FirstControlCharacter(name);
  if (!control) return Status::Ok();
  char code[16];
  std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(*control));
  return InvalidArgument(std::string(subject) + " " + QuoteForMessage(name) +
                         " contains a control character (" + code + "); names must be printable");
}

}  // namespace mlf
