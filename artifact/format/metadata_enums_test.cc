#include "artifact/format/metadata_enums.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace mlf {
namespace {

// Every value prints as its metadata spelling and parses back to itself;
// the spellings are checked literally, since metadata.json holds them.
template <typename E>
void ExpectRoundTrip(const std::vector<std::pair<E, std::string>>& table,
                     std::optional<E> (*parse)(std::string_view)) {
  for (const auto& [value, text] : table) {
    EXPECT_EQ(ToString(value), text);
    EXPECT_EQ(parse(text), value) << text;
  }
}

TEST(MetadataEnumsTest, ModuleStyleRoundTrips) {
  ExpectRoundTrip<ModuleStyle>(
      {{ModuleStyle::kFullModel, "full-model"}, {ModuleStyle::kOperator, "operator"}},
      ParseModuleStyle);
  EXPECT_EQ(ParseModuleStyle("full_model"), std::nullopt);
  EXPECT_EQ(ParseModuleStyle(""), std::nullopt);
}

TEST(MetadataEnumsTest, ExecutorRoundTrips) {
  ExpectRoundTrip<Executor>({{Executor::kAot, "aot"}, {Executor::kGraph, "graph"}}, ParseExecutor);
  EXPECT_EQ(ParseExecutor("AOT"), std::nullopt);
  // "unknown" is how kUnknown prints, not an executor's name.
  EXPECT_EQ(ParseExecutor("unknown"), std::nullopt);
  EXPECT_EQ(std::string(ToString(Executor::kUnknown)), "unknown");
}

TEST(MetadataEnumsTest, ReadExecutorKeepsUnknownText) {
  ExecutorValue graph = ReadExecutor("graph");
  EXPECT_TRUE(graph == Executor::kGraph);
  EXPECT_EQ(graph.text, "");
  EXPECT_EQ(ToString(graph), "graph");

  ExecutorValue vm = ReadExecutor("vm");
  EXPECT_TRUE(vm == Executor::kUnknown);
  EXPECT_TRUE(vm != Executor::kAot);
  EXPECT_EQ(vm.text, "vm");
  EXPECT_EQ(ToString(vm), "vm");

  ExecutorValue named_unknown = ReadExecutor("unknown");
  EXPECT_TRUE(named_unknown == Executor::kUnknown);
  EXPECT_EQ(ToString(named_unknown), "unknown");

  ExecutorValue aot = Executor::kAot;  // known values convert directly
  EXPECT_TRUE(aot == ReadExecutor("aot"));
  EXPECT_FALSE(vm == ReadExecutor("vm2"));
}

TEST(MetadataEnumsTest, InterfaceApiRoundTrips) {
  ExpectRoundTrip<InterfaceApi>({{InterfaceApi::kC, "c"}, {InterfaceApi::kPacked, "packed"}},
                                ParseInterfaceApi);
  EXPECT_EQ(ParseInterfaceApi("C"), std::nullopt);
  EXPECT_EQ(ParseInterfaceApi("unknown"), std::nullopt);

  InterfaceApiValue c = ReadInterfaceApi("c");
  EXPECT_TRUE(c == InterfaceApi::kC);
  EXPECT_EQ(ToString(c), "c");
  InterfaceApiValue odd = ReadInterfaceApi("c++");
  EXPECT_TRUE(odd == InterfaceApi::kUnknown);
  EXPECT_EQ(ToString(odd), "c++");
}

TEST(MetadataEnumsTest, ParamStorageRoundTrips) {
  ExpectRoundTrip<ParamStorage>({{ParamStorage::kLinked, "linked"},
                                 {ParamStorage::kFile, "file"},
                                 {ParamStorage::kTvmParams, "tvm-params"}},
                                ParseParamStorage);
  EXPECT_EQ(ParseParamStorage("params"), std::nullopt);
}

TEST(MetadataEnumsTest, SourceFormatRoundTrips) {
  ExpectRoundTrip<SourceFormat>({{SourceFormat::kOnnx, "onnx"},
                                 {SourceFormat::kYaml, "yaml"},
                                 {SourceFormat::kTvm, "tvm"},
                                 {SourceFormat::kC, "c"}},
                                ParseSourceFormat);
  EXPECT_EQ(ParseSourceFormat("tflite"), std::nullopt);
}

TEST(MetadataEnumsTest, PlanBufferKindRoundTrips) {
  ExpectRoundTrip<PlanBufferKind>({{PlanBufferKind::kValue, "value"}, {PlanBufferKind::kScratch, "scratch"}},
                                  ParsePlanBufferKind);
  EXPECT_EQ(ParsePlanBufferKind("constant"), std::nullopt);
}

TEST(MetadataEnumsTest, ShapesFromRoundTrips) {
  ExpectRoundTrip<ShapesFrom>(
      {{ShapesFrom::kNone, ""}, {ShapesFrom::kRelay, "relay"}, {ShapesFrom::kGraph, "graph"}},
      ParseShapesFrom);
  EXPECT_EQ(ParseShapesFrom("json"), std::nullopt);
}

}  // namespace
}  // namespace mlf
