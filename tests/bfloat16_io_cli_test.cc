// bfloat16 tensors through `mlf run`: .npy has no bfloat16, so they travel as
// their uint16 bit patterns (as ONNX's test data holds them): an input file of
// uint16 feeds a bfloat16 input, a bfloat16 output is written as uint16, and
// --expect-dir takes uint16 files for it.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"

namespace mlf {
namespace {

using testing::NpyOf;

// x (bfloat16 [3]) -> y = Cast(x) to float32, z = Identity(x).
constexpr const char* kModel = R"(mlf_model: 1
name: bf16_io
inputs:
  - {name: x, dtype: bfloat16, shape: [3]}
nodes:
  - {op: Cast, inputs: [x], outputs: [y], attrs: {to: 1}}
  - {op: Identity, inputs: [x], outputs: [z]}
outputs: [y, z]
)";

// 1.0, -2.5 and 0.15625 in bfloat16 (exact in it).
const std::vector<uint16_t> kBits = {0x3F80, 0xC020, 0x3E20};
const std::vector<float> kFloats = {1.0f, -2.5f, 0.15625f};

class Bfloat16IoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir("bfloat16_io");
    WriteFile(dir_ + "/model.yaml", kModel);
    ASSERT_TRUE(WriteNpyFile(dir_ + "/x.npy", NpyOf(DType::kUInt16, {3}, kBits)).ok());
    CommandResult r = Mlf({"export", dir_ + "/model.yaml", "-o", dir_ + "/m.tar"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  CommandResult Mlf(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {MlfBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions options;
    options.env.push_back({"MLF_CACHE_DIR", dir_ + "/cache"});
    return RunCommand(argv, options);
  }

  std::string dir_;
};

TEST_F(Bfloat16IoTest, Uint16FileFeedsABfloat16InputAndOutputsComeBackAsBitPatterns) {
  CommandResult r = Mlf({"run", dir_ + "/m.tar", "--input", "x=" + dir_ + "/x.npy",
                         "--output-dir", dir_ + "/out", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["outputs"][0]["dtype"], "float32");
  EXPECT_EQ(report["outputs"][1]["dtype"], "bfloat16");
  // The summary is of the values, not of the bit patterns.
  EXPECT_EQ(report["outputs"][1]["min"], -2.5);
  EXPECT_EQ(report["outputs"][1]["max"], 1.0);

  Result<NpyArray> y = ReadNpyFile(dir_ + "/out/y.npy");
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->data, std::string(reinterpret_cast<const char*>(kFloats.data()), 12));
  Result<NpyArray> z = ReadNpyFile(dir_ + "/out/z.npy");
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(z->dtype, DType::kUInt16);
  EXPECT_EQ(z->shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(z->data, std::string(reinterpret_cast<const char*>(kBits.data()), 6));
}

TEST_F(Bfloat16IoTest, ExpectDirComparesBfloat16OutputsAsValues) {
  ASSERT_EQ(Mlf({"run", dir_ + "/m.tar", "--input", "x=" + dir_ + "/x.npy", "--output-dir",
                 dir_ + "/want"}).exit_code, 0);
  CommandResult same = Mlf({"run", dir_ + "/m.tar", "--input", "x=" + dir_ + "/x.npy",
                            "--expect-dir", dir_ + "/want"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  // One bfloat16 step above 1.0 (0x3F81 = 1.0078125) in z: outside the
  // default tolerances, reported as the value, not the bit pattern.
  const std::vector<uint16_t> off = {0x3F81, 0xC020, 0x3E20};
  ASSERT_TRUE(WriteNpyFile(dir_ + "/want/z.npy", NpyOf(DType::kUInt16, {3}, off)).ok());
  CommandResult differs = Mlf({"run", dir_ + "/m.tar", "--input", "x=" + dir_ + "/x.npy",
                               "--expect-dir", dir_ + "/want", "--json"});
  EXPECT_EQ(differs.exit_code, 1) << differs.out << differs.err;
  const nlohmann::json report = nlohmann::json::parse(differs.out);
  EXPECT_EQ(report["outputs"][1]["comparison"]["mismatches"], 1) << differs.out;
  EXPECT_EQ(report["outputs"][1]["comparison"]["expected"], 1.0078125) << differs.out;
}

TEST_F(Bfloat16IoTest, AFloat32FileForABfloat16InputIsRefusedNamingBothDtypes) {
  ASSERT_TRUE(WriteNpyFile(dir_ + "/f.npy", NpyOf(DType::kFloat32, {3}, kFloats)).ok());
  CommandResult r = Mlf({"run", dir_ + "/m.tar", "--input", "x=" + dir_ + "/f.npy"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + dir_ + "/f.npy: input 'x': the .npy file holds float32, "
                   "the model expects bfloat16\n");
}

}  // namespace
}  // namespace mlf
