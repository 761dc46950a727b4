// The embedded metadata v8 schema against a complete example module and
// against the mistakes it exists to catch, with their exact messages.
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/jsonschema/json_schema.h"
#include "schemas/embedded.h"

namespace mlf {
namespace {

using json = nlohmann::json;

constexpr char kSchemaName[] = "metadata-v8.schema.json";
const std::string kHex64(64, 'a');

// A complete module of every field (docs/archive-format.md), with real digests and the writer's "files".
json ExampleMetadata() {
  json metadata = json::parse(R"({
    "version": 8,
    "generator": {"name": "mlfkit", "version": "0.1.0"},
    "export_datetime": "1970-01-01 00:00:00Z",
    "modules": {
      "default": {
        "model_name": "default", "style": "full-model", "executors": ["aot"],
        "interface_api": "c", "abi_version": 1,
        "target": {"kind": "c", "host_triple": "x86_64-linux-gnu"},
        "source": {"format": "onnx", "opset": 13, "sha256": "HEX"},
        "inputs":  [{"name": "input:0", "c_name": "input_0", "dtype": "float32",
                     "shape": [1, 28, 28, 1], "size_bytes": 3136}],
        "outputs": [{"name": "out0", "c_name": "out0", "dtype": "float32", "shape": [1, 10],
                     "size_bytes": 40}],
        "memory": {"workspace_size_bytes": 0, "constants_size_bytes": 0, "io_size_bytes": 3176,
                   "alignment_bytes": 64},
        "parameters": {"storage": "file", "path": "parameters/default.bin",
                       "tensors": [{"name": "w0", "dtype": "float32", "shape": [10, 784],
                                    "offset": 0, "size_bytes": 31360}]},
        "host_library": {"path": "codegen/host/lib/default.so", "triple": "x86_64-linux-gnu",
                         "compiler": "gcc 12.2.0", "flags": ["-O3", "-fPIC"]},
        "sources": ["codegen/host/src/default_lib0.c"],
        "operators": [{"name": "fused_dense_relu_0", "ops": ["Gemm", "Relu"], "macs": 100352}]
      }
    },
    "files": {"codegen/host/src/default_lib0.c": {"size": 1234, "sha256": "HEX"}}
  })");
  metadata["modules"]["default"]["source"]["sha256"] = kHex64;
  metadata["files"]["codegen/host/src/default_lib0.c"]["sha256"] = kHex64;
  return metadata;
}

class MetadataSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::optional<std::string_view> text = EmbeddedFile(kSchemaName);
    ASSERT_TRUE(text.has_value()) << kSchemaName << " is not embedded";
    json schema = json::parse(*text, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(schema.is_object()) << kSchemaName << " is not a JSON object";
    Result<JsonSchema> compiled = JsonSchema::Compile(schema);
    ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
    schema_.emplace(std::move(compiled).value());
  }

  // The Validate message, or "ok".
  std::string Check(const json& metadata) const {
    Status status = schema_->Validate(metadata);
    return status.ok() ? "ok" : status.message();
  }

  json& Module(json& metadata) const { return metadata["modules"]["default"]; }

  std::optional<JsonSchema> schema_;
};

TEST_F(MetadataSchemaTest, AcceptsTheDesignExample) {
  EXPECT_EQ(Check(ExampleMetadata()), "ok");
}

TEST_F(MetadataSchemaTest, AcceptsAMinimalModuleAndLinkedParameters) {
  json metadata = ExampleMetadata();
  json& module = Module(metadata);
  for (const char* optional : {"source", "host_library", "operators"}) module.erase(optional);
  module["parameters"] = {{"storage", "linked"}, {"tensors", json::array()}};
  module["memory"]["workspace_lower_bound_bytes"] = 0;
  module["target"] = {{"kind", "c"}, {"mcpu", "cortex-m4"}, {"attrs", {{"fpu", "yes"}}}};
  EXPECT_EQ(Check(metadata), "ok");
}

TEST_F(MetadataSchemaTest, RefusesWrongDtype) {
  json metadata = ExampleMetadata();
  Module(metadata)["inputs"][0]["dtype"] = "float33";
  EXPECT_EQ(Check(metadata),
            "/modules/default/inputs/0/dtype: value \"float33\" is not one of the allowed values "
            "(enum)");
}

