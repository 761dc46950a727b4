// Validation: walks a CompiledSchema over an instance and collects errors.
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "artifact/jsonschema/json_schema.h"
#include "artifact/jsonschema/json_schema_node.h"
#include "artifact/jsonschema/json_schema_uri.h"

namespace mlf {
namespace json_schema_internal {
namespace {

using json = nlohmann::json;

struct Error {
  std::string where;  // instance pointer
  std::string message;
  const char* keyword;
};

// Where the errors of one evaluation go: the caller's list, or nowhere when
// only the yes/no answer matters (anyOf alternatives, not, if, contains).
struct Scope {
  std::vector<Error>* errors;
  std::string subject;  // how messages name the instance: "value", "property name"
  const Status* fatal;

  // Whether to stop after a failure: nobody reads more errors, enough are
  // collected (one more than reported, to know there are more), or the
  // evaluation has to end.
  bool Done() const {
    return errors == nullptr || errors->size() > JsonSchema::kMaxReportedErrors || !fatal->ok();
  }
};

// The failures of one keyword family at one instance location.
class Failures {
 public:
  Failures(const Scope& scope, const std::string& where) : scope_(scope), where_(where) {}

  // Records a failure; true when evaluation should stop.
  bool Add(std::string message, const char* keyword) {
    valid_ = false;
    if (scope_.errors != nullptr) scope_.errors->push_back({where_, std::move(message), keyword});
    return scope_.Done();
  }
  // Records the outcome of a subschema (which reported its own errors);
  // true when evaluation should stop.
  bool Sub(bool sub_valid) {
    if (sub_valid) return false;
    valid_ = false;
    return scope_.Done();
  }
  bool valid() const { return valid_; }

