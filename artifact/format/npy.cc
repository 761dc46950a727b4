#include "artifact/format/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "artifact/base/atomic_file.h"
#include "artifact/base/display_text.h"

namespace mlf {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
constexpr size_t kMagicAndVersionSize = 8;
constexpr size_t kDataAlign = 64;            // numpy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // numpy's GROWTH_AXIS_MAX_DIGITS
constexpr uint64_t kMaxV1HeaderSize = 0xFFFF;
// How much of a key, descr or number from the header a message shows.
constexpr size_t kMaxQuoted = 40;
constexpr size_t kReadChunk = 1 << 16;

// A descr without its byte-order character, e.g. "f4", and its DType.
struct DescrInfo {
  DType dtype;
  const char* code;
};

constexpr DescrInfo kDescrs[] = {
    {DType::kBool, "b1"},    {DType::kInt8, "i1"},    {DType::kInt16, "i2"},
    {DType::kInt32, "i4"},   {DType::kInt64, "i8"},   {DType::kUInt8, "u1"},
    {DType::kUInt16, "u2"},  {DType::kUInt32, "u4"},  {DType::kUInt64, "u8"},
    {DType::kFloat16, "f2"}, {DType::kFloat32, "f4"}, {DType::kFloat64, "f8"},
};

std::string DescrFor(const DescrInfo& d) {
  return (DTypeSize(d.dtype) == 1 ? "|" : "<") + std::string(d.code);
}

std::string SupportedDescrs() {
  std::string out;
  for (const DescrInfo& d : kDescrs) {
    if (!out.empty()) out += ", ";
    out += "'" + DescrFor(d) + "'";
  }
  return out;
}

// --- preamble: magic, version, header length ---

struct Preamble {
  size_t size = 0;  // 10 for version 1.0, 12 for 2.0 and 3.0
  uint64_t header_size = 0;
};

Status TruncatedPreamble(size_t have, size_t need) {
  return DataLoss("truncated .npy file: " + std::to_string(have) + " bytes, shorter than the " +
                  std::to_string(need) + "-byte preamble (magic, version, header length)");
}

uint64_t LittleEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    v |= uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
  }
  return v;
}

