// Issue 14's must-show models on the host: networks quantized by PyTorch the
// way its users do it (eager-mode static quantization, random weights,
// calibrated on random data, torch.onnx.export at opset 13: QDQ), through
// `mlf export` and `mlf run`, against PyTorch's own int8 result on the same
// input with tests/int8_agreement.h's criterion (>= 99% of the output within
// 2 quantization steps, none beyond 4, the same argmax wherever PyTorch's
// top-2 margin exceeds 2 steps). The fixtures are tests/int8_fixtures/'s.
// tests/int8_firmware_test.cc runs the same models on mps2-an386 under QEMU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "tests/int8_agreement.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"

namespace mlf {
namespace {

using testing::Float32Npy;
using testing::Runfile;

struct Case {
  std::string name;     // the test's name
  std::string fixture;  // tests/int8_fixtures/<fixture>{_input.npy,_expected.npy,_step.txt}
  std::string model;    // tests/int8_fixtures/<model>.onnx
  size_t classes;       // output row length (argmax per row)
};

// gtest names the case by its name on failure.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Int8PyTorchModelsTest : public ::testing::TestWithParam<Case> {};

TEST_P(Int8PyTorchModelsTest, AgreesWithPyTorchsInt8Result) {
  const Case& c = GetParam();
  const std::string prefix = "tests/int8_fixtures/" + c.fixture;
  const std::string dir = FreshDir("int8_" + c.name);
  const std::string archive = dir + "/model.tar";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile("tests/int8_fixtures/" + c.model + ".onnx"), "-o", archive};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  argv = {MlfBinary(), "run", archive, "--input", "input=" + Runfile(prefix + "_input.npy"), "--output-dir",
          dir + "/out"};
  r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);

  const std::vector<float> got = Float32Npy(dir + "/out/output.npy");
  const std::vector<float> want = Float32Npy(Runfile(prefix + "_expected.npy"));
  const double step = std::strtod(ReadFile(Runfile(prefix + "_step.txt")).c_str(), nullptr);
  std::string error;
  const testing::Int8Agreement a =
      testing::CompareInt8({got.begin(), got.end()}, {want.begin(), want.end()}, step, c.classes, &error);
  ASSERT_EQ(error, "");
  EXPECT_TRUE(a.Passes()) << c.name << ": " << a.Summary();
  EXPECT_GT(a.decisive_rows, 0u) << "no row to check the argmax on";
  std::printf("host | %s | %s\n", c.name.c_str(), a.Summary().c_str());
}

INSTANTIATE_TEST_SUITE_P(Models, Int8PyTorchModelsTest,
                         ::testing::Values(Case{"lenet5_onednn_per_channel", "quantized_lenet5", "quantized_lenet5", 10},
                                           Case{"ds_cnn_qnnpack", "ds_cnn", "ds_cnn_int8", 12}),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace mlf
