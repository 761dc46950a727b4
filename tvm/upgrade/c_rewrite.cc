#include "tvm/upgrade/c_rewrite.h"

#include <cctype>
#include <cstring>
#include <functional>

#include "artifact/base/c_text.h"

namespace mlf::tvm_upgrade {
namespace {

struct Token {
  enum Kind { kIdent, kNumber, kPunct, kLiteral };
  Kind kind;
  size_t begin, end;
  bool directive;  // part of a preprocessor line
};

bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Index just past the literal starting at `i` (a quote character).
size_t SkipLiteral(std::string_view s, size_t i) {
  const char quote = s[i++];
  while (i < s.size() && s[i] != quote && s[i] != '\n') i += (s[i] == '\\' && i + 1 < s.size()) ? 2 : 1;
  return i < s.size() && s[i] == quote ? i + 1 : i;
}

// Calls `visit` for every token; comments are skipped like whitespace.
void ForEachToken(std::string_view s, const std::function<void(const Token&)>& visit) {
  bool line_start = true, directive = false;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      // A backslash-newline continues a directive.
      const bool continued = i > 0 && s[i - 1] == '\\';
      if (!continued) directive = false;
      line_start = true;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
    } else {
      if (line_start && c == '#') directive = true;
      line_start = false;
      Token t{Token::kPunct, i, i + 1, directive};
      if (c == '"' || c == '\'') {
        t = {Token::kLiteral, i, SkipLiteral(s, i), directive};
      } else if (IdentStart(c)) {
        size_t e = i;
        while (e < s.size() && IdentChar(s[e])) ++e;
        t = {Token::kIdent, i, e, directive};
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
        size_t e = i + 1;
        while (e < s.size() && (IdentChar(s[e]) || s[e] == '.' ||
                                ((s[e] == '+' || s[e] == '-') && std::strchr("eEpP", s[e - 1]) != nullptr))) {
          ++e;
        }
        t = {Token::kNumber, i, e, directive};
      }
      visit(t);
      i = t.end;
    }
  }
}

struct Span {
  size_t end;
  std::string replacement;
};

// Copies `text`, replacing identifier tokens found in `names` and the byte
// ranges in `spans` (keyed by their first byte, which starts a token).
std::string Rewrite(std::string_view text, const std::map<std::string, std::string>& names,
                    const std::map<size_t, Span>& spans) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0, skip_until = 0;
  ForEachToken(text, [&](const Token& t) {
    if (t.begin < skip_until) return;
    auto span = spans.find(t.begin);
    if (span != spans.end()) {
      out.append(text.substr(copied, t.begin - copied));
      out += span->second.replacement;
      copied = skip_until = span->second.end;
      return;
    }
    if (t.kind != Token::kIdent) return;
    auto name = names.find(std::string(text.substr(t.begin, t.end - t.begin)));
    if (name == names.end()) return;
    out.append(text.substr(copied, t.begin - copied));
    out += name->second;
    copied = t.end;
  });
  out.append(text.substr(copied));
  return out;
}

std::string_view Text(std::string_view s, const Token& t) { return s.substr(t.begin, t.end - t.begin); }

// Drops leading `__attribute__((...))` groups; false when unbalanced.
bool SkipAttributes(std::string_view s, const std::vector<Token>& decl, size_t* at) {
  while (*at < decl.size() && Text(s, decl[*at]) == "__attribute__") {
    size_t i = *at + 1;
    int depth = 0;
    do {
      if (i >= decl.size()) return false;
      const std::string_view p = Text(s, decl[i]);
      if (p == "(") ++depth;
      if (p == ")") --depth;
      ++i;
    } while (depth > 0);
    *at = i;
  }
  return true;
}

// `decl` (file-scope tokens up to and excluding ';') as a pool, if it is one.
bool MatchPool(std::string_view s, const std::vector<Token>& decl, size_t end, StaticPool* pool) {
  size_t at = 0;
  if (!SkipAttributes(s, decl, &at) || decl.size() - at != 6) return false;
  const Token* t = &decl[at];
  if (Text(s, t[0]) != "static" || Text(s, t[1]) != "uint8_t" || t[2].kind != Token::kIdent ||
      Text(s, t[3]) != "[" || t[4].kind != Token::kNumber || Text(s, t[5]) != "]") {
    return false;
  }
  const std::string_view digits = Text(s, t[4]);
  uint64_t size = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || size > (UINT64_MAX - 9) / 10) return false;
    size = size * 10 + static_cast<uint64_t>(c - '0');
  }
  *pool = StaticPool{std::string(Text(s, t[2])), size, decl.front().begin, end};
  return true;
}

}  // namespace

int CountIdentifier(std::string_view text, std::string_view name) {
  int count = 0;
  ForEachToken(text, [&](const Token& t) {
    if (t.kind == Token::kIdent && Text(text, t) == name) ++count;
  });
  return count;
}

std::string RenameIdentifiers(std::string_view text,
                              const std::map<std::string, std::string>& renames) {
  return Rewrite(text, renames, {});
}

std::vector<StaticPool> FindStaticPools(std::string_view text) {
  std::vector<StaticPool> pools;
  std::vector<Token> decl;  // file-scope tokens since the last ';', '{' or '}'
  // Open braces; true for `extern "C" {`, which does not leave file scope
  // (TVM wraps its code in one under #ifdef __cplusplus, which the scanner
  // does not evaluate).
  std::vector<bool> braces;
  int depth = 0;
  ForEachToken(text, [&](const Token& t) {
    if (t.directive) {
      if (depth == 0) decl.clear();
      return;
    }
    const std::string_view p = Text(text, t);
    if (p == "{") {
      const std::string_view prev = decl.empty() ? std::string_view() : Text(text, decl.back());
      const bool linkage = prev == "\"C\"" && decl.size() >= 2 && Text(text, decl[decl.size() - 2]) == "extern";
      braces.push_back(linkage);
      depth += linkage ? 0 : 1;
      decl.clear();
      return;
    }
    if (p == "}") {
      if (!braces.empty()) {
        depth -= braces.back() ? 0 : 1;
        braces.pop_back();
      }
      decl.clear();
      return;
    }
    if (depth != 0) return;
    if (p == ";") {
      StaticPool pool;
      if (!decl.empty() && MatchPool(text, decl, t.end, &pool)) pools.push_back(std::move(pool));
      decl.clear();
      return;
    }
    decl.push_back(t);
  });
  return pools;
}

std::string MovePoolsToCallerMemory(std::string_view text, const std::vector<StaticPool>& pools,
                                    const std::vector<uint64_t>& offsets,
                                    const std::string& accessor) {
  std::map<std::string, std::string> names;
  std::map<size_t, Span> spans;
  for (size_t i = 0; i < pools.size(); ++i) {
    const StaticPool& p = pools[i];
    names[p.name] = "(*(uint8_t (*)[" + std::to_string(p.size) + "])(" + accessor + "() + " +
                    std::to_string(offsets[i]) + "))";
    std::string replacement = "/* mlfkit upgrade: pool " + CCommentText(p.name) + " (" +
                              std::to_string(p.size) + " bytes) lives at offset " +
                              std::to_string(offsets[i]) + " of the caller's workspace */";
    if (i == 0) replacement += "\nuint8_t* " + accessor + "(void);";
    spans[p.begin] = Span{p.end, replacement};
  }
  return Rewrite(text, names, spans);
}

}  // namespace mlf::tvm_upgrade
