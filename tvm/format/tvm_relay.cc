#include "tvm/format/tvm_relay.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "artifact/jsonschema/json_limits.h"

namespace mlf {
namespace {

constexpr size_t kMaxSignatureTensors = 100000;
constexpr size_t kMaxDims = 32;
constexpr int kMaxTupleDepth = 16;
constexpr uint64_t kMaxGraphJsonBytes = 64ull << 20;

// A cursor over Relay text that knows its line, for messages.
class RelayCursor {
 public:
  explicit RelayCursor(std::string_view text) : text_(text) {}

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void Advance(size_t n = 1) { pos_ = std::min(text_.size(), pos_ + n); }
  bool StartsWith(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  size_t pos() const { return pos_; }
  void Seek(size_t pos) { pos_ = pos; }
  std::string_view text() const { return text_; }

  int Line() const {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) line += text_[i] == '\n';
    return line;
  }

  Status Error(const std::string& what) const {
    return InvalidArgument("Relay text, line " + std::to_string(Line()) + ": " + what);
  }

  // Skips white space, /* */ comments (TVM's "/* ty=... */" annotations) and
  // // line comments.
  Status SkipSpace() {
    for (;;) {
      while (!AtEnd() && std::isspace(static_cast<unsigned char>(Peek()))) Advance();
      if (StartsWith("/*")) {
        const size_t end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) return Error("unterminated /* comment");
        pos_ = end + 2;
        continue;
      }
      if (StartsWith("//")) {
        const size_t end = text_.find('\n', pos_);
        pos_ = end == std::string_view::npos ? text_.size() : end + 1;
        continue;
      }
      return Status::Ok();
    }
  }

  bool TakeIdentifier(std::string* out) {
    size_t end = pos_;
    while (end < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) {
      ++end;
    }
    if (end == pos_) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end;
    return true;
  }

