// Version 9's additions (docs/archive-format.md): each field read, written
// back byte for byte, refused by version 8's schema, and each rule the schema
// cannot express refused with a message naming the field.
#include <fstream>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "artifact/format/metadata.h"

namespace mlf {
namespace {

using nlohmann::json;

json VersionEight() {
  std::ifstream in("artifact/format/testdata/example_metadata.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

json& Module(json& j) { return j["modules"]["default"]; }

// The design example as version 9, with every field version 9 adds: an
// int8 input and per-channel weights, a packed layout, the fixed shape and
// constant, a plan of two values (one held inside the other) and a scratch,
// parameter bytes, the kernels.
json VersionNine() {
  json j = VersionEight();
  j["version"] = 9;
  json& m = Module(j);
  m["inputs"][0]["dtype"] = "int8";
  m["inputs"][0]["size_bytes"] = 784;
  m["inputs"][0]["quantization"] = {{"scale", {0.5}}, {"zero_point", {-3}}};
  m["memory"]["io_size_bytes"] = 824;
  m["memory"]["workspace_size_bytes"] = 256;
  m["memory"]["plan"] = json::array(
      {{{"name", "concat_out"}, {"kind", "value"}, {"offset", 0}, {"size_bytes", 128},
        {"first_operator", 0}, {"last_operator", 1}},
       {{"name", "branch"}, {"kind", "value"}, {"offset", 64}, {"size_bytes", 64},
        {"first_operator", 0}, {"last_operator", 0}, {"inside", "concat_out"}},
       {{"name", "fused_dense_relu_0"}, {"kind", "scratch"}, {"offset", 128}, {"size_bytes", 128},
        {"first_operator", 0}, {"last_operator", 0}}});
  json& w = m["parameters"]["tensors"][0];
  w["quantization"] = {{"scale", std::vector<double>(10, 0.25)},
                       {"zero_point", std::vector<int>(10, 0)}, {"axis", 0}};
  w["dtype"] = "int8";
  w["size_bytes"] = 7840;
  m["parameters"]["tensors"].push_back({{"name", "w1"}, {"dtype", "float32"}, {"shape", {8, 3}},
                                        {"offset", 7872}, {"size_bytes", 96},
                                        {"layout", "gemm_f32_panels8"}});
  m["memory"]["constants_size_bytes"] = 7968;
  j["files"]["parameters/default.bin"]["size"] = 7968;
  m["source"]["input_shapes"] = json::array({{{"name", "input:0"}, {"shape", {1, 28, 28, 1}}}});
  m["source"]["constants"] = json::array(
      {{{"name", "shape"}, {"dtype", "int64"}, {"shape", {2}}, {"sha256", std::string(64, 'a')}}});
  m["operators"][0]["param_bytes"] = 7936;
  m["operators"].push_back({{"name", "concat"}, {"ops", {"Concat"}}, {"macs", 0}});
  m["kernels"] = {{"families", {"conv_f32", "gemm_f32"}}, {"variants", {"portable", "avx2", "avx512"}}};
  return j;
}

TEST(MetadataV9Test, ReadsEveryAddition) {
  auto md = ParseMetadata(VersionNine().dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->version, 9);
  const ModuleMetadata& m = md->modules.at("default");
  ASSERT_TRUE(m.inputs[0].quantization.has_value());
  EXPECT_EQ(m.inputs[0].quantization->scale, std::vector<double>{0.5});
  EXPECT_EQ(m.inputs[0].quantization->zero_point, std::vector<int64_t>{-3});
  EXPECT_FALSE(m.inputs[0].quantization->axis.has_value());
  EXPECT_EQ(*m.parameters->tensors[0].quantization->axis, 0);
  EXPECT_EQ(m.parameters->tensors[1].layout, "gemm_f32_panels8");
  EXPECT_EQ(m.parameters->tensors[0].layout, "");
  ASSERT_EQ(m.memory.plan.size(), 3u);
  EXPECT_EQ(m.memory.plan[1].inside, "concat_out");
  EXPECT_EQ(m.memory.plan[2].kind, PlanBufferKind::kScratch);
  EXPECT_EQ(m.source->input_shapes[0].shape, (std::vector<int64_t>{1, 28, 28, 1}));
  EXPECT_EQ(m.source->constants[0].dtype, DType::kInt64);
  EXPECT_EQ(*m.operators[0].param_bytes, 7936u);
  EXPECT_FALSE(m.operators[1].param_bytes.has_value());
  EXPECT_EQ(m.kernels->families, (std::vector<std::string>{"conv_f32", "gemm_f32"}));
}

TEST(MetadataV9Test, RoundTripsByteForByte) {
  auto md = ParseMetadata(VersionNine().dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const std::string once = SerializeMetadata(*md);
  auto again = ParseMetadata(once);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(SerializeMetadata(*again), once);
  EXPECT_EQ(json::parse(once), VersionNine());
}

TEST(MetadataV9Test, VersionEightStillReadsAndWritesAsVersionEight) {
  auto md = ParseMetadata(VersionEight().dump());
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  EXPECT_EQ(md->version, 8);
  EXPECT_EQ(json::parse(SerializeMetadata(*md)), VersionEight());
}

// Each addition is refused in a version-8 document: its schema is closed.
TEST(MetadataV9Test, VersionEightRefusesEachAddition) {
  const json nine = VersionNine();
  const std::vector<std::pair<std::string, std::function<void(json&)>>> additions = {
      {"/modules/default/inputs/0", [&](json& j) { Module(j)["inputs"][0]["quantization"] = Module(const_cast<json&>(nine))["inputs"][0]["quantization"]; }},
      {"/modules/default/memory", [&](json& j) { Module(j)["memory"]["plan"] = json::array(); }},
      {"/modules/default/source", [&](json& j) { Module(j)["source"]["input_shapes"] = json::array(); }},
      {"/modules/default/operators/0", [&](json& j) { Module(j)["operators"][0]["param_bytes"] = 1; }},
      {"/modules/default/parameters/tensors/0", [&](json& j) { Module(j)["parameters"]["tensors"][0]["layout"] = "gemm_f32_panels8"; }},
      {"/modules/default", [&](json& j) { Module(j)["kernels"] = Module(const_cast<json&>(nine))["kernels"]; }},
  };
  for (const auto& [where, add] : additions) {
    json j = VersionEight();
    add(j);
    const Status s = ParseMetadata(j.dump()).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << where;
    EXPECT_EQ(s.message().rfind("metadata.json does not match the version 8 schema: " + where + ": ", 0), 0u)
        << s.message();
  }
}

TEST(MetadataV9Test, SchemaRefusesAnUnknownLayoutAndVariant) {
  json j = VersionNine();
  Module(j)["parameters"]["tensors"][1]["layout"] = "nchw16c";
  Status s = ParseMetadata(j.dump()).status();
  EXPECT_NE(s.message().find("/modules/default/parameters/tensors/1/layout"), std::string::npos) << s.message();
  j = VersionNine();
  Module(j)["kernels"]["variants"] = {"portable", "sse9"};
  s = ParseMetadata(j.dump()).status();
  EXPECT_NE(s.message().find("/modules/default/kernels/variants/1"), std::string::npos) << s.message();
}

// A model built in memory as version 8 with a version-9 field would write an
// archive no reader accepts: the semantic checks refuse it before.
TEST(MetadataV9Test, VersionEightModelWithAnAdditionIsRefused) {
  auto md = ParseMetadata(VersionEight().dump());
  ASSERT_TRUE(md.ok());
  md->modules.at("default").kernels = KernelsInfo{{"gemm_f32"}, {"portable"}};
  const Status s = CheckMetadataSemantics(*md, true);
  EXPECT_EQ(s.message(), "module 'default': kernels is a version 9 field, but the metadata is version 8");
}

struct Refusal {
  std::string name;
  std::function<void(json&)> edit;
  std::string message;
};
void PrintTo(const Refusal& r, std::ostream* os) { *os << r.name; }

std::vector<Refusal> Refusals() {
  const std::string at = "metadata.json: module 'default': ";
  return {
      {"QuantizedFloatTensor",
       [](json& j) { Module(j)["outputs"][0]["quantization"] = {{"scale", {1.0}}, {"zero_point", {0}}}; },
       at + "output 'out0': quantization is given for a float32 tensor (only int8, uint8, int16, "
            "uint16 and int32 are quantized)"},
      {"ScalesAndZeroPointsDiffer",
       [](json& j) { Module(j)["inputs"][0]["quantization"]["zero_point"] = {0, 0}; },
       at + "input 'input:0': quantization has 1 scales but 2 zero points"},
      {"SeveralScalesWithoutAxis",
       [](json& j) { Module(j)["inputs"][0]["quantization"] = {{"scale", {1.0, 2.0}}, {"zero_point", {0, 0}}}; },
       at + "input 'input:0': quantization has 2 scales but no axis (one scale per tensor, or one per "
            "index of `axis`)"},
      {"AxisBeyondRank",
       [](json& j) { Module(j)["parameters"]["tensors"][0]["quantization"]["axis"] = 2; },
       at + "parameter 'w0': quantization.axis 2 is not a dimension of a rank-2 tensor"},
      {"ScalesNotOnePerIndex",
       [](json& j) { Module(j)["parameters"]["tensors"][0]["quantization"]["axis"] = 1; },
       at + "parameter 'w0': quantization has 10 scales but dimension 1 has 784 indices"},
      {"ZeroPointOutsideDtype",
       [](json& j) { Module(j)["inputs"][0]["quantization"]["zero_point"] = {128}; },
       at + "input 'input:0': quantization: zero point 128 is outside int8's range"},
      {"LayoutOfNonFloat",
       [](json& j) { Module(j)["parameters"]["tensors"][0]["layout"] = "gemm_f32_panels8"; },
       at + "parameter 'w0': layout gemm_f32_panels8 holds float32 tensors, not int8"},
      {"PlanBufferOutsideWorkspace",
       [](json& j) { Module(j)["memory"]["plan"][2]["offset"] = 192; },
       at + "memory.plan[2] 'fused_dense_relu_0': bytes 192 to 320 lie outside the workspace of 256 bytes"},
      {"PlanOperatorsOutOfRange",
       [](json& j) { Module(j)["memory"]["plan"][0]["last_operator"] = 2; },
       at + "memory.plan[0] 'concat_out': operators 0 to 2 are not a range of the module's 2 operators"},
      {"PlanOperatorsBackwards",
       [](json& j) { Module(j)["memory"]["plan"][0]["first_operator"] = 1; Module(j)["memory"]["plan"][0]["last_operator"] = 0; },
       at + "memory.plan[0] 'concat_out': operators 1 to 0 are not a range of the module's 2 operators"},
      {"InsideNoPlannedValue",
       [](json& j) { Module(j)["memory"]["plan"][1]["inside"] = "elsewhere"; },
       at + "memory.plan[1] 'branch': is not a value inside the planned value 'elsewhere'"},
      {"InsideButOutOfItsBytes",
       [](json& j) { Module(j)["memory"]["plan"][1]["offset"] = 96; },
       at + "memory.plan[1] 'branch': is not a value inside the planned value 'concat_out'"},
      {"PlanNameMustBePrintable",
       [](json& j) { Module(j)["memory"]["plan"][0]["name"] = "x\x1b[2J"; },
       at + "memory.plan buffer 0: name 'x\\x1b[2J' contains a control character (U+001B); names must "
            "be printable"},
      {"FixedShapeNamedTwice",
       [](json& j) { Module(j)["source"]["input_shapes"].push_back(Module(j)["source"]["input_shapes"][0]); },
       at + "source.input_shapes names 'input:0' twice"},
      {"ConstantNameMustBePrintable",
       [](json& j) { Module(j)["source"]["constants"][0]["name"] = "s\x7f"; },
       at + "source.constants entry 0: name 's\\x7f' contains a control character (U+007F); names must "
            "be printable"},
      {"VariantsWithoutPortable",
       [](json& j) { Module(j)["kernels"]["variants"] = {"avx2"}; },
       at + "kernels.variants does not list \"portable\" (every build can compile it)"},
  };
}

class MetadataV9RefusalTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(MetadataV9RefusalTest, NamesTheField) {
  json j = VersionNine();
  GetParam().edit(j);
  const Status s = ParseMetadata(j.dump()).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(MetadataV9, MetadataV9RefusalTest, ::testing::ValuesIn(Refusals()),
                         [](const ::testing::TestParamInfo<Refusal>& info) { return info.param.name; });

}  // namespace
}  // namespace mlf
