// JsonSchema: a JSON Schema draft-07 validator over nlohmann::json.
//
// mlfkit validates metadata.json against the schemas in schemas/ on every
// write and read, so the validator is strict about the *schema*: a keyword it
// does not implement is refused at Compile time instead of being ignored,
// because an ignored keyword silently accepts bad metadata.
//
//   Result<JsonSchema> schema = JsonSchema::Compile(schema_json);
//   if (!schema.ok()) return schema.status();
//   MLF_RETURN_IF_ERROR(schema->Validate(metadata_json));
//
// Implemented keywords: boolean schemas, type, enum, const, properties,
// required, additionalProperties, patternProperties, propertyNames,
// minProperties, maxProperties, dependencies, items (schema and tuple form),
// additionalItems, contains, minItems, maxItems, uniqueItems, minLength,
// maxLength, pattern, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// multipleOf, allOf, anyOf, oneOf, not, if/then/else, $ref.
//
// Annotations (accepted, type-checked, never asserted): $schema (must name
// draft-07 when present), $id, $comment, title, description, default,
// examples, readOnly, writeOnly, definitions, and `format`, contentMediaType,
// contentEncoding, which draft-07 defines as annotations by default.
//
// Semantics worth knowing:
// - Numbers compare by value: 1 == 1.0 for enum, const and uniqueItems, and
//   "integer" accepts any number whose fraction is zero (1.0 is an integer).
// - minLength/maxLength count Unicode code points of the UTF-8 text.
// - pattern and patternProperties use std::regex (ECMAScript grammar) with
//   search semantics (unanchored unless the pattern anchors itself). It
//   matches bytes, not code points, so "." consumes one byte of a multi-byte
//   character. libstdc++'s matcher recurses per character, so strings longer
//   than kMaxPatternInputBytes are rejected rather than matched (fail closed
//   instead of overflowing the stack on hostile input).
// - $ref resolves within the schema document only: JSON pointer fragments
//   ("#", "#/definitions/x", with ~0 ~1 and %XX escapes), $id-declared base
//   URIs and "#name" anchors of the same document. Siblings of $ref do not
//   apply (draft-07), though they are still compiled so a $ref may point into
//   them. A reference to another document (e.g. http://...) fails to Compile
//   with kUnimplemented. An unknown keyword whose value is itself the target of
//   a $ref is used as a schema, hence allowed.
// - Evaluation depth is bounded (kMaxEvaluationDepth): a $ref cycle that
//   never consumes the instance, or a hostile very deep instance against a
//   recursive schema, ends with kOutOfRange instead of a stack overflow. A
//   chain of plain $refs that loops is already refused at Compile time.
#ifndef MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_H_
#define MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_H_

#include <cstddef>
#include <memory>

#include <nlohmann/json.hpp>

#include "artifact/base/status.h"

namespace mlf {

namespace json_schema_internal {
struct CompiledSchema;
}  // namespace json_schema_internal

class JsonSchema {
 public:
  // Nested schema evaluations allowed before Validate gives up (kOutOfRange).
  static constexpr int kMaxEvaluationDepth = 512;
  // Longest string (in bytes) that pattern/patternProperties will match.
  static constexpr size_t kMaxPatternInputBytes = 1024;
  // Most errors one Validate message lists (more are summarised).
  static constexpr size_t kMaxReportedErrors = 3;

  // Compiles `schema` (an object or a boolean). Regexes are compiled here,
  // once. Errors name the offending schema location as a JSON pointer:
  // - kUnimplemented: a keyword this validator does not implement, e.g.
  //   `unimplemented schema keyword "foo" at /properties/x/foo`; a reference
  //   to another document; a $schema other than draft-07; a pattern
  //   std::regex cannot compile.
  // - kInvalidArgument: a malformed schema (a keyword with a value of the
  //   wrong type, a $ref that does not resolve, a $ref loop).
  static Result<JsonSchema> Compile(const nlohmann::json& schema);

  // OK when `instance` is valid. Otherwise kInvalidArgument whose message
  // lists up to kMaxReportedErrors errors, in a deterministic order, separated
  // by "; ", each "<instance pointer>: <what> (<keyword>)", e.g.
  //   /modules/default/inputs/0/dtype: value "float33" is not one of the
  //   allowed values (enum)
  // The document root is written "(root)" since its pointer is empty.
  // kOutOfRange when kMaxEvaluationDepth is exceeded.
  Status Validate(const nlohmann::json& instance) const;

 private:
  explicit JsonSchema(std::shared_ptr<const json_schema_internal::CompiledSchema> compiled);

  // Shared and immutable: copies are cheap and Validate is thread-safe.
  std::shared_ptr<const json_schema_internal::CompiledSchema> compiled_;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_JSONSCHEMA_JSON_SCHEMA_H_