Result<Preamble> ReadPreamble(std::string_view bytes) {
  const size_t n = std::min(bytes.size(), kMagic.size());
  if (bytes.substr(0, n) != kMagic.substr(0, n)) {
    return InvalidArgument("not an .npy file: it does not start with \"\\x93NUMPY\"");
  }
  if (bytes.size() < kMagicAndVersionSize) return TruncatedPreamble(bytes.size(), 10);
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return FailedPrecondition("unsupported .npy format version " + std::to_string(major) + "." +
                              std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  Preamble p;
  const size_t length_size = major == 1 ? 2 : 4;
  p.size = kMagicAndVersionSize + length_size;
  if (bytes.size() < p.size) return TruncatedPreamble(bytes.size(), p.size);
  p.header_size = LittleEndian(bytes.substr(kMagicAndVersionSize, length_size));
  const uint64_t rest = bytes.size() - p.size;
  if (p.header_size > rest) {
    return DataLoss("the .npy header length " + std::to_string(p.header_size) +
                    " is bigger than the file: only " + std::to_string(rest) +
                    " bytes follow the " + std::to_string(p.size) + "-byte preamble");
  }
  return p;
}

// --- header: a Python dict literal ---

struct HeaderFields {
  std::optional<std::string_view> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

Status NotATuple() {
  return InvalidArgument("the .npy header's 'shape' must be a tuple of integers such as (2, 3)");
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

// Parses the header text; `base` is its offset in the file, for messages.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, size_t base) : text_(text), base_(base) {}

  Result<HeaderFields> Parse() {
    SkipSpace();
    if (!Consume('{')) return NotADict();
    HeaderFields fields;
    MLF_RETURN_IF_ERROR(ParseEntries(fields));
    SkipSpace();
    if (pos_ != text_.size()) return Malformed("unexpected text after the closing '}'");
    for (const char* key : {"descr", "fortran_order", "shape"}) {
      if (!Has(fields, key)) {
        return InvalidArgument("the .npy header has no '" + std::string(key) + "' key");
      }
    }
    return fields;
  }

 private:
  Status NotADict() const {
    if (pos_ == text_.size()) return InvalidArgument("the .npy header is not a dict: it is empty");
    return InvalidArgument("the .npy header is not a dict: it starts with " +
                           QuoteForMessage(text_.substr(pos_), 16));
  }
  Status Malformed(const std::string& what) const {
    return InvalidArgument("malformed .npy header at byte " + std::to_string(base_ + pos_) + ": " +
                           what);
  }

  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  // Consumes `word` if it is followed by something other than a word char.
  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    const size_t end = pos_ + word.size();
    if (end < text_.size() && IsWordChar(text_[end])) return false;
    pos_ = end;
    return true;
  }

  static bool Has(const HeaderFields& f, std::string_view key) {
    if (key == "descr") return f.descr.has_value();
    if (key == "fortran_order") return f.fortran_order.has_value();
    return f.shape.has_value();
  }

  // After '{': entries separated by ',', an optional trailing ',', then '}'.
  Status ParseEntries(HeaderFields& fields) {
    for (;;) {
      SkipSpace();
      if (Consume('}')) return Status::Ok();
      const char q = Peek();
      if (q != '\'' && q != '"') return Malformed("expected a quoted key or '}'");
      MLF_ASSIGN_OR_RETURN(std::string_view key, ParseString());
      SkipSpace();
      if (!Consume(':')) {
        return Malformed("expected ':' after the key " + QuoteForMessage(key, kMaxQuoted));
      }
      SkipSpace();
      MLF_RETURN_IF_ERROR(ParseValue(key, fields));
      SkipSpace();
      if (Consume('}')) return Status::Ok();
      if (!Consume(',')) {
        return Malformed("expected ',' or '}' after the value of " +
                         QuoteForMessage(key, kMaxQuoted));
      }
    }
  }

  Status ParseValue(std::string_view key, HeaderFields& fields) {
    if (key != "descr" && key != "fortran_order" && key != "shape") {
      return InvalidArgument("unknown key " + QuoteForMessage(key, kMaxQuoted) +
                             " in the .npy header (expected 'descr', 'fortran_order' and 'shape')");
    }
    if (Has(fields, key)) {
      return InvalidArgument("the key " + QuoteForMessage(key, kMaxQuoted) +
                             " appears twice in the .npy header");
    }
    if (key == "descr") {
      MLF_ASSIGN_OR_RETURN(fields.descr, ParseDescr());
    } else if (key == "fortran_order") {
      MLF_ASSIGN_OR_RETURN(fields.fortran_order, ParseBool());
    } else {
      MLF_ASSIGN_OR_RETURN(fields.shape, ParseShape());
    }
    return Status::Ok();
  }

  // A quoted string without escapes; returns its content.
  Result<std::string_view> ParseString() {
    const char quote = text_[pos_++];
    const size_t start = pos_;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == quote) return text_.substr(start, pos_++ - start);
      if (c == '\\') return Malformed("escape sequences are not supported in header strings");
      if (c == '\n') break;
    }
    return Malformed("unterminated string");
  }

  Result<std::string_view> ParseDescr() {
    if (Peek() == '[') {
      return Unimplemented("structured .npy arrays (a list 'descr') are not supported");
    }
    if (Peek() != '\'' && Peek() != '"') {
      return InvalidArgument("the .npy header's 'descr' must be a string such as '<f4'");
    }
    return ParseString();
  }

  Result<bool> ParseBool() {
    if (ConsumeWord("True")) return true;
    if (ConsumeWord("False")) return false;
    return InvalidArgument("the .npy header's 'fortran_order' must be True or False");
  }

  // "()", "(3,)", "(2, 3)", "(2, 3,)". "(3)" is an int in Python, not a tuple.
  Result<std::vector<int64_t>> ParseShape() {
    if (!Consume('(')) return NotATuple();
    std::vector<int64_t> shape;
    SkipSpace();
    if (Consume(')')) return shape;
    for (;;) {
      if (shape.size() == kNpyMaxNdim) {
        return OutOfRange("the .npy shape has more than " + std::to_string(kNpyMaxNdim) +
                          " dimensions");
      }
      MLF_ASSIGN_OR_RETURN(const int64_t dim, ParseInt());
      shape.push_back(dim);
      SkipSpace();
      if (Consume(')')) break;
      if (!Consume(',')) return Malformed("expected ',' or ')' in the shape");
      SkipSpace();
      if (Consume(')')) return shape;
    }
    if (shape.size() == 1) {
      return InvalidArgument(
          "the .npy header's 'shape' must be a tuple; write a 1-D shape as (3,), not (3)");
    }
    return shape;
  }

  // A decimal integer with an optional '-'; no leading zeros, as in Python 3.
  Result<int64_t> ParseInt() {
    const size_t start = pos_;
    const bool negative = Consume('-');
    if (!IsDigit(Peek())) return NotATuple();
    const size_t digits = pos_;
    uint64_t magnitude = 0;
    bool too_large = false;
    for (; pos_ < text_.size() && IsDigit(text_[pos_]); ++pos_) {
      const uint64_t d = static_cast<uint64_t>(text_[pos_] - '0');
      too_large = too_large || magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10;
      if (!too_large) magnitude = magnitude * 10 + d;
    }
    if (pos_ < text_.size() && IsWordChar(text_[pos_])) return NotATuple();
    if (text_[digits] == '0' && pos_ - digits > 1) {
      pos_ = start;
      return Malformed("integer with a leading zero");
    }
    if (too_large || magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return OutOfRange("the .npy shape dimension " +
                        QuoteForMessage(text_.substr(start, pos_ - start), kMaxQuoted) +
                        " is too large");
    }
    const int64_t value = static_cast<int64_t>(magnitude);
    return negative ? -value : value;
  }

  std::string_view text_;
  size_t base_;
  size_t pos_ = 0;
};

