// Hostile text for the escaper tests and the hostile-name tests: strings
// that try to end a comment, a string or a line in every language mlfkit
// generates, or to paint the terminal.
#ifndef MLFKIT_ARTIFACT_BASE_TESTING_HOSTILE_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_TESTING_HOSTILE_TEXT_H_

#include <string>
#include <vector>

namespace mlf {
namespace testutil {

// Newlines, "*/", quotes, backslashes (also last), $(...), ${...}, backticks,
// '#', ';', trigraphs, ESC sequences, BEL, U+202E, C keywords, "{{X}}",
// "#[[", very long text, and NUL-free binary. Each is non-empty.
std::vector<std::string> HostileStrings();

// Each of the 256 byte values as a one-byte string.
std::vector<std::string> SingleBytes();

// One string holding all 256 byte values in order.
std::string AllBytes();

}  // namespace testutil
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_TESTING_HOSTILE_TEXT_H_
