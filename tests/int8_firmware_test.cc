// Issue 14's must-show models on a microcontroller: the PyTorch-quantized
// networks of tests/int8_pytorch_models_test.cc as firmware for mps2-an386
// (Cortex-M4F) under QEMU, through `mlf project --board mps2-an386
// --sample-input ... --run --json` as a user runs it, their printed outputs
// against PyTorch's own int8 result with tests/int8_agreement.h's criterion.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/int8_agreement.h"
#include "tests/printed_output.h"
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
  std::string board;    // a built-in board's name, or a board file in the runfiles
};

// gtest names the case by its name on failure.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Int8FirmwareTest : public ::testing::TestWithParam<Case> {};

TEST_P(Int8FirmwareTest, AgreesWithPyTorchsInt8ResultUnderQemu) {
  const Case& c = GetParam();
  const std::string prefix = "tests/int8_fixtures/" + c.fixture;
  const std::string dir = FreshDir("int8_firmware_" + c.name);
  const std::string archive = dir + "/model.tar";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile("tests/int8_fixtures/" + c.model + ".onnx"), "-o", archive};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  argv = {MlfBinary(), "project", archive, "-o", dir + "/project", "--board", c.board,
          "--sample-input", "input=" + Runfile(prefix + "_input.npy"), "--run", "--json"};
  r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  const nlohmann::json& run = report.at("run");
  ASSERT_EQ(run.at("exit_status"), 0) << run;

  const std::vector<double> got = PrintedOutput(run.at("output").get<std::string>(), "output");
  const std::vector<float> want = Float32Npy(Runfile(prefix + "_expected.npy"));
  const double step = std::strtod(ReadFile(Runfile(prefix + "_step.txt")).c_str(), nullptr);
  std::string error;
  const testing::Int8Agreement a = testing::CompareInt8(got, {want.begin(), want.end()}, step, c.classes, &error);
  ASSERT_EQ(error, "") << run.at("output");
  EXPECT_TRUE(a.Passes()) << c.name << ": " << a.Summary();
  EXPECT_GT(a.decisive_rows, 0u) << "no row to check the argmax on";
  const uint64_t instructions = run.at("instructions").at(0).at("instructions");
  std::printf("%s | %s | %s | %llu instructions\n", c.board.c_str(), c.name.c_str(), a.Summary().c_str(),
              static_cast<unsigned long long>(instructions));
}

INSTANTIATE_TEST_SUITE_P(
    Models, Int8FirmwareTest,
    ::testing::Values(Case{"lenet5_onednn_per_channel", "quantized_lenet5", "quantized_lenet5", 10, "mps2-an386"},
                                           Case{"ds_cnn_qnnpack", "ds_cnn", "ds_cnn_int8", 12, "mps2-an386"}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace mlf