// --- meaning of the fields ---

bool IsByteOrder(char c) { return c == '<' || c == '>' || c == '|' || c == '='; }

Result<DType> DescrToDType(std::string_view descr) {
  if (descr.size() >= 2 && IsByteOrder(descr[0])) {
    const char order = descr[0];
    const std::string_view code = descr.substr(1);
    for (const DescrInfo& d : kDescrs) {
      if (code != d.code) continue;
      if (order == '<' || DTypeSize(d.dtype) == 1) return d.dtype;
      const std::string fix = "; save with dtype '<" + std::string(code) + "'";
      if (order == '>') return Unimplemented("big-endian data is not supported" + fix);
      return Unimplemented("the .npy descr " + QuoteForMessage(descr, kMaxQuoted) +
                           " has no explicit byte order" + fix);
    }
  }
  return Unimplemented("unsupported .npy descr " + QuoteForMessage(descr, kMaxQuoted) +
                       " (supported: " + SupportedDescrs() + ")");
}

struct Layout {
  DType dtype;
  std::vector<int64_t> shape;
  size_t data_offset;
};

std::string Describe(DType dtype, const std::vector<int64_t>& shape) {
  return std::string(DTypeName(dtype)) + " " + FormatShape(shape);
}

Status CheckDataSize(const Layout& l, uint64_t need, uint64_t have) {
  if (have < need) {
    return DataLoss("truncated .npy data: " + Describe(l.dtype, l.shape) + " needs " +
                    std::to_string(need) + " bytes but only " + std::to_string(have) +
                    " follow the header");
  }
  if (have > need) {
    return InvalidArgument("the .npy file has " + std::to_string(have - need) +
                           " trailing bytes after the " + std::to_string(need) + " bytes of " +
                           Describe(l.dtype, l.shape) + " data");
  }
  return Status::Ok();
}

// Validates everything and says where the data starts; allocates nothing
// but the (bounded) shape.
Result<Layout> ParseLayout(std::string_view bytes) {
  MLF_ASSIGN_OR_RETURN(const Preamble p, ReadPreamble(bytes));
  const std::string_view header = bytes.substr(p.size, p.header_size);
  MLF_ASSIGN_OR_RETURN(HeaderFields fields, HeaderParser(header, p.size).Parse());
  Layout l;
  MLF_ASSIGN_OR_RETURN(l.dtype, DescrToDType(*fields.descr));
  if (*fields.fortran_order) {
    return Unimplemented(
        "Fortran-order arrays are not supported; save with numpy.ascontiguousarray");
  }
  l.shape = std::move(*fields.shape);
  MLF_ASSIGN_OR_RETURN(const uint64_t need, ByteSize(l.dtype, l.shape));
  l.data_offset = p.size + p.header_size;
  MLF_RETURN_IF_ERROR(CheckDataSize(l, need, bytes.size() - l.data_offset));
  return l;
}

// --- files ---

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status TooLarge(const std::string& path, uint64_t max_bytes) {
  return OutOfRange("'" + path + "' is larger than the limit of " + std::to_string(max_bytes) +
                    " bytes");
}

