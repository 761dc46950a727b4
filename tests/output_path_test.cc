// What the `mlf` commands write is never what they read: every command with an
// output refuses an output path that is one of its inputs (or, for pack, inside
// the directory it packs), naming both paths and leaving every file as it was;
// and `mlf sign` in place keeps the archive's owner, group and mode.
// Tests run as root (as in CI): owners are set with chown to 65534.
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

// One float32 [4] parameter from w.npy; input x, output y.
constexpr char kModel[] =
    "mlf_model: 1\n"
    "name: tiny\n"
    "inputs: [{name: x, dtype: float32, shape: [1, 4]}]\n"
    "parameters:\n"
    "  w: {dtype: float32, shape: [4], npy: w.npy}\n"
    "nodes:\n"
    "  - {op: Add, inputs: [x, w], outputs: [y]}\n"
    "outputs: [y]\n";

NpyArray Floats(std::vector<int64_t> shape, const std::vector<float>& values) {
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.shape = std::move(shape);
  a.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  return a;
}

class OutputPathCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(std::string("output_path_cli/") + info->name());
  }

  // Runs `mlf args...` in the test's directory (relative paths as a user types them).
  CommandResult Mlf(const std::vector<std::string>& args) {
    argv_ = {MlfBinary()};
    argv_.insert(argv_.end(), args.begin(), args.end());
    RunOptions options;
    options.env = {{"SOURCE_DATE_EPOCH", std::nullopt}, {"MLF_CACHE_DIR", dir_ + "/cache"}};
    options.cwd = dir_;
    return RunCommand(argv_, options);
  }
  std::string Why(const CommandResult& r) const { return Describe(argv_, r); }
  std::string P(const std::string& rel) const { return dir_ + "/" + rel; }

  // The example packed as a.tar (relative to the test directory).
  void PackExample() {
    CopyExample(P("model"));
    CommandResult r = Mlf({"pack", "model", "-o", "a.tar"});
    ASSERT_EQ(r.exit_code, 0) << Why(r);
  }
  void Keygen() {
    CommandResult r = Mlf({"keygen", "-o", "k"});
    ASSERT_EQ(r.exit_code, 0) << Why(r);
  }
  void WriteModel() {
    WriteFile(P("m.yaml"), kModel);
    ASSERT_TRUE(WriteNpyFile(P("w.npy"), Floats({4}, {1, 2, 3, 4})).ok());
  }

  // The command fails with usage status and exactly this message.
  void ExpectRefused(const std::vector<std::string>& args, const std::string& command,
                     const std::string& message) {
    CommandResult r = Mlf(args);
    EXPECT_EQ(r.exit_code, 2) << Why(r);
    EXPECT_EQ(r.err, "mlf: error: " + message + "\nTry 'mlf " + command + " --help'.\n") << Why(r);
    EXPECT_EQ(r.out, "");
  }

  std::string dir_;
  std::vector<std::string> argv_;
};

TEST_F(OutputPathCliTest, SignNeverWritesOverTheKey) {
  PackExample();
  Keygen();
  const std::string key = ReadFile(P("k.key"));
  ExpectRefused({"sign", "a.tar", "--key", "k.key", "-o", "k.key"}, "sign",
                "-o 'k.key' is the same file as --key 'k.key'; choose another output path");
  // Signing the key itself in place, and through a link to the key.
  ExpectRefused({"sign", "k.key", "--key", "k.key"}, "sign",
                "ARCHIVE 'k.key' is the same file as --key 'k.key'; choose another output path");
  ASSERT_EQ(symlink("k.key", P("link").c_str()), 0);
  ExpectRefused({"sign", "a.tar", "--key", "k.key", "--output=link"}, "sign",
                "-o 'link' is the same file as --key 'k.key'; choose another output path");
  EXPECT_EQ(ReadFile(P("k.key")), key);
  EXPECT_EQ(FileMode(P("k.key")), 0600u);
  // An explicit -o naming the archive itself is signing in place.
  CommandResult r = Mlf({"sign", "a.tar", "--key", "k.key", "-o", "a.tar"});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
}