 private:
  const Scope& scope_;
  const std::string& where_;
  bool valid_ = true;
};

enum class Match { kYes, kNo, kTooLong };

Match Search(const Pattern& pattern, const std::string& text) {
  if (text.size() > JsonSchema::kMaxPatternInputBytes) return Match::kTooLong;
  return std::regex_search(text, pattern.regex) ? Match::kYes : Match::kNo;
}

uint64_t CodePoints(const std::string& text) {
  uint64_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return count;
}

unsigned TypeBitsOf(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return kTypeNull;
    case json::value_t::boolean: return kTypeBoolean;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return kTypeInteger | kTypeNumber;
    case json::value_t::number_float: return kTypeNumber | (IsIntegral(v) ? kTypeInteger : 0u);
    case json::value_t::string: return kTypeString;
    case json::value_t::array: return kTypeArray;
    case json::value_t::object: return kTypeObject;
    default: return 0;
  }
}

std::string TypeNames(unsigned bits) {
  static const char* const kNames[] = {"null", "boolean", "integer", "number",
                                       "string", "array", "object"};
  std::string out;
  for (unsigned i = 0; i < 7; ++i) {
    if ((bits & (1u << i)) == 0) continue;
    if (!out.empty()) out += " or ";
    out += kNames[i];
  }
  return out;
}

// Magnitude of an integer JSON number, exact over the whole int64/uint64 range.
uint64_t Magnitude(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  int64_t i = v.get<int64_t>();
  return i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
}

bool IsMultipleOf(const json& v, const json& divisor) {
  if (v.is_number_integer() && divisor.is_number_integer()) {
    return Magnitude(v) % Magnitude(divisor) == 0;
  }
  double x = v.get<double>();
  double d = divisor.get<double>();
  double rest = std::remainder(x, d);
  if (!std::isfinite(rest)) return false;
  // Decimal divisors such as 0.01 are inexact in binary: allow rounding noise.
  return std::fabs(rest) <= std::fabs(d) * 1e-9 + std::fabs(x) * 1e-15;
}

// `v` with integral floats turned into integers, so that equal values dump
// equally (1 and 1.0) and duplicates can be found by text.
json Canonical(const json& v) {
  if (v.is_number_float() && IsIntegral(v)) {
    double d = v.get<double>();
    if (d >= -9.2e18 && d <= 9.2e18) return json(static_cast<int64_t>(d));
    if (d > 0 && d < 1.8e19) return json(static_cast<uint64_t>(d));
  }
  if (v.is_array()) {
    json out = json::array();
    for (const json& item : v) out.push_back(Canonical(item));
    return out;
  }
  if (v.is_object()) {
    json out = json::object();
    for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = Canonical(it.value());
    return out;
  }
  return v;
}

// The first pair of equal items, by index; {0, 0} when all are distinct.
std::pair<size_t, size_t> FindDuplicate(const json& array) {
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < array.size(); ++i) {
    std::string text = Canonical(array[i]).dump(-1, ' ', false, json::error_handler_t::replace);
    auto [it, added] = seen.emplace(std::move(text), i);
    if (!added) return {it->second, i};
  }
  return {0, 0};
}

// "1 item", "2 items".
std::string Counted(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string Child(const std::string& where, const std::string& token) {
  return where + "/" + EscapePointerToken(token);
}

class Validator {
 public:
  explicit Validator(const CompiledSchema& schema) : nodes_(schema.nodes) {}

  const Status& fatal() const { return fatal_; }

  // Whether `v` at `where` is valid against node `index`; errors go to `scope`.
  bool Check(int index, const json& v, const std::string& where, const Scope& scope) {
    if (!fatal_.ok()) return false;
    const Node& node = nodes_[static_cast<size_t>(index)];
    if (depth_ >= JsonSchema::kMaxEvaluationDepth) {
      fatal_ = OutOfRange("JSON schema evaluation deeper than " +
                          std::to_string(JsonSchema::kMaxEvaluationDepth) +
                          " levels at schema location " + Location(node.location) +
                          ", instance location " + Location(where) +
                          ": a $ref cycle that does not descend into the instance, or an "
                          "instance nested too deeply");
      return false;
    }
    ++depth_;
    bool valid = CheckNode(node, v, where, scope);
    --depth_;
    return valid && fatal_.ok();
  }

 private:
  using Family = bool (Validator::*)(const Node&, const json&, const std::string&, const Scope&);

  // Whether `v` matches node `index`, without reporting anything.
  bool Matches(int index, const json& v, const std::string& where, const Scope& scope) {
    Scope trial{nullptr, scope.subject, scope.fatal};
    return Check(index, v, where, trial);
  }

  std::string Describe(const json& v, const Scope& scope) const {
    return scope.subject + " " + Short(v);
  }

  bool CheckNode(const Node& node, const json& v, const std::string& where, const Scope& scope) {
    if (node.boolean) {
      if (!*node.boolean) Failures(scope, where).Add(Describe(v, scope) + " is not allowed", "false schema");
      return *node.boolean;
    }
    if (node.ref >= 0) return Check(node.ref, v, where, scope);
    // Past a type mismatch the other keywords only add noise.
    if (node.types != 0 && (TypeBitsOf(v) & node.types) == 0) {
      Failures(scope, where).Add(Describe(v, scope) + " is not of type " + TypeNames(node.types), "type");
      return false;
    }
    static constexpr Family kFamilies[] = {&Validator::CheckValue,  &Validator::CheckNumber,
                                           &Validator::CheckString, &Validator::CheckArray,
                                           &Validator::CheckObject, &Validator::CheckCombinators};
    bool valid = true;
    for (Family family : kFamilies) {
      if (!(this->*family)(node, v, where, scope)) {
        valid = false;
        if (scope.Done()) break;
      }
    }
    return valid;
  }

  bool CheckValue(const Node& node, const json& v, const std::string& where, const Scope& scope) {
    Failures f(scope, where);
    if (node.enum_values) {
      bool found = false;
      for (const json& allowed : *node.enum_values) found = found || allowed == v;
      if (!found && f.Add(Describe(v, scope) + " is not one of the allowed values", "enum")) return false;
    }
    if (node.const_value && !(*node.const_value == v)) {
      f.Add(Describe(v, scope) + " does not equal the constant " + Short(*node.const_value), "const");
    }
    return f.valid();
  }

  bool CheckNumber(const Node& node, const json& v, const std::string& where, const Scope& scope) {
    if (!v.is_number()) return true;
    Failures f(scope, where);
    const std::string value = Describe(v, scope);
    if (node.minimum && CompareNumbers(v, *node.minimum) < 0 &&
        f.Add(value + " is less than the minimum " + node.minimum->dump(), "minimum")) {
      return false;
    }
    if (node.maximum && CompareNumbers(v, *node.maximum) > 0 &&
        f.Add(value + " is greater than the maximum " + node.maximum->dump(), "maximum")) {
      return false;
    }
    if (node.exclusive_minimum && CompareNumbers(v, *node.exclusive_minimum) <= 0 &&
        f.Add(value + " is not greater than the exclusive minimum " +
                  node.exclusive_minimum->dump(), "exclusiveMinimum")) {
      return false;
    }
    if (node.exclusive_maximum && CompareNumbers(v, *node.exclusive_maximum) >= 0 &&
        f.Add(value + " is not less than the exclusive maximum " +
                  node.exclusive_maximum->dump(), "exclusiveMaximum")) {
      return false;
    }
    if (node.multiple_of && !IsMultipleOf(v, *node.multiple_of)) {
      f.Add(value + " is not a multiple of " + node.multiple_of->dump(), "multipleOf");
    }
    return f.valid();
  }

  bool CheckString(const Node& node, const json& v, const std::string& where, const Scope& scope) {
    if (!v.is_string()) return true;
    Failures f(scope, where);
    const std::string& text = v.get_ref<const std::string&>();
    const std::string value = Describe(v, scope);
    uint64_t length = CodePoints(text);
    if (node.min_length && length < *node.min_length &&
        f.Add(value + " has " + Counted(length, "character", "characters") + ", fewer than the minimum " +
                  std::to_string(*node.min_length), "minLength")) {
      return false;
    }
    if (node.max_length && length > *node.max_length &&
        f.Add(value + " has " + Counted(length, "character", "characters") + ", more than the maximum " +
                  std::to_string(*node.max_length), "maxLength")) {
      return false;
    }
    if (node.pattern) {
      Match match = Search(*node.pattern, text);
      if (match == Match::kNo) {
        f.Add(value + " does not match pattern " + Quote(node.pattern->source), "pattern");
      } else if (match == Match::kTooLong) {
        f.Add(value + " is too long to match against pattern " + Quote(node.pattern->source) +
                  " (" + std::to_string(text.size()) + " bytes; at most " +
                  std::to_string(JsonSchema::kMaxPatternInputBytes) + " are matched)", "pattern");
      }
    }
    return f.valid();
  }

  bool CheckArray(const Node& node, const json& v, const std::string& where, const Scope& scope) {
    if (!v.is_array()) return true;
    Failures f(scope, where);
    const std::string count = Counted(v.size(), "item", "items");
    if (node.min_items && v.size() < *node.min_items &&
        f.Add("array has " + count + ", fewer than the minimum " +
                  std::to_string(*node.min_items), "minItems")) {
      return false;
    }
    if (node.max_items && v.size() > *node.max_items &&
        f.Add("array has " + count + ", more than the maximum " +
                  std::to_string(*node.max_items), "maxItems")) {
      return false;
    }
    if (node.unique_items) {
      auto [first, second] = FindDuplicate(v);
      if (first != second && f.Add("array items " + std::to_string(first) + " and " +
                                       std::to_string(second) + " are equal", "uniqueItems")) {
        return false;
      }
    }
    if (!CheckItems(node, v, where, scope, f)) return false;
    if (node.contains >= 0) {
      bool found = false;
      for (size_t i = 0; i < v.size() && !found; ++i) {
        found = Matches(node.contains, v[i], Child(where, std::to_string(i)), scope);
      }
      if (!fatal_.ok()) return false;
      if (!found) f.Add("array has no item that matches the schema", "contains");
    }
    return f.valid();
  }

  // items and additionalItems; false when evaluation should stop.
  bool CheckItems(const Node& node, const json& v, const std::string& where, const Scope& scope,
                  Failures& f) {
    size_t covered = 0;
    if (node.items >= 0) covered = v.size();
    if (node.tuple_items) covered = std::min(v.size(), node.tuple_items->size());
    for (size_t i = 0; i < covered; ++i) {
      int schema = node.items >= 0 ? node.items : (*node.tuple_items)[i];
      if (f.Sub(Check(schema, v[i], Child(where, std::to_string(i)), scope))) return false;
    }
    if (!node.tuple_items || node.additional_items < 0 || covered == v.size()) return true;
    const Node& extra = nodes_[static_cast<size_t>(node.additional_items)];
    if (extra.boolean == false) {
      return !f.Add("array has " + Counted(v.size(), "item", "items") + ", more than the " +
                        std::to_string(covered) + " allowed by items", "additionalItems");
    }
    for (size_t i = covered; i < v.size(); ++i) {
      if (f.Sub(Check(node.additional_items, v[i], Child(where, std::to_string(i)), scope))) {
        return false;
      }
    }
    return true;
  }

  bool CheckObject(const Node& node, const json& v, const std::string& where, const Scope& scope) {
    if (!v.is_object()) return true;
    Failures f(scope, where);
    for (const std::string& name : node.required) {
      if (!v.contains(name) && f.Add("missing required property " + Quote(name), "required")) {
        return false;
      }
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!CheckMember(node, it.key(), it.value(), where, scope, f)) return false;
    }
    if (node.property_names >= 0) {
      Scope names{scope.errors, "property name", scope.fatal};
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (f.Sub(Check(node.property_names, json(it.key()), where, names))) return false;
      }
    }
    const std::string count = Counted(v.size(), "property", "properties");
    if (node.min_properties && v.size() < *node.min_properties &&
        f.Add("object has " + count + ", fewer than the minimum " +
                  std::to_string(*node.min_properties), "minProperties")) {
      return false;
    }
    if (node.max_properties && v.size() > *node.max_properties &&
        f.Add("object has " + count + ", more than the maximum " +
                  std::to_string(*node.max_properties), "maxProperties")) {
      return false;
    }
    return CheckDependencies(node, v, where, scope, f) && f.valid();
  }

