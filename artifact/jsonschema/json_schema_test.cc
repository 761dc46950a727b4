#include "artifact/jsonschema/json_schema.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mlf {
namespace {

using json = nlohmann::json;

JsonSchema MustCompile(const char* schema_text) {
  Result<JsonSchema> schema = JsonSchema::Compile(json::parse(schema_text));
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return std::move(schema).value();
}

// The Validate message for `instance`, or "ok".
std::string Check(const char* schema_text, const char* instance_text) {
  Status status = MustCompile(schema_text).Validate(json::parse(instance_text));
  if (status.ok()) return "ok";
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  return status.message();
}

// The Compile failure for `schema_text` as "<code name>: <message>".
std::string CompileError(const char* schema_text) {
  Result<JsonSchema> schema = JsonSchema::Compile(json::parse(schema_text));
  return schema.ok() ? "ok" : schema.status().ToString();
}

// ---- Compile: unknown keywords, refs, malformed schemas -----------------

TEST(JsonSchemaCompileTest, RefusesUnknownKeywordNamingItsLocation) {
  EXPECT_EQ(CompileError(R"({"properties": {"x": {"type": "string", "requried": ["a"]}}})"),
            "unimplemented: unknown or unimplemented schema keyword \"requried\" at "
            "/properties/x/requried");
  EXPECT_EQ(CompileError(R"({"unevaluatedProperties": false})"),
            "unimplemented: unknown or unimplemented schema keyword \"unevaluatedProperties\" "
            "at /unevaluatedProperties");
}

TEST(JsonSchemaCompileTest, AcceptsAnnotations) {
  EXPECT_EQ(CompileError(R"({"$schema": "http://json-schema.org/draft-07/schema#",
      "$id": "https://example.com/s.json", "$comment": "c", "title": "t", "description": "d",
      "default": 1, "examples": [1], "readOnly": true, "writeOnly": false, "format": "date",
      "definitions": {"a": {"type": "integer"}}})"),
            "ok");
}

TEST(JsonSchemaCompileTest, FormatIsAnAnnotationOnly) {
  EXPECT_EQ(Check(R"({"format": "email"})", R"("not an email")"), "ok");
}

TEST(JsonSchemaCompileTest, RefusesOtherDialects) {
  EXPECT_EQ(CompileError(R"({"$schema": "https://json-schema.org/draft/2020-12/schema"})"),
            "unimplemented: $schema \"https://json-schema.org/draft/2020-12/schema\" at /$schema "
            "is not supported; this validator implements draft-07 "
            "(http://json-schema.org/draft-07/schema#)");
}

TEST(JsonSchemaCompileTest, RefusesRemoteRefs) {
  EXPECT_EQ(CompileError(R"({"items": {"$ref": "http://example.com/x.json#/a"}})"),
            "unimplemented: $ref \"http://example.com/x.json#/a\" at /items/$ref refers to "
            "another document (\"http://example.com/x.json\"); only references within the same "
            "schema are supported");
}

TEST(JsonSchemaCompileTest, RefusesDanglingRef) {
  EXPECT_EQ(CompileError(R"({"$ref": "#/definitions/missing"})"),
            "invalid_argument: schema /$ref: $ref \"#/definitions/missing\" points to nothing "
            "in this schema");
}

TEST(JsonSchemaCompileTest, RefusesPlainRefLoop) {
  EXPECT_EQ(CompileError(R"({"definitions": {"a": {"$ref": "#/definitions/b"},
                                             "b": {"$ref": "#/definitions/a"}},
                            "$ref": "#/definitions/a"})"),
            "invalid_argument: schema (root): $ref loop: following $ref never reaches a schema");
}

TEST(JsonSchemaCompileTest, RefusesMalformedKeywordValues) {
  EXPECT_EQ(CompileError(R"({"minLength": -1})"),
            "invalid_argument: schema /minLength: must be a non-negative integer, got -1");
  EXPECT_EQ(CompileError(R"({"type": "float"})"),
            "invalid_argument: schema /type: unknown type \"float\"");
  EXPECT_EQ(CompileError(R"({"multipleOf": 0})"),
            "invalid_argument: schema /multipleOf: must be a number greater than 0, got 0");
  EXPECT_EQ(CompileError(R"({"properties": {"a": 3}})"),
            "invalid_argument: schema /properties/a: a schema must be an object or a boolean, "
            "got 3");
  EXPECT_EQ(CompileError(R"({"required": ["a", "a"]})"),
            "invalid_argument: schema /required: lists \"a\" twice");
}

TEST(JsonSchemaCompileTest, RefusesPatternStdRegexCannotCompile) {
  Result<JsonSchema> schema = JsonSchema::Compile(json::parse(R"({"pattern": "a("})"));
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(schema.status().message().rfind(
                "pattern \"a(\" at /pattern cannot be compiled by std::regex (ECMAScript): ", 0),
            0u)
      << schema.status().message();
}

TEST(JsonSchemaCompileTest, UnknownKeywordUsedThroughRefIsASchema) {
  const char* schema = R"({"my~container": {"type": "integer"},
                           "properties": {"a": {"$ref": "#/my~0container"}}})";
  EXPECT_EQ(Check(schema, R"({"a": 1})"), "ok");
  EXPECT_EQ(Check(schema, R"({"a": "x"})"), "/a: value \"x\" is not of type integer (type)");
}