TEST_F(MetadataSchemaTest, RefusesARankAbove64) {
  json metadata = ExampleMetadata();
  Module(metadata)["outputs"][0]["shape"] = json::array();
  for (int i = 0; i < 64; ++i) Module(metadata)["outputs"][0]["shape"].push_back(1);
  Module(metadata)["outputs"][0]["size_bytes"] = 4;
  EXPECT_EQ(Check(metadata), "ok");
  Module(metadata)["outputs"][0]["shape"].push_back(1);
  EXPECT_EQ(Check(metadata),
            "/modules/default/outputs/0/shape: array has 65 items, more than the maximum 64 "
            "(maxItems)");
}

TEST_F(MetadataSchemaTest, RefusesModuleWithoutRequiredField) {
  json metadata = ExampleMetadata();
  Module(metadata).erase("memory");
  EXPECT_EQ(Check(metadata), "/modules/default: missing required property \"memory\" (required)");
}

TEST_F(MetadataSchemaTest, RefusesExtraKey) {
  json metadata = ExampleMetadata();
  Module(metadata)["memory"]["heap_bytes"] = 0;
  EXPECT_EQ(Check(metadata),
            "/modules/default/memory: unexpected property \"heap_bytes\" (additionalProperties)");
}

TEST_F(MetadataSchemaTest, RefusesBadSha256) {
  json metadata = ExampleMetadata();
  metadata["files"]["codegen/host/src/default_lib0.c"]["sha256"] = "ABC";
  EXPECT_EQ(Check(metadata),
            "/files/codegen~1host~1src~1default_lib0.c/sha256: value \"ABC\" does not match "
            "pattern \"^[0-9a-f]{64}$\" (pattern)");
}

TEST_F(MetadataSchemaTest, RefusesOtherVersion) {
  json metadata = ExampleMetadata();
  metadata["version"] = 9;
  EXPECT_EQ(Check(metadata), "/version: value 9 does not equal the constant 8 (const)");
}

TEST_F(MetadataSchemaTest, RefusesFileParametersWithoutPath) {
  json metadata = ExampleMetadata();
  Module(metadata)["parameters"].erase("path");
  EXPECT_EQ(Check(metadata),
            "/modules/default/parameters: missing required property \"path\" (required)");
}

TEST_F(MetadataSchemaTest, RefusesBadModuleNameAndCName) {
  json metadata = ExampleMetadata();
  metadata["modules"]["../evil"] = Module(metadata);
  EXPECT_EQ(Check(metadata),
            "/modules: property name \"../evil\" does not match pattern "
            "\"^[A-Za-z0-9_][A-Za-z0-9_.-]*$\" (pattern)");
  metadata = ExampleMetadata();
  Module(metadata)["outputs"][0]["c_name"] = "0out";
  EXPECT_EQ(Check(metadata),
            "/modules/default/outputs/0/c_name: value \"0out\" does not match pattern "
            "\"^[A-Za-z_][A-Za-z0-9_]*$\" (pattern)");
}

TEST_F(MetadataSchemaTest, RefusesNoModulesAndMissingFiles) {
  json metadata = ExampleMetadata();
  metadata["modules"] = json::object();
  metadata.erase("files");
  EXPECT_EQ(Check(metadata),
            "(root): missing required property \"files\" (required); "
            "/modules: object has 0 properties, fewer than the minimum 1 (minProperties)");
}

TEST(EmbeddedFileTest, UnknownNameIsNullopt) {
  EXPECT_FALSE(EmbeddedFile("no-such.schema.json").has_value());
}

// The embedded bytes are exactly the schema file (it is the single source).
TEST(EmbeddedFileTest, MatchesTheSourceFile) {
  std::ifstream in("schemas/metadata-v8.schema.json", std::ios::binary);
  ASSERT_TRUE(in) << "schemas/metadata-v8.schema.json is not in the test's runfiles";
  std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::optional<std::string_view> embedded = EmbeddedFile(kSchemaName);
  ASSERT_TRUE(embedded.has_value());
  EXPECT_EQ(*embedded, source);
  EXPECT_EQ(embedded->data()[embedded->size()], '\0');
}

}  // namespace
}  // namespace mlf
