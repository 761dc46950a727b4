// int8 models as a user meets them (issue 14): a CNN quantized by PyTorch the
// usual way (eager-mode static quantization, qnnpack, exported by
// torch.onnx.export at opset 13: QuantizeLinear/DequantizeLinear around float
// Conv, Relu, MaxPool and Gemm) goes through `mlf export` and `mlf run`, and
// its output is compared with PyTorch's own int8 result
// (tests/int8_fixtures/export_quantized_cnn.py).
//
// How close: by default the QDQ lowering (codegen/passes/qdq_lowering.h)
// turns DQ -> Conv -> Relu -> Q and DQ -> Gemm -> Q into QLinearConv nodes
// that the int8 kernel (gemm_s8) runs with int32 sums and TFLite's
// fixed-point requantization, and the Q/DQ pairs around MaxPool and Reshape
// cancel; PyTorch's qnnpack requantizes with a float multiplier. Both round
// the same exact integer sums times the same real multiplier, so they can
// differ only where a value lies within the multiplier's rounding error of a
// rounding tie: then by one step of that layer. The test requires every
// output within one step of the output's quantization and almost all exactly
// equal (measured: 40 of 40 with the lowering, 40 of 40 with --no-optimize,
// the float path of step 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_tensors.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

using testing::Float32Npy;
using testing::Runfile;

// Exports the fixture (with `flags`), runs it, and checks the output against
// PyTorch's; returns the archive's path.
std::string ExportAndCompare(const std::string& dir, const std::vector<std::string>& flags) {
  const std::string fixtures = "tests/int8_fixtures/quantized_cnn";
  const std::string archive = dir + "/cnn.tar";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile(fixtures + ".onnx"), "-o", archive};
  argv.insert(argv.end(), flags.begin(), flags.end());
  CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << Describe(argv, r);
  EXPECT_NE(r.out.find("wrote " + archive), std::string::npos) << r.out;

  argv = {MlfBinary(), "run", archive, "--input", "input=" + Runfile(fixtures + "_input.npy"), "--output-dir",
          dir + "/out"};
  r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << Describe(argv, r);

  const std::vector<float> got = Float32Npy(dir + "/out/output.npy");
  const std::vector<float> want = Float32Npy(Runfile(fixtures + "_expected.npy"));
  const double step = std::strtod(ReadFile(Runfile(fixtures + "_step.txt")).c_str(), nullptr);
  EXPECT_GT(step, 0);
  EXPECT_EQ(got.size(), 40u);  // 4 images x 10 classes
  EXPECT_EQ(got.size(), want.size());
  size_t exact = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double steps = std::fabs(static_cast<double>(got[i]) - want[i]) / step;
    // 1e-3: the dequantized values are float32 products, off the grid by an ulp.
    EXPECT_LE(steps, 1 + 1e-3) << "output element " << i << ": mlfkit " << got[i] << ", PyTorch " << want[i];
    if (steps < 1e-3) ++exact;
  }
  ::testing::Test::RecordProperty("exact_elements", static_cast<int>(exact));
  EXPECT_GE(exact, got.size() * 9 / 10) << "only " << exact << " of " << got.size() << " elements equal PyTorch's";
  return archive;
}

// The module's generated C, unpacked.
std::string GeneratedCode(const std::string& archive, const std::string& dir) {
  const std::vector<std::string> argv = {MlfBinary(), "unpack", archive, "-o", dir};
  const CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << Describe(argv, r);
  return ReadFile(dir + "/codegen/host/src/default_lib0.c");
}

TEST(Int8Cli, PyTorchQuantizedCnnRunsLikePyTorchOnTheInt8Kernel) {
  const std::string dir = FreshDir("int8_cnn");
  const std::string archive = ExportAndCompare(dir, {});
  const std::string code = GeneratedCode(archive, dir + "/unpacked");
  // The conv and the linear layer run through the int8 kernel; the float
  // Conv and Gemm are gone.
  EXPECT_NE(code.find("#include \"mlf_kernel_gemm_s8.h\""), std::string::npos) << code;
  size_t calls = 0;
  for (size_t at = code.find("mlfk_conv_s8_exec("); at != std::string::npos; at = code.find("mlfk_conv_s8_exec(", at + 1)) {
    ++calls;
  }
  EXPECT_EQ(calls, 1u) << code;  // the Conv
  EXPECT_NE(code.find("mlfk_gemm_s8_exec("), std::string::npos) << code;  // the Gemm, over the 4 images
  EXPECT_EQ(code.find("_conv("), std::string::npos) << code;
  EXPECT_EQ(code.find("_gemm("), std::string::npos) << code;
}

TEST(Int8Cli, PyTorchQuantizedCnnRunsLikePyTorchInFloatWithoutOptimizing) {
  const std::string dir = FreshDir("int8_cnn_float");
  const std::string archive = ExportAndCompare(dir, {"--no-optimize"});
  const std::string code = GeneratedCode(archive, dir + "/unpacked");
  EXPECT_EQ(code.find("mlf_kernel_gemm_s8.h"), std::string::npos) << code;
}

}  // namespace
}  // namespace mlf