// ---- Validate: one family of keywords at a time --------------------------

TEST(JsonSchemaValidateTest, BooleanSchemas) {
  EXPECT_EQ(Check("true", "[1]"), "ok");
  EXPECT_EQ(Check("false", "[1]"), "(root): value [1] is not allowed (false schema)");
}

TEST(JsonSchemaValidateTest, Type) {
  EXPECT_EQ(Check(R"({"type": "integer"})", "1.0"), "ok");
  EXPECT_EQ(Check(R"({"type": "integer"})", "1.5"),
            "(root): value 1.5 is not of type integer (type)");
  EXPECT_EQ(Check(R"({"properties": {"a": {"type": ["string", "null"]}}})", R"({"a": 5})"),
            "/a: value 5 is not of type null or string (type)");
}

TEST(JsonSchemaValidateTest, EnumAndConst) {
  EXPECT_EQ(Check(R"({"enum": ["float32", 1]})", "1.0"), "ok");
  EXPECT_EQ(Check(R"({"properties": {"dtype": {"enum": ["float32"]}}})", R"({"dtype": "float33"})"),
            "/dtype: value \"float33\" is not one of the allowed values (enum)");
  EXPECT_EQ(Check(R"({"const": 8})", "8.0"), "ok");
  EXPECT_EQ(Check(R"({"const": 8})", "9"), "(root): value 9 does not equal the constant 8 (const)");
}

TEST(JsonSchemaValidateTest, Numbers) {
  EXPECT_EQ(Check(R"({"minimum": 1})", "0"), "(root): value 0 is less than the minimum 1 (minimum)");
  EXPECT_EQ(Check(R"({"maximum": 1})", "1.5"),
            "(root): value 1.5 is greater than the maximum 1 (maximum)");
  EXPECT_EQ(Check(R"({"exclusiveMinimum": 1})", "1"),
            "(root): value 1 is not greater than the exclusive minimum 1 (exclusiveMinimum)");
  EXPECT_EQ(Check(R"({"exclusiveMaximum": 1})", "1"),
            "(root): value 1 is not less than the exclusive maximum 1 (exclusiveMaximum)");
  EXPECT_EQ(Check(R"({"multipleOf": 64})", "100"),
            "(root): value 100 is not a multiple of 64 (multipleOf)");
  EXPECT_EQ(Check(R"({"multipleOf": 0.01})", "19.99"), "ok");
  EXPECT_EQ(Check(R"({"maximum": 18446744073709551615})", "18446744073709551615"), "ok");
  EXPECT_EQ(Check(R"({"minimum": -9223372036854775808})", "-9223372036854775808"), "ok");
  EXPECT_EQ(Check(R"({"minimum": 0})", "\"not a number\""), "ok");
}

TEST(JsonSchemaValidateTest, StringsCountCodePoints) {
  EXPECT_EQ(Check(R"({"maxLength": 2})", R"("éé")"), "ok");  // 4 bytes, 2 code points
  EXPECT_EQ(Check(R"({"minLength": 3})", R"("éé")"),
            "(root): value \"éé\" has 2 characters, fewer than the minimum 3 (minLength)");
  EXPECT_EQ(Check(R"({"maxLength": 1})", R"("ab")"),
            "(root): value \"ab\" has 2 characters, more than the maximum 1 (maxLength)");
}

