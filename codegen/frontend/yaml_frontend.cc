#include "codegen/frontend/yaml_frontend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "artifact/base/printable_name.h"
#include "artifact/format/dtype.h"
#include "artifact/format/npy.h"
#include "artifact/format/tensor_values.h"
#include "artifact/jsonschema/json_schema.h"
#include "codegen/ops/op.h"
#include "schemas/embedded.h"

namespace mlf::frontend {
namespace {

using nlohmann::json;

// JSON pointers at most this deep get a line number (/nodes/3/op: depth 3).
constexpr size_t kMarkDepth = 3;
// At most this many line numbers are remembered per document.
constexpr size_t kMaxMarks = 100000;
// Schema messages longer than this are cut.
constexpr size_t kMaxSchemaMessage = 1000;

// Line numbers (1-based) of the values at JSON pointers of depth <= kMarkDepth.
using LineMap = std::map<std::string, int>;

std::string EscapePointerToken(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// The line of `pointer` or of its nearest recorded ancestor; 0 when unknown.
int LineOf(const LineMap& lines, std::string pointer) {
  for (;;) {
    auto it = lines.find(pointer);
    if (it != lines.end()) return it->second;
    const size_t slash = pointer.rfind('/');
    if (slash == std::string::npos) return 0;
    pointer.resize(slash);
  }
}

// "<file>:<line>" for the value at `pointer`, or "<file>" when no line is known.
std::string Where(const std::string& file, const LineMap& lines, const std::string& pointer) {
  const int line = LineOf(lines, pointer);
  return file + (line > 0 ? ":" + std::to_string(line) : std::string());
}

// Quoted document text in messages is cut to this many bytes.
constexpr size_t kMaxQuoted = 80;

std::string Excerpt(const std::string& text) {
  if (text.size() <= kMaxQuoted) return text;
  size_t n = kMaxQuoted;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // whole characters
  return text.substr(0, n) + "...";
}

// A JSON scalar for messages; non-finite floats in YAML spelling (dump() says null).
std::string Show(const nlohmann::json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return ".nan";
    if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  }
  return v.dump();
}

bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t cp;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07; }
    else return false;
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// ---------------------------------------------------------------------------
// YAML 1.2 core schema scalars

bool IsDigits(std::string_view s, bool (*ok)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!ok(c)) return false;
  }
  return true;
}
bool Dec(char c) { return c >= '0' && c <= '9'; }
bool Oct(char c) { return c >= '0' && c <= '7'; }
bool Hex(char c) { return Dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsCoreFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && Dec(s[i])) { ++i; ++int_digits; }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && Dec(s[i])) { ++i; ++frac_digits; }
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && Dec(s[i])) { ++i; ++exp_digits; }
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// The integer value of a core-schema integer (decimal with sign, 0o, 0x), or
// an error message; nullopt-like `false` when `s` is not an integer at all.
bool ParseCoreInt(const std::string& s, json* out, std::string* error) {
  std::string_view digits = s;
  int base = 10;
  bool negative = false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    base = s[1] == 'o' ? 8 : 16;
    digits.remove_prefix(2);
    if (!IsDigits(digits, base == 8 ? Oct : Hex)) return false;
  } else {
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (!IsDigits(digits, Dec)) return false;
  }
  uint64_t magnitude = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  const uint64_t int64_max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (r.ec != std::errc() || (negative && magnitude > int64_max + 1)) {
    *error = "integer " + Excerpt(s) + " does not fit in 64 bits";
    return true;
  }
  if (negative) {
    *out = magnitude == int64_max + 1 ? std::numeric_limits<int64_t>::min()
                                      : -static_cast<int64_t>(magnitude);
  } else if (magnitude <= int64_max) {
    *out = static_cast<int64_t>(magnitude);
  } else {
    *out = magnitude;  // number_unsigned
  }
  return true;
}

// Resolves a plain scalar; sets *error for a malformed number.
json ResolvePlain(const std::string& s, std::string* error) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  json number;
  if (ParseCoreInt(s, &number, error)) return number;
  std::string_view v = s;
  const bool minus = !v.empty() && v[0] == '-';
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) v.remove_prefix(1);
  if (v == ".inf" || v == ".Inf" || v == ".INF") {
    return minus ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  if (IsCoreFloat(s)) {
    double d = 0;
    const auto r = std::from_chars(v.data(), v.data() + v.size(), d, std::chars_format::general);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size()) {
      *error = "number " + Excerpt(s) + " is out of the range of a 64-bit float";
      return nullptr;
    }
    return minus ? -d : d;
  }
  return s;
}

// ---------------------------------------------------------------------------
// YAML events -> JSON

// Thrown from the event handler to stop yaml-cpp; caught in YamlToJson.
struct StopParsing {
  Status status;
};

class JsonBuilder : public YAML::EventHandler {
 public:
  JsonBuilder(const YamlImportOptions& options, LineMap* lines)
      : options_(options), lines_(lines) {}

