#include "artifact/jsonschema/json_limits.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace mlf {

int JsonNestingDepth(std::string_view text, int max_depth) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > max_depth) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

namespace {

// Tracks the keys seen in each open object to spot duplicates during parsing,
// and the first number too large for 64 bits.
class DuplicateKeyDetector {
 public:
  bool OnEvent(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    // nlohmann keeps an integer beyond 64 bits as a double, which readers'
    // get<uint64_t>() would convert with undefined behaviour; no document
    // read here has a legitimate number of that magnitude.
    if (event == Event::value && parsed.is_number_float() && too_large_.empty() &&
        std::fabs(parsed.get<double>()) >= 9223372036854775808.0) {
      too_large_ = parsed.dump();
    }
    if (event == Event::object_start) keys_.emplace_back();
    if (event == Event::object_end && !keys_.empty()) keys_.pop_back();
    if (event == Event::key && !keys_.empty() && duplicate_.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!keys_.back().insert(key).second) duplicate_ = key;
    }
    return true;
  }
  const std::string& duplicate() const { return duplicate_; }
  const std::string& too_large() const { return too_large_; }

 private:
  std::vector<std::set<std::string>> keys_;
  std::string duplicate_;
  std::string too_large_;
};

}  // namespace

Result<nlohmann::json> ParseBoundedJson(std::string_view text, uint64_t max_bytes,
                                        int max_depth) {
  if (text.size() > max_bytes) {
    return OutOfRange("JSON document is " + std::to_string(text.size()) +
                      " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  if (JsonNestingDepth(text, max_depth) > max_depth) {
    return OutOfRange("JSON nesting is deeper than the limit of " +
                      std::to_string(max_depth) + " levels");
  }
  DuplicateKeyDetector detector;
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(
        text.begin(), text.end(),
        [&detector](int, nlohmann::json::parse_event_t e, nlohmann::json& j) {
          return detector.OnEvent(e, j);
        });
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(std::string("not valid JSON: ") + e.what());
  }
  if (!detector.duplicate().empty()) {
    return InvalidArgument("duplicate JSON object key \"" + detector.duplicate() + "\"");
  }
  if (!detector.too_large().empty()) {
    return OutOfRange("JSON number " + detector.too_large() +
                      " is out of range: numbers must lie within 64-bit integers");
  }
  return parsed;
}

}  // namespace mlf
