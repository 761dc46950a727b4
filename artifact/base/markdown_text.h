// Text from models and archives made safe inside generated Markdown (the
// README.md of `mlf project`): the only way a name reaches Markdown text.
#ifndef MLFKIT_ARTIFACT_BASE_MARKDOWN_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_MARKDOWN_TEXT_H_

#include <string>
#include <string_view>

namespace mlf {

// `text` as inline Markdown (CommonMark / GitHub) that renders as the text
// itself, in running text, a heading or a table cell: every ASCII
// punctuation character gets a backslash, so nothing becomes emphasis, a
// link, a code span, HTML, an entity, a heading, a list or a cell border.
// Bytes outside printable ASCII (line breaks, control characters, and all
// non-ASCII, which includes bidirectional overrides) are shown as \xNN; the
// result is one line of printable ASCII.
std::string MarkdownText(std::string_view text);

// `text` as a Markdown code span, backticks included, outside a table:
// bytes outside printable ASCII shown as \xNN (backslashes are literal in a
// code span, so the span is one line), fenced by one more backtick than the
// longest run of backticks in it, and padded with a space where CommonMark
// would otherwise strip one or merge the fence.
std::string MarkdownCodeSpan(std::string_view text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_MARKDOWN_TEXT_H_