  bool done() const { return done_; }
  json TakeRoot() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) Fail(mark, "more than one YAML document (only one model per file)");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (ExpectingKey()) Fail(mark, "a mapping key is empty (null)");
    Count(mark, 1);
    Leaf(mark, anchor, nullptr);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (ExpectingKey()) Fail(mark, "an alias cannot be a mapping key");
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(mark, "an alias refers to a node that contains it");
    const Anchored& a = it->second;
    Count(mark, a.count);
    if (static_cast<int>(stack_.size()) + a.height > options_.max_depth) DepthError(mark);
    Record(mark);
    Attach(json(a.value), a.height);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!ValidUtf8(value)) Fail(mark, "a scalar is not valid UTF-8");
    if (ExpectingKey()) {
      Frame& f = stack_.back();
      if (f.value.contains(value)) Fail(mark, "duplicate mapping key '" + Excerpt(value) + "'");
      f.key = value;
      f.has_key = true;
      if (anchor != 0) Remember(mark, anchor, json(value), 1, 0);
      return;
    }
    Count(mark, 1);
    json v;
    if (tag == "?") {
      std::string error;
      v = ResolvePlain(value, &error);
      if (!error.empty()) Fail(mark, error);
    } else if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      v = value;
    } else {
      Fail(mark, "unsupported YAML tag '" + Excerpt(tag) + "' (only !!str is supported)");
    }
    Leaf(mark, anchor, std::move(v));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, tag, anchor, json::array(), "tag:yaml.org,2002:seq");
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, tag, anchor, json::object(), "tag:yaml.org,2002:map");
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Frame {
    json value;
    YAML::Mark mark;
    YAML::anchor_t anchor = 0;
    uint64_t count_at_start = 0;
    int height = 1;  // 1 + the tallest child
    std::string pointer;  // when tracked
    bool tracked = false;
    std::string key;
    bool has_key = false;
  };
  struct Anchored {
    json value;
    uint64_t count = 0;
    int height = 0;
  };

  [[noreturn]] void Fail(const YAML::Mark& mark, const std::string& what) {
    throw StopParsing{InvalidArgument(options_.file_name + ":" + std::to_string(mark.line + 1) +
                                      ":" + std::to_string(mark.column + 1) + ": " + what)};
  }
  [[noreturn]] void DepthError(const YAML::Mark& mark) {
    throw StopParsing{OutOfRange(options_.file_name + ":" + std::to_string(mark.line + 1) +
                                 ": YAML nesting is deeper than the limit of " +
                                 std::to_string(options_.max_depth) + " levels")};
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().has_key;
  }

  void Count(const YAML::Mark& mark, uint64_t n) {
    count_ += n;
    if (count_ > options_.max_yaml_values) {
      throw StopParsing{OutOfRange(
          options_.file_name + ":" + std::to_string(mark.line + 1) + ": the YAML document has more than " +
          std::to_string(options_.max_yaml_values) + " values (aliases counted expanded)")};
    }
  }

  // The JSON pointer of the value that starts now, when it is shallow enough
  // to be tracked ("" for the root).
  bool NextPointer(std::string* pointer) const {
    if (stack_.empty()) {
      pointer->clear();
      return true;
    }
    const Frame& f = stack_.back();
    if (!f.tracked || stack_.size() > kMarkDepth) return false;
    const std::string token = f.value.is_object() ? EscapePointerToken(f.key)
                                                  : std::to_string(f.value.size());
    *pointer = f.pointer + "/" + token;
    return true;
  }

  void Record(const YAML::Mark& mark) {
    std::string pointer;
    if (lines_ != nullptr && lines_->size() < kMaxMarks && NextPointer(&pointer) &&
        !pointer.empty()) {
      lines_->emplace(pointer, mark.line + 1);
    }
  }

  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor, json v) {
    Record(mark);
    if (anchor != 0) Remember(mark, anchor, v, 1, 0);
    Attach(std::move(v), 0);
  }

  void Remember(const YAML::Mark& mark, YAML::anchor_t anchor, const json& v, uint64_t count,
                int height) {
    Count(mark, count);  // the stored copy
    anchors_[anchor] = Anchored{v, count, height};
  }

  void Open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, json empty,
            const char* explicit_tag) {
    if (ExpectingKey()) Fail(mark, "mapping keys must be scalars");
    if (tag != "?" && tag != "!" && tag != explicit_tag) {
      Fail(mark, "unsupported YAML tag '" + Excerpt(tag) + "'");
    }
    Count(mark, 1);
    if (static_cast<int>(stack_.size()) + 1 > options_.max_depth) DepthError(mark);
    Frame f;
    f.mark = mark;
    f.anchor = anchor;
    f.count_at_start = count_;
    f.tracked = NextPointer(&f.pointer);
    Record(mark);
    f.value = std::move(empty);
    stack_.push_back(std::move(f));
  }

  void Close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    if (f.anchor != 0) Remember(f.mark, f.anchor, f.value, count_ - f.count_at_start + 1, f.height);
    Attach(std::move(f.value), f.height);
  }

  void Attach(json v, int height) {
    if (stack_.empty()) {
      root_ = std::move(v);
      done_ = true;
      return;
    }
    Frame& parent = stack_.back();
    if (height + 1 > parent.height) parent.height = height + 1;
    if (parent.value.is_object()) {
      parent.value[parent.key] = std::move(v);
      parent.has_key = false;
    } else {
      parent.value.push_back(std::move(v));
    }
  }

  const YamlImportOptions& options_;
  LineMap* lines_;
  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  json root_;
  bool done_ = false;
  int documents_ = 0;
  uint64_t count_ = 0;
};

Result<json> YamlToJsonWithLines(std::string_view text, const YamlImportOptions& options,
                                 LineMap* lines) {
  if (text.size() > options.max_file_bytes) {
    return OutOfRange(options.file_name + ": the document is " + std::to_string(text.size()) +
                      " bytes, more than the limit of " + std::to_string(options.max_file_bytes));
  }
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    JsonBuilder builder(options, lines);
    parser.HandleNextDocument(builder);
    if (!builder.done()) {
      return InvalidArgument(options.file_name + ": the document is empty; expected a YAML mapping "
                                                 "starting with `mlf_model: 1`");
    }
    parser.HandleNextDocument(builder);  // refuses a second document
    return builder.TakeRoot();
  } catch (const StopParsing& stop) {
    return stop.status;
  } catch (const YAML::Exception& e) {
    return InvalidArgument(options.file_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                           std::to_string(e.mark.column + 1) + ": not valid YAML: " + e.msg);
  } catch (const std::bad_alloc&) {
    return OutOfRange(options.file_name + ": out of memory while reading the YAML document");
  } catch (const std::exception& e) {
    return InvalidArgument(options.file_name + ": cannot read the YAML document: " + e.what());
  }
}

// ---------------------------------------------------------------------------
// Random values

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double UnitDraw(uint64_t* state) {
  return static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-53;
}

