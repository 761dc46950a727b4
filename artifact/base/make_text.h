// Text from models and archives made safe inside a generated Makefile (GNU
// make): the only way a name reaches Makefile text.
#ifndef MLFKIT_ARTIFACT_BASE_MAKE_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_MAKE_TEXT_H_

#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

// `text` reduced to a form that stays inside a '#' comment line (not in a
// recipe, where '#' goes to the shell): printable ASCII without '\', which
// would continue the comment onto the next line before a newline. Bytes
// outside printable ASCII and '\' are shown as \xNN. make expands nothing in
// a comment, so '$' and backticks are left as they are.
std::string MakeCommentText(std::string_view text);

// The right-hand side of `NAME = value` (or `:=`) that gives NAME exactly
// the bytes of `value`: '$' doubled, '#' and the backslashes before it
// escaped as make reads them, "$()" (which expands to nothing) in front of
// leading and after trailing blanks (space, tab, VT, FF) and after a final backslash, which make
// would strip or read as a line continuation. The variable holds the bytes;
// a recipe that passes it to the shell must quote it for the shell as well.
// NUL, LF and CR cannot be in a one-line assignment: kInvalidArgument.
Result<std::string> MakeVariableValue(std::string_view value);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_MAKE_TEXT_H_
