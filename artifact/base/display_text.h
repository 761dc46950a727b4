// Text for a terminal: names, descriptions and member paths from archives and
// models are attacker-chosen bytes, and printed raw they can move the cursor,
// erase lines ("\x1b[2K\r" then a fake "verified OK"), change colours, or
// reorder what a reader sees (Unicode bidi overrides, "Trojan Source").
//
// One escaper serves every human-readable output of mlfkit. It makes each
// such byte or character visible instead:
//   - C0 controls (U+0000–U+001F, newline and tab included) and DEL: \xNN;
//   - C1 controls U+0080–U+009F, the bidi marks U+200E, U+200F and U+061C,
//     embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, and
//     the line and paragraph separators U+2028/U+2029: \u{NNNN} (upper-case
//     hex, at least four digits);
//   - every byte of invalid UTF-8 (stray continuation bytes, truncated or
//     overlong sequences, surrogates, code points above U+10FFFF): \xNN;
//   - a backslash: \\, so that an escape in the output always means one
//     escaped character and a name cannot pose as an escape of another.
// Everything else (printable ASCII, valid non-control UTF-8) is unchanged.
// So the output is unambiguous: a name holding the four characters `\x1b`
// is shown as `\\x1b`, an ESC as `\x1b`.
//
// Names in messages (errors, notes, refusals) take one form everywhere:
// QuoteForMessage below.
//
// JSON output needs none of this: its strings are escaped by the JSON writer.
#ifndef MLFKIT_ARTIFACT_BASE_DISPLAY_TEXT_H_
#define MLFKIT_ARTIFACT_BASE_DISPLAY_TEXT_H_

#include <cstddef>
#include <streambuf>
#include <string>
#include <string_view>

namespace mlf {

// A name, description, operator or member path as one line of display text:
// everything above escaped, newlines and tabs too.
std::string DisplayText(std::string_view text);

// How many bytes of a name a message shows by default: every valid module
// name (at most 200 bytes) and nearly every tensor name whole, while a
// megabyte-long name from a hostile archive cannot flood the terminal.
inline constexpr size_t kQuotedNameBytes = 200;

// How many bytes of a local file path a message shows: PATH_MAX, so that a
// path the system accepts is never cut.
inline constexpr size_t kQuotedPathBytes = 4096;

// The one way a name, member path, file path or excerpt of a file's text
// appears inside a message: in single quotes, escaped as DisplayText does
// (a quote inside is not escaped: it cannot steer a terminal, and npy
// headers and real names hold them); longer than `max_bytes`, it is cut
// there (at the start of a UTF-8 sequence, so no character is split) and
// "..." marks the cut inside the quotes:
//   QuoteForMessage("conv1.weight")         'conv1.weight'
//   QuoteForMessage("a\n\x1b[2K")           'a\x0a\x1b[2K'
//   QuoteForMessage("it's \\x1b")           'it's \\x1b'
//   QuoteForMessage(std::string(300, 'L'))  'LLL...L...' (200 L)
// Names use the default; a message about local files passes
// kQuotedPathBytes, and one that shows how a file starts may pass less.
std::string QuoteForMessage(std::string_view text, size_t max_bytes = kQuotedNameBytes);

// Whole messages and reports: like DisplayText, but newlines and tabs stay
// (a compiler's output inside an error is several lines) and backslashes are
// not doubled (messages quote names already escaped by DisplayText). No other
// control byte, C1 control, bidi control or invalid UTF-8 passes.
std::string DisplayLines(std::string_view text);

// A stream buffer that passes everything written to it through DisplayLines
// into `target`: the last guard of a program's human-readable output (mlf
// installs it on std::cout and std::cerr), so that no path that forgets to
// escape a name can write control bytes to the terminal. A UTF-8 sequence
// split across writes is held back until it is complete (at most 3 bytes);
// Finish() escapes what is left. Output is otherwise passed on at once.
class DisplayStreamBuf : public std::streambuf {
 public:
  explicit DisplayStreamBuf(std::streambuf* target) : target_(target) {}
  ~DisplayStreamBuf() override { Finish(); }
  DisplayStreamBuf(const DisplayStreamBuf&) = delete;
  DisplayStreamBuf& operator=(const DisplayStreamBuf&) = delete;

  // Writes out a held-back incomplete sequence (escaped) and flushes `target`.
  void Finish();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void Write(std::string_view bytes);

  std::streambuf* target_;
  std::string pending_;  // an incomplete UTF-8 sequence at the end of the last write
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_DISPLAY_TEXT_H_