bool IsFloatingDType(DType d) {
  return d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}

// ---------------------------------------------------------------------------
// Lowering

enum class DefKind { kInput, kParameter, kNode };

struct Definition {
  DefKind kind;
  std::string node;  // the producing node's name for kNode
  int id;
};

class Lowering {
 public:
  Lowering(const YamlImportOptions& options, const LineMap& lines, std::string base_dir)
      : options_(options), lines_(lines), base_dir_(std::move(base_dir)) {}

  const std::vector<std::string>& npy_files() const { return npy_files_; }

  Result<ir::Graph> Run(const json& doc) {
    MLF_RETURN_IF_ERROR(LowerInputs(doc.at("inputs")));
    if (doc.contains("parameters")) MLF_RETURN_IF_ERROR(LowerParameters(doc.at("parameters")));
    MLF_RETURN_IF_ERROR(LowerNodes(doc.at("nodes")));
    MLF_RETURN_IF_ERROR(LowerOutputs(doc.at("outputs")));
    Status valid = graph_.Validate();
    if (!valid.ok()) return Status(valid.code(), options_.file_name + ": " + valid.message());
    return std::move(graph_);
  }

 private:
  // "<file>:<line>" for the value at `pointer`.
  std::string Where(const std::string& pointer) const {
    return frontend::Where(options_.file_name, lines_, pointer);
  }
  Status Error(StatusCode code, const std::string& pointer, const std::string& what) const {
    return Status(code, Where(pointer) + ": " + what);
  }