Result<std::string> ReadWholeFile(const std::string& path, uint64_t max_bytes) {
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return NotFound("'" + path + "' does not exist");
    return ErrnoError("cannot open '" + path + "'");
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return ErrnoError("cannot stat '" + path + "'");
  std::string out;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > max_bytes) return TooLarge(path, max_bytes);
    out.reserve(static_cast<size_t>(st.st_size));
  }
  std::unique_ptr<char[]> buf(new char[kReadChunk]);
  for (;;) {
    const ssize_t n = read(fd.get(), buf.get(), kReadChunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot read '" + path + "'");
    if (n == 0) return out;
    if (out.size() + static_cast<uint64_t>(n) > max_bytes) return TooLarge(path, max_bytes);
    out.append(buf.get(), static_cast<size_t>(n));
  }
}

std::string ShapeRepr(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

void AppendLittleEndian(std::string& out, uint64_t v, size_t size) {
  for (size_t i = 0; i < size; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// numpy's _wrap_header: prefix, then `dict`, spaces and '\n' up to alignment.
std::string WrapHeader(const std::string& dict) {
  const uint64_t text_size = dict.size() + 1;  // with the '\n'
  int major = 1;
  size_t length_size = 2;
  uint64_t pad = kDataAlign - (kMagicAndVersionSize + length_size + text_size) % kDataAlign;
  if (text_size + pad > kMaxV1HeaderSize) {
    major = 2;
    length_size = 4;
    pad = kDataAlign - (kMagicAndVersionSize + length_size + text_size) % kDataAlign;
  }
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  AppendLittleEndian(out, text_size + pad, length_size);
  out += dict;
  out.append(pad, ' ');
  return out + '\n';
}

}  // namespace

Result<std::string> NpyDescr(DType dtype) {
  for (const DescrInfo& d : kDescrs) {
    if (d.dtype == dtype) return DescrFor(d);
  }
  return Unimplemented(std::string(DTypeName(dtype)) +
                       " has no NumPy dtype and cannot be stored in .npy; convert it to float32");
}

Result<NpyArray> ParseNpy(std::string_view bytes) {
  MLF_ASSIGN_OR_RETURN(Layout l, ParseLayout(bytes));
  NpyArray array;
  array.dtype = l.dtype;
  array.shape = std::move(l.shape);
  array.data = std::string(bytes.substr(l.data_offset));
  return array;
}

Result<NpyArray> ReadNpyFile(const std::string& path, uint64_t max_bytes) {
  MLF_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path, max_bytes));
  Result<Layout> l = ParseLayout(bytes);
  if (!l.ok()) return l.status().WithContext("'" + path + "'");
  NpyArray array;
  array.dtype = l->dtype;
  array.shape = std::move(l->shape);
  bytes.erase(0, l->data_offset);  // in place: no second copy of the data
  array.data = std::move(bytes);
  return array;
}

Status ValidateNpyArray(const NpyArray& array) {
  MLF_RETURN_IF_ERROR(NpyDescr(array.dtype).status());
  if (array.shape.size() > kNpyMaxNdim) {
    return OutOfRange("a shape with " + std::to_string(array.shape.size()) +
                      " dimensions cannot be stored in .npy (at most " +
                      std::to_string(kNpyMaxNdim) + ")");
  }
  MLF_ASSIGN_OR_RETURN(const uint64_t need, ByteSize(array.dtype, array.shape));
  if (array.data.size() != need) {
    return InvalidArgument(Describe(array.dtype, array.shape) + " needs " + std::to_string(need) +
                           " bytes of data but has " + std::to_string(array.data.size()));
  }
  return Status::Ok();
}

std::string SerializeNpyHeader(DType dtype, const std::vector<int64_t>& shape) {
  Result<std::string> descr = NpyDescr(dtype);
  std::string dict = "{'descr': '" + (descr.ok() ? *descr : std::string("<V2")) +
                     "', 'fortran_order': False, 'shape': " + ShapeRepr(shape) + ", }";
  if (!shape.empty()) {
    const size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  return WrapHeader(dict);
}

std::string SerializeNpy(const NpyArray& array) {
  std::string out = SerializeNpyHeader(array.dtype, array.shape);
  out += array.data;
  return out;
}

Status WriteNpyFile(const std::string& path, const NpyArray& array) {
  MLF_RETURN_IF_ERROR(ValidateNpyArray(array).WithContext("cannot write '" + path + "'"));
  MLF_ASSIGN_OR_RETURN(auto file, AtomicFile::Create(path));
  MLF_RETURN_IF_ERROR(file->Write(SerializeNpyHeader(array.dtype, array.shape)));
  MLF_RETURN_IF_ERROR(file->Write(array.data));
  return file->Commit();
}

}  // namespace mlf