TEST(JsonSchemaValidateTest, Pattern) {
  EXPECT_EQ(Check(R"({"pattern": "b"})", R"("abc")"), "ok");  // search, not full match
  EXPECT_EQ(Check(R"({"pattern": "^[0-9a-f]{4}$"})", R"("12G4")"),
            "(root): value \"12G4\" does not match pattern \"^[0-9a-f]{4}$\" (pattern)");
}

TEST(JsonSchemaValidateTest, OverlongPatternInputFailsClosed) {
  json instance = std::string(JsonSchema::kMaxPatternInputBytes + 1, 'a');
  Status status = MustCompile(R"({"pattern": "^a*$"})").Validate(instance);
  ASSERT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("is too long to match against pattern \"^a*$\" (1025 bytes; "
                                  "at most 1024 are matched) (pattern)"),
            std::string::npos)
      << status.message();
}

TEST(JsonSchemaValidateTest, Arrays) {
  EXPECT_EQ(Check(R"({"minItems": 1})", "[]"),
            "(root): array has 0 items, fewer than the minimum 1 (minItems)");
  EXPECT_EQ(Check(R"({"maxItems": 1})", "[1, 2]"),
            "(root): array has 2 items, more than the maximum 1 (maxItems)");
  EXPECT_EQ(Check(R"({"uniqueItems": true})", R"([1, {"a": [2]}, 1.0])"),
            "(root): array items 0 and 2 are equal (uniqueItems)");
  EXPECT_EQ(Check(R"({"items": {"type": "string"}})", R"(["a", 2])"),
            "/1: value 2 is not of type string (type)");
  EXPECT_EQ(Check(R"({"items": [{"type": "string"}], "additionalItems": false})", R"(["a", 2])"),
            "(root): array has 2 items, more than the 1 allowed by items (additionalItems)");
  EXPECT_EQ(Check(R"({"contains": {"const": 3}})", "[1, 2]"),
            "(root): array has no item that matches the schema (contains)");
}

TEST(JsonSchemaValidateTest, Objects) {
  EXPECT_EQ(Check(R"({"required": ["memory"]})", "{}"),
            "(root): missing required property \"memory\" (required)");
  EXPECT_EQ(Check(R"({"properties": {"a": true}, "additionalProperties": false})",
                  R"({"a": 1, "b": 2})"),
            "(root): unexpected property \"b\" (additionalProperties)");
  EXPECT_EQ(Check(R"({"patternProperties": {"^x_": {"type": "integer"}}})", R"({"x_1": "s"})"),
            "/x_1: value \"s\" is not of type integer (type)");
  EXPECT_EQ(Check(R"({"propertyNames": {"pattern": "^[a-z]+$"}})", R"({"a/B": 1})"),
            "(root): property name \"a/B\" does not match pattern \"^[a-z]+$\" (pattern)");
  EXPECT_EQ(Check(R"({"minProperties": 1})", "{}"),
            "(root): object has 0 properties, fewer than the minimum 1 (minProperties)");
  EXPECT_EQ(Check(R"({"maxProperties": 0})", R"({"a": 1})"),
            "(root): object has 1 property, more than the maximum 0 (maxProperties)");
  EXPECT_EQ(Check(R"({"dependencies": {"a": ["b"]}})", R"({"a": 1})"),
            "(root): property \"a\" requires property \"b\" (dependencies)");
  EXPECT_EQ(Check(R"({"dependencies": {"a": {"required": ["c"]}}})", R"({"a": 1})"),
            "(root): missing required property \"c\" (required)");
}

TEST(JsonSchemaValidateTest, PointersEscapeTildeAndSlash) {
  EXPECT_EQ(Check(R"({"additionalProperties": {"type": "integer"}})", R"({"src/a~b.c": "x"})"),
            "/src~1a~0b.c: value \"x\" is not of type integer (type)");
}

