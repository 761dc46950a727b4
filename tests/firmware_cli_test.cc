// `mlf project` end to end, through the real binary: usage errors, a signed
// archive generated, built and run in QEMU with a sample input, CMake on the
// host, and the exit status when the model fails or the build breaks.
#include <gtest/gtest.h>

#include <cmath>

#include "artifact/archive/sign.h"
#include "artifact/archive/signature.h"
#include "loader/firmware/testing/firmware_testing.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class FirmwareCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  std::string Export(const std::string& kind, const std::string& from = "",
                     const std::string& to = "") {
    auto m = mlf::testing::MakeFixture(kind, kind);
    EXPECT_TRUE(m.ok());
    if (!from.empty()) {
      std::string& source = m->sources[0].content;
      source.replace(source.rfind(from), from.size(), to);
    }
    ExportOptions options;
    options.build_host_library = false;
    const std::string out = dir_ + "/" + kind + ".tar";
    EXPECT_TRUE(mlf::testing::WriteFixtureArchive({*m}, out, options).ok());
    return out;
  }

  CommandResult Mlf(std::vector<std::string> args) {
    args.insert(args.begin(), {MlfBinary(), "project"});
    return RunCommand(args);
  }

  std::string dir_;
};

TEST_F(FirmwareCliTest, HelpAndUsageErrors) {
  CommandResult help = RunCommand({MlfBinary(), "help"});
  EXPECT_TRUE(Contains(help.out, "\n  project ")) << help.out;
  CommandResult usage = Mlf({"--help"});
  EXPECT_EQ(usage.exit_code, 0);
  EXPECT_EQ(usage.out.rfind("usage: mlf project ARCHIVE -o DIR [--platform host|mps2-an385|", 0),
            0u);

  const std::string archive = Export("dense");
  struct Bad {
    std::vector<std::string> args;
    std::string error;
  };
  for (const Bad& bad : std::vector<Bad>{
           {{archive}, "mlf: error: missing required option '-o DIR'\n"},
           {{"-o", dir_ + "/p"}, "mlf: error: missing argument\n"},
           {{archive, "-o", dir_ + "/p", "--platform", "stm32"},
            "mlf: error: unknown platform 'stm32' (choose one of: host, mps2-an385, mps2-an386, "
            "mps2-an500)\n"},
           {{archive, "-o", dir_ + "/p", "--build-system", "ninja"},
            "mlf: error: unknown build system 'ninja' (choose make or cmake)\n"},
           {{archive, "-o", dir_ + "/p", "--sample-input", "x"}, ""},
       }) {
    CommandResult r = Mlf(bad.args);
    EXPECT_NE(r.exit_code, 0) << Describe(bad.args, r);
    if (!bad.error.empty()) {
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.err, bad.error + "Try 'mlf project --help'.\n");
    }
    EXPECT_FALSE(Exists(dir_ + "/p"));
  }
}

TEST_F(FirmwareCliTest, GeneratesWithoutBuilding) {
  CommandResult r = Mlf({Export("dense"), "-o", dir_ + "/p"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "project " + dir_ + "/p: host, module dense, 12 files\n");
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(Exists(dir_ + "/p/build"));
}

TEST_F(FirmwareCliTest, SignedArchiveBuiltAndRunInQemuMatchesTheHostLoader) {
  const std::string archive = Export("conv");
  auto keys = GenerateKeyPair();
  ASSERT_TRUE(keys.ok());
  WriteFile(dir_ + "/release.pub", keys->public_pem);
  const std::string signed_archive = dir_ + "/conv.signed.tar";
  ASSERT_TRUE(SignArchive(archive, keys->private_pem, signed_archive, {}).ok());
  Metadata metadata;
  metadata.modules["conv"] = mlf::testing::MakeFixture("conv", "conv")->metadata;
  auto samples = firmware::testing::WriteSamples(metadata, dir_, 5);
  ASSERT_TRUE(samples.ok());
  auto reference = firmware::testing::HostReference(signed_archive, *samples, dir_ + "/cache");
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();

  CommandResult r =
      Mlf({signed_archive, "-o", dir_ + "/p", "--platform", "mps2-an385", "--key",
           dir_ + "/release.pub", "--sample-input", "x=" + samples->specs[0].path, "--run"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Contains(r.out, "built " + dir_ + "/p/build/app.elf\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "| part | flash (bytes) | RAM (bytes) |")) << r.out;
  EXPECT_FALSE(Contains(r.out, "arm-none-eabi-gcc")) << "build output shown on success:\n" << r.out;
  auto lines = firmware::testing::ParseOutputLines(r.out);
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->count("y"), 1u) << r.out;
  const auto& want = reference->at("y");
  ASSERT_EQ(lines->at("y").size(), want.values.size());
  for (size_t i = 0; i < want.values.size(); ++i) {
    EXPECT_NEAR(std::stod(lines->at("y")[i]), want.values[i],
                1e-5 * std::max(1.0, std::fabs(want.values[i])));
  }
  EXPECT_TRUE(Contains(ReadFile(dir_ + "/p/README.md"), "| model code | "));
}

TEST_F(FirmwareCliTest, CMakeOnTheHost) {
  CommandResult r = Mlf({Export("pair"), "-o", dir_ + "/p", "--build-system", "cmake", "--run"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "\noutput sum 6 0 0 0 0 0 0\noutput stats 2 0 0\n")) << r.out;
  EXPECT_TRUE(Exists(dir_ + "/p/build/CMakeCache.txt"));
}

TEST_F(FirmwareCliTest, AFailingModelGivesANonZeroExitStatus) {
  CommandResult r = Mlf({Export("dense", "return 0;", "return -2;"), "-o", dir_ + "/p",
                         "--platform", "mps2-an386", "--run"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.out, "error: tvmgen_dense_run returned -2\n")) << r.out;
  EXPECT_EQ(r.err, "mlf: error: the firmware exited with status 1\n");
}

TEST_F(FirmwareCliTest, ABuildFailureShowsTheToolOutput) {
  CommandResult r = Mlf({Export("dense", "return 0;", "return 0"), "-o", dir_ + "/p", "--platform",
                         "mps2-an385", "--build"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("mlf: error: `make -j", 0), 0u) << r.err;
  EXPECT_TRUE(Contains(r.err, "dense_lib0.c")) << r.err;
  EXPECT_TRUE(Contains(r.err, "error: expected ';'")) << r.err;
}

TEST_F(FirmwareCliTest, AnUnsignedArchiveIsRefusedWhenAKeyIsGiven) {
  auto keys = GenerateKeyPair();
  ASSERT_TRUE(keys.ok());
  WriteFile(dir_ + "/release.pub", keys->public_pem);
  CommandResult r = Mlf({Export("dense"), "-o", dir_ + "/p", "--key", dir_ + "/release.pub"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "archive is not signed")) << r.err;
  EXPECT_FALSE(Exists(dir_ + "/p"));
}

}  // namespace
}  // namespace mlf
