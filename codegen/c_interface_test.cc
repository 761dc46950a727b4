#include "codegen/c_interface.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "artifact/format/dtype.h"

namespace mlf {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ModuleMetadata Example() {
  ModuleMetadata m;
  m.model_name = "my-model";
  m.inputs = {{"serving_default_input_1:0", "serving_default_input_1_0", DType::kFloat32, {1, 28, 28, 1}, 3136, true, std::nullopt},
              {"mask", "mask", DType::kBool, {4}, 4, true, std::nullopt}};
  m.outputs = {{"out/*x*/", "out___x___", DType::kInt64, {2}, 16, true, std::nullopt}};
  m.memory.workspace_size_bytes = 1024;
  m.memory.constants_size_bytes = 128;
  m.parameters = ParametersInfo{ParamStorage::kFile, "parameters/my_model.bin", {}};
  return m;
}

// Compares with a golden file; `MLF_UPDATE_GOLDEN=1 bazel run
// //codegen:c_interface_test` rewrites the golden files in the workspace.
void ExpectGolden(const std::string& text, const std::string& path) {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace != nullptr && std::getenv("MLF_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(std::string(workspace) + "/" + path) << text;
    return;
  }
  EXPECT_EQ(text, ReadFile(path)) << "golden file " << path;
}

// The header is a contract with firmware code: its exact text is checked.
TEST(CInterfaceTest, HeaderMatchesTheGoldenFile) {
  auto header = EmitInterfaceHeader("my-model", Example());
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  ExpectGolden(*header, "codegen/testdata/tvmgen_my_model.h");
}

TEST(CInterfaceTest, MetadataSourceMatchesTheGoldenFile) {
  auto source = EmitMetadataSource("my-model", Example());
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  ExpectGolden(*source, "codegen/testdata/my_model_metadata.c");
}

TEST(CInterfaceTest, ModelsWithoutInputsStillGetValidStructs) {
  ModuleMetadata m = Example();
  m.inputs.clear();
  auto header = EmitInterfaceHeader("m", m);
  ASSERT_TRUE(header.ok());
  EXPECT_NE(header->find("struct tvmgen_m_inputs {\n  void* unused_;\n};"), std::string::npos);
}

TEST(CInterfaceTest, UnknownDtypeIsAnError) {
  ModuleMetadata m = Example();
  m.inputs[0].dtype = DTypeValue::Read("complex64");
  auto source = EmitMetadataSource("m", m);
  ASSERT_FALSE(source.ok());
}

}  // namespace
}  // namespace mlf
