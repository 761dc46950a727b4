#include "artifact/jsonschema/json_schema_uri.h"

#include <cctype>

namespace mlf {
namespace json_schema_internal {
namespace {

// The five components of RFC 3986 §3; "has_*" distinguishes absent from empty.
struct UriParts {
  std::string scheme;
  bool has_authority = false;
  std::string authority;
  std::string path;
  bool has_query = false;
  std::string query;
  bool has_fragment = false;
  std::string fragment;
};

bool IsScheme(const std::string& text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

UriParts ParseUri(std::string rest) {
  UriParts parts;
  if (size_t hash = rest.find('#'); hash != std::string::npos) {
    parts.has_fragment = true;
    parts.fragment = rest.substr(hash + 1);
    rest.resize(hash);
  }
  if (size_t question = rest.find('?'); question != std::string::npos) {
    parts.has_query = true;
    parts.query = rest.substr(question + 1);
    rest.resize(question);
  }
  // A colon only ends a scheme when it comes before any "/".
  size_t colon = rest.find(':');
  if (colon != std::string::npos && colon < rest.find('/') && IsScheme(rest.substr(0, colon))) {
    parts.scheme = rest.substr(0, colon);
    rest.erase(0, colon + 1);
  }
  if (rest.compare(0, 2, "//") == 0) {
    size_t end = rest.find('/', 2);
    parts.has_authority = true;
    parts.authority = rest.substr(2, end == std::string::npos ? std::string::npos : end - 2);
    rest = end == std::string::npos ? "" : rest.substr(end);
  }
  parts.path = rest;
  return parts;
}

std::string ComposeUri(const UriParts& parts) {
  std::string out;
  if (!parts.scheme.empty()) out += parts.scheme + ":";
  if (parts.has_authority) out += "//" + parts.authority;
  out += parts.path;
  if (parts.has_query) out += "?" + parts.query;
  if (parts.has_fragment) out += "#" + parts.fragment;
  return out;
}

bool StartsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

void PopLastSegment(std::string& out) {
  size_t slash = out.rfind('/');
  out.resize(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 §5.2.4, step by step.
std::string RemoveDotSegments(std::string in) {
  std::string out;
  while (!in.empty()) {
    if (StartsWith(in, "../")) {
      in.erase(0, 3);
    } else if (StartsWith(in, "./")) {
      in.erase(0, 2);
    } else if (StartsWith(in, "/./")) {
      in.replace(0, 3, "/");
    } else if (in == "/.") {
      in = "/";
    } else if (StartsWith(in, "/../")) {
      in.replace(0, 4, "/");
      PopLastSegment(out);
    } else if (in == "/..") {
      in = "/";
      PopLastSegment(out);
    } else if (in == "." || in == "..") {
      in.clear();
    } else {
      size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      out += in.substr(0, next);
      in.erase(0, next);
    }
  }
  return out;
}

std::string MergePaths(const UriParts& base, const std::string& path) {
  if (base.has_authority && base.path.empty()) return "/" + path;
  size_t slash = base.path.rfind('/');
  return slash == std::string::npos ? path : base.path.substr(0, slash + 1) + path;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 6901: an array index is "0" or digits without a leading zero.
std::optional<size_t> ArrayIndex(const std::string& token) {
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0')) {
    return std::nullopt;
  }
  size_t index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return index;
}

}  // namespace

std::string ResolveUri(const std::string& base, const std::string& reference) {
  UriParts ref = ParseUri(reference);
  if (!ref.scheme.empty()) {
    ref.path = RemoveDotSegments(ref.path);
    return ComposeUri(ref);
  }
  UriParts b = ParseUri(base);
  UriParts target;
  target.scheme = b.scheme;
  if (ref.has_authority) {
    target.has_authority = true;
    target.authority = ref.authority;
    target.path = RemoveDotSegments(ref.path);
    target.has_query = ref.has_query;
    target.query = ref.query;
  } else {
    target.has_authority = b.has_authority;
    target.authority = b.authority;
    if (ref.path.empty()) {
      target.path = b.path;
      target.has_query = ref.has_query || b.has_query;
      target.query = ref.has_query ? ref.query : b.query;
    } else {
      target.path = RemoveDotSegments(ref.path[0] == '/' ? ref.path : MergePaths(b, ref.path));
      target.has_query = ref.has_query;
      target.query = ref.query;
    }
  }
  target.has_fragment = ref.has_fragment;
  target.fragment = ref.fragment;
  return ComposeUri(target);
}

std::pair<std::string, std::string> SplitFragment(const std::string& uri) {
  size_t hash = uri.find('#');
  if (hash == std::string::npos) return {uri, ""};
  return {uri.substr(0, hash), uri.substr(hash + 1)};
}

std::optional<std::string> PercentDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    int high = HexValue(text[i + 1]);
    int low = HexValue(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

std::string EscapePointerToken(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::vector<std::string>> ParsePointer(const std::string& pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') return std::nullopt;
  std::string token;
  for (size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(token);
      token.clear();
    } else if (pointer[i] == '~') {
      if (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) {
        return std::nullopt;
      }
      token += pointer[++i] == '0' ? '~' : '/';
    } else {
      token += pointer[i];
    }
  }
  return tokens;
}

std::string JoinPointer(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& token : tokens) out += "/" + EscapePointerToken(token);
  return out;
}

const nlohmann::json* FindPointer(const nlohmann::json& root,
                                  const std::vector<std::string>& tokens) {
  const nlohmann::json* current = &root;
  for (const std::string& token : tokens) {
    if (current->is_object()) {
      auto it = current->find(token);
      if (it == current->end()) return nullptr;
      current = &*it;
    } else if (current->is_array()) {
      std::optional<size_t> index = ArrayIndex(token);
      if (!index || *index >= current->size()) return nullptr;
      current = &(*current)[*index];
    } else {
      return nullptr;
    }
  }
  return current;
}

}  // namespace json_schema_internal
}  // namespace mlf