  // A double-quoted string with backslash escapes.
  Result<std::string> TakeQuoted() {
    std::string out;
    Advance();  // the opening quote
    while (!AtEnd() && Peek() != '"') {
      if (Peek() == '\\') Advance();
      if (AtEnd()) break;
      out += Peek();
      Advance();
    }
    if (AtEnd()) return Error("unterminated string");
    Advance();
    return out;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

bool IsTypeStart(const RelayCursor& c, size_t at) {
  std::string_view rest = c.text().substr(at);
  size_t i = 0;
  while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
  rest = rest.substr(i);
  if (rest.rfind("Tensor[", 0) == 0 || rest.rfind("(", 0) == 0) return true;
  // A scalar written as its dtype: "float32", "int8", "bool", ...
  static const char* kScalars[] = {"float", "int", "uint", "bool", "bfloat"};
  for (const char* s : kScalars) {
    if (rest.rfind(s, 0) == 0) return true;
  }
  return false;
}

// The name after '%': quoted, or raw up to the ':' that starts the type
// annotation, or up to ',' / ')' when the parameter has no type.
Result<std::string> TakeParamName(RelayCursor& c) {
  c.Advance();  // '%'
  if (c.Peek() == '"') return c.TakeQuoted();
  const size_t start = c.pos();
  for (size_t i = start; i < c.text().size(); ++i) {
    const char ch = c.text()[i];
    if (ch == '\n' || ch == ',' || ch == ')' || ch == ' ' || ch == '/') {
      if (ch == ' ' && i + 1 < c.text().size() && c.text()[i + 1] != '/') {
        // "%x : Tensor" is not TVM's style, but accept a space before ':'.
        size_t j = i;
        while (j < c.text().size() && c.text()[j] == ' ') ++j;
        if (j < c.text().size() && c.text()[j] == ':') {
          c.Seek(j);
          return std::string(c.text().substr(start, i - start));
        }
      }
      c.Seek(i);
      return std::string(c.text().substr(start, i - start));
    }
    if (ch == ':' && IsTypeStart(c, i + 1)) {
      c.Seek(i);
      return std::string(c.text().substr(start, i - start));
    }
  }
  return c.Error("parameter name runs to the end of the text");
}

Status ParseDims(RelayCursor& c, SignatureTensor* t) {
  // At '(': "(1, 28, 28, 1)", "(10)", "()", "(?, 4)", "(n, 4)".
  c.Advance();
  t->shape.clear();
  t->shape_known = true;
  for (;;) {
    MLF_RETURN_IF_ERROR(c.SkipSpace());
    if (c.Peek() == ')') {
      c.Advance();
      return Status::Ok();
    }
    if (c.AtEnd()) return c.Error("unterminated shape");
    if (t->shape.size() >= kMaxDims) return c.Error("more than 32 dimensions");
    if (std::isdigit(static_cast<unsigned char>(c.Peek()))) {
      int64_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(c.Peek()))) {
        if (v > (INT64_MAX - 9) / 10) return c.Error("dimension too large");
        v = v * 10 + (c.Peek() - '0');
        c.Advance();
      }
      if (c.Peek() == 'i' || c.Peek() == 'L') {  // "1i64", "1L" suffixes
        std::string suffix;
        c.TakeIdentifier(&suffix);
      }
      t->shape.push_back(v);
    } else {
      // A symbolic dimension: anything up to ',' or ')' at this level.
      t->shape_known = false;
      int depth = 0;
      while (!c.AtEnd() && (depth > 0 || (c.Peek() != ',' && c.Peek() != ')'))) {
        if (c.Peek() == '(' || c.Peek() == '[') ++depth;
        if (c.Peek() == ')' || c.Peek() == ']') --depth;
        c.Advance();
      }
    }
    MLF_RETURN_IF_ERROR(c.SkipSpace());
    if (c.Peek() == ',') c.Advance();
  }
}

Status ParseType(RelayCursor& c, int depth, std::vector<SignatureTensor>* out);

Status ParseTensorType(RelayCursor& c, SignatureTensor* t) {
  // At "Tensor[": "Tensor[(1, 4), float32]".
  c.Advance(7);
  MLF_RETURN_IF_ERROR(c.SkipSpace());
  if (c.Peek() == '(') {
    MLF_RETURN_IF_ERROR(ParseDims(c, t));
  } else {
    return c.Error("expected a shape '(...)' after 'Tensor['");
  }
  MLF_RETURN_IF_ERROR(c.SkipSpace());
  if (c.Peek() != ',') return c.Error("expected ', dtype' after the shape");
  c.Advance();
  MLF_RETURN_IF_ERROR(c.SkipSpace());
  if (!c.TakeIdentifier(&t->dtype)) return c.Error("expected a dtype");
  MLF_RETURN_IF_ERROR(c.SkipSpace());
  if (c.Peek() != ']') return c.Error("expected ']' after the dtype");
  c.Advance();
  return Status::Ok();
}

Status ParseType(RelayCursor& c, int depth, std::vector<SignatureTensor>* out) {
  if (depth > kMaxTupleDepth) return c.Error("tuple types nested too deeply");
  if (out->size() >= kMaxSignatureTensors) return c.Error("too many tensors");
  MLF_RETURN_IF_ERROR(c.SkipSpace());
  if (c.StartsWith("Tensor[")) {
    SignatureTensor t;
    MLF_RETURN_IF_ERROR(ParseTensorType(c, &t));
    out->push_back(std::move(t));
    return Status::Ok();
  }
  if (c.Peek() == '(') {  // a tuple "(T1, T2, ...)"
    c.Advance();
    for (;;) {
      MLF_RETURN_IF_ERROR(c.SkipSpace());
      if (c.Peek() == ')') {
        c.Advance();
        return Status::Ok();
      }
      MLF_RETURN_IF_ERROR(ParseType(c, depth + 1, out));
      MLF_RETURN_IF_ERROR(c.SkipSpace());
      if (c.Peek() == ',') {
        c.Advance();
      } else if (c.Peek() != ')') {
        return c.Error("expected ',' or ')' in a tuple type");
      }
    }
  }
  std::string dtype;
  if (c.TakeIdentifier(&dtype)) {  // a scalar: "float32"
    SignatureTensor t;
    t.dtype = dtype;
    t.shape_known = true;
    out->push_back(std::move(t));
    return Status::Ok();
  }
  return c.Error("expected a type (Tensor[...], a tuple or a scalar dtype)");
}

// Skips an attribute value up to ',' or ')' at depth 0; returns its text.
Result<std::string> TakeAttributeValue(RelayCursor& c) {
  const size_t start = c.pos();
  int depth = 0;
  while (!c.AtEnd()) {
    const char ch = c.Peek();
    if (ch == '"') {
      MLF_RETURN_IF_ERROR(c.TakeQuoted().status());
      continue;
    }
    if (depth == 0 && (ch == ',' || ch == ')')) break;
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    if (ch == ')' || ch == ']' || ch == '}') --depth;
    c.Advance();
  }
  if (c.AtEnd()) return c.Error("unterminated attribute");
  return std::string(c.text().substr(start, c.pos() - start));
}

// ["a", "b"] -> {a, b}
std::vector<std::string> StringList(std::string_view value) {
  std::vector<std::string> out;
  RelayCursor c(value);
  while (!c.AtEnd()) {
    if (c.Peek() == '"') {
      Result<std::string> s = c.TakeQuoted();
      if (!s.ok()) return {};
      out.push_back(*s);
    } else {
      c.Advance();
    }
  }
  return out;
}

// Finds "def @main(" at the start of a line (after optional indentation),
// line by line: linear in the text.
Result<size_t> FindMain(std::string_view text) {
  size_t line = 0;
  while (line < text.size()) {
    size_t i = line;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (text.substr(i, 9) == "def @main") {
      size_t paren = i + 9;
      while (paren < text.size() && (text[paren] == ' ' || text[paren] == '\t')) ++paren;
      if (paren < text.size() && text[paren] == '(') return paren;
    }
    const size_t next = text.find('\n', i);
    if (next == std::string_view::npos) break;
    line = next + 1;
  }
  return InvalidArgument("Relay text has no 'def @main(' function");
}

}  // namespace