  // properties, patternProperties and additionalProperties for one member;
  // false when evaluation should stop.
  bool CheckMember(const Node& node, const std::string& key, const json& value,
                   const std::string& where, const Scope& scope, Failures& f) {
    const std::string at = Child(where, key);
    bool matched = false;
    if (auto it = node.properties.find(key); it != node.properties.end()) {
      matched = true;
      if (f.Sub(Check(it->second, value, at, scope))) return false;
    }
    for (const auto& [pattern, schema] : node.pattern_properties) {
      Match match = Search(pattern, key);
      matched = matched || match != Match::kNo;
      if (match == Match::kTooLong &&
          f.Add("property " + Short(json(key)) + " is too long to match against pattern " +
                    Quote(pattern.source), "patternProperties")) {
        return false;
      }
      if (match == Match::kYes && f.Sub(Check(schema, value, at, scope))) return false;
    }
    if (matched || node.additional_properties < 0) return true;
    if (nodes_[static_cast<size_t>(node.additional_properties)].boolean == false) {
      return !f.Add("unexpected property " + Short(json(key)), "additionalProperties");
    }
    return !f.Sub(Check(node.additional_properties, value, at, scope));
  }

  // false when evaluation should stop.
  bool CheckDependencies(const Node& node, const json& v, const std::string& where,
                         const Scope& scope, Failures& f) {
    for (const Dependency& dependency : node.dependencies) {
      if (!v.contains(dependency.property)) continue;
      for (const std::string& name : dependency.required) {
        if (!v.contains(name) && f.Add("property " + Quote(dependency.property) +
                                           " requires property " + Quote(name), "dependencies")) {
          return false;
        }
      }
      if (dependency.schema >= 0 && f.Sub(Check(dependency.schema, v, where, scope))) return false;
    }
    return true;
  }

