// C identifiers derived from tensor and module names (docs/design.md, "Generated-code ABI").
#ifndef MLFKIT_ARTIFACT_FORMAT_C_NAME_H_
#define MLFKIT_ARTIFACT_FORMAT_C_NAME_H_

#include <string>
#include <string_view>

namespace mlf {

// Replaces every character outside [A-Za-z0-9_] with '_', as TVM did, so that
// names from TVM archives map to the same identifiers. A leading digit gets a
// '_' prefix so the result is always a valid C identifier; "" becomes "_".
std::string SanitizeCName(std::string_view name);

// True when `name` is a non-empty C identifier ([A-Za-z_][A-Za-z0-9_]*).
bool IsCIdentifier(std::string_view name);

// Upper-cases a C identifier for macro names (TVMGEN_<MOD>_<NAME>_SIZE).
std::string ToMacroCase(std::string_view identifier);

// True when `path` is a relative archive member path with no empty, "." or
// ".." component, no backslash and no NUL: safe to join under a directory.
bool IsSafeMemberPath(std::string_view path);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_C_NAME_H_
