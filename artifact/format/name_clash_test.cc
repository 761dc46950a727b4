#include "artifact/format/name_clash.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/format/c_name.h"

namespace mlf {
namespace {

TensorInfo Tensor(const std::string& name) {
  TensorInfo t;
  t.name = name;
  t.c_name = SanitizeCName(name);
  t.dtype = DType::kFloat32;
  t.shape = {1};
  t.size_bytes = 4;
  return t;
}

ModuleMetadata Module(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  ModuleMetadata m;
  for (const std::string& n : inputs) m.inputs.push_back(Tensor(n));
  for (const std::string& n : outputs) m.outputs.push_back(Tensor(n));
  return m;
}

// The message CheckGeneratedNames gives for `md` ("" when it accepts it).
std::string Check(const Metadata& md) {
  Status s = CheckGeneratedNames(md);
  if (s.ok()) return "";
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  return s.message();
}

std::string CheckOne(const ModuleMetadata& m, const std::string& module = "default") {
  Metadata md;
  md.modules[module] = m;
  const std::string whole = Check(md);
  // The single-module form applies the same rule with the same words.
  Status one = CheckGeneratedNames(module, m);
  EXPECT_EQ(one.ok() ? "" : one.message(), whole);
  return whole;
}

constexpr char kCaseNote[] =
    " (their C names differ only in case, so on a case-insensitive file system their files would "
    "collide too)";

TEST(NameClashTest, AcceptsDistinctNames) {
  Metadata md;
  md.modules["default"] = Module({"serving_default_input_1:0", "/Relu_output_0", "Int", "null"},
                                 {"y", "workspace_0", "INT8", "_x", "constant"});
  md.modules["second"] = Module({"x"}, {"y"});
  EXPECT_EQ(Check(md), "");
}

TEST(NameClashTest, ModulesWithOneCName) {
  Metadata md;
  md.modules["a-b"] = Module({"x"}, {"y"});
  md.modules["a_b"] = Module({"x"}, {"y"});
  EXPECT_EQ(Check(md), "modules 'a-b' and 'a_b' both map to the C name 'a_b'");
  EXPECT_EQ(CheckModuleNameClashes({"a_b", "a.b"}).message(),
            "modules 'a_b' and 'a.b' both map to the C name 'a_b'");
  EXPECT_TRUE(CheckModuleNameClashes({"a_b", "a_c"}).ok());
}

// A module's C name becomes file names (tvmgen_<c>.h): 300 bytes would fail
// only when the first file is written, naming a temporary path.
TEST(NameClashTest, ModuleNamesAreAtMost200Bytes) {
  EXPECT_TRUE(CheckModuleNameClashes({std::string(200, 'a')}).ok());
  EXPECT_EQ(CheckModuleNameClashes({std::string(300, 'a')}).message(),
            "module '" + std::string(40, 'a') +
                "...' has a name of 300 bytes; module names become file names and may be at "
                "most 200 bytes");
  Metadata md;
  md.modules[std::string(201, 'm')] = Module({"x"}, {"y"});
  EXPECT_EQ(Check(md), "module '" + std::string(40, 'm') +
                           "...' has a name of 201 bytes; module names become file names and may "
                           "be at most 200 bytes");
}

TEST(NameClashTest, ModulesThatDifferOnlyInCase) {
  Metadata md;
  md.modules["a"] = Module({"x"}, {"y"});
  md.modules["A"] = Module({"x"}, {"y"});
  EXPECT_EQ(Check(md), std::string("modules 'A' and 'a' both give the header guard TVMGEN_A_H_") +
                           kCaseNote);
}

TEST(NameClashTest, TensorsThatDifferOnlyInCase) {
  EXPECT_EQ(CheckOne(Module({"x"}, {"Y", "y"})),
            std::string("module 'default': output 'Y' and output 'y' both give the macro "
                        "TVMGEN_DEFAULT_Y_SIZE") + kCaseNote);
  EXPECT_EQ(CheckOne(Module({"Data"}, {"data:0", "DATA_0"}), "m"),
            std::string("module 'm': output 'data:0' and output 'DATA_0' both give the macro "
                        "TVMGEN_M_DATA_0_SIZE") + kCaseNote);
}

TEST(NameClashTest, TensorsWithOneCName) {
  EXPECT_EQ(CheckOne(Module({"a-b"}, {"a_b"}), "m"),
            "module 'm': input 'a-b' and output 'a_b' both map to the C name 'a_b'");
  EXPECT_EQ(CheckOne(Module({"x"}, {"x"}), "m"),
            "module 'm': input 'x' and output 'x' both map to the C name 'x'");
  EXPECT_EQ(CheckOne(Module({}, {"y", "y"}), "m"), "module 'm': output 'y' is listed twice");
}

TEST(NameClashTest, TensorsThatTakeAnInterfaceMacro) {
  EXPECT_EQ(CheckOne(Module({"x"}, {"workspace"})),
            "module 'default': output 'workspace' gives the macro TVMGEN_DEFAULT_WORKSPACE_SIZE, "
            "which the C interface of module 'default' defines as its workspace size");
  EXPECT_EQ(CheckOne(Module({"Constants"}, {"y"}), "net"),
            "module 'net': input 'Constants' gives the macro TVMGEN_NET_CONSTANTS_SIZE, which the "
            "C interface of module 'net' defines as its parameter blob size");
}

TEST(NameClashTest, MacrosAcrossModules) {
  // main.c of a firmware project includes every module's header.
  Metadata md;
  md.modules["a"] = Module({"x"}, {"b_x"});
  md.modules["a_b"] = Module({"x"}, {"y"});
  EXPECT_EQ(Check(md),
            "output 'b_x' of module 'a' and input 'x' of module 'a_b' both give the macro "
            "TVMGEN_A_B_X_SIZE");
  md.modules["a"] = Module({"x"}, {"b_workspace"});
  EXPECT_EQ(Check(md),
            "module 'a': output 'b_workspace' gives the macro TVMGEN_A_B_WORKSPACE_SIZE, which "
            "the C interface of module 'a_b' defines as its workspace size");
}

TEST(NameClashTest, ReservedCNames) {
  const std::string keyword = "is a C keyword";
  const std::string macro = "is a macro of the C headers the generated code includes";
  for (const char* name : {"int", "restrict", "auto", "inline", "_Bool", "_Complex", "_Atomic",
                           "_Generic", "_Thread_local", "bool", "true", "typeof", "nullptr",
                           "_BitInt"}) {
    EXPECT_EQ(ReservedCNameReason(name), keyword) << name;
  }
  for (const char* name : {"NULL", "INT8_MAX", "UINT64_MAX", "INT_LEAST16_MIN", "UINT_FAST32_MAX",
                           "INTPTR_MIN", "UINTMAX_MAX", "SIZE_MAX", "INT32_WIDTH", "NAN",
                           "INFINITY", "HUGE_VAL", "M_PI", "linux", "unix"}) {
    EXPECT_EQ(ReservedCNameReason(name), macro) << name;
  }
  EXPECT_EQ(ReservedCNameReason("__x86_64__"), "begins with '__', which C reserves for the compiler");
  EXPECT_EQ(ReservedCNameReason("TVMGEN_DEFAULT_X_SIZE"),
            "begins with TVMGEN_, the prefix of the generated code's macros");
  EXPECT_EQ(ReservedCNameReason("MLF_ABI_VERSION"),
            "begins with MLF_, the prefix of the generated code's macros");
  for (const char* name : {"x", "Int", "INT8", "INT8_MAXIMUM", "int8_max", "_Relu_0", "_x", "mlf_x",
                           "tvmgen_x", "nan", "null", "Linux", "_"}) {
    EXPECT_EQ(ReservedCNameReason(name), "") << name;
  }
  EXPECT_EQ(CheckOne(Module({"int"}, {"y"})),
            "module 'default': input 'int' has the C name 'int', which is a C keyword");
  EXPECT_EQ(CheckOne(Module({"x"}, {"restrict"})),
            "module 'default': output 'restrict' has the C name 'restrict', which is a C keyword");
  EXPECT_EQ(CheckOne(Module({"x"}, {"NULL"})),
            "module 'default': output 'NULL' has the C name 'NULL', which " + macro);
}

TEST(NameClashTest, NamesInMessagesAreEscapedForTheTerminal) {
  Metadata md;
  md.modules["a\nb"] = Module({"x"}, {"y"});
  md.modules["a\x7f" "b"] = Module({"x"}, {"y"});
  EXPECT_EQ(Check(md), "modules 'a\\x0ab' and 'a\\x7fb' both map to the C name 'a_b'");
  EXPECT_EQ(CheckOne(Module({"x"}, {"y\x1b", "y\r"})),
            "module 'default': output 'y\\x1b' and output 'y\\x0d' both map to the C name 'y_'");
  EXPECT_EQ(CheckOne(Module({"x"}, {"y\xe2\x80\xae", "y___"})),
            "module 'default': output 'y\\u{202E}' and output 'y___' both map to the C name 'y___'");
}

}  // namespace
}  // namespace mlf
