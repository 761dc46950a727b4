#include "tools/mlf/output_path.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "artifact/base/testing/test_files.h"

namespace mlf::cli {
namespace {

using testutil::FreshDir;
using testutil::MakeDirs;
using testutil::WriteFile;

class OutputPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = FreshDir(std::string("output_path/") + info->name());
  }
  std::string P(const std::string& rel) const { return dir_ + "/" + rel; }
  std::string dir_;
};

TEST_F(OutputPathTest, ResolvesExistingPrefixAndAppliesTheRestAsWritten) {
  MakeDirs(P("real/sub"));
  ASSERT_EQ(symlink(P("real").c_str(), P("link").c_str()), 0);
  EXPECT_EQ(ResolvePath(P("link/sub")), ResolvePath(P("real/sub")));
  EXPECT_EQ(ResolvePath(P("link/missing/../x.tar")), ResolvePath(P("real")) + "/x.tar");
  EXPECT_EQ(ResolvePath(P("link/./new/file")), ResolvePath(P("real")) + "/new/file");
  EXPECT_EQ(ResolvePath("/"), "/");
  EXPECT_EQ(ResolvePath("/nonexistent-dir-of-mlfkit/a/../b"), "/nonexistent-dir-of-mlfkit/b");
}

TEST_F(OutputPathTest, RelativePathsResolveFromTheWorkingDirectory) {
  MakeDirs(P("d"));
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(chdir(dir_.c_str()), 0);
  const std::string resolved = ResolvePath("d/x");
  ASSERT_EQ(chdir(cwd), 0);
  EXPECT_EQ(resolved, ResolvePath(P("d")) + "/x");
}

TEST_F(OutputPathTest, SameFileIsRefusedNamingBothPaths) {
  WriteFile(P("k.key"), "secret");
  Status s = CheckOutputFile(FlagPath("-o", P("k.key")),
                             {FlagPath("ARCHIVE", P("a.tar")), FlagPath("--key", P("k.key"))});
  EXPECT_EQ(s.ToString(), "invalid_argument: -o '" + P("k.key") + "' is the same file as --key '" +
                              P("k.key") + "'; choose another output path");
}

TEST_F(OutputPathTest, HardAndSymbolicLinksToAnInputAreTheSameFile) {
  WriteFile(P("k.key"), "secret");
  ASSERT_EQ(link(P("k.key").c_str(), P("hard").c_str()), 0);
  ASSERT_EQ(symlink(P("k.key").c_str(), P("soft").c_str()), 0);
  for (const char* name : {"hard", "soft"}) {
    Status s = CheckOutputFile(FlagPath("-o", P(name)), {FlagPath("--key", P("k.key"))});
    EXPECT_EQ(s.ToString(), "invalid_argument: -o '" + P(name) + "' is the same file as --key '" +
                                P("k.key") + "'; choose another output path");
  }
}

TEST_F(OutputPathTest, DifferentOrMissingFilesPass) {
  WriteFile(P("a.tar"), "a");
  WriteFile(P("b.tar"), "b");
  const NamedPath archive = FlagPath("ARCHIVE", P("a.tar"));
  EXPECT_TRUE(CheckOutputFile(FlagPath("-o", P("b.tar")), {archive}).ok());
  EXPECT_TRUE(CheckOutputFile(FlagPath("-o", P("new.tar")), {archive}).ok());
  EXPECT_TRUE(CheckOutputFile(FlagPath("-o", P("new.tar")), {FlagPath("ARCHIVE", P("gone"))}).ok());
  // A file next to a tree, or a tree's sibling with a common prefix, is outside it.
  MakeDirs(P("model"));
  const NamedPath tree = FlagPath("DIR", P("model"));
  EXPECT_TRUE(CheckOutputFile(FlagPath("-o", P("model.tar")), {}, {tree}).ok());
  EXPECT_TRUE(CheckOutputFile(FlagPath("-o", P("model2/x.tar")), {}, {tree}).ok());
}

TEST_F(OutputPathTest, OutputInsideATreeIsRefused) {
  MakeDirs(P("model/parameters"));
  WriteFile(P("model/metadata.json"), "{}");
  ASSERT_EQ(symlink(P("model").c_str(), P("alias").c_str()), 0);
  const NamedPath tree = FlagPath("DIR", P("model"));
  for (const std::string& out : {P("model/metadata.json"), P("model/new.tar"),
                                P("model/parameters/../x.tar"), P("alias/x.tar"),
                                P("model/missing/deeper/x.tar")}) {
    EXPECT_EQ(CheckOutputFile(FlagPath("-o", out), {}, {tree}).ToString(),
              "invalid_argument: -o '" + out + "' is inside DIR '" + P("model") +
                  "', which is read; choose another output path")
        << out;
  }
  EXPECT_EQ(CheckOutputFile(FlagPath("-o", P("alias")), {}, {tree}).ToString(),
            "invalid_argument: -o '" + P("alias") + "' is the same directory as DIR '" +
                P("model") + "'; choose another output path");
}

TEST_F(OutputPathTest, OutputDirectoryMayNotBeOrContainAnInput) {
  MakeDirs(P("out"));
  WriteFile(P("out/a.tar"), "a");
  WriteFile(P("b.tar"), "b");
  EXPECT_EQ(CheckOutputDirectory(FlagPath("-o", P("out")), {FlagPath("ARCHIVE", P("out/a.tar"))})
                .ToString(),
            "invalid_argument: -o '" + P("out") + "' contains ARCHIVE '" + P("out/a.tar") +
                "'; choose another output path");
  EXPECT_EQ(CheckOutputDirectory(FlagPath("-o", P("b.tar")), {FlagPath("ARCHIVE", P("b.tar"))})
                .ToString(),
            "invalid_argument: -o '" + P("b.tar") + "' is the same file as ARCHIVE '" +
                P("b.tar") + "'; choose another output path");
  EXPECT_TRUE(CheckOutputDirectory(FlagPath("-o", P("new")), {FlagPath("ARCHIVE", P("b.tar")),
                                                              FlagPath("--key", P("gone"))})
                  .ok());
}

}  // namespace
}  // namespace mlf::cli