  // A schema-checked integer that must fit int64.
  Result<int64_t> Int64(const json& v, const std::string& pointer, const std::string& who) const {
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error(StatusCode::kOutOfRange, pointer, who + ": " + pointer + " is beyond int64");
    }
    if (v.is_number_integer()) return v.get<int64_t>();
    const double d = v.get<double>();  // the schema allows 2.0 as an integer
    if (!(std::fabs(d) < 0x1.0p63)) {
      return Error(StatusCode::kOutOfRange, pointer, who + ": " + pointer + " is beyond int64");
    }
    return static_cast<int64_t>(d);
  }

  Result<std::vector<int64_t>> Shape(const json& j, const std::string& pointer,
                                     const std::string& who) const {
    if (j.size() > options_.max_rank) {
      return Error(StatusCode::kOutOfRange, pointer,
                   who + ": rank " + std::to_string(j.size()) + " is more than the limit of " +
                       std::to_string(options_.max_rank));
    }
    std::vector<int64_t> shape;
    for (size_t i = 0; i < j.size(); ++i) {
      MLF_ASSIGN_OR_RETURN(int64_t d, Int64(j[i], pointer + "/" + std::to_string(i), who));
      shape.push_back(d);
    }
    Result<uint64_t> count = ElementCount(shape);
    if (!count.ok() || *count > options_.max_tensor_elements) {
      return Error(StatusCode::kOutOfRange, pointer,
                   who + ": shape " + FormatShape(shape) + " has " +
                       (count.ok() ? std::to_string(*count) : std::string("too many")) +
                       " elements, more than the limit of " +
                       std::to_string(options_.max_tensor_elements));
    }
    return shape;
  }

  Status Define(const std::string& name, Definition def, const std::string& pointer,
                const std::string& who) {
    auto it = defined_.find(name);
    if (it != defined_.end()) {
      std::string by;
      switch (it->second.kind) {
        case DefKind::kInput: by = "a model input"; break;
        case DefKind::kParameter: by = "a parameter"; break;
        case DefKind::kNode: by = "an output of node '" + it->second.node + "'"; break;
      }
      return Error(StatusCode::kAlreadyExists, pointer,
                   who + ": value name '" + name + "' is already used (" + by +
                       "); every input, parameter and node output needs its own name");
    }
    defined_.emplace(name, std::move(def));
    return Status::Ok();
  }

  Status LowerInputs(const json& inputs) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const json& in = inputs[i];
      const std::string pointer = "/inputs/" + std::to_string(i);
      const std::string name = in.at("name").get<std::string>();
      const std::string who = "input '" + name + "'";
      ir::Value v;
      v.name = name;
      MLF_ASSIGN_OR_RETURN(v.dtype, ParseDType(in.at("dtype").get<std::string>()));
      MLF_ASSIGN_OR_RETURN(v.shape, Shape(in.at("shape"), pointer + "/shape", who));
      const int id = graph_.AddValue(std::move(v));
      MLF_RETURN_IF_ERROR(Define(name, {DefKind::kInput, "", id}, pointer, who));
      graph_.inputs.push_back(id);
    }
    return Status::Ok();
  }

  Status LowerParameters(const json& parameters) {
    MLF_RETURN_IF_ERROR(CheckParameterTotal(parameters));
    for (const auto& [name, spec] : parameters.items()) {
      const std::string pointer = "/parameters/" + EscapePointerToken(name);
      const std::string who = "parameter '" + name + "'";
      MLF_ASSIGN_OR_RETURN(ir::HostTensor t, Parameter(spec, pointer, who));
      const int id = graph_.AddConstant(name, std::move(t));
      MLF_RETURN_IF_ERROR(Define(name, {DefKind::kParameter, "", id}, pointer, who));
    }
    return Status::Ok();
  }

  // The bound on all parameters together, in document order, before any is
  // built: the parameter it names is the one that crosses it as the file
  // reads (the parsed mapping, which Parameter() follows, is alphabetical and
  // named another one). A dtype or shape in error is Parameter()'s to report.
  Status CheckParameterTotal(const json& parameters) const {
    std::vector<std::pair<int, std::string>> order;
    for (const auto& [name, spec] : parameters.items()) {
      order.emplace_back(LineOf(lines_, "/parameters/" + EscapePointerToken(name)), name);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    uint64_t total = 0;
    for (const auto& [line, name] : order) {
      const json& spec = parameters.at(name);
      const std::string pointer = "/parameters/" + EscapePointerToken(name);
      const std::string who = "parameter '" + name + "'";
      Result<DType> dtype = ParseDType(spec.at("dtype").get<std::string>());
      if (!dtype.ok()) continue;
      Result<std::vector<int64_t>> shape = Shape(spec.at("shape"), pointer + "/shape", who);
      if (!shape.ok()) continue;
      Result<uint64_t> bytes = ByteSize(*dtype, *shape);
      if (!bytes.ok()) continue;
      if (*bytes > options_.max_parameter_bytes - total) {
        return Error(StatusCode::kOutOfRange, pointer,
                     who + ": parameters take more than the limit of " +
                         std::to_string(options_.max_parameter_bytes) + " bytes together");
      }
      total += *bytes;
    }
    return Status::Ok();
  }

  Result<ir::HostTensor> Parameter(const json& spec, const std::string& pointer,
                                   const std::string& who) {
    MLF_ASSIGN_OR_RETURN(DType dtype, ParseDType(spec.at("dtype").get<std::string>()));
    MLF_ASSIGN_OR_RETURN(std::vector<int64_t> shape, Shape(spec.at("shape"), pointer + "/shape", who));
    MLF_ASSIGN_OR_RETURN(uint64_t bytes, ByteSize(dtype, shape));
    if (bytes > options_.max_parameter_bytes - parameter_bytes_ ||
        parameter_bytes_ > options_.max_parameter_bytes) {
      return Error(StatusCode::kOutOfRange, pointer,
                   who + ": parameters take more than the limit of " +
                       std::to_string(options_.max_parameter_bytes) + " bytes together");
    }
    parameter_bytes_ += bytes;
    if (spec.contains("npy")) return Npy(spec.at("npy").get<std::string>(), dtype, shape, pointer, who);
    ir::HostTensor t = ir::HostTensor::Zeros(dtype, shape);
    if (spec.contains("values")) {
      MLF_RETURN_IF_ERROR(Values(spec.at("values"), &t, pointer + "/values", who));
    } else if (spec.contains("fill")) {
      MLF_RETURN_IF_ERROR(Fill(spec.at("fill"), &t, pointer + "/fill", who));
    } else {
      MLF_RETURN_IF_ERROR(Random(spec.at("random"), &t, pointer + "/random", who));
    }
    return t;
  }

  // Writes element i from a JSON number or boolean, checking it suits the dtype.
  Status SetElement(ir::HostTensor* t, uint64_t i, const json& v, const std::string& pointer,
                    const std::string& who) const {
    const DType d = t->dtype;
    auto bad = [&](const std::string& what) {
      return Error(StatusCode::kInvalidArgument, pointer,
                   who + ": " + pointer + ": " + what + " (dtype " + DTypeName(d) + ")");
    };
    if (d == DType::kBool) {
      if (v.is_boolean()) {
        t->bytes[i] = v.get<bool>() ? 1 : 0;
        return Status::Ok();
      }
      if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
        t->bytes[i] = static_cast<char>(v.get<int64_t>());
        return Status::Ok();
      }
      return bad("expected true or false (or 0 or 1), got " + Show(v));
    }
    if (v.is_boolean()) return bad("expected a number, got " + Show(v));
    if (IsFloatingDType(d)) {
      const double x = v.get<double>();
      WriteElement(d, t->bytes.data(), i, x);
      if (std::isfinite(x) && !std::isfinite(ReadElement(d, t->bytes.data(), i))) {
        return bad("value " + Show(v) + " is out of range");
      }
      return Status::Ok();
    }
    // Integers: exact, range-checked.
    bool negative = false;
    uint64_t magnitude = 0;
    if (v.is_number_unsigned()) {
      magnitude = v.get<uint64_t>();
    } else if (v.is_number_integer()) {
      const int64_t s = v.get<int64_t>();
      negative = s < 0;
      magnitude = negative ? 0 - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
    } else {
      const double x = v.get<double>();
      if (!(std::fabs(x) < 0x1.0p63) || x != std::trunc(x)) {
        return bad("value " + Show(v) + " is not an integer");
      }
      negative = x < 0;
      magnitude = static_cast<uint64_t>(std::fabs(x));
    }
    const size_t size = DTypeSize(d);
    const bool is_signed = d == DType::kInt8 || d == DType::kInt16 || d == DType::kInt32 ||
                           d == DType::kInt64;
    const int bits = static_cast<int>(size * 8);
    const uint64_t max = is_signed ? (uint64_t{1} << (bits - 1)) - 1
                                   : (bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
    const bool fits = negative ? (is_signed && magnitude <= max + 1) : magnitude <= max;
    if (!fits) return bad("value " + Show(v) + " is out of range");
    const uint64_t bits_value = negative ? 0 - magnitude : magnitude;  // two's complement
    for (size_t b = 0; b < size; ++b) {
      t->bytes[i * size + b] = static_cast<char>((bits_value >> (8 * b)) & 0xFF);
    }
    return Status::Ok();
  }

  Status Fill(const json& v, ir::HostTensor* t, const std::string& pointer, const std::string& who) {
    const uint64_t n = t->element_count();
    if (n == 0) return Status::Ok();
    MLF_RETURN_IF_ERROR(SetElement(t, 0, v, pointer, who));
    const size_t size = DTypeSize(t->dtype);
    for (uint64_t i = 1; i < n; ++i) std::memcpy(&t->bytes[i * size], &t->bytes[0], size);
    return Status::Ok();
  }

  // `values`: one number for a one-element tensor, a flat list of all
  // elements, or nested lists that follow the shape.
  Status Values(const json& v, ir::HostTensor* t, const std::string& pointer,
                const std::string& who) {
    const uint64_t n = t->element_count();
    if (!v.is_array()) {
      if (n != 1) {
        return Error(StatusCode::kInvalidArgument, pointer,
                     who + ": 'values' is a single value but shape " + FormatShape(t->shape) +
                         " needs " + std::to_string(n) + " values");
      }
      return SetElement(t, 0, v, pointer, who);
    }
    bool flat = true;
    for (const json& e : v) {
      if (e.is_array()) flat = false;
    }
    if (flat) {
      if (v.size() != n) {
        return Error(StatusCode::kInvalidArgument, pointer,
                     who + ": 'values' has " + std::to_string(v.size()) + " values but shape " +
                         FormatShape(t->shape) + " needs " + std::to_string(n));
      }
      for (uint64_t i = 0; i < n; ++i) {
        const json& e = v[static_cast<size_t>(i)];
        if (!SetElementFast(t, i, e)) {
          MLF_RETURN_IF_ERROR(SetElement(t, i, e, pointer + "/" + std::to_string(i), who));
        }
      }
      return Status::Ok();
    }
    uint64_t next = 0;
    return Nested(v, 0, t, pointer, who, &next);
  }

  // The common case without building a pointer: a float tensor from a number.
  static bool SetElementFast(ir::HostTensor* t, uint64_t i, const json& e) {
    if (t->dtype == DType::kFloat32 && e.is_number()) {
      const double x = e.get<double>();
      const float f = static_cast<float>(x);
      if (std::isfinite(x) && !std::isfinite(f)) return false;
      std::memcpy(&t->bytes[i * 4], &f, 4);
      return true;
    }
    return false;
  }

  Status Nested(const json& v, size_t dim, ir::HostTensor* t, const std::string& pointer,
                const std::string& who, uint64_t* next) {
    const size_t rank = t->shape.size();
    if (dim == rank) {
      if (v.is_array()) {
        return Error(StatusCode::kInvalidArgument, pointer,
                     who + ": " + pointer + " is a list, but shape " + FormatShape(t->shape) +
                         " has only " + std::to_string(rank) + " dimensions");
      }
      const uint64_t i = (*next)++;
      if (SetElementFast(t, i, v)) return Status::Ok();
      return SetElement(t, i, v, pointer, who);
    }
    const int64_t want = t->shape[dim];
    if (!v.is_array() || v.size() != static_cast<uint64_t>(want)) {
      return Error(StatusCode::kInvalidArgument, pointer,
                   who + ": " + pointer + " has " +
                       (v.is_array() ? std::to_string(v.size()) + " entries" : std::string("1 value")) +
                       " but dimension " + std::to_string(dim) + " of shape " +
                       FormatShape(t->shape) + " is " + std::to_string(want));
    }
    for (size_t k = 0; k < v.size(); ++k) {
      MLF_RETURN_IF_ERROR(Nested(v[k], dim + 1, t, pointer + "/" + std::to_string(k), who, next));
    }
    return Status::Ok();
  }

  Status Random(const json& r, ir::HostTensor* t, const std::string& pointer,
                const std::string& who) {
    RandomSpec spec;
    if (r.at("seed").is_number_unsigned()) {
      spec.seed = r.at("seed").get<uint64_t>();
    } else {
      MLF_ASSIGN_OR_RETURN(int64_t seed, Int64(r.at("seed"), pointer + "/seed", who));
      spec.seed = static_cast<uint64_t>(seed);
    }
    const bool uniform = r.at("distribution").get<std::string>() == "uniform";
    spec.distribution = uniform ? RandomSpec::Distribution::kUniform : RandomSpec::Distribution::kNormal;
    spec.a = r.at(uniform ? "low" : "mean").get<double>();
    spec.b = r.at(uniform ? "high" : "std").get<double>();
    if (!std::isfinite(spec.a) || !std::isfinite(spec.b)) {
      return Error(StatusCode::kInvalidArgument, pointer,
                   who + ": " + std::string(uniform ? "low and high" : "mean and std") +
                       " must be finite numbers");
    }
    if (uniform && !(spec.a <= spec.b)) {
      return Error(StatusCode::kInvalidArgument, pointer,
                   who + ": random low (" + r.at("low").dump() + ") is greater than high (" +
                       r.at("high").dump() + ")");
    }
    Status s = FillRandomTensor(spec, t);
    if (!s.ok()) return Error(s.code(), pointer, who + ": " + s.message());
    return Status::Ok();
  }

  // An npy file stays in the model's directory: a model handed over with its
  // files must not pull in anything else the user can read (the archive keeps
  // the data). '..' is checked as written, symbolic links by where they lead.
  Status CheckNpyConfined(const std::string& relative, const std::string& path,
                          const std::string& pointer, const std::string& who) const {
    const std::string advice = "; keep npy files in the YAML file's directory or below it";
    int depth = 0;
    size_t start = 0;
    while (start <= relative.size()) {
      size_t end = relative.find('/', start);
      if (end == std::string::npos) end = relative.size();
      const std::string part = relative.substr(start, end - start);
      if (part == "..") --depth;
      else if (!part.empty() && part != ".") ++depth;
      if (depth < 0) {
        return Error(StatusCode::kInvalidArgument, pointer,
                     who + ": npy path '" + relative +
                         "' leads outside the YAML file's directory" + advice);
      }
      start = end + 1;
    }
    const std::string base = RealPath(base_dir_.empty() ? "." : base_dir_);
    const std::string target = RealPath(path);
    if (base.empty() || target.empty()) return Status::Ok();  // the read reports it
    const std::string prefix = base == "/" ? base : base + "/";
    if (target.compare(0, prefix.size(), prefix) != 0) {
      return Error(StatusCode::kInvalidArgument, pointer,
                   who + ": npy path '" + relative +
                       "' leads outside the YAML file's directory through a symbolic link (to '" +
                       target + "')" + advice);
    }
    return Status::Ok();
  }

  static std::string RealPath(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (resolved == nullptr) return "";
    std::string s = resolved;
    free(resolved);
    return s;
  }

  Result<ir::HostTensor> Npy(const std::string& relative, DType dtype,
                             const std::vector<int64_t>& shape, const std::string& pointer,
                             const std::string& who) {
    const std::string npy_pointer = pointer + "/npy";
    if (!relative.empty() && relative[0] == '/') {
      return Error(StatusCode::kInvalidArgument, npy_pointer,
                   who + ": npy path '" + relative +
                       "' is absolute; give it relative to the YAML file's directory");
    }
    const std::string path = base_dir_.empty() ? relative
                              : base_dir_.back() == '/' ? base_dir_ + relative
                                                        : base_dir_ + "/" + relative;
    MLF_RETURN_IF_ERROR(CheckNpyConfined(relative, path, npy_pointer, who));
    npy_files_.push_back(path);
    const uint64_t data_bytes = ByteSize(dtype, shape).value();
    // The header of a genuine .npy is far smaller than 1 MiB.
    Result<NpyArray> array = ReadNpyFile(path, data_bytes + (uint64_t{1} << 20));
    if (!array.ok()) {
      return Error(array.status().code(), npy_pointer, who + ": " + array.status().message());
    }
    if (array->dtype != dtype || array->shape != shape) {
      return Error(StatusCode::kInvalidArgument, npy_pointer,
                   who + ": '" + path + "' holds " + DTypeName(array->dtype) + " " +
                       FormatShape(array->shape) + " but the parameter is declared " +
                       DTypeName(dtype) + " " + FormatShape(shape));
    }
    ir::HostTensor t;
    t.dtype = dtype;
    t.shape = shape;
    t.bytes = std::move(array->data);
    return t;
  }

  Result<ir::AttrValue> Attribute(const json& v, const std::string& pointer,
                                  const std::string& who) const {
    auto int_of = [&](const json& e) -> Result<int64_t> {
      if (e.is_boolean()) return e.get<bool>() ? 1 : 0;
      return Int64(e, pointer, who);
    };
    if (v.is_string()) return ir::AttrValue(v.get<std::string>());
    if (v.is_boolean() || v.is_number_integer()) {
      MLF_ASSIGN_OR_RETURN(int64_t i, int_of(v));
      return ir::AttrValue(i);
    }
    if (v.is_number_float()) return ir::AttrValue(v.get<double>());
    // A list (the schema allows nothing else).
    size_t strings = 0, floats = 0;
    for (const json& e : v) {
      if (e.is_string()) ++strings;
      if (e.is_number_float()) ++floats;
    }
    if (strings > 0 && strings != v.size()) {
      return Error(StatusCode::kInvalidArgument, pointer,
                   who + ": attribute list " + pointer + " mixes strings and numbers");
    }
    if (strings > 0) return ir::AttrValue(v.get<std::vector<std::string>>());
    if (floats > 0) {
      std::vector<double> out;
      for (const json& e : v) out.push_back(e.is_boolean() ? (e.get<bool>() ? 1.0 : 0.0) : e.get<double>());
      return ir::AttrValue(std::move(out));
    }
    std::vector<int64_t> out;
    for (const json& e : v) {
      MLF_ASSIGN_OR_RETURN(int64_t i, int_of(e));
      out.push_back(i);
    }
    return ir::AttrValue(std::move(out));
  }

  Status LowerNodes(const json& nodes) {
    // Which node defines each name, to tell "later" from "nowhere".
    std::map<std::string, size_t> producer;
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const json& o : nodes[i].at("outputs")) producer.emplace(o.get<std::string>(), i);
    }
    std::map<std::string, size_t> node_names;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const json& jn = nodes[i];
      const std::string pointer = "/nodes/" + std::to_string(i);
      ir::Node node;
      node.op = jn.at("op").get<std::string>();
      node.name = jn.contains("name") ? jn.at("name").get<std::string>()
                                      : node.op + "_" + std::to_string(i);
      auto named = node_names.emplace(node.name, i);
      if (!named.second) {
        return Error(StatusCode::kAlreadyExists, pointer,
                     node.Describe() + ": node #" + std::to_string(i) +
                         " has the same name as node #" + std::to_string(named.first->second) +
                         "; give each node its own name");
      }
      if (ops::FindOp(node.op) == nullptr) {
        return Error(StatusCode::kUnimplemented, pointer + "/op",
                     node.Describe() + ": operator '" + node.op +
                         "' is not supported; see `mlf help export`");
      }
      const json& inputs = jn.at("inputs");
      for (size_t k = 0; k < inputs.size(); ++k) {
        const std::string name = inputs[k].get<std::string>();
        if (name.empty()) {
          node.inputs.push_back(ir::kNoValue);
          continue;
        }
        auto it = defined_.find(name);
        if (it == defined_.end()) return Undefined(node, name, i, producer, nodes, pointer);
        node.inputs.push_back(it->second.id);
      }
      while (!node.inputs.empty() && node.inputs.back() == ir::kNoValue) node.inputs.pop_back();
      if (jn.contains("attrs")) {
        for (const auto& [key, value] : jn.at("attrs").items()) {
          MLF_ASSIGN_OR_RETURN(node.attrs[key],
                               Attribute(value, pointer + "/attrs/" + EscapePointerToken(key),
                                         node.Describe()));
        }
      }
      for (const json& o : jn.at("outputs")) {
        const std::string name = o.get<std::string>();
        ir::Value v;
        v.name = name;
        const int id = graph_.AddValue(std::move(v));
        MLF_RETURN_IF_ERROR(
            Define(name, {DefKind::kNode, node.name, id}, pointer + "/outputs", node.Describe()));
        node.outputs.push_back(id);
      }
      Status inferred = ops::InferNode(node, graph_);
      if (!inferred.ok()) return Error(inferred.code(), pointer, inferred.message());
      graph_.nodes.push_back(std::move(node));
    }
    return Status::Ok();
  }

  Status Undefined(const ir::Node& node, const std::string& name, size_t index,
                   const std::map<std::string, size_t>& producer, const json& nodes,
                   const std::string& pointer) const {
    auto later = producer.find(name);
    if (later == producer.end()) {
      return Error(StatusCode::kInvalidArgument, pointer + "/inputs",
                   node.Describe() + ": input '" + name +
                       "' is not defined (not a model input, a parameter or an output of a node)");
    }
    if (later->second == index) {
      return Error(StatusCode::kInvalidArgument, pointer + "/inputs",
                   node.Describe() + ": input '" + name + "' is an output of the same node");
    }
    const json& p = nodes[later->second];
    const std::string producer_name =
        p.contains("name") ? p.at("name").get<std::string>()
                           : p.at("op").get<std::string>() + "_" + std::to_string(later->second);
    return Error(StatusCode::kInvalidArgument, pointer + "/inputs",
                 node.Describe() + ": input '" + name + "' is computed by a later node '" +
                     producer_name + "' (#" + std::to_string(later->second) +
                     "); list nodes in topological order");
  }

  Status LowerOutputs(const json& outputs) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string pointer = "/outputs/" + std::to_string(i);
      const std::string name = outputs[i].get<std::string>();
      auto it = defined_.find(name);
      if (it == defined_.end()) {
        return Error(StatusCode::kInvalidArgument, pointer,
                     "model output '" + name + "' is not an output of any node");
      }
      if (it->second.kind != DefKind::kNode) {
        return Error(StatusCode::kInvalidArgument, pointer,
                     "model output '" + name + "' is a " +
                         (it->second.kind == DefKind::kInput ? "model input" : "parameter") +
                         "; outputs must be computed by a node (an Identity node can copy it)");
      }
      graph_.outputs.push_back(it->second.id);
    }
    return Status::Ok();
  }

  const YamlImportOptions& options_;
  const LineMap& lines_;
  std::string base_dir_;
  std::vector<std::string> npy_files_;
  ir::Graph graph_;
  std::map<std::string, Definition> defined_;
  uint64_t parameter_bytes_ = 0;
};

