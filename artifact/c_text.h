// Text from archives (tensor and module names, paths) made safe inside
// generated C: the one place every C writer (codegen, the firmware loader,
// mlf upgrade) takes its literals and comments from.
#ifndef MLFKIT_ARTIFACT_C_TEXT_H_
#define MLFKIT_ARTIFACT_C_TEXT_H_

#include <string>
#include <string_view>

namespace mlf {

// A C string literal for any bytes: quotes and backslashes escaped with a
// backslash, '?' (trigraphs) and non-printable bytes in three-digit octal.
std::string CStringLiteral(std::string_view text);

// `text` made safe inside a /* */ comment on one line: a space splits every
// "*/" and "/*", and control bytes become '?'.
std::string CCommentText(std::string_view text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_C_TEXT_H_
