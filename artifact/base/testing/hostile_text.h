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

// HostileStrings(), then each of SingleBytes(), then AllBytes(): every input
// an escaper must turn into text its reader takes back.
std::vector<std::string> HostileCorpus();

// HostileCorpus() for a reader that cannot take the bytes of `unrepresentable`
// at all (NUL in an argv string, a line end in a Make variable): the strings
// and single bytes holding one are left out, and AllBytes() loses them.
std::vector<std::string> HostileCorpusWithout(const std::string& unrepresentable);

}  // namespace testutil
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_TESTING_HOSTILE_TEXT_H_