// The compiled embedded schema, once.
const Result<JsonSchema>& ModelSchema() {
  static const Result<JsonSchema>* schema = [] {
    std::optional<std::string_view> text = EmbeddedFile(kYamlModelSchemaName);
    if (!text) {
      return new Result<JsonSchema>(
          Internal(std::string("the schema ") + kYamlModelSchemaName + " is not embedded"));
    }
    json parsed = json::parse(text->begin(), text->end(), nullptr, false);
    if (parsed.is_discarded()) {
      return new Result<JsonSchema>(
          Internal(std::string("the embedded schema ") + kYamlModelSchemaName + " is not JSON"));
    }
    return new Result<JsonSchema>(JsonSchema::Compile(parsed));
  }();
  return *schema;
}

// Names become tensor and operator names in the archive and text in
// generated C: a control character in one is refused with the name shown
// escaped (artifact/base/printable_name.h), before the schema, whose pattern says
// the same about U+0000-U+001F and U+007F less clearly.
Status CheckNamesPrintable(const json& doc, const std::string& file, const LineMap& lines) {
  auto check = [&](const std::string& pointer, const std::string& subject, const json& name) {
    if (!name.is_string()) return Status::Ok();
    Status st = CheckPrintableName(subject, name.get_ref<const std::string&>());
    return st.ok() ? st : Status(st.code(), Where(file, lines, pointer) + ": " + st.message());
  };
  auto list = [&](const json& o, const char* key) -> const json* {
    auto it = o.find(key);
    return it != o.end() && it->is_array() ? &*it : nullptr;
  };
  if (!doc.is_object()) return Status::Ok();
  if (doc.contains("name")) MLF_RETURN_IF_ERROR(check("/name", "model name", doc.at("name")));
  if (const json* inputs = list(doc, "inputs")) {
    for (size_t i = 0; i < inputs->size(); ++i) {
      const json& in = (*inputs)[i];
      if (!in.is_object() || !in.contains("name")) continue;
      const std::string n = std::to_string(i);
      MLF_RETURN_IF_ERROR(check("/inputs/" + n, "input " + n + ": name", in.at("name")));
    }
  }
  if (doc.contains("parameters") && doc.at("parameters").is_object()) {
    for (const auto& item : doc.at("parameters").items()) {
      MLF_RETURN_IF_ERROR(check("/parameters/" + EscapePointerToken(item.key()), "parameter name",
                                json(item.key())));
    }
  }
  if (const json* nodes = list(doc, "nodes")) {
    for (size_t i = 0; i < nodes->size(); ++i) {
      const json& node = (*nodes)[i];
      if (!node.is_object()) continue;
      const std::string where = "/nodes/" + std::to_string(i);
      const std::string who = "node " + std::to_string(i) + ": ";
      if (node.contains("name")) MLF_RETURN_IF_ERROR(check(where, who + "name", node.at("name")));
      for (const auto& [key, one] : {std::pair{"inputs", "input "}, {"outputs", "output "}}) {
        const json* values = list(node, key);
        for (size_t k = 0; values != nullptr && k < values->size(); ++k) {
          const std::string n = std::to_string(k);
          MLF_RETURN_IF_ERROR(
              check(where + "/" + key + "/" + n, who + one + n, (*values)[k]));
        }
      }
    }
  }
  if (const json* outputs = list(doc, "outputs")) {
    for (size_t i = 0; i < outputs->size(); ++i) {
      const std::string n = std::to_string(i);
      MLF_RETURN_IF_ERROR(check("/outputs/" + n, "output " + n, (*outputs)[i]));
    }
  }
  return Status::Ok();
}

