#include "artifact/base/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mlf {
namespace {

std::string FreshDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

std::vector<std::string> List(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AtomicFileTest, CommitWritesContentAndMode) {
  const std::string dir = FreshDir("commit");
  ASSERT_TRUE(WriteFileAtomically(dir + "/a.txt", "hello", 0640).ok());
  EXPECT_EQ(Read(dir + "/a.txt"), "hello");
  struct stat st;
  ASSERT_EQ(stat((dir + "/a.txt").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(List(dir), std::vector<std::string>{"a.txt"});
}

TEST(AtomicFileTest, KeepOwnerAndModeReplacesTheCreateMode) {
  ASSERT_EQ(geteuid(), 0u) << "this test changes file owners: run it as root (as CI does)";
  const std::string dir = FreshDir("keep_owner");
  const std::string path = dir + "/a.tar";
  ASSERT_TRUE(WriteFileAtomically(path, "old", 0600).ok());
  ASSERT_EQ(chown(path.c_str(), 65534, 65533), 0);
  Result<FileOwnership> owner = OwnershipOf(path);
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_EQ(owner->uid, 65534u);
  EXPECT_EQ(owner->gid, 65533u);
  EXPECT_EQ(owner->mode, 0600u);
  auto f = AtomicFile::Create(path, 0644);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->KeepOwnerAndMode(*owner).ok());
  ASSERT_TRUE((*f)->Write("new").ok());
  ASSERT_TRUE((*f)->Commit().ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(Read(path), "new");
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65533u);
  EXPECT_EQ(OwnershipOf(dir + "/missing").status().ToString(),
            "io_error: cannot read the owner and mode of '" + dir +
                "/missing': No such file or directory");
}

// Whether `dir` can hold unnamed files (O_TMPFILE) that /proc lets us link.
bool SupportsUnnamedFiles(const std::string& dir) {
  const int fd = open(dir.c_str(), O_TMPFILE | O_RDWR, 0600);
  if (fd < 0) return false;
  struct stat st;
  const bool proc = stat(("/proc/self/fd/" + std::to_string(fd)).c_str(), &st) == 0;
  close(fd);
  return proc;
}

TEST(AtomicFileTest, UnnamedTempFileIsInvisibleUntilCommit) {
  const std::string dir = FreshDir("unnamed");
  // The test directory is on the machine's own file system, which has O_TMPFILE
  // (ext4, tmpfs, xfs, btrfs); without it this test has nothing to show.
  ASSERT_TRUE(SupportsUnnamedFiles(dir)) << dir << " has no O_TMPFILE";
  auto f = AtomicFile::Create(dir + "/model.tar", 0640);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_TRUE((*f)->Write("abc").ok());
  EXPECT_EQ((*f)->temp_name(), "");
  EXPECT_EQ(List(dir), std::vector<std::string>{});
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(List(dir), std::vector<std::string>{"model.tar"});
  EXPECT_EQ(Read(dir + "/model.tar"), "abc");
  struct stat st;
  ASSERT_EQ(stat((dir + "/model.tar").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(AtomicFileTest, KilledWriterLeavesNothingBehind) {
  const std::string dir = FreshDir("killed");
  // The test directory is on the machine's own file system, which has O_TMPFILE
  // (ext4, tmpfs, xfs, btrfs); without it this test has nothing to show.
  ASSERT_TRUE(SupportsUnnamedFiles(dir)) << dir << " has no O_TMPFILE";
  ASSERT_TRUE(WriteFileAtomically(dir + "/model.tar", "old").ok());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto f = AtomicFile::Create(dir + "/model.tar");
    if (f.ok() && (*f)->Write(std::string(1 << 20, 'x')).ok()) raise(SIGKILL);
    _exit(3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(List(dir), std::vector<std::string>{"model.tar"});
  EXPECT_EQ(Read(dir + "/model.tar"), "old");
}

TEST(AtomicFileTest, NamedTempFileLivesInDestinationDirectoryUntilCommit) {
  const std::string dir = FreshDir("temp");
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  auto f = AtomicFile::CreateAt(dfd, "model.tar", 0644, /*unnamed_temp=*/false);
  close(dfd);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_TRUE((*f)->Write("abc").ok());
  const std::vector<std::string> during = List(dir);
  ASSERT_EQ(during.size(), 1u);
  EXPECT_EQ(during[0], (*f)->temp_name());
  EXPECT_EQ(during[0].rfind(".model.tar.tmp.", 0), 0u) << during[0];
  EXPECT_EQ(during[0].size(), std::string(".model.tar.tmp.XXXXXX").size());
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(List(dir), std::vector<std::string>{"model.tar"});
  EXPECT_EQ(Read(dir + "/model.tar"), "abc");
}

TEST(AtomicFileTest, DestroyWithoutCommitLeavesNothing) {
  const std::string dir = FreshDir("abort");
  {
    auto f = AtomicFile::Create(dir + "/x");
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Write("partial").ok());
  }
  EXPECT_TRUE(List(dir).empty());
}

TEST(AtomicFileTest, AbortKeepsExistingDestination) {
  const std::string dir = FreshDir("keep");
  ASSERT_TRUE(WriteFileAtomically(dir + "/x", "old").ok());
  {
    auto f = AtomicFile::Create(dir + "/x");
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Write("new content that is never committed").ok());
    (*f)->Abort();
    EXPECT_FALSE((*f)->Write("more").ok());
    EXPECT_FALSE((*f)->Commit().ok());
  }
  EXPECT_EQ(Read(dir + "/x"), "old");
  EXPECT_EQ(List(dir), std::vector<std::string>{"x"});
}

TEST(AtomicFileTest, CommitReplacesExistingFileAndSymlinkItself) {
  const std::string dir = FreshDir("replace");
  ASSERT_TRUE(WriteFileAtomically(dir + "/x", "old").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/x", "new").ok());
  EXPECT_EQ(Read(dir + "/x"), "new");
  // A symlink at the destination is replaced, never followed.
  ASSERT_TRUE(WriteFileAtomically(dir + "/target", "target").ok());
  ASSERT_EQ(symlink("target", (dir + "/link").c_str()), 0);
  ASSERT_TRUE(WriteFileAtomically(dir + "/link", "replaced").ok());
  EXPECT_EQ(Read(dir + "/target"), "target");
  struct stat st;
  ASSERT_EQ(lstat((dir + "/link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST(AtomicFileTest, CreateAtWorksRelativeToDirectoryFd) {
  const std::string dir = FreshDir("at");
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dfd, 0);
  auto f = AtomicFile::CreateAt(dfd, "m.bin", 0600);
  close(dfd);  // the AtomicFile keeps its own descriptor
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->Write("data").ok());
  ASSERT_TRUE((*f)->Commit().ok());
  EXPECT_EQ(Read(dir + "/m.bin"), "data");
}

TEST(AtomicFileTest, RejectsBadNamesAndMissingDirectory) {
  const std::string dir = FreshDir("bad");
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  EXPECT_EQ(AtomicFile::CreateAt(dfd, "a/b").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(AtomicFile::CreateAt(dfd, "..").status().code(), StatusCode::kInvalidArgument);
  close(dfd);
  Status s = WriteFileAtomically(dir + "/missing/x", "x");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("cannot open directory '" + dir + "/missing'"), std::string::npos)
      << s.message();
}

TEST(AtomicFileTest, LongNamesGetAValidTempName) {
  const std::string dir = FreshDir("long");
  const std::string name(250, 'n');
  ASSERT_TRUE(WriteFileAtomically(dir + "/" + name, "x").ok());
  EXPECT_EQ(List(dir), std::vector<std::string>{name});
}

TEST(AtomicFileTest, RenameFailureKeepsDestinationAndRemovesTemp) {
  const std::string dir = FreshDir("renamefail");
  // A non-empty directory at the destination cannot be replaced by a file.
  ASSERT_EQ(mkdir((dir + "/d").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(dir + "/d/inner", "keep").ok());
  Status s = WriteFileAtomically(dir + "/d", "file");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(Read(dir + "/d/inner"), "keep");
  EXPECT_EQ(List(dir), std::vector<std::string>{"d"});
}

}  // namespace
}  // namespace mlf