TEST(JsonSchemaValidateTest, Combinators) {
  EXPECT_EQ(Check(R"({"allOf": [{"minimum": 0}, {"maximum": 1}]})", "2"),
            "(root): value 2 is greater than the maximum 1 (maximum)");
  EXPECT_EQ(Check(R"({"anyOf": [{"type": "string"}, {"minimum": 3}]})", "2"),
            "(root): value 2 does not match any of the 2 schemas (anyOf)");
  EXPECT_EQ(Check(R"({"oneOf": [{"type": "string"}, {"minimum": 3}]})", "2"),
            "(root): value 2 does not match any of the 2 schemas (oneOf)");
  EXPECT_EQ(Check(R"({"oneOf": [{"type": "integer"}, {"minimum": 1}]})", "2"),
            "(root): value 2 matches schemas 0 and 1, but must match exactly one (oneOf)");
  EXPECT_EQ(Check(R"({"not": {"type": "null"}})", "null"),
            "(root): value null matches a schema it must not match (not)");
  const char* conditional = R"({"if": {"properties": {"storage": {"const": "file"}}},
                                "then": {"required": ["path"]}, "else": {"maxProperties": 1}})";
  EXPECT_EQ(Check(conditional, R"({"storage": "file"})"),
            "(root): missing required property \"path\" (required)");
  EXPECT_EQ(Check(conditional, R"({"storage": "linked"})"), "ok");
}

TEST(JsonSchemaValidateTest, ReportsAFewErrorsInOrder) {
  const char* schema = R"({"required": ["a", "b", "c", "d", "e"]})";
  EXPECT_EQ(Check(schema, R"({"a": 1})"),
            "(root): missing required property \"b\" (required); "
            "(root): missing required property \"c\" (required); "
            "(root): missing required property \"d\" (required); and more errors");
  EXPECT_EQ(Check(schema, R"({"a": 1, "b": 1, "c": 1})"),
            "(root): missing required property \"d\" (required); "
            "(root): missing required property \"e\" (required)");
}

// ---- $ref -----------------------------------------------------------------

TEST(JsonSchemaRefTest, LocalPointersAndEscapes) {
  const char* schema = R"({"definitions": {"a b/c": {"type": "integer"}},
                           "properties": {"x": {"$ref": "#/definitions/a%20b~1c"},
                                          "self": {"$ref": "#"}},
                           "additionalProperties": false})";
  EXPECT_EQ(Check(schema, R"({"x": 1, "self": {"self": {"x": 2}}})"), "ok");
  EXPECT_EQ(Check(schema, R"({"self": {"x": "s"}})"),
            "/self/x: value \"s\" is not of type integer (type)");
}

TEST(JsonSchemaRefTest, ResolvesAgainstIdWithinTheDocument) {
  const char* schema = R"({"$id": "https://mlfkit.dev/schemas/root.json",
                           "items": {"$ref": "item.json"},
                           "definitions": {"item": {"$id": "item.json", "type": "string"},
                                           "named": {"$id": "#named", "minLength": 2}},
                           "properties": {"n": {"$ref": "#named"}}})";
  EXPECT_EQ(Check(schema, R"(["a"])"), "ok");
  EXPECT_EQ(Check(schema, "[1]"), "/0: value 1 is not of type string (type)");
  EXPECT_EQ(Check(schema, R"({"n": "x"})"),
            "/n: value \"x\" has 1 character, fewer than the minimum 2 (minLength)");
}

TEST(JsonSchemaRefTest, CycleThatNeverDescendsEndsWithOutOfRange) {
  Status status = MustCompile(R"({"allOf": [{"$ref": "#"}]})").Validate(json(1));
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(),
            "JSON schema evaluation deeper than 512 levels at schema location (root), instance "
            "location (root): a $ref cycle that does not descend into the instance, or an "
            "instance nested too deeply");
  // Under anyOf the failure is not mistaken for "this alternative does not match".
  status = MustCompile(R"({"anyOf": [{"$ref": "#"}, true]})").Validate(json(1));
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
}

TEST(JsonSchemaRefTest, RecursiveSchemaFollowsTheInstance) {
  JsonSchema tree = MustCompile(R"({"type": "array", "items": {"$ref": "#"}})");
  json deep = json::array();
  for (int i = 0; i < 100; ++i) deep = json::array({deep});
  EXPECT_TRUE(tree.Validate(deep).ok());
  for (int i = 0; i < 1000; ++i) deep = json::array({deep});
  EXPECT_EQ(tree.Validate(deep).code(), StatusCode::kOutOfRange);
}

TEST(JsonSchemaTest, CopiesShareTheCompiledSchema) {
  JsonSchema schema = MustCompile(R"({"type": "string"})");
  JsonSchema copy = schema;
  EXPECT_TRUE(copy.Validate(json("a")).ok());
  EXPECT_FALSE(schema.Validate(json(1)).ok());
}

}  // namespace
}  // namespace mlf
