// The compiled form of a JSON Schema: what JsonSchema::Compile produces and
// the validator walks. Internal to artifact/jsonschema/json_schema.h.
//
// Every subschema becomes one Node in a flat vector; subschemas refer to each
// other by index, so $ref cycles need no ownership tricks. -1 means "absent".
#ifndef MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_NODE_H_
#define MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_NODE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifact/base/status.h"

namespace mlf {
namespace json_schema_internal {

// Bits of the "type" keyword; a value may carry several (1 is integer and number).
enum TypeBit : unsigned {
  kTypeNull = 1u << 0,
  kTypeBoolean = 1u << 1,
  kTypeInteger = 1u << 2,
  kTypeNumber = 1u << 3,
  kTypeString = 1u << 4,
  kTypeArray = 1u << 5,
  kTypeObject = 1u << 6,
};

struct Pattern {
  std::string source;  // as written in the schema, for messages
  std::regex regex;
};

// One "dependencies" entry: when `property` is present, either the listed
// properties must be too, or the instance must match `schema`.
struct Dependency {
  std::string property;
  std::vector<std::string> required;
  int schema = -1;
};

struct Node {
  std::string location;  // JSON pointer of this subschema in the document
  std::optional<bool> boolean;  // set for the schemas `true` and `false`
  int ref = -1;  // when set, the only thing that applies (draft-07)

  unsigned types = 0;  // 0: "type" absent
  std::optional<nlohmann::json> enum_values;  // an array
  std::optional<nlohmann::json> const_value;

  std::optional<nlohmann::json> minimum, maximum, exclusive_minimum, exclusive_maximum;
  std::optional<nlohmann::json> multiple_of;

  std::optional<uint64_t> min_length, max_length;
  std::optional<Pattern> pattern;

  int items = -1;  // the single-schema form
  std::optional<std::vector<int>> tuple_items;  // the array form
  int additional_items = -1;
  int contains = -1;
  std::optional<uint64_t> min_items, max_items;
  bool unique_items = false;

  std::map<std::string, int> properties;
  std::vector<std::pair<Pattern, int>> pattern_properties;
  int additional_properties = -1;
  int property_names = -1;
  std::vector<std::string> required;
  std::optional<uint64_t> min_properties, max_properties;
  std::vector<Dependency> dependencies;

  std::vector<int> all_of, any_of, one_of;
  int not_schema = -1, if_schema = -1, then_schema = -1, else_schema = -1;
};

struct CompiledSchema {
  std::vector<Node> nodes;  // nodes[0] is the root
};

// Validates `instance` against `schema.nodes[0]`; see JsonSchema::Validate.
Status ValidateInstance(const CompiledSchema& schema, const nlohmann::json& instance);

// Compares two JSON numbers by value, exactly for integers: -1, 0 or 1.
int CompareNumbers(const nlohmann::json& a, const nlohmann::json& b);

// Whether `value` is a number with zero fraction (1 and 1.0, not 1.5).
bool IsIntegral(const nlohmann::json& value);

// Message helpers shared by compiler and validator.
// A JSON pointer for messages: "(root)" for the empty pointer.
std::string Location(const std::string& pointer);
// `value` as compact JSON, cut to about 60 bytes; never throws on bad UTF-8.
std::string Short(const nlohmann::json& value);
// `text` as a JSON string literal, in full.
std::string Quote(const std::string& text);

}  // namespace json_schema_internal
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_NODE_H_
