// The read-time rule for names that become identifiers, file names or text
// in generated code (module names, node, tensor and initializer names): they
// may hold any printable text, never a control character. Generated C, Make,
// CMake and Markdown escape names anyway (c_text.h, make_text.h,
// cmake_text.h, markdown_text.h); refusing control characters at read keeps
// line breaks and terminal escapes out of every name mlfkit passes on.
#ifndef MLFKIT_ARTIFACT_BASE_PRINTABLE_NAME_H_
#define MLFKIT_ARTIFACT_BASE_PRINTABLE_NAME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

// The first control character in `name`: U+0000-U+001F, U+007F, or
// U+0080-U+009F written in UTF-8 (C2 80 - C2 9F). nullopt when there is none.
std::optional<uint32_t> FirstControlCharacter(std::string_view name);

// Ok when `name` has no control character, else kInvalidArgument
//   <subject> 'r\x0a...' contains a control character (U+000A); names must be printable
// where `subject` names the field, e.g. "node 3: name", and the name is
// quoted by QuoteForMessage (artifact/base/display_text.h).
Status CheckPrintableName(std::string_view subject, std::string_view name);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_PRINTABLE_NAME_H_
