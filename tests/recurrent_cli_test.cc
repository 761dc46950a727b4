// Recurrent models as a user meets them (issue 15): a GRU and an LSTM
// sequence model of two layers (a bidirectional one, then a forward one) with
// random weights, exported by PyTorch at opset 17
// (tests/recurrent_fixtures/export_recurrent.py), go through `mlf export`
// and `mlf run`, and both outputs (the linear layer's on the last step, and
// the second layer's final hidden state) must match PyTorch's within rtol
// 1e-3 / atol 1e-4.
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

void ExpectMatches(const std::string& got_path, const std::string& want_path, const std::vector<int64_t>& shape) {
  std::vector<int64_t> got_shape, want_shape;
  const std::vector<float> got = Float32Npy(got_path, &got_shape), want = Float32Npy(want_path, &want_shape);
  EXPECT_EQ(want_shape, shape) << want_path;
  EXPECT_EQ(got_shape, want_shape) << got_path;
  ASSERT_EQ(got.size(), want.size()) << got_path;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), 1e-4 + 1e-3 * std::fabs(want[i]))
        << got_path << " element " << i << ": mlfkit " << got[i] << ", PyTorch " << want[i];
  }
}

void ExportRunAndCompare(const std::string& cell) {
  const std::string dir = FreshDir("recurrent_" + cell);
  const std::string fixture = "tests/recurrent_fixtures/" + cell;
  const std::string archive = dir + "/" + cell + ".tar";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile(fixture + ".onnx"), "-o", archive};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  argv = {MlfBinary(), "run", archive, "--input", "x=" + Runfile(fixture + "_input.npy"), "--output-dir", dir + "/out"};
  r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  ExpectMatches(dir + "/out/y.npy", Runfile(fixture + "_expected_y.npy"), {2, 4});
  ExpectMatches(dir + "/out/h.npy", Runfile(fixture + "_expected_h.npy"), {1, 2, 12});
}

TEST(RecurrentCli, PyTorchGruSequenceModelMatchesPyTorch) { ExportRunAndCompare("gru"); }

TEST(RecurrentCli, PyTorchLstmSequenceModelMatchesPyTorch) { ExportRunAndCompare("lstm"); }

}  // namespace
}  // namespace mlf
