// TVM entry points of every style (issue 16, point 2), through the real
// `mlf` binary: TVM 0.8's positional run_model with linked parameters, a v5
// header declaring a struct run that the code lacks, TVM 0.8's packed run
// wrapper without an interface header, and a v6 struct run over
// __tvm_main__ with the constants in the code. Each computes y = 2x + 1
// with the 2 and the 1 linked into the code while Relay's @main lists them
// as parameters (tests/tvm_fixtures).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/tvm_cli_harness.h"
#include "tests/test_files.h"
#include "tests/test_tensors.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

namespace mlf {
namespace {

using tvm_testing::Files;

std::string Archive(const std::string& name, const Files& files) {
  return testing::WriteTvmFixtureArchive("entry_", name, files);
}


CommandResult Mlf(const std::vector<std::string>& args) { return testing::MlfWithTestCache(args); }
using testing::Contains;


struct Case {
  std::string name;
  Files files;
};

std::vector<Case> Cases() {
  return {{"mismatch_v5", tvm_testing::MismatchV5()},
          {"linked_v5", tvm_testing::LinkedV5()},
          {"packed_v5", tvm_testing::PackedV5()},
          {"linked_v6", tvm_testing::LinkedV6()}};
}

constexpr char kUnusedParams[] =
    "parameters/default.params is not used: the code links its parameters ";

TEST(TvmEntryTest, InspectShowsTheInterfaceHeadersTensorsNotRelaysParameters) {
  CommandResult r = Mlf({"inspect", Archive("inspect_mismatch", tvm_testing::MismatchV5())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "  inputs\n    #  name  c name  dtype    shape  bytes\n"
                         "    0  x     x       float32  [1,4]  16\n  outputs\n");
  EXPECT_CONTAINS(r.out, "    0  output  output  float32  ?      16\n");
  EXPECT_CONTAINS(r.out, "  entry       tvmgen_default_run_model\n");
  EXPECT_CONTAINS(r.out, "  note        no source defines tvmgen_default_run, which "
                         "codegen/host/include/tvmgen_default.h declares: the code's entry point "
                         "is tvmgen_default_run_model(void* input, void* output), called with the "
                         "inputs, then the outputs\n");
  EXPECT_CONTAINS(r.out, "  note        dtype of output 'output' (float32) from the C type "
                         "tvmgen_default_run_model gives it\n");
  EXPECT_CONTAINS(r.out, "  note        size of 'output' (16 bytes) from memory.functions.main "
                         "io_size_bytes 32 less the other inputs and outputs; its shape is unknown\n");
  EXPECT_CONTAINS(r.out, std::string("  note        ") + kUnusedParams +
                             "(codegen/host/src/default_lib0.c defines __tvm_param__p0)\n");
  EXPECT_FALSE(Contains(r.out, "v_param_1  ")) << r.out;

  r = Mlf({"inspect", Archive("inspect_linked", tvm_testing::LinkedV5())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "  entry       tvmgen_default_run(inputs, outputs) -> "
                         "tvmgen_default_run_model\n");
  EXPECT_FALSE(Contains(r.out, "no source defines")) << r.out;

  r = Mlf({"inspect", Archive("inspect_packed", tvm_testing::PackedV5())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "    0  x     x       float32  [1,4]  16\n");
  EXPECT_CONTAINS(r.out, "  entry       tvmgen_default_run_model\n");
  EXPECT_CONTAINS(r.out, "  note        inputs: the first 1 of src/relay.txt's @main parameters, "
                         "because tvmgen_default_run_model takes 1 input(s) and 1 output(s) and "
                         "the code links the parameters (codegen/host/src/default_lib1.c defines "
                         "__tvm_param__p0); 2 linked parameter(s): v_param_1, v_param_2\n");
  // The dtype of `output` comes from the cast in the operator it is passed to.
  EXPECT_CONTAINS(r.out, "  note        dtype of output 'output' (float32) from the C type "
                         "tvmgen_default_run_model gives it\n");

  r = Mlf({"inspect", Archive("inspect_v6", tvm_testing::LinkedV6())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "    0  output  output  float32  [1,4]  16\n");
  EXPECT_CONTAINS(r.out, "  entry       tvmgen_default_run(inputs, outputs) -> "
                         "tvmgen_default___tvm_main__\n");
  EXPECT_CONTAINS(r.out, "  this host   runs with mlf run\n");
  // The .params file is empty: nothing to call unused.
  EXPECT_FALSE(Contains(r.out, kUnusedParams)) << r.out;
}

TEST(TvmEntryTest, VerifyAcceptsEveryStyle) {
  for (const Case& c : Cases()) {
    const std::string path = Archive("verify_" + c.name, c.files);
    CommandResult r = Mlf({"verify", path});
    EXPECT_EQ(r.exit_code, 0) << c.name << ": " << r.err;
    EXPECT_CONTAINS(r.out, "module default: full-model, aot executor, ");
    EXPECT_CONTAINS(r.out, "runs on this host");
  }
  // A header member the code's Relay text does not name is still refused.
  Files files = tvm_testing::MismatchV5();
  std::string& header = files["codegen/host/include/tvmgen_default.h"];
  header.replace(header.find("void* x;"), 8, "void* y;");
  const std::string path = Archive("verify_bad_member", files);
  CommandResult r = Mlf({"verify", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "mlf: error: " + path +
                       ": module 'default': input 'y': codegen/host/include/tvmgen_default.h "
                       "declares it but src/relay.txt does not name it\n");
}

TEST(TvmEntryTest, RunAndUpgradeGiveTwoXPlusOne) {
  const std::string dir = FreshDir("entry_run");
  ASSERT_TRUE(WriteNpyFile(dir + "/x.npy", testing::NpyOf(DType::kFloat32, {1, 4},
                                                          tvm_testing::LinkedInput()))
                  .ok());
  for (const Case& c : Cases()) {
    const std::string path = Archive("run_" + c.name, c.files);
    CommandResult r = Mlf({"run", path, "--input", "x=" + dir + "/x.npy", "--output-dir",
                           dir + "/" + c.name});
    ASSERT_EQ(r.exit_code, 0) << c.name << ": " << r.err;
    EXPECT_EQ(testing::NpyValues<float>(dir + "/" + c.name + "/output.npy"), tvm_testing::LinkedExpected()) << c.name;

    const std::string upgraded = dir + "/" + c.name + ".v8.tar";
    r = Mlf({"upgrade", path, "-o", upgraded});
    ASSERT_EQ(r.exit_code, 0) << c.name << ": " << r.err;
    r = Mlf({"run", upgraded, "--input", "x=" + dir + "/x.npy", "--expect-dir", dir + "/" + c.name,
             "--atol", "0", "--rtol", "0"});
    EXPECT_EQ(r.exit_code, 0) << c.name << ": " << r.err << r.out;
  }
}

TEST(TvmEntryTest, UpgradeWritesTheUnknownShapeFlat) {
  const std::string path = Archive("upgrade_flat", tvm_testing::MismatchV5());
  CommandResult r = Mlf({"upgrade", path, "-o", path + ".v8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "note: module 'default': the archive does not say the shape of 'output'; "
                         "written as [4] (16 bytes of float32), the shape mlf run shows\n");
  r = Mlf({"inspect", path + ".v8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "    0  output  output  float32  [4]    16\n");
}

}  // namespace
}  // namespace mlf
