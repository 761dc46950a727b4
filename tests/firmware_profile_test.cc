// Per-operator profiles and the stack (issue 19 point 4; loader/firmware/
// operator_profile.h, stack_usage.h) through the real binary under QEMU:
// the DS-CNN's profile on mps2-an386 (every operator once, summing to the
// whole inference), its painted stack under the static bound, hostile
// operator names that reach neither the C code nor the terminal, the DWT
// path compiled (not run: QEMU does not model it), and --profile's errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "tests/fixtures/fixture_models.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/" + path;
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The node name: a comment breaker and constructor, shell syntax and
// escape sequences as text.
constexpr char kHostile[] =
    "r */ __attribute__((constructor)) static void pwn(void){ __builtin_puts(\"INJECTED\"); } /* $(rm) \\x1b[2J \\n";
// The same inside a YAML double-quoted string.
constexpr char kYamlHostile[] =
    "r */ __attribute__((constructor)) static void pwn(void){ __builtin_puts(\\\"INJECTED\\\"); } /* $(rm) "
    "\\\\x1b[2J \\\\n";
// As the table shows it.
constexpr char kShown[] =
    "r */ __attribute__((constructor)) static void pwn(void){ __builtin_puts(\"INJECTED\"); } /* $(rm) "
    "\\\\x1b[2J \\\\n";

class FirmwareProfileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  std::string dir_;
};

