// Models people export from PyTorch every day, through the CLI as a user
// runs them (issue 15): a TransformerEncoderLayer at opset 17 and a CNN
// exported with a dynamic batch axis, fixed with --input-shape; each
// against PyTorch's own output within rtol 1e-3 / atol 1e-4
// (tests/export_fixtures/export_models.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string Fixture(const std::string& file) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/tests/export_fixtures/" + file;
}

CommandResult Mlf(std::vector<std::string> args) {
  args.insert(args.begin(), MlfBinary());
  return RunCommand(args);
}

// mlf run ARCHIVE against the fixture's expected output.
void RunsLikePyTorch(const std::string& archive, const std::string& model) {
  CommandResult r = Mlf({"run", archive, "--input", "input=" + Fixture(model + "_input.npy"),
                         "--expect", "output=" + Fixture(model + "_expected.npy"), "--rtol",
                         "1e-3", "--atol", "1e-4"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("  expected: match 0/"), std::string::npos) << r.out;
}

TEST(PyTorchExportCli, TransformerEncoderLayerAtOpset17) {
  const std::string dir = FreshDir("pytorch_transformer");
  CommandResult r = Mlf({"export", Fixture("transformer.onnx"), "-o", dir + "/t.tar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunsLikePyTorch(dir + "/t.tar", "transformer");
  // Opset 17's LayerNormalization is compiled as one operator.
  r = Mlf({"inspect", dir + "/t.tar", "--plan"});
  EXPECT_NE(r.out.find("LayerNormalization"), std::string::npos) << r.out;
}

TEST(PyTorchExportCli, DynamicBatchFixedWithInputShape) {
  const std::string dir = FreshDir("pytorch_dynamic_cnn");
  CommandResult r = Mlf({"export", Fixture("dynamic_cnn.onnx"), "-o", dir + "/no.tar"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("input 'input': dimension 0 ('batch') is symbolic; fix it with "
                       "--input-shape input=1,3,16,16"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(Exists(dir + "/no.tar"));
  r = Mlf({"export", Fixture("dynamic_cnn.onnx"), "-o", dir + "/cnn.tar", "--input-shape",
           "input=3,3,16,16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunsLikePyTorch(dir + "/cnn.tar", "dynamic_cnn");
}

}  // namespace
}  // namespace mlf
