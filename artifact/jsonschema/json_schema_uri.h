// URI references and JSON pointers as JSON Schema's $id and $ref use them.
//
// Internal to the JsonSchema validator (artifact/jsonschema/json_schema.h); not a general
// URI library. Only what draft-07 reference resolution needs: RFC 3986 §5.2
// resolution of a reference against a base, fragment splitting, percent
// decoding, and RFC 6901 JSON pointers.
#ifndef MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_URI_H_
#define MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_URI_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlf {
namespace json_schema_internal {

// Resolves `reference` against `base` (RFC 3986 §5.2, with dot-segment
// removal). `base` may itself be relative or empty (a schema without $id); the
// result is then relative too, which is enough to match references within one
// document.
std::string ResolveUri(const std::string& base, const std::string& reference);

// Splits "doc#frag" into {"doc", "frag"}; the fragment is empty when absent.
std::pair<std::string, std::string> SplitFragment(const std::string& uri);

// Decodes %XX escapes; nullopt when an escape is malformed.
std::optional<std::string> PercentDecode(const std::string& text);

// Escapes one reference token: "~" -> "~0", "/" -> "~1".
std::string EscapePointerToken(const std::string& token);

// Splits a JSON pointer ("" or "/a/b~1c") into unescaped tokens; nullopt when
// it is not a valid pointer (no leading "/", or a "~" not followed by 0 or 1).
std::optional<std::vector<std::string>> ParsePointer(const std::string& pointer);

// Joins tokens back into the canonical escaped pointer.
std::string JoinPointer(const std::vector<std::string>& tokens);

// The value at `tokens` below `root`, or nullptr when there is none. Array
// indices must be decimal without leading zeros, as RFC 6901 requires.
const nlohmann::json* FindPointer(const nlohmann::json& root,
                                  const std::vector<std::string>& tokens);

}  // namespace json_schema_internal
}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_URI_H_
