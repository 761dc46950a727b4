#include "artifact/base/shell_text.h"

namespace mlf {
namespace {

bool IsBareWordCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '-' || c == '+' || c == '.' || c == '/' || c == ':' || c == '=' ||
         c == '@' || c == '%' || c == ',';
}

// "NAME=..." is an assignment, not a word, where a command name is expected.
bool LooksLikeAssignment(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i) {
    const char c = text[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

}  // namespace

std::string ShellWord(std::string_view text) {
  bool bare = !text.empty();
  for (char c : text) bare = bare && IsBareWordCharacter(c);
  if (bare && !LooksLikeAssignment(text)) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\0') continue;
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace mlf