// Per-operator sums against the whole inference: each operator is exact to
// one tick (40 instructions) and the run function's set-up, the output copy
// and the hooks' own instructions (a few dozen per operator) are outside the
// operators, so the sum is within 0.1% of the whole.
TEST_F(FirmwareProfileTest, DsCnnProfileAndStack) {
  const std::string archive = dir_ + "/int8.tar";
  CommandResult exported =
      RunCommand({MlfBinary(), "export", Runfile("tests/int8_fixtures/ds_cnn_int8.onnx"), "-o", archive});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::vector<std::string> argv = {
      MlfBinary(), "project", archive, "-o", dir_ + "/p", "--board", "mps2-an386", "--sample-input",
      "input=" + Runfile("tests/int8_fixtures/ds_cnn_input.npy"), "--run", "--profile", "--json"};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& count = doc["run"]["instructions"][0];
  ASSERT_EQ(doc["run"]["profile"].size(), 1u) << doc.dump();
  const nlohmann::json& profile = doc["run"]["profile"][0];
  EXPECT_EQ(profile["module"], "default");
  EXPECT_EQ(profile["inference_instructions"], count["instructions"]);
  const nlohmann::json& ops = profile["operators"];
  ASSERT_EQ(ops.size(), 16u);  // every operator of the metadata, once, in order
  int64_t sum = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(ops[i]["index"], i);
    EXPECT_EQ(static_cast<int64_t>(ops[i]["instructions"]), static_cast<int64_t>(ops[i]["ticks"]) * 40);
    sum += static_cast<int64_t>(ops[i]["instructions"]);
    std::cout << ops[i].dump() << "\n";
  }
  EXPECT_EQ(ops[0]["name"], "/quant/QuantizeLinear");
  EXPECT_EQ(ops[1]["kind"], "QLinearConv+Conv+Relu+QuantizeLinear");
  EXPECT_EQ(ops[10]["kind"], "QLinearAveragePool+AveragePool+QuantizeLinear");  // the pooling on integers
  EXPECT_EQ(profile["operator_instructions"], sum);
  const int64_t whole = count["instructions"];
  EXPECT_LE(sum, whole);
  EXPECT_LE(whole - sum, whole / 1000) << sum << " of " << whole;
  // The stack: painted high-water above zero and within the static bound.
  const nlohmann::json& stack = doc["run"]["stack"];
  EXPECT_EQ(stack["size"], 8192);
  const int64_t used = stack["measured"][0]["bytes"];
  const nlohmann::json& bound = stack["bounds"][0];
  ASSERT_TRUE(bound["bounded"]) << bound.dump();
  EXPECT_GT(used, 0);
  EXPECT_LE(used, static_cast<int64_t>(bound["bytes"])) << stack.dump();
  EXPECT_EQ(bound["path"][0], "reset_handler");
  std::cout << stack.dump() << "\n";
  // The program's bound includes the output printer, whose digit loop recurses.
  EXPECT_FALSE(stack["program_bound"]["bounded"]);
  EXPECT_EQ(stack["program_bound"]["why_unbounded"], "recursion: src/mlf_print.c:put_u32 -> src/mlf_print.c:put_u32");

  // The hook is compiled out unless MLF_PROFILE is defined: no call, no symbol.
  const std::string project = dir_ + "/p";
  for (bool profile : {false, true}) {
    std::vector<std::string> cc = {"arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-O2", "-I",
                                   project + "/codegen/host/include", "-I", project + "/codegen/host/src", "-c",
                                   project + "/codegen/host/src/default_lib0.c", "-o", dir_ + "/lib0.o"};
    if (profile) cc.push_back("-DMLF_PROFILE");
    CommandResult compiled = RunCommand(cc);
    ASSERT_EQ(compiled.exit_code, 0) << Describe(cc, compiled);
    CommandResult nm = RunCommand({"arm-none-eabi-nm", dir_ + "/lib0.o"});
    EXPECT_EQ(Contains(nm.out, " U mlf_profile_begin\n"), profile) << nm.out;
  }

  // The DWT path compiles for a core that has the counter, and refuses one that has none.
  CommandResult dwt = RunCommand({"arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-Os", "-DMLF_PROFILE_DWT",
                                  "-DMLF_PROFILE_MAX_OPERATORS=19", "-I", project + "/src", "-c",
                                  project + "/src/mlf_profile.c", "-o", dir_ + "/dwt.o"});
  ASSERT_EQ(dwt.exit_code, 0) << dwt.err;
  CommandResult dis = RunCommand({"arm-none-eabi-objdump", "-d", dir_ + "/dwt.o"});
  EXPECT_TRUE(Contains(dis.out, ".word\t0xe0001000")) << dis.out;  // the DWT's registers
  EXPECT_FALSE(Contains(dis.out, "mlf_cycles_now")) << dis.out;
  CommandResult m0 = RunCommand({"arm-none-eabi-gcc", "-mcpu=cortex-m0", "-mthumb", "-DMLF_PROFILE_DWT",
                                 "-DMLF_PROFILE_MAX_OPERATORS=19", "-I", project + "/src", "-c",
                                 project + "/src/mlf_profile.c", "-o", dir_ + "/m0.o"});
  EXPECT_NE(m0.exit_code, 0);
  EXPECT_TRUE(Contains(m0.err, "MLF_PROFILE_DWT: Armv6-M (Cortex-M0/M0+/M1) has no DWT cycle counter")) << m0.err;
}

