// Text made safe as one word of a POSIX shell command line: the only way a
// name or path reaches shell text (command lines shown in messages for the
// user to run again).
#ifndef MLFKIT_ARTIFACT_BASE_SHELL_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_SHELL_TEXT_H_

#include <string>
#include <string_view>

namespace mlf {

// One shell word whose value is exactly `text`: left bare when it is made
// only of letters, digits and "_-+./:=@%," and is not NAME=... (which the
// shell would take for an assignment); otherwise single-quoted, each "'" written
// as '\''. Inside single quotes the shell expands nothing ($, backticks, \,
// newlines are literal). The empty string is ''. A NUL byte cannot be in a
// shell word (nor in an argv string); it is dropped.
std::string ShellWord(std::string_view text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_SHELL_TEXT_H_