  bool CheckCombinators(const Node& node, const json& v, const std::string& where,
                        const Scope& scope) {
    Failures f(scope, where);
    for (int schema : node.all_of) {
      if (f.Sub(Check(schema, v, where, scope))) return false;
    }
    if (!node.any_of.empty() && !CheckAnyOf(node, v, where, scope, f)) return false;
    if (!node.one_of.empty() && !CheckOneOf(node, v, where, scope, f)) return false;
    if (node.not_schema >= 0 && Matches(node.not_schema, v, where, scope) &&
        f.Add(Describe(v, scope) + " matches a schema it must not match", "not")) {
      return false;
    }
    if (node.if_schema >= 0) {
      bool condition = Matches(node.if_schema, v, where, scope);
      int branch = condition ? node.then_schema : node.else_schema;
      if (fatal_.ok() && branch >= 0 && f.Sub(Check(branch, v, where, scope))) return false;
    }
    return f.valid() && fatal_.ok();
  }

  // false when evaluation should stop.
  bool CheckAnyOf(const Node& node, const json& v, const std::string& where, const Scope& scope,
                  Failures& f) {
    for (int schema : node.any_of) {
      if (Matches(schema, v, where, scope)) return true;
    }
    return fatal_.ok() && !f.Add(Describe(v, scope) + " does not match any of the " +
                                     std::to_string(node.any_of.size()) + " schemas", "anyOf");
  }

