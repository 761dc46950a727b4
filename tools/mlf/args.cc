#include "tools/mlf/args.h"

#include <cerrno>
#include <cstdlib>

#include "artifact/base/closest_word.h"

namespace mlf::cli {
namespace {

const FlagSpec* FindSpec(const std::vector<FlagSpec>& specs, const std::string& word) {
  for (const FlagSpec& s : specs) {
    if (word == "--" + s.name) return &s;
    if (!s.short_name.empty() && word == "-" + s.short_name) return &s;
  }
  return nullptr;
}

// "unknown option '--ouput' (did you mean '--output'?)"
Status UnknownOption(const std::vector<FlagSpec>& specs, const std::string& word) {
  std::vector<std::string> names;
  for (const FlagSpec& s : specs) names.push_back("--" + s.name);
  const std::string closest = word.rfind("--", 0) == 0 ? ClosestWord(word, names) : "";
  return InvalidArgument("unknown option '" + word + "'" +
                         (closest.empty() ? "" : " (did you mean '" + closest + "'?)"));
}

}  // namespace

std::string ParsedArgs::Get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> ParsedArgs::GetAll(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

Result<ParsedArgs> ParseArgs(const std::vector<FlagSpec>& specs,
                             const std::vector<std::string>& args) {
  ParsedArgs parsed;
  bool flags_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string word = args[i];
    if (flags_ended || word.size() < 2 || word[0] != '-') {
      parsed.positionals_.push_back(word);
      continue;
    }
    if (word == "--") {
      flags_ended = true;
      continue;
    }
    std::optional<std::string> inline_value;
    if (size_t eq = word.find('='); word.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = word.substr(eq + 1);
      word = word.substr(0, eq);
    }
    const FlagSpec* spec = FindSpec(specs, word);
    if (spec == nullptr) return UnknownOption(specs, word);
    if (parsed.values_.count(spec->name) && !spec->repeated) {
      return InvalidArgument("option '--" + spec->name + "' given more than once");
    }
    std::string value;
    if (spec->takes_value) {
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return InvalidArgument("option '--" + spec->name + "' needs a value");
      }
    } else if (inline_value) {
      return InvalidArgument("option '--" + spec->name + "' takes no value");
    }
    parsed.values_[spec->name].push_back(value);
  }
  return parsed;
}

Result<uint64_t> ParseUnsigned(const std::string& flag, const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgument("option '--" + flag + "' needs a non-negative integer, got '" +
                           text + "'");
  }
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return InvalidArgument("option '--" + flag + "': '" + text + "' is too large");
  return static_cast<uint64_t>(v);
}

}  // namespace mlf::cli