TEST_F(OutputPathCliTest, SignInPlaceKeepsOwnerGroupAndMode) {
  ASSERT_EQ(geteuid(), 0u) << "this test changes file owners: run it as root (as CI does)";
  PackExample();
  Keygen();
  ASSERT_EQ(chown(P("a.tar").c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(P("a.tar").c_str(), 0600), 0);
  CommandResult r = Mlf({"sign", "a.tar", "--key", "k.key"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  struct stat st;
  ASSERT_EQ(stat(P("a.tar").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  r = Mlf({"verify", "a.tar", "--key", "k.pub"});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
}

TEST_F(OutputPathCliTest, PackNeverWritesIntoTheDirectoryItPacks) {
  CopyExample(P("model"));
  const auto before = ListTree(P("model"));
  ExpectRefused({"pack", "model", "-o", "model/metadata.json"}, "pack",
                "-o 'model/metadata.json' is inside DIR 'model', which is read; choose another "
                "output path");
  ExpectRefused({"pack", "model", "-o", "model/new.tar"}, "pack",
                "-o 'model/new.tar' is inside DIR 'model', which is read; choose another output "
                "path");
  ExpectRefused({"pack", "./model/", "-o", "model"}, "pack",
                "-o 'model' is the same directory as DIR './model/'; choose another output path");
  EXPECT_EQ(FormatListing(ListTree(P("model"))), FormatListing(before));
}

TEST_F(OutputPathCliTest, ExportNeverWritesOverAModelOrItsNpyFiles) {
  WriteModel();
  ExpectRefused({"export", "m.yaml", "-o", "m.yaml", "--no-host-lib"}, "export",
                "-o 'm.yaml' is the same file as MODEL 'm.yaml'; choose another output path");
  ExpectRefused({"export", "m.yaml:tiny", "-o", "./m.yaml", "--no-host-lib"}, "export",
                "-o './m.yaml' is the same file as MODEL 'm.yaml'; choose another output path");
  ExpectRefused({"export", "m.yaml", "-o", "w.npy", "--no-host-lib"}, "export",
                "-o 'w.npy' is the same file as the npy file 'w.npy' of MODEL 'm.yaml'; choose "
                "another output path");
  EXPECT_EQ(ReadFile(P("m.yaml")), kModel);
  EXPECT_EQ(testutil::ListDir(dir_), (std::vector<std::string>{"m.yaml", "w.npy"}));
}

TEST_F(OutputPathCliTest, UnpackProjectAndUpgradeNeverWriteOverTheArchive) {
  PackExample();
  Keygen();
  MakeDirs(P("sub"));
  ASSERT_EQ(link(P("a.tar").c_str(), P("sub/a.tar").c_str()), 0);
  const std::string archive = ReadFile(P("a.tar"));
  ExpectRefused({"unpack", "a.tar", "-o", "a.tar"}, "unpack",
                "-o 'a.tar' is the same file as ARCHIVE 'a.tar'; choose another output path");
  ExpectRefused({"unpack", "a.tar", "--key", "k.pub", "-o", "k.pub"}, "unpack",
                "-o 'k.pub' is the same file as --key 'k.pub'; choose another output path");
  ExpectRefused({"unpack", "sub/a.tar", "-o", "sub"}, "unpack",
                "-o 'sub' contains ARCHIVE 'sub/a.tar'; choose another output path");
  ExpectRefused({"project", "a.tar", "-o", "a.tar"}, "project",
                "-o 'a.tar' is the same file as ARCHIVE 'a.tar'; choose another output path");
  ExpectRefused({"project", "sub/a.tar", "-o", "sub"}, "project",
                "-o 'sub' contains ARCHIVE 'sub/a.tar'; choose another output path");
  ExpectRefused({"project", "a.tar", "--sample-input", "x=sub/a.tar", "-o", "sub"}, "project",
                "-o 'sub' contains --sample-input 'sub/a.tar'; choose another output path");
  ExpectRefused({"upgrade", "a.tar", "-o", "sub/a.tar"}, "upgrade",
                "-o 'sub/a.tar' is the same file as ARCHIVE 'a.tar'; choose another output path");
  EXPECT_EQ(ReadFile(P("a.tar")), archive);
}

TEST_F(OutputPathCliTest, RunNeverWritesOutputsOverItsInputs) {
  WriteModel();
  CommandResult r = Mlf({"export", "m.yaml", "-o", "a.tar"});
  ASSERT_EQ(r.exit_code, 0) << Why(r);
  MakeDirs(P("out"));
  ExpectRefused({"run", "a.tar", "--random-inputs", "1", "--output-dir", "out", "--expect-dir",
                 "out"},
                "run",
                "--output-dir 'out' is the same directory as --expect-dir 'out'; choose another "
                "output path");
  ExpectRefused({"run", "a.tar", "--random-inputs", "1", "--output-dir", "a.tar"}, "run",
                "--output-dir 'a.tar' is the same file as ARCHIVE 'a.tar'; choose another output "
                "path");
  // The output y would be written to out/y.npy, which is the input.
  ASSERT_TRUE(WriteNpyFile(P("out/y.npy"), Floats({1, 4}, {1, 1, 1, 1})).ok());
  const std::string input = ReadFile(P("out/y.npy"));
  r = Mlf({"run", "a.tar", "--input", "x=out/y.npy", "--output-dir", "out"});
  EXPECT_EQ(r.exit_code, 1) << Why(r);
  EXPECT_EQ(r.err,
            "mlf: error: output 'out/y.npy' is the same file as --input 'out/y.npy'; choose "
            "another output path\n");
  EXPECT_EQ(ReadFile(P("out/y.npy")), input);
  // Another directory is fine.
  r = Mlf({"run", "a.tar", "--input", "x=out/y.npy", "--output-dir", "res"});
  EXPECT_EQ(r.exit_code, 0) << Why(r);
  EXPECT_TRUE(Exists(P("res/y.npy")));
}

}  // namespace
}  // namespace mlf
