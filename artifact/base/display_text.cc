#include "artifact/base/display_text.h"

#include <cstdint>
#include <cstdio>

namespace mlf {
namespace {

enum class Utf8 { kValid, kInvalid, kTruncated };

struct Decoded {
  Utf8 kind = Utf8::kInvalid;
  size_t length = 1;    // bytes of the sequence when valid
  uint32_t code = 0;    // its code point
};

bool IsContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The UTF-8 sequence starting at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF). kTruncated when the text ends inside a
// sequence that is valid so far.
Decoded Decode(std::string_view text, size_t i) {
  const unsigned char lead = static_cast<unsigned char>(text[i]);
  Decoded d;
  if (lead < 0x80) return {Utf8::kValid, 1, lead};
  size_t length;
  uint32_t code;
  unsigned char low = 0x80, high = 0xBF;  // bounds of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0F;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return d;
  }
  for (size_t k = 1; k < length; ++k) {
    if (i + k >= text.size()) {
      d.kind = Utf8::kTruncated;
      return d;
    }
    const unsigned char c = static_cast<unsigned char>(text[i + k]);
    if (!IsContinuation(c) || (k == 1 && (c < low || c > high))) return d;
    code = (code << 6) | (c & 0x3F);
  }
  return {Utf8::kValid, length, code};
}

bool IsHiddenCodePoint(uint32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F ||
         (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

void AppendByte(std::string* out, unsigned char byte) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", byte);
  *out += buf;
}

void AppendCodePoint(std::string* out, uint32_t code) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u{%04X}", static_cast<unsigned>(code));
  *out += buf;
}

// Escapes `text` into `out`; returns the bytes consumed. With `final` false a
// truncated sequence at the end is left unconsumed (the caller keeps it).
size_t Escape(std::string_view text, bool lines, bool final, std::string* out) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (lines && (c == '\n' || c == '\t')) {
        out->push_back(static_cast<char>(c));
      } else if (c < 0x20 || c == 0x7F) {
        AppendByte(out, c);
      } else if (c == '\\' && !lines) {
        *out += "\\\\";
      } else {
        out->push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const Decoded d = Decode(text, i);
    if (d.kind == Utf8::kTruncated && !final) return i;
    if (d.kind != Utf8::kValid) {
      AppendByte(out, c);
      ++i;
      continue;
    }
    if (IsHiddenCodePoint(d.code)) {
      AppendCodePoint(out, d.code);
    } else {
      out->append(text.substr(i, d.length));
    }
    i += d.length;
  }
  return i;
}

}  // namespace

std::string DisplayText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  Escape(text, /*lines=*/false, /*final=*/true, &out);
  return out;
}

std::string QuoteForMessage(std::string_view text, size_t max_bytes) {
  size_t shown = text.size();
  if (shown > max_bytes) {
    shown = max_bytes;
    // Back to the start of a sequence (at most 3 bytes: longer runs of
    // continuation bytes are invalid UTF-8 and shown byte by byte anyway).
    for (int k = 0; k < 3 && shown > 0 && IsContinuation(static_cast<unsigned char>(text[shown]));
         ++k) {
      --shown;
    }
  }
  std::string out = "'" + DisplayText(text.substr(0, shown));
  if (shown < text.size()) out += "...";
  return out + "'";
}

std::string DisplayLines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  Escape(text, /*lines=*/true, /*final=*/true, &out);
  return out;
}

void DisplayStreamBuf::Write(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  const size_t used = Escape(pending_, /*lines=*/true, /*final=*/false, &out);
  pending_.erase(0, used);
  target_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
}

DisplayStreamBuf::int_type DisplayStreamBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  Write(std::string_view(&ch, 1));
  return c;
}

std::streamsize DisplayStreamBuf::xsputn(const char* s, std::streamsize n) {
  Write(std::string_view(s, static_cast<size_t>(n)));
  return n;
}

int DisplayStreamBuf::sync() { return target_->pubsync(); }

void DisplayStreamBuf::Finish() {
  if (!pending_.empty()) {
    std::string out;
    Escape(pending_, /*lines=*/true, /*final=*/true, &out);
    pending_.clear();
    target_->sputn(out.data(), static_cast<std::streamsize>(out.size()));
  }
  target_->pubsync();
}

}  // namespace mlf
