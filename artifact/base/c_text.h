// Text from models and archives (tensor, node and module names, paths) made
// safe inside generated C: the one place every C writer (codegen, the
// firmware loader, the TVM compatibility layer, mlf upgrade) takes its string
// literals and comment text from. Nothing else splices a name into C.
#ifndef MLFKIT_ARTIFACT_BASE_C_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_C_TEXT_H_

#include <string>
#include <string_view>

namespace mlf {

// A C string literal, quotes included, whose value is exactly the bytes of
// `text` (any bytes, NUL included): '"' and '\' get a backslash; '?' (so no
// trigraph can form) and every byte outside printable ASCII are three-digit
// octal escapes, which never absorb a following digit. The literal is one
// line of printable ASCII.
std::string CStringLiteral(std::string_view text);

// `text` reduced to a form that can only ever be comment text, inside
// /* ... */ or after //, wherever it is placed: the result is printable
// ASCII with no "*/", "/*", "??" (trigraphs, including the ??/ that splices
// lines), no backslash except as the start of an escape (so no line ends in
// one), and no '/', '*' or '?' as its first or last character (which could
// pair with the text around it). Those characters and every byte outside
// printable ASCII are shown as \xNN (two lower-case hex digits). Names of
// printable ASCII without such sequences come out unchanged.
std::string CCommentText(std::string_view text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_C_TEXT_H_
