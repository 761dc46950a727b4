#include "artifact/format/c_name.h"

#include <cctype>

namespace mlf {
namespace {

bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

std::string SanitizeCName(std::string_view name) {
  std::string out;
  out.reserve(name.size() + 1);
  for (char c : name) out.push_back(IsIdentChar(c) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

bool IsCIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

std::string ToMacroCase(std::string_view identifier) {
  std::string out(identifier);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool IsSafeMemberPath(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return path.find('\\') == std::string_view::npos &&
         path.find('\0') == std::string_view::npos;
}

}  // namespace mlf
