// int8 models as a user meets them (issue 14, first step): a CNN quantized by
// PyTorch the usual way (eager-mode static quantization, qnnpack, exported by
// torch.onnx.export at opset 13: QuantizeLinear/DequantizeLinear around float
// Conv, Relu, MaxPool and Gemm) goes through `mlf export` and `mlf run`, and
// its output is compared with PyTorch's own int8 result
// (tests/int8_fixtures/export_quantized_cnn.py).
//
// How close: mlfkit runs the float operators between DequantizeLinear and
// QuantizeLinear in float32 (the lowering to integer kernels comes later),
// PyTorch in int32 with requantization. Both round the same real values to the
// same grid, and the float path's rounding error is far below half a step, so
// they can differ only where a value lies within float error of a rounding
// tie: then by one step of that layer. The test requires every output within
// one step of the output's quantization and almost all exactly equal (today:
// all 40).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/" + path;
}

std::vector<float> Floats(const std::string& path) {
  Result<NpyArray> a = ParseNpy(ReadFile(path));
  EXPECT_TRUE(a.ok()) << path << ": " << a.status().ToString();
  if (!a.ok()) return {};
  EXPECT_EQ(a->dtype, DType::kFloat32) << path;
  std::vector<float> v(a->data.size() / sizeof(float));
  std::memcpy(v.data(), a->data.data(), v.size() * sizeof(float));
  return v;
}

TEST(Int8Cli, PyTorchQuantizedCnnRunsLikePyTorch) {
  const std::string fixtures = "tests/int8_fixtures/quantized_cnn";
  const std::string dir = FreshDir("int8_cnn");
  const std::string archive = dir + "/cnn.tar";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile(fixtures + ".onnx"), "-o", archive};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  EXPECT_NE(r.out.find("wrote " + archive), std::string::npos) << r.out;

  argv = {MlfBinary(), "run", archive, "--input", "input=" + Runfile(fixtures + "_input.npy"), "--output-dir",
          dir + "/out"};
  r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);

  const std::vector<float> got = Floats(dir + "/out/output.npy");
  const std::vector<float> want = Floats(Runfile(fixtures + "_expected.npy"));
  const double step = std::strtod(ReadFile(Runfile(fixtures + "_step.txt")).c_str(), nullptr);
  ASSERT_GT(step, 0);
  ASSERT_EQ(got.size(), 40u);  // 4 images x 10 classes
  ASSERT_EQ(got.size(), want.size());
  size_t exact = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double steps = std::fabs(static_cast<double>(got[i]) - want[i]) / step;
    // 1e-3: the dequantized values are float32 products, off the grid by an ulp.
    EXPECT_LE(steps, 1 + 1e-3) << "output element " << i << ": mlfkit " << got[i] << ", PyTorch " << want[i];
    if (steps < 1e-3) ++exact;
  }
  ::testing::Test::RecordProperty("exact_elements", static_cast<int>(exact));
  EXPECT_GE(exact, got.size() * 9 / 10) << "only " << exact << " of " << got.size() << " elements equal PyTorch's";
}

}  // namespace
}  // namespace mlf
