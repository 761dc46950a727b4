#include "loader/firmware/templates.h"

#include <set>

#include "loader/firmware/template_files.h"

namespace mlf::firmware {

std::optional<std::string_view> ProjectTemplate(std::string_view name) {
  return embed::Find(TemplateFiles(), name);
}

Result<std::string> FillText(std::string_view text, const TemplateValues& values) {
  std::string out;
  std::set<std::string> used;
  size_t pos = 0;
  while (true) {
    const size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    const std::string name(text.substr(open + 2, close - open - 2));
    auto it = values.find(name);
    if (it == values.end()) return Internal("template placeholder {{" + name + "}} has no value");
    out.append(text.substr(pos, open - pos)).append(it->second);
    used.insert(name);
    pos = close + 2;
  }
  out.append(text.substr(pos));
  for (const auto& [name, value] : values) {
    if (!used.count(name)) return Internal("template has no placeholder {{" + name + "}}");
  }
  return out;
}

Result<std::string> FillTemplate(std::string_view name, const TemplateValues& values) {
  std::optional<std::string_view> text = ProjectTemplate(name);
  if (!text) return Internal("no project template named '" + std::string(name) + "'");
  Result<std::string> filled = FillText(*text, values);
  if (!filled.ok()) return filled.status().WithContext(std::string(name));
  return filled;
}

}  // namespace mlf::firmware
