#include "tvm/format/tvm_code.h"

#include <gtest/gtest.h>

namespace mlf {
namespace {

using Params = std::vector<CodeParam>;

TEST(ScanTvmCodeTest, RecordsTheParameterListsOfDefinitions) {
  const TvmCodeScan scan = ScanTvmCode(
      "TVM_DLL int32_t tvmgen_m_run_model(void* arg0,void *  arg1);\n"
      "int32_t tvmgen_m_run(void* args, void* type_code, int num_args, void* out_value,\n"
      "                     void* out_type_code, void* resource_handle) {\n"
      "  return tvmgen_m_run_model(0, 0);\n}\n"
      "int32_t tvmgen_m_op(struct tvmgen_m_inputs * inputs, const float* w, int32_t n) { return 0; }\n"
      "int32_t tvmgen_m_none(void) { return 0; }\n");
  EXPECT_EQ(scan.defined_functions,
            (std::set<std::string>{"tvmgen_m_run", "tvmgen_m_op", "tvmgen_m_none"}));
  EXPECT_EQ(scan.function_params.at("tvmgen_m_run"),
            (Params{{"void*", "args"}, {"void*", "type_code"}, {"int", "num_args"},
                    {"void*", "out_value"}, {"void*", "out_type_code"},
                    {"void*", "resource_handle"}}));
  EXPECT_EQ(scan.function_params.at("tvmgen_m_op"),
            (Params{{"struct tvmgen_m_inputs*", "inputs"}, {"const float*", "w"},
                    {"int32_t", "n"}}));
  EXPECT_EQ(scan.function_params.at("tvmgen_m_none"), Params{});
  // A declaration is not a definition.
  EXPECT_EQ(scan.function_params.count("tvmgen_m_run_model"), 0u);
}

TEST(ScanTvmCodeTest, KeepsCallsAliasesAndCastsOfBodies) {
  const TvmCodeScan scan = ScanTvmCode(
      "int32_t tvmgen_m_op(void* arg0, void* arg1) {\n"
      "  void* T_add = arg1;\n"
      "  ((int8_t*)T_add)[0] = ((int8_t*)arg0)[0];\n  return 0;\n}\n"
      "int32_t tvmgen_m_run_model(void* arg0, void* arg1) {\n"
      "  void* input = arg0;\n  void* output = arg1;\n"
      "  (void)tvmgen_m_op(input, output);\n"
      "  (void)tvmgen_m_op(input + 1, output);\n  return 0;\n}\n");
  const CodeEntryBody& entry = scan.entry_bodies.at("tvmgen_m_run_model");
  ASSERT_EQ(entry.calls.size(), 2u);
  EXPECT_EQ(entry.calls[0].callee, "tvmgen_m_op");
  EXPECT_EQ(entry.calls[0].args, (std::vector<std::string>{"input", "output"}));
  EXPECT_EQ(entry.calls[1].args, (std::vector<std::string>{"", "output"}));
  EXPECT_EQ(entry.aliases, (std::map<std::string, std::string>{{"input", "arg0"}, {"output", "arg1"}}));
  const CodeEntryBody& op = scan.entry_bodies.at("tvmgen_m_op");
  EXPECT_TRUE(op.calls.empty());  // kept for entry functions only
  EXPECT_EQ(op.casts, (std::map<std::string, std::string>{{"T_add", "int8_t"}, {"arg0", "int8_t"}}));
}

TEST(ScanTvmCodeTest, LinkedParameters) {
  EXPECT_EQ(ScanTvmCode("static const float __tvm_param__p3[1] = {1};\n").linked_params,
            "defines __tvm_param__p3");
  EXPECT_EQ(ScanTvmCode("static struct global_const_workspace { int8_t a[4]; } "
                        "global_const_workspace = {{0}};\n")
                .linked_params,
            "defines the constant pool global_const_workspace");
  EXPECT_EQ(ScanTvmCode("static const float __attribute__((section(\".rodata.tvm\"), aligned(16))) "
                        "fused_constant[1] = {1};\n")
                .linked_params,
            "keeps constants in section .rodata.tvm");
  // A use inside a function is not a definition.
  EXPECT_EQ(ScanTvmCode("int f(void) { return g(__tvm_param__p0); }\n").linked_params, "");
}

TEST(DTypeOfCTypeTest, TvmsElementTypes) {
  EXPECT_EQ(DTypeOfCType("float"), "float32");
  EXPECT_EQ(DTypeOfCType("const float"), "float32");
  EXPECT_EQ(DTypeOfCType("int8_t"), "int8");
  EXPECT_EQ(DTypeOfCType("uint8_t"), "uint8");
  EXPECT_EQ(DTypeOfCType("int32_t"), "int32");
  EXPECT_EQ(DTypeOfCType("void"), "");
  EXPECT_EQ(DTypeOfCType("struct x"), "");
}

}  // namespace
}  // namespace mlf