Result<RelaySignature> ParseRelayMainSignature(std::string_view text) {
  MLF_ASSIGN_OR_RETURN(size_t open, FindMain(text));
  RelayCursor c(text);
  c.Seek(open + 1);
  RelaySignature sig;
  for (;;) {
    MLF_RETURN_IF_ERROR(c.SkipSpace());
    if (c.AtEnd()) return c.Error("@main's parameter list is not closed");
    if (c.Peek() == ')') {
      c.Advance();
      break;
    }
    if (sig.params.size() >= kMaxSignatureTensors) return c.Error("too many parameters");
    if (c.Peek() == '%') {
      SignatureTensor param;
      MLF_ASSIGN_OR_RETURN(param.name, TakeParamName(c));
      MLF_RETURN_IF_ERROR(c.SkipSpace());
      if (c.Peek() == ':') {
        c.Advance();
        std::vector<SignatureTensor> types;
        MLF_RETURN_IF_ERROR(ParseType(c, 0, &types));
        if (types.size() == 1) {
          param.dtype = types[0].dtype;
          param.shape = types[0].shape;
          param.shape_known = types[0].shape_known;
        }
      }
      sig.params.push_back(std::move(param));
    } else {
      std::string key;
      if (!c.TakeIdentifier(&key)) return c.Error("expected a parameter '%name' or an attribute");
      MLF_RETURN_IF_ERROR(c.SkipSpace());
      if (c.Peek() != '=') return c.Error("expected '=' after attribute '" + key + "'");
      c.Advance();
      MLF_ASSIGN_OR_RETURN(std::string value, TakeAttributeValue(c));
      if (key == "output_tensor_names") sig.output_names = StringList(value);
    }
    MLF_RETURN_IF_ERROR(c.SkipSpace());
    if (c.AtEnd()) return c.Error("@main's parameter list is not closed");
    if (c.Peek() == ',') {
      c.Advance();
    } else if (c.Peek() != ')') {
      return c.Error("expected ',' or ')' after a parameter");
    }
  }
  MLF_RETURN_IF_ERROR(c.SkipSpace());
  if (c.StartsWith("->")) {
    c.Advance(2);
    MLF_RETURN_IF_ERROR(ParseType(c, 0, &sig.results));
  }
  return sig;
}