  // false when evaluation should stop.
  bool CheckOneOf(const Node& node, const json& v, const std::string& where, const Scope& scope,
                  Failures& f) {
    std::vector<size_t> matching;
    for (size_t i = 0; i < node.one_of.size() && matching.size() < 2; ++i) {
      if (Matches(node.one_of[i], v, where, scope)) matching.push_back(i);
    }
    if (!fatal_.ok()) return false;
    if (matching.empty()) {
      return !f.Add(Describe(v, scope) + " does not match any of the " +
                        std::to_string(node.one_of.size()) + " schemas", "oneOf");
    }
    if (matching.size() > 1) {
      return !f.Add(Describe(v, scope) + " matches schemas " + std::to_string(matching[0]) +
                        " and " + std::to_string(matching[1]) + ", but must match exactly one",
                    "oneOf");
    }
    return true;
  }

  const std::vector<Node>& nodes_;
  int depth_ = 0;
  Status fatal_;
};

std::string FormatErrors(const std::vector<Error>& errors) {
  std::string message;
  for (size_t i = 0; i < errors.size() && i < JsonSchema::kMaxReportedErrors; ++i) {
    if (i > 0) message += "; ";
    message += Location(errors[i].where) + ": " + errors[i].message + " (" + errors[i].keyword + ")";
  }
  if (errors.size() > JsonSchema::kMaxReportedErrors) message += "; and more errors";
  return message;
}

}  // namespace

Status ValidateInstance(const CompiledSchema& schema, const json& instance) {
  Validator validator(schema);
  std::vector<Error> errors;
  Scope scope{&errors, "value", &validator.fatal()};
  bool valid = validator.Check(0, instance, "", scope);
  if (!validator.fatal().ok()) return validator.fatal();
  if (valid) return Status::Ok();
  if (errors.empty()) return InvalidArgument("(root): value is not valid");
  return InvalidArgument(FormatErrors(errors));
}

int CompareNumbers(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    bool a_negative = !a.is_number_unsigned() && a.get<int64_t>() < 0;
    bool b_negative = !b.is_number_unsigned() && b.get<int64_t>() < 0;
    if (a_negative != b_negative) return a_negative ? -1 : 1;
    uint64_t x = Magnitude(a);
    uint64_t y = Magnitude(b);
    if (a_negative) std::swap(x, y);  // larger magnitude is smaller when negative
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  // long double holds every int64 and uint64 exactly on the targets we build for.
  long double x = a.get<long double>();
  long double y = b.get<long double>();
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool IsIntegral(const json& value) {
  if (value.is_number_integer()) return true;
  if (!value.is_number_float()) return false;
  double d = value.get<double>();
  return std::isfinite(d) && std::floor(d) == d;
}

std::string Location(const std::string& pointer) {
  return pointer.empty() ? "(root)" : pointer;
}

std::string Short(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= 64) return text;
  size_t cut = 60;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string Quote(const std::string& text) {
  return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace json_schema_internal
}  // namespace mlf
