// LeNet-5 (bench/models, exported by PyTorch with random weights) as
// firmware on the Cortex-M4F of mps2-an386 under QEMU, through the CLI as a
// user runs it (issue 13's firmware check beside tiny_cnn and mnist_mlp of
// firmware_build_test): `mlf export`, `mlf run` on the host, then `mlf project
// --platform mps2-an386 --sample-input ... --run`; the firmware's printed
// outputs match the host's within float rounding (the host library may
// take the AVX kernels, firmware the portable C).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "tests/printed_output.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kLeNet5[] = "bench/models/lenet5.onnx";

TEST(FirmwareLeNet5Test, RunsOnMps2An386AndMatchesTheHost) {
  const std::string dir = FreshDir("firmware_lenet5");
  const std::string archive = dir + "/lenet5.tar";
  CommandResult r = RunCommand({MlfBinary(), "export", kLeNet5, "-o", archive});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  NpyArray input;
  input.dtype = DType::kFloat32;
  input.shape = {1, 1, 32, 32};
  std::vector<float> x(32 * 32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.11 * i) * 0.8);
  input.data.assign(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
  ASSERT_TRUE(WriteNpyFile(dir + "/x.npy", input).ok());

  r = RunCommand({MlfBinary(), "run", archive, "--input", "input=" + dir + "/x.npy", "--output-dir",
                  dir + "/host"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Result<NpyArray> host = ReadNpyFile(dir + "/host/output.npy");
  ASSERT_TRUE(host.ok()) << host.status().ToString();
  ASSERT_EQ(host->shape, (std::vector<int64_t>{1, 10}));
  const float* want = reinterpret_cast<const float*>(host->data.data());

  r = RunCommand({MlfBinary(), "project", archive, "-o", dir + "/project", "--platform", "mps2-an386",
                  "--sample-input", "input=" + dir + "/x.npy", "--run"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::vector<double> got = PrintedOutput(r.out, "output");
  ASSERT_EQ(got.size(), 10u) << r.out;
  bool nonzero = false;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), 1e-5 * std::max(1.0, std::fabs(static_cast<double>(want[i]))))
        << "output[" << i << "]: firmware " << got[i] << ", host " << want[i];
    nonzero = nonzero || want[i] != 0.0f;
  }
  EXPECT_TRUE(nonzero) << "a degenerate model: every logit is 0";
}

}  // namespace
}  // namespace mlf