// Checks the version, the node count bound, the names and the schema.
Status CheckDocument(const json& doc, const YamlImportOptions& options, const LineMap& lines) {
  const std::string& file = options.file_name;
  if (doc.is_object() && doc.contains("mlf_model")) {
    const json& version = doc.at("mlf_model");
    if (version.is_number_integer() && version.get<int64_t>() != kYamlModelVersion) {
      return FailedPrecondition(Where(file, lines, "/mlf_model") + ": mlf_model " + version.dump() +
                                " is not supported: this mlfkit reads format version " +
                                std::to_string(kYamlModelVersion));
    }
  }
  if (doc.is_object() && doc.contains("nodes") && doc.at("nodes").is_array() &&
      doc.at("nodes").size() > options.max_nodes) {
    return OutOfRange(file + ": the model has " + std::to_string(doc.at("nodes").size()) +
                      " nodes, more than the limit of " + std::to_string(options.max_nodes));
  }
  MLF_RETURN_IF_ERROR(CheckNamesPrintable(doc, file, lines));
  // Clearer than the schema's oneOf message.
  if (doc.is_object() && doc.contains("parameters") && doc.at("parameters").is_object()) {
    for (const auto& [name, spec] : doc.at("parameters").items()) {
      if (!spec.is_object()) continue;
      std::string found;
      for (const char* key : {"fill", "npy", "random", "values"}) {
        if (spec.contains(key)) found += std::string(found.empty() ? "" : ", ") + key;
      }
      if (found.empty() || found.find(',') != std::string::npos) {
        return InvalidArgument(Where(file, lines, "/parameters/" + EscapePointerToken(name)) +
                               ": parameter '" + name +
                               "': give exactly one of values, npy, random or fill (it has " +
                               (found.empty() ? "none" : found) + ")");
      }
    }
  }
  const Result<JsonSchema>& schema = ModelSchema();
  if (!schema.ok()) return schema.status();
  Status valid = schema->Validate(doc);
  if (valid.ok()) return valid;
  // The first error's pointer gives the line.
  // The validator quotes offending values, which may be huge lists.
  std::string m = valid.message();
  if (m.size() > kMaxSchemaMessage) m = m.substr(0, kMaxSchemaMessage) + "...";
  const std::string first = !m.empty() && m[0] == '/' ? m.substr(0, m.find(": ")) : "";
  return Status(valid.code(), (first.empty() ? file : Where(file, lines, first)) +
                                  ": not a valid mlf_model 1 description: " + m);
}