// A model whose operator name is C, shell and terminal syntax (printable: an
// archive refuses names with control characters, so newlines and ESC never
// get this far; "\\x1b" and "\\n" here are backslash text). The real
// compiler's hooks carry only the index: the name stays a comment in the C,
// runs nothing, and reaches the terminal escaped and the JSON as it is.
TEST_F(FirmwareProfileTest, HostileNamesReachNeitherCodeNorTerminal) {
  const std::string model = dir_ + "/inj.yaml";
  WriteFile(model,
            "mlf_model: 1\n"
            "name: inj\n"
            "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
            "nodes:\n"
            "  - {name: \"" + std::string(kYamlHostile) + "\", op: Relu, inputs: [x], outputs: [y]}\n"
            "outputs: [y]\n");
  const std::string archive = dir_ + "/inj.tar";
  CommandResult exported = RunCommand({MlfBinary(), "export", model, "-o", archive});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::vector<std::string> argv = {MlfBinary(), "project", archive, "-o", dir_ + "/p",
                                         "--board", "mps2-an386", "--run", "--profile"};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  EXPECT_FALSE(Contains(r.out, "\x1b")) << r.out;
  EXPECT_FALSE(Contains(r.out, "\nINJECTED")) << r.out;  // the constructor never ran
  // Backslashes doubled (DisplayText): an escape in the output is always one.
  EXPECT_TRUE(Contains(r.out, std::string("  0  ") + kShown + "  Relu  ")) << r.out;
  const std::string source = ReadFile(dir_ + "/p/codegen/host/src/default_lib0.c");
  EXPECT_TRUE(Contains(source, "  MLF_PROFILE_BEGIN(0u);\n")) << source;
  EXPECT_FALSE(Contains(source, "*/ __attribute__")) << source;
  for (const char* file : {"/p/src/main.c", "/p/src/mlf_profile.c", "/p/src/mlf_profile.h", "/p/Makefile",
                           "/p/CMakeLists.txt"}) {
    EXPECT_FALSE(Contains(ReadFile(dir_ + file), "INJECTED")) << file;
  }
  // JSON carries the name as it is; CMake's build (objects x.c.obj) gets its stack bound too.
  CommandResult j = RunCommand({MlfBinary(), "project", archive, "-o", dir_ + "/j", "--board", "mps2-an386",
                                "--build-system", "cmake", "--run", "--profile", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["run"]["profile"][0]["operators"][0]["name"], kHostile);
  EXPECT_FALSE(Contains(doc["run"]["output"], "INJECTED"));
  const nlohmann::json& stack = doc["run"]["stack"];
  ASSERT_TRUE(stack["bounds"][0]["bounded"]) << stack.dump();
  EXPECT_GT(stack["measured"][0]["bytes"], 0);
  EXPECT_LE(stack["measured"][0]["bytes"], stack["bounds"][0]["bytes"]) << stack.dump();
}

TEST_F(FirmwareProfileTest, ProfileNeedsRunAndACountingBoard) {
  Result<ModuleArtifacts> m = mlf::testing::MakeFixture("identity", "copy");
  ASSERT_TRUE(m.ok());
  OperatorInfo op;
  op.name = "copy";
  op.ops = {"Identity"};
  m->metadata.operators = {op};
  ExportOptions options;
  options.build_host_library = false;
  const std::string archive = dir_ + "/copy.tar";
  ASSERT_TRUE(mlf::testing::WriteFixtureArchive({*m}, archive, options).ok());
  CommandResult built =
      RunCommand({MlfBinary(), "project", archive, "-o", dir_ + "/b", "--board", "mps2-an386", "--build", "--profile"});
  EXPECT_EQ(built.exit_code, 2);
  EXPECT_EQ(built.err,
            "mlf: error: --profile needs --run (the profile is measured by running the firmware under QEMU)\n"
            "Try 'mlf project --help'.\n");
  EXPECT_FALSE(Exists(dir_ + "/b"));
  CommandResult host = RunCommand({MlfBinary(), "project", archive, "-o", dir_ + "/h", "--run", "--profile"});
  EXPECT_EQ(host.exit_code, 1);
  EXPECT_EQ(host.err,
            "mlf: error: --profile needs a board QEMU models and whose board file gives clock_hz (the profile is "
            "counted in SysTick ticks under QEMU), and an archive written by mlfkit; host cannot count\n");
  EXPECT_FALSE(Exists(dir_ + "/h"));
  // An archive whose code has no hooks (the fixture's hand-written code).
  CommandResult old = RunCommand(
      {MlfBinary(), "project", archive, "-o", dir_ + "/o", "--board", "mps2-an386", "--run", "--profile"});
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_TRUE(Contains(old.err, "mlf: error: module 'copy' printed no per-operator profile: its code has no "
                                "MLF_PROFILE hooks (it was exported before mlfkit wrote them); export the model "
                                "again\n"))
      << old.err;
}

}  // namespace
}  // namespace mlf
