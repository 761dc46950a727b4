// Text from models and archives made safe inside a generated CMakeLists.txt:
// the only way a name reaches CMake text.
#ifndef MLFKIT_ARTIFACT_BASE_CMAKE_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_CMAKE_TEXT_H_

#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

// `text` reduced to a form that stays inside a '#' line comment: printable
// ASCII, with bytes outside it and '\' shown as \xNN, and a leading '[' as
// \x5b, since "#[[" or "#[=[" would open a bracket comment that runs over
// the following lines. CMake evaluates nothing in a comment.
std::string CMakeCommentText(std::string_view text);

// A CMake quoted argument, quotes included, whose value is exactly the bytes
// of `text`: '\', '"', '$' (variable references) and '@' (@VAR@ references,
// which CMake before policy CMP0053 expands) get a backslash; tab, CR
// and LF are \t, \r and \n, so the argument is one line. Its value still
// reaches whatever command it is given to: pass it where a string is read
// (message(), set()), not where CMake evaluates generator expressions or
// code. NUL cannot be in a CMake argument: kInvalidArgument.
Result<std::string> CMakeQuotedArgument(std::string_view text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_CMAKE_TEXT_H_
