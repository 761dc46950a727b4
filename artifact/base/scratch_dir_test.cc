#include "artifact/base/scratch_dir.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace mlf {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// The path of a scratch directory made by a child that then dies by SIGKILL.
std::string LeftByKilledChild(const std::string& parent, const std::string& prefix) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "";
  const pid_t child = fork();
  if (child == 0) {
    Result<ScratchDir> dir = ScratchDir::Create(parent, prefix);
    if (dir.ok()) {
      std::ofstream(dir->path() + "/file") << "data";
      (void)!write(pipe_fds[1], dir->path().data(), dir->path().size());
    }
    close(pipe_fds[1]);
    raise(SIGKILL);
    _exit(1);
  }
  close(pipe_fds[1]);
  std::string path;
  char buf[256];
  ssize_t n;
  while ((n = read(pipe_fds[0], buf, sizeof buf)) > 0) path.append(buf, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return path;
}

TEST(ScratchDirTest, IsPrivateAndRemovedWithItsContent) {
  const std::string parent = FreshDir("private");
  std::string path;
  {
    Result<ScratchDir> dir = ScratchDir::Create(parent, "mlf-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    path = dir->path();
    EXPECT_EQ(path.rfind(parent + "/mlf-test-", 0), 0u) << path;
    EXPECT_EQ(path.size(), (parent + "/mlf-test-XXXXXX").size());
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    fs::create_directories(path + "/a/b");
    std::ofstream(path + "/a/b/c") << "x";
    ScratchDir moved = std::move(*dir);
    EXPECT_EQ(moved.path(), path);
  }
  EXPECT_FALSE(Exists(path));
}

TEST(ScratchDirTest, ReleaseKeepsTheDirectory) {
  const std::string parent = FreshDir("release");
  Result<ScratchDir> dir = ScratchDir::Create(parent, ".stage.");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir->path();
  ASSERT_EQ(rename(path.c_str(), (parent + "/final").c_str()), 0);
  dir->Release();
  dir = ScratchDir::Create(parent, "other-");  // replacing a released one removes nothing
  EXPECT_TRUE(Exists(parent + "/final"));
}

TEST(ScratchDirTest, AKilledOwnersDirectoryIsRemovedByTheNextCreate) {
  const std::string parent = FreshDir("killed");
  const std::string left = LeftByKilledChild(parent, "mlf-build-");
  ASSERT_FALSE(left.empty());
  ASSERT_TRUE(Exists(left + "/file"));
  // Too recent: could be a live creator between mkdtemp and flock.
  EXPECT_EQ(RemoveStaleScratchDirs(parent, "mlf-build-"), 0);
  EXPECT_TRUE(Exists(left));
  // Old enough (as it will be a minute later).
  EXPECT_EQ(RemoveStaleScratchDirs(parent, "mlf-build-", 0), 1);
  EXPECT_FALSE(Exists(left));
}

TEST(ScratchDirTest, CreateSweepsOnlyAbandonedDirectoriesOfItsPrefix) {
  const std::string parent = FreshDir("sweep");
  const std::string abandoned = LeftByKilledChild(parent, "mlf-build-");
  const std::string other_prefix = LeftByKilledChild(parent, "mlf-export-");
  ASSERT_FALSE(abandoned.empty());
  ASSERT_FALSE(other_prefix.empty());
  // Backdate them past kStaleAfterSeconds.
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(abandoned, old);
  fs::last_write_time(other_prefix, old);
  Result<ScratchDir> live = ScratchDir::Create(parent, "mlf-build-");
  ASSERT_TRUE(live.ok());
  // ctime cannot be backdated: `abandoned` stays until it is a minute old...
  EXPECT_TRUE(Exists(abandoned));
  // ...and with the age check off, the sweep takes it, but not the live
  // (locked) directory, another prefix, a file, a symlink or a longer name.
  std::ofstream(parent + "/mlf-build-FILE00") << "a file";
  ASSERT_EQ(symlink(other_prefix.c_str(), (parent + "/mlf-build-LINK00").c_str()), 0);
  fs::create_directories(parent + "/mlf-build-longer-name");
  EXPECT_EQ(RemoveStaleScratchDirs(parent, "mlf-build-", 0), 1);
  EXPECT_FALSE(Exists(abandoned));
  EXPECT_TRUE(Exists(live->path()));
  EXPECT_TRUE(Exists(other_prefix + "/file"));
  EXPECT_TRUE(Exists(parent + "/mlf-build-FILE00"));
  EXPECT_TRUE(Exists(parent + "/mlf-build-LINK00"));
  EXPECT_TRUE(Exists(parent + "/mlf-build-longer-name"));
}

TEST(ScratchDirTest, ErrorsNameWhatFailed) {
  Result<ScratchDir> bad = ScratchDir::Create("/nonexistent-mlf-parent", "x-");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("cannot create /nonexistent-mlf-parent/x-XXXXXX", 0), 0u)
      << bad.status().message();
  bad = ScratchDir::Create(FreshDir("slash"), "a/b-");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "scratch directory prefix 'a/b-' contains '/'");
}

}  // namespace
}  // namespace mlf
