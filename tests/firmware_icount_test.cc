// Instructions per inference under QEMU (issue 14 point 5, issue 19 point 4;
// loader/firmware/instruction_count.h), through the real binary: a firmware
// whose model is a busy loop of a known instruction count is measured to one
// SysTick tick, also across wraps of the 24-bit counter on a fast clock; the
// keyword-spotting DS-CNN, int8 and float, gets its figures per inference
// and per MAC (the firmware README's table).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "artifact/format/npy.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/" + path;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A module that spins `iterations` times through a two-instruction loop
// (subs, bne: unified syntax, every Cortex-M) and copies x to y; its metadata counts
// one MAC per iteration.
ModuleArtifacts Spin(const std::string& name, uint64_t iterations) {
  Result<ModuleArtifacts> m = mlf::testing::MakeFixture("identity", name);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  std::string& source = m->sources[0].content;
  const std::string body = "  int i;\n";
  source.replace(source.find(body), body.size(),
                 body + "  uint32_t n = " + std::to_string(iterations) +
                     "u;\n  __asm__ volatile(\".syntax unified\\n1:\\n\\tsubs %0, %0, #1\\n\\tbne 1b\" : \"+l\"(n) : : \"cc\");\n");
  OperatorInfo op;
  op.name = "spin";
  op.ops = {"Spin"};
  op.macs = iterations;
  m->metadata.operators = {op};
  return *m;
}

class FirmwareIcountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  std::string Archive(const std::vector<ModuleArtifacts>& modules, const std::string& name = "spin") {
    ExportOptions options;
    options.build_host_library = false;
    const std::string out = dir_ + "/" + name + ".tar";
    Status s = mlf::testing::WriteFixtureArchive(modules, out, options);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  // `mlf project ARCHIVE --board BOARD --run --json`: the document.
  nlohmann::json RunJson(const std::string& archive, const std::string& board, const std::string& name,
                         const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv = {MlfBinary(), "project", archive, "-o", dir_ + "/" + name,
                                     "--board",   board,     "--run", "--json"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 0) << Describe(argv, r);
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }

  // run.instructions[i] of module `module`.
  static nlohmann::json Count(const nlohmann::json& doc, const std::string& module) {
    for (const nlohmann::json& c : doc["run"]["instructions"]) {
      if (c["module"] == module) return c;
    }
    ADD_FAILURE() << "no instruction count of " << module << " in " << doc.dump();
    return nlohmann::json::object();
  }

  std::string dir_;
};

TEST_F(FirmwareIcountTest, ABusyLoopIsCountedToOneTick) {
  const std::string archive = Archive({Spin("spin_short", 1000), Spin("spin_long", 1000000)});
  const nlohmann::json doc = RunJson(archive, "mps2-an386", "an386");
  const nlohmann::json shorter = Count(doc, "spin_short"), longer = Count(doc, "spin_long");
  EXPECT_EQ(shorter["clock_hz"], 25000000);
  EXPECT_EQ(shorter["resolution"], 40);  // 1e9 / 25 MHz
  const int64_t a = shorter["instructions"], b = longer["instructions"];
  EXPECT_EQ(a, static_cast<int64_t>(shorter["ticks"]) * 40);
  // The loops differ by 999000 iterations of two instructions; each figure is
  // exact to one tick, the difference to two.
  EXPECT_LE(std::llabs(b - a - 1998000), 80) << a << " " << b;
  // Beside the loop: the call, the copy, the counter's reads (a few dozen).
  EXPECT_GE(a, 2000 - 40);
  EXPECT_LE(a, 2000 + 200);
  EXPECT_EQ(longer["macs"], 1000000);
  EXPECT_NEAR(static_cast<double>(longer["instructions_per_mac"]), 2.0, 0.001);
  // The firmware's own line, kept in its output.
  const std::string output = doc["run"]["output"];
  EXPECT_TRUE(Contains(output, "systick spin_long " + std::to_string(static_cast<int64_t>(longer["ticks"])) +
                                   " 25000000\n"))
      << output;
}

// 168 MHz: the 24-bit counter wraps every 2^24 ticks, 99.9 million
// instructions; 150 million are counted across both wraps.
TEST_F(FirmwareIcountTest, WrapsOfTheCounterAreCounted) {
  const std::string archive = Archive({Spin("spin", 75000000)});
  const std::vector<std::string> argv = {MlfBinary(), "project", archive,  "-o", dir_ + "/netduino",
                                         "--board",   "netduinoplus2", "--run"};
  CommandResult r = RunCommand(argv);
  ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
  const std::string prefix = "module spin: instructions per inference: ";
  const size_t at = r.out.find(prefix);
  ASSERT_NE(at, std::string::npos) << r.out;
  const long long n = std::atoll(r.out.c_str() + at + prefix.size());
  EXPECT_GE(n, 150000000 - 6);
  EXPECT_LE(n, 150000000 + 200);
  EXPECT_TRUE(Contains(r.out, " (to one SysTick tick, 6 instructions, under QEMU -icount shift=0), "
                              "instructions per MAC: 2.00 (75000000 MACs)\n"))
      << r.out;
}

