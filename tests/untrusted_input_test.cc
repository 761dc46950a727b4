// Input the `mlf` commands refuse to take in: data appended after a signed
// archive's end-of-archive marker (GNU `tar -i` would extract it, unsigned)
// and, for YAML models, npy files outside the model's directory.
#include <sys/stat.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

constexpr char kModel[] =
    "mlf_model: 1\n"
    "name: tiny\n"
    "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
    "nodes:\n"
    "  - {op: Relu, inputs: [x], outputs: [y]}\n"
    "outputs: [y]\n";

class UntrustedInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(std::string("untrusted_input/") + info->name());
  }

  CommandResult Run(const std::string& program, const std::vector<std::string>& args) {
    argv_ = {program};
    argv_.insert(argv_.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"SOURCE_DATE_EPOCH", std::nullopt},
                   {"MLF_CACHE_DIR", dir_ + "/cache"},
                   {"LC_ALL", "C"}};
    options.cwd = dir_;
    return RunCommand(argv_, options);
  }
  CommandResult Mlf(const std::vector<std::string>& args) { return Run(MlfBinary(), args); }
  std::string Why(const CommandResult& r) const { return Describe(argv_, r); }
  std::string P(const std::string& rel) const { return dir_ + "/" + rel; }

  std::string dir_;
  std::vector<std::string> argv_;
};

TEST_F(UntrustedInputTest, ASignedArchiveWithAnAppendedLibraryIsRefused) {
  WriteFile(P("m.yaml"), kModel);
  CommandResult r = Mlf({"export", "m.yaml", "-o", "a.tar"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  ASSERT_EQ(Mlf({"keygen", "-o", "k"}).exit_code, 0);
  r = Mlf({"sign", "a.tar", "--key", "k.key"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  const std::string signed_bytes = ReadFile(P("a.tar"));

  // An unsigned library in a second tar, appended after the end-of-archive blocks.
  MakeDirs(P("evil/codegen/host/lib"));
  WriteFile(P("evil/codegen/host/lib/default.so"), "EVIL");
  r = Run("tar", {"-cf", "evil.tar", "-C", "evil", "codegen/host/lib/default.so"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  WriteFile(P("bad.tar"), signed_bytes + ReadFile(P("evil.tar")));
  // What `tar -i` makes of it: the appended library replaces the signed one.
  MakeDirs(P("x"));
  r = Run("tar", {"-xif", "bad.tar", "-C", "x"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  ASSERT_EQ(ReadFile(P("x/codegen/host/lib/default.so")), "EVIL");

  const std::string what = "data after the end-of-archive marker at offset " +
                           std::to_string(signed_bytes.size()) +
                           " (only zero padding may follow it)";
  r = Mlf({"verify", "bad.tar", "--key", "k.pub", "--require-signature"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err, "mlf: error: bad.tar: " + what + "\n");
  r = Mlf({"unpack", "bad.tar", "--key", "k.pub", "-o", "out"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err, "mlf: error: bad.tar: " + what + "\n");
  EXPECT_FALSE(Exists(P("out")));
  r = Mlf({"run", "bad.tar", "--key", "k.pub", "--require-signature", "--random-inputs", "1"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err, "mlf: error: bad.tar: " + what + "\n");
  EXPECT_EQ(r.out, "");

  // Zero padding to a tape record (as GNU tar writes) is still fine.
  WriteFile(P("padded.tar"),
            signed_bytes + std::string(10240 - signed_bytes.size() % 10240, '\0'));
  r = Mlf({"verify", "padded.tar", "--key", "k.pub", "--require-signature"});
  EXPECT_EQ(r.exit_code, 0) << Why(r);

  // The same inside a compressed archive (the decompressed tar) and after it.
  r = Run("sh", {"-c", "gzip -nc bad.tar > bad.tar.gz && zstd -qc bad.tar > bad.tar.zst"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  for (const char* name : {"bad.tar.gz", "bad.tar.zst"}) {
    r = Mlf({"verify", name, "--key", "k.pub"});
    EXPECT_EQ(r.exit_code, 1) << Why(r);
    EXPECT_EQ(r.err, std::string("mlf: error: ") + name + ": data after the end-of-archive marker "
                     "at offset " + std::to_string(signed_bytes.size()) +
                     " of the decompressed tar (only zero padding may follow it)\n");
  }
  r = Run("sh", {"-c", "zstd -qc a.tar > a.tar.zst && cat evil.tar >> a.tar.zst"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  r = Mlf({"verify", "a.tar.zst", "--key", "k.pub"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err,
            "mlf: error: a.tar.zst: corrupt zstd data at the end of the archive (Zstd "
            "decompression failed: Unknown frame descriptor)\n");
}

TEST_F(UntrustedInputTest, ExportReadsNoNpyOutsideTheModelDirectory) {
  MakeDirs(P("models"));
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = {4};
  a.data.assign(16, '\0');
  ASSERT_TRUE(WriteNpyFile(P("secret.npy"), a).ok());
  WriteFile(P("models/m.yaml"),
            "mlf_model: 1\n"
            "name: tiny\n"
            "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
            "parameters:\n"
            "  w: {dtype: float32, shape: [4], npy: ../secret.npy}\n"
            "nodes:\n"
            "  - {op: Add, inputs: [x, w], outputs: [y]}\n"
            "outputs: [y]\n");
  CommandResult r = Mlf({"export", "models/m.yaml", "-o", "a.tar", "--no-host-lib"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err,
            "mlf: error: models/m.yaml:5: parameter 'w': npy path '../secret.npy' leads outside "
            "the YAML file's directory; keep npy files in the YAML file's directory or below it\n");
  EXPECT_FALSE(Exists(P("a.tar")));
}

}  // namespace
}  // namespace mlf