Result<ir::Graph> ImportImpl(std::string_view text, const std::string& base_dir,
                             const YamlImportOptions& options, YamlModelInfo* info) {
  LineMap lines;
  MLF_ASSIGN_OR_RETURN(json doc, YamlToJsonWithLines(text, options, &lines));
  MLF_RETURN_IF_ERROR(CheckDocument(doc, options, lines));
  Lowering lowering(options, lines, base_dir);
  MLF_ASSIGN_OR_RETURN(ir::Graph graph, lowering.Run(doc));
  if (info != nullptr) {
    info->name = doc.at("name").get<std::string>();
    info->description = doc.value("description", std::string());
    info->npy_files = lowering.npy_files();
  }
  return graph;
}

Result<std::string> ReadFileBounded(const std::string& path, uint64_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("'" + path + "' does not exist");
    return ErrnoError("cannot open '" + path + "'");
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) return ErrnoError("cannot stat '" + path + "'");
  if (S_ISDIR(st.st_mode)) return InvalidArgument("'" + path + "' is a directory, not a YAML file");
  auto too_large = [&] {
    return OutOfRange("'" + path + "' is larger than the limit of " + std::to_string(max_bytes) +
                      " bytes for a YAML model");
  };
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) return too_large();
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot read '" + path + "'");
    if (n == 0) return out;
    if (out.size() + static_cast<uint64_t>(n) > max_bytes) return too_large();
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