TEST_F(FirmwareIcountTest, OnlyRunCountsAndOnlyOnBoardsQemuRuns) {
  const std::string archive = Archive({Spin("spin", 10)});
  CommandResult built = RunCommand({MlfBinary(), "project", archive, "-o", dir_ + "/built", "--board",
                                    "mps2-an386", "--build"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_FALSE(Exists(dir_ + "/built/src/mlf_cycles.c"));
  EXPECT_FALSE(Contains(built.out, "instructions per inference"));
  CommandResult nm = RunCommand({"arm-none-eabi-nm", dir_ + "/built/build/app.elf"});
  EXPECT_FALSE(Contains(nm.out, "mlf_systick_handler")) << nm.out;
  // The host has no SysTick (and the loop is Arm assembly): a plain copy.
  Result<ModuleArtifacts> copy = mlf::testing::MakeFixture("identity", "copy");
  ASSERT_TRUE(copy.ok());
  CommandResult host =
      RunCommand({MlfBinary(), "project", Archive({*copy}, "copy"), "-o", dir_ + "/host", "--run"});
  EXPECT_EQ(host.exit_code, 0) << host.err;
  EXPECT_FALSE(Contains(host.out, "instructions per inference")) << host.out;
  EXPECT_FALSE(Exists(dir_ + "/host/src/mlf_cycles.c"));
}

// The figures: the MLPerf Tiny DS-CNN, int8 and float, at -O2 on
// mps2-an386 (Cortex-M4F: the DSP kernels for int8), against the metadata's
// MAC count; the int8 firmware's outputs are PyTorch's.
TEST_F(FirmwareIcountTest, DsCnnInt8AndFloat) {
  const std::string fixtures = "tests/int8_fixtures/ds_cnn";
  double per_mac[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    const std::string kind = i == 0 ? "int8" : "float";
    const std::string archive = dir_ + "/" + kind + ".tar";
    const std::vector<std::string> argv = {MlfBinary(), "export", Runfile(fixtures + "_" + kind + ".onnx"),
                                           "-o", archive};
    CommandResult r = RunCommand(argv);
    ASSERT_EQ(r.exit_code, 0) << Describe(argv, r);
    const nlohmann::json doc = RunJson(archive, "mps2-an386", kind,
                                       {"--sample-input", "input=" + Runfile(fixtures + "_input.npy")});
    const nlohmann::json& counts = doc["run"]["instructions"];
    ASSERT_EQ(counts.size(), 1u) << doc.dump();
    const nlohmann::json& c = counts[0];
    EXPECT_EQ(c["macs"], 2664768) << kind;  // 2,656,768 in the layers, 8,000 in the pooling
    EXPECT_EQ(c["instructions"], static_cast<uint64_t>(c["ticks"]) * 40) << kind;
    per_mac[i] = c["instructions_per_mac"];
    ::testing::Test::RecordProperty(kind + "_instructions", std::to_string(static_cast<uint64_t>(c["instructions"])));
    ::testing::Test::RecordProperty(kind + "_instructions_per_mac", std::to_string(per_mac[i]));
    std::cout << kind << ": " << c.dump() << "\n";
    if (kind != "int8") continue;
    // PyTorch's int8 result, to within two steps of the output's quantization.
    const std::string output = doc["run"]["output"];
    const std::string prefix = "output output 12 ";
    const size_t at = output.find(prefix);
    ASSERT_NE(at, std::string::npos) << output;
    std::istringstream got(output.substr(at + prefix.size()));
    Result<NpyArray> want = ParseNpy(ReadFile(Runfile(fixtures + "_expected.npy")));
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const float* expected = reinterpret_cast<const float*>(want->data.data());
    for (int k = 0; k < 12; ++k) {
      double v = 0;
      got >> v;
      EXPECT_NEAR(v, expected[k], 0.006) << "output element " << k;
    }
  }
  EXPECT_LT(per_mac[0], per_mac[1]);  // int8 below float
  // Issue 14's goal for int8 on the Cortex-M4 (CMSIS-NN class): 1.98 now.
  EXPECT_LE(per_mac[0], 2.0);
}

}  // namespace
}  // namespace mlf
