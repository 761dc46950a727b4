// A QOperator model as ONNX Runtime's quantizer writes it (QLinearConv and
// the com.microsoft QLinearAdd, QLinearMul, QLinearSigmoid,
// QLinearLeakyRelu, QLinearAveragePool, QLinearConcat and
// QLinearGlobalAveragePool), written with the ONNX helper API
// (tests/int8_fixtures/export_qoperator_model.py), through `mlf export` and
// `mlf run`, against a NumPy reference of each operator's definition.
//
// The contrib operators become DequantizeLinear -> float operator ->
// QuantizeLinear (codegen/frontend/onnx_contrib.h), which is their
// definition, and the QDQ lowering then puts every one of them on integers
// (QLinearAdd, QLinearMul, QLinearLookup for Sigmoid and LeakyRelu,
// QLinearAveragePool, QLinearConcat); the QLinearConvs run on the int8
// kernel. Each layer may
// round differently from the reference only where a value sits within
// float rounding of a tie, so the test allows one step of the output's
// quantization and wants nearly every element exact. (ONNX Runtime 1.30
// itself, which uses lookup tables and fixed-point sums, is within one step
// of the reference on 32 of 32 elements and equal on 26.)
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

void ExportRunAndCompare(const std::string& dir, const std::vector<std::string>& flags) {
  const std::string fixture = "tests/int8_fixtures/qoperator_model";
  const std::string archive = dir + "/q.tar";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile(fixture + ".onnx"), "-o", archive};
  argv.insert(argv.end(), flags.begin(), flags.end());
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  argv = {MlfBinary(), "run", archive, "--input", "x=" + Runfile(fixture + "_input.npy"),
          "--output-dir", dir + "/out"};
  r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);

  const std::vector<float> got = Float32Npy(dir + "/out/y.npy");
  const std::vector<float> want = Float32Npy(Runfile(fixture + "_expected.npy"));
  const double step = std::strtod(ReadFile(Runfile(fixture + "_step.txt")).c_str(), nullptr);
  ASSERT_GT(step, 0);
  ASSERT_EQ(got.size(), 32u);  // 2 images x 16 channels
  ASSERT_EQ(got.size(), want.size());
  size_t exact = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double steps = std::fabs(static_cast<double>(got[i]) - want[i]) / step;
    EXPECT_LE(steps, 1 + 1e-3) << "element " << i << ": mlfkit " << got[i] << ", reference " << want[i];
    if (steps < 1e-3) ++exact;
  }
  ::testing::Test::RecordProperty("exact_elements", static_cast<int>(exact));
  // Measured: 30 of 32 with the lowering (the pools on integers, exact sums
  // and one rounding with ties to even; Q/DQ pairs of equal parameters
  // cancel), 29 of 32 with --no-optimize. 26 is how close ONNX Runtime
  // itself comes.
  EXPECT_GE(exact, 26u) << "only " << exact << " of 32 elements equal the reference";
}

TEST(QOperatorCli, ContribOperatorsRunLikeTheirDefinition) {
  ExportRunAndCompare(FreshDir("qoperator"), {});
}

TEST(QOperatorCli, ContribOperatorsRunLikeTheirDefinitionWithoutOptimizing) {
  ExportRunAndCompare(FreshDir("qoperator_float"), {"--no-optimize"});
}

}  // namespace
}  // namespace mlf