Status FillRandomTensor(const RandomSpec& spec, ir::HostTensor* tensor) {
  if (!IsFloatingDType(tensor->dtype)) {
    return InvalidArgument(std::string("random values need a floating-point dtype, not ") +
                           DTypeName(tensor->dtype) + " (use values, fill or npy)");
  }
  const uint64_t n = tensor->element_count();
  uint64_t state = spec.seed;
  void* data = tensor->bytes.data();
  if (spec.distribution == RandomSpec::Distribution::kUniform) {
    for (uint64_t i = 0; i < n; ++i) {
      WriteElement(tensor->dtype, data, i, spec.a + (spec.b - spec.a) * UnitDraw(&state));
    }
    return Status::Ok();
  }
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  for (uint64_t i = 0; i < n; i += 2) {
    const double u = UnitDraw(&state);
    const double v = UnitDraw(&state);
    const double r = std::sqrt(-2.0 * std::log(1.0 - u));
    WriteElement(tensor->dtype, data, i, spec.a + spec.b * r * std::cos(kTwoPi * v));
    if (i + 1 < n) WriteElement(tensor->dtype, data, i + 1, spec.a + spec.b * r * std::sin(kTwoPi * v));
  }
  return Status::Ok();
}

Result<nlohmann::json> YamlToJson(std::string_view text, const YamlImportOptions& options) {
  return YamlToJsonWithLines(text, options, nullptr);
}

Result<ir::Graph> ImportYaml(std::string_view text, const std::string& base_dir,
                             const YamlImportOptions& options, YamlModelInfo* info) {
  try {
    return ImportImpl(text, base_dir, options, info);
  } catch (const std::bad_alloc&) {
    return OutOfRange(options.file_name + ": out of memory while importing the model");
  } catch (const std::exception& e) {
    return Internal(options.file_name + ": unexpected error while importing the model: " + e.what());
  } catch (...) {
    return Internal(options.file_name + ": unexpected error while importing the model");
  }
}

Result<ir::Graph> ImportYamlFile(const std::string& path, const YamlImportOptions& options,
                                 YamlModelInfo* info) {
  try {
    Result<std::string> text = ReadFileBounded(path, options.max_file_bytes);
    if (!text.ok()) return text.status();
    YamlImportOptions with_name = options;
    with_name.file_name = path;
    const size_t slash = path.rfind('/');
    const std::string base_dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    return ImportYaml(*text, base_dir, with_name, info);
  } catch (const std::bad_alloc&) {
    return OutOfRange("'" + path + "': out of memory while reading the model");
  } catch (...) {
    return Internal("'" + path + "': unexpected error while reading the model");
  }
}

}  // namespace mlf::frontend
