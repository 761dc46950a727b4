// The project templates: readable C, linker script, Make, CMake and Markdown
// files under loader/firmware/templates/, compiled into the binaries at build
// time (embed_files() in BUILD.bazel), with `{{NAME}}` placeholders filled in here.
#ifndef MLFKIT_LOADER_FIRMWARE_TEMPLATES_H_
#define MLFKIT_LOADER_FIRMWARE_TEMPLATES_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf::firmware {

// The template file `name` (its base name, e.g. "startup.c"), or nullopt.
std::optional<std::string_view> ProjectTemplate(std::string_view name);

// Placeholder name (without braces) -> replacement text.
using TemplateValues = std::map<std::string, std::string>;

// Replaces every `{{NAME}}` in `text` with values[NAME], in one pass (values
// are never scanned for placeholders). A placeholder without a value, or a
// value no placeholder uses, is kInternal: the generator and the templates
// disagree, which is a bug, not bad input.
Result<std::string> FillText(std::string_view text, const TemplateValues& values);

// FillText on ProjectTemplate(name); an unknown name is kInternal.
Result<std::string> FillTemplate(std::string_view name, const TemplateValues& values);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_TEMPLATES_H_
