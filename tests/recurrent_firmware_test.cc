// The PyTorch GRU sequence model of recurrent_cli_test (two layers, the
// first bidirectional) as firmware (issue 15): `mlf project --board
// mps2-an386 --sample-input ... --run` builds it for the Cortex-M4F and runs
// it under QEMU, and both outputs it prints match PyTorch's within rtol 1e-3
// / atol 1e-4.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
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

// The values of the firmware's line "output <label> <count> <v0> ...".
std::vector<float> Printed(const std::string& output, const std::string& label) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word, name;
    size_t count = 0;
    if (!(words >> word >> name >> count) || word != "output" || name != label) continue;
    std::vector<float> values;
    float v;
    while (words >> v) values.push_back(v);
    EXPECT_EQ(values.size(), count) << line;
    return values;
  }
  ADD_FAILURE() << "no line 'output " << label << " ...' in:\n" << output;
  return {};
}

void ExpectMatches(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), 1e-4 + 1e-3 * std::fabs(want[i]))
        << what << " element " << i << ": firmware " << got[i] << ", PyTorch " << want[i];
  }
}

TEST(RecurrentFirmware, PyTorchGruRunsOnMps2An386LikePyTorch) {
  const std::string dir = FreshDir("recurrent_firmware");
  const std::string fixture = "tests/recurrent_fixtures/gru";
  std::vector<std::string> argv = {MlfBinary(), "export", Runfile(fixture + ".onnx"), "-o", dir + "/gru.tar"};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  argv = {MlfBinary(), "project", dir + "/gru.tar", "-o", dir + "/fw", "--board", "mps2-an386",
          "--sample-input", "x=" + Runfile(fixture + "_input.npy"), "--run"};
  r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  const std::vector<float> y = Printed(r.out, "y"), h = Printed(r.out, "h");
  EXPECT_EQ(y.size(), 8u);   // [2, 4]
  EXPECT_EQ(h.size(), 24u);  // [1, 2, 12]
  ExpectMatches(y, Float32Npy(Runfile(fixture + "_expected_y.npy")), "y");
  ExpectMatches(h, Float32Npy(Runfile(fixture + "_expected_h.npy")), "h");
  EXPECT_NE(r.out.find("instructions per inference: "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace mlf
