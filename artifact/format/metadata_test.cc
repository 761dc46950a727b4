#include "artifact/format/metadata.h"

#include <fstream>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mlf {
namespace {

using nlohmann::json;

json Example() {
  std::ifstream in("artifact/format/testdata/example_metadata.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

Status ParseStatus(const json& j) { return ParseMetadata(j.dump()).status(); }

TEST(MetadataTest, ParsesTheDesignExample) {
  auto md = ParseMetadata(Example().dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const ModuleMetadata& m = md->modules.at("default");
  EXPECT_EQ(m.inputs[0].name, "input:0");
  EXPECT_EQ(m.inputs[0].c_name, "input_0");
  EXPECT_EQ(m.inputs[0].shape, (std::vector<int64_t>{1, 28, 28, 1}));
  EXPECT_EQ(m.parameters->tensors[0].size_bytes, 31360u);
  EXPECT_EQ(m.host_library->flags, (std::vector<std::string>{"-O3", "-fPIC"}));
  EXPECT_EQ(m.operators[0].macs, 100352u);
  EXPECT_EQ(*m.source->opset, 13);
  EXPECT_EQ(md->files.size(), 3u);
}

TEST(MetadataTest, SerialisationRoundTripsAndIsDeterministic) {
  auto md = ParseMetadata(Example().dump());
  ASSERT_TRUE(md.ok());
  std::string once = SerializeMetadata(*md);
  auto again = ParseMetadata(once);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(SerializeMetadata(*again), once);
  EXPECT_EQ(once.back(), '\n');
  EXPECT_EQ(once.find("\"files\""), once.rfind("\"files\""));
}

TEST(MetadataTest, NotJsonIsRefused) {
  Status s = ParseMetadata("this is not json").status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("metadata.json: not valid JSON: ", 0), 0u) << s.message();
}

TEST(MetadataTest, MissingVersionIsRefused) {
  EXPECT_EQ(ParseMetadata("{}").status().message(),
            "metadata.json: missing integer field \"version\"");
  EXPECT_EQ(ParseMetadata("[1]").status().message(),
            "metadata.json: top level is not a JSON object");
}

TEST(MetadataTest, SchemaViolationNamesTheField) {
  json j = Example();
  j["modules"]["default"]["inputs"][0]["dtype"] = "float33";
  Status s = ParseStatus(j);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("metadata.json does not match the version 8 schema"),
            std::string::npos) << s.message();
  EXPECT_NE(s.message().find("/modules/default/inputs/0/dtype"), std::string::npos)
      << s.message();
}

// An edit that makes the example invalid, and what ParseMetadata says about it.
struct Refusal {
  std::string name;  // the case, as gtest shows it
  std::function<void(json&)> edit;
  StatusCode code;
  std::string message;
};

// gtest names the failing case by its name instead of its bytes.
void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

json& Module(json& j) { return j["modules"]["default"]; }

// Names may be any printable text ("*/", "$(...)"), never a control
// character; the message names the field and shows the name escaped.
std::vector<Refusal> Refusals() {
  return {
      {"NewerVersionNamingBothVersions", [](json& j) { j["version"] = 10; },
       StatusCode::kFailedPrecondition,
       "metadata version 10 is newer than this mlfkit supports (version 9); upgrade mlfkit"},
      {"AncientVersion", [](json& j) { j["version"] = 2; }, StatusCode::kFailedPrecondition,
       "metadata version 2 is not supported (supported: 5, 6, 7, 8, 9)"},
      {"SizeBytesMustMatchDtypeAndShape",
       [](json& j) {
         Module(j)["outputs"][0]["size_bytes"] = 44;
         Module(j)["memory"]["io_size_bytes"] = 3180;
       },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': output 'out0': size_bytes is 44 but float32 "
       "with this shape takes 40"},
      {"IoSizeMustMatchTensors", [](json& j) { Module(j)["memory"]["io_size_bytes"] = 1; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': memory.io_size_bytes is 1 but the inputs and "
       "outputs take 3176"},
      {"CNamesMustBeUnique", [](json& j) { Module(j)["outputs"][0]["c_name"] = "input_0"; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': input 'input:0' and output 'out0' both map to the "
       "C name 'input_0'"},
      {"InputNameMustBePrintable", [](json& j) { Module(j)["inputs"][0]["name"] = "in\n0"; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': input 0: name 'in\\x0a0' contains a "
       "control character (U+000A); names must be printable"},
      {"OutputNameMustBePrintable",
       [](json& j) { Module(j)["outputs"][0]["name"] = "\x1b[2Kout"; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': output 0: name '\\x1b[2Kout' contains a control "
       "character (U+001B); names must be printable"},
      {"ParameterNameMustBePrintable",
       [](json& j) { Module(j)["parameters"]["tensors"][0]["name"] = "w\t0"; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': parameter 0: name 'w\\x090' contains a control "
       "character (U+0009); names must be printable"},
      {"OperatorNameMustBePrintable",
       [](json& j) { Module(j)["operators"][0]["name"] = "fused\x07"; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': operator 0: name 'fused\\x07' contains a control "
       "character (U+0007); names must be printable"},
      {"ReferencedFilesMustBeListed",
       [](json& j) { j["files"].erase("codegen/host/src/default_lib0.c"); },
       StatusCode::kNotFound,
       "metadata.json: module 'default': sources entry "
       "'codegen/host/src/default_lib0.c' is not listed in files"},
      {"ConstantsSizeMustMatchBlob",
       [](json& j) { Module(j)["memory"]["constants_size_bytes"] = 5; },
       StatusCode::kInvalidArgument,
       "metadata.json: module 'default': memory.constants_size_bytes is 5 but the "
       "parameter blob 'parameters/default.bin' has 31360 bytes"},
      {"UnsafeFilePath",
       [](json& j) { j["files"]["../evil"] = {{"size", 1}, {"sha256", std::string(64, '0')}}; },
       StatusCode::kPermissionDenied,
       "metadata.json: files entry '../evil' is not a safe relative path"},
      {"ModuleNamesMustNotClashAfterSanitising",
       [](json& j) {
         j["modules"]["a-b"] = Module(j);
         j["modules"]["a.b"] = Module(j);
       },
       StatusCode::kInvalidArgument,
       "metadata.json: modules 'a-b' and 'a.b' both map to the C name 'a_b'"},
  };
}

class MetadataRefusalTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(MetadataRefusalTest, NamesWhatIsWrong) {
  json j = Example();
  GetParam().edit(j);
  const Status s = ParseStatus(j);
  EXPECT_EQ(s.code(), GetParam().code) << s.ToString();
  EXPECT_EQ(s.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Metadata, MetadataRefusalTest, ::testing::ValuesIn(Refusals()),
                         [](const ::testing::TestParamInfo<Refusal>& info) {
                           return info.param.name;
                         });

TEST(MetadataTest, PrintableNamesAreAccepted) {
  json printable = Example();
  printable["modules"]["default"]["inputs"][0]["name"] = "in */ $(x) `y` #";
  EXPECT_TRUE(ParseMetadata(printable.dump()).ok());
}

TEST(MetadataTest, PackingAllowsMissingFiles) {
  json j = Example();
  j.erase("files");
  EXPECT_FALSE(ParseMetadata(j.dump()).ok());
  auto md = ParseMetadataForPacking(j.dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_TRUE(md->files.empty());
}

TEST(MetadataTest, PeekVersion) {
  EXPECT_EQ(*PeekMetadataVersion(R"({"version": 7, "modules": {}})"), 7);
}

}  // namespace
}  // namespace mlf