namespace {

using nlohmann::json;

Status GraphError(const std::string& what) {
  return InvalidArgument("graph executor JSON: " + what);
}

// attrs.<key> is ["list_<kind>", [...]].
Result<const json*> AttrList(const json& graph, const char* key) {
  if (!graph.contains("attrs") || !graph["attrs"].is_object() || !graph["attrs"].contains(key)) {
    return GraphError(std::string("attrs.") + key + " is missing");
  }
  const json& v = graph["attrs"][key];
  if (!v.is_array() || v.size() != 2 || !v[1].is_array()) {
    return GraphError(std::string("attrs.") + key + " is not [\"list_...\", [...]]");
  }
  return &v[1];
}

Result<SignatureTensor> EntryTensor(const json& dltypes, const json& shapes, uint64_t entry) {
  if (entry >= dltypes.size() || entry >= shapes.size()) {
    return GraphError("entry " + std::to_string(entry) + " has no dltype or shape");
  }
  SignatureTensor t;
  if (!dltypes[entry].is_string()) return GraphError("a dltype is not a string");
  t.dtype = dltypes[entry].get<std::string>();
  if (!shapes[entry].is_array() || shapes[entry].size() > kMaxDims) {
    return GraphError("the shape of entry " + std::to_string(entry) + " is not a list of dimensions");
  }
  t.shape_known = true;
  for (const json& d : shapes[entry]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      t.shape_known = false;
      t.shape.clear();
      break;
    }
    t.shape.push_back(d.get<int64_t>());
  }
  return t;
}

Result<uint64_t> EntryOf(const json& graph, uint64_t node, uint64_t index) {
  if (graph.contains("node_row_ptr")) {
    const json& rows = graph["node_row_ptr"];
    if (!rows.is_array() || node >= rows.size() || !rows[node].is_number_unsigned()) {
      return GraphError("node_row_ptr has no entry for node " + std::to_string(node));
    }
    return rows[node].get<uint64_t>() + index;
  }
  return node + index;
}

Result<uint64_t> Index(const json& v, const char* what) {
  if (!v.is_number_unsigned()) return GraphError(std::string(what) + " is not a non-negative integer");
  return v.get<uint64_t>();
}

}  // namespace

Result<GraphSignature> ParseGraphExecutorJson(std::string_view text) {
  Result<json> parsed = ParseBoundedJson(text, kMaxGraphJsonBytes, 64);
  if (!parsed.ok()) return parsed.status().WithContext("graph executor JSON");
  const json& graph = *parsed;
  if (!graph.is_object() || !graph.contains("nodes") || !graph["nodes"].is_array()) {
    return GraphError("no \"nodes\" list");
  }
  const json& nodes = graph["nodes"];
  MLF_ASSIGN_OR_RETURN(const json* dltypes, AttrList(graph, "dltype"));
  MLF_ASSIGN_OR_RETURN(const json* shapes, AttrList(graph, "shape"));
  GraphSignature sig;
  if (!graph.contains("arg_nodes") || !graph["arg_nodes"].is_array()) return GraphError("no \"arg_nodes\" list");
  for (const json& a : graph["arg_nodes"]) {
    MLF_ASSIGN_OR_RETURN(uint64_t node, Index(a, "an arg_nodes entry"));
    if (node >= nodes.size() || !nodes[node].is_object() || !nodes[node].contains("name") ||
        !nodes[node]["name"].is_string()) {
      return GraphError("arg node " + std::to_string(node) + " has no name");
    }
    MLF_ASSIGN_OR_RETURN(uint64_t entry, EntryOf(graph, node, 0));
    MLF_ASSIGN_OR_RETURN(SignatureTensor t, EntryTensor(*dltypes, *shapes, entry));
    t.name = nodes[node]["name"].get<std::string>();
    sig.args.push_back(std::move(t));
  }
  if (!graph.contains("heads") || !graph["heads"].is_array()) return GraphError("no \"heads\" list");
  for (const json& h : graph["heads"]) {
    if (!h.is_array() || h.size() < 2) return GraphError("a heads entry is not [node, index, version]");
    MLF_ASSIGN_OR_RETURN(uint64_t node, Index(h[0], "a heads node"));
    MLF_ASSIGN_OR_RETURN(uint64_t index, Index(h[1], "a heads index"));
    if (node >= nodes.size()) return GraphError("a heads entry names node " + std::to_string(node));
    MLF_ASSIGN_OR_RETURN(uint64_t entry, EntryOf(graph, node, index));
    MLF_ASSIGN_OR_RETURN(SignatureTensor t, EntryTensor(*dltypes, *shapes, entry));
    sig.outputs.push_back(std::move(t));
  }
  return sig;
}

std::vector<std::string> TvmOutputNames(size_t count, const std::vector<std::string>& given) {
  if (given.size() == count && count > 0) return given;
  if (count == 1) return {"output"};
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i) names.push_back("output" + std::to_string(i));
  return names;
}

}  // namespace mlf
