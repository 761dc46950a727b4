#include "artifact/archive/safe_extract.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/archive/archive_writer.h"
#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::Exists;
using testutil::ListDir;
using testutil::ReadFile;
using testutil::WriteFile;

// A sandbox with a sentinel directory that extraction must never touch.
struct Sandbox {
  std::string root, sentinel, dest;
  explicit Sandbox(const std::string& name) {
    root = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
    sentinel = root + "/sentinel";
    dest = root + "/dest";
    mkdir(root.c_str(), 0755);
    mkdir(sentinel.c_str(), 0755);
    WriteFile(sentinel + "/file", "sentinel");
  }
  void ExpectSentinelIntact() const {
    EXPECT_EQ(ListDir(sentinel), std::vector<std::string>{"file"});
    EXPECT_EQ(ReadFile(sentinel + "/file"), "sentinel");
  }
};

// python3 mk.py <case> <out> <sentinel>: hostile tars aimed at the sentinel.
constexpr char kMaker[] = R"PY(
import io, sys, tarfile
case, out, sentinel = sys.argv[1:4]
def f(name, data=b'pwned', **kw):
    ti = tarfile.TarInfo(name)
    ti.size = 0 if data is None else len(data)
    for k, v in kw.items(): setattr(ti, k, v)
    return ti, data
cases = {
  'traversal': [f('ok'), f('../sentinel/pwned')],
  'absolute': [f('ok'), f(sentinel + '/pwned')],
  'symlink': [f('s', None, type=tarfile.SYMTYPE, linkname='../sentinel'), f('s/pwned')],
  'symlink_file': [f('file', None, type=tarfile.SYMTYPE, linkname='../sentinel/file')],
  'hardlink': [f('h', None, type=tarfile.LNKTYPE, linkname='../sentinel/file')],
  'chardev': [f('c', None, type=tarfile.CHRTYPE, devmajor=1, devminor=3)],
  'blockdev': [f('b', None, type=tarfile.BLKTYPE)],
  'fifo': [f('p', None, type=tarfile.FIFOTYPE)],
  'duplicate': [f('a', b'first'), f('./a', b'second')],
  'late_bad': [f('d/one', b'1'), f('d/two', b'2'), f('../x')],
  'file_then_dir': [f('a'), f('a/b')],
  'through_d': [f('d/pwned')],
  'over_f': [f('f', b'new')],
  'good': [f('./', None, type=tarfile.DIRTYPE), f('d/', None, type=tarfile.DIRTYPE),
           f('d/x', b'x'), f('top', b'top')],
}
with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
    for ti, d in cases[case]: t.addfile(ti, None if d is None else io.BytesIO(d))
)PY";

std::string Make(const Sandbox& box, const std::string& kase) {
  const std::string script = box.root + "/mk.py";
  WriteFile(script, kMaker);
  const std::string out = box.root + "/" + kase + ".tar";
  const std::string cmd = "/usr/bin/python3 " + script + " " + kase + " " + out + " " + box.sentinel;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

TEST(SafeExtractTest, ExtractsWriterOutputIntoNewNestedDirectory) {
  Sandbox box("roundtrip");
  const std::string archive = box.root + "/a.tar";
  std::vector<ArchiveMember> rest = {
      {"codegen/host/src/lib0.c", MemberSource::Bytes("int x;"), false},
      {"parameters/p.bin", MemberSource::Bytes(std::string(70000, 'p')), true},
  };
  WriteOptions o;
  o.compression = Compression::kZstd;
  ASSERT_TRUE(WriteArchive(
                  archive, "metadata.json", 2,
                  [](const DigestMap&) -> Result<std::string> { return std::string("{}"); }, rest,
                  o)
                  .ok());
  const std::string dest = box.root + "/out/nested/dest/";
  Status s = ExtractArchive(archive, dest);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ReadFile(dest + "metadata.json"), "{}");
  EXPECT_EQ(ReadFile(dest + "codegen/host/src/lib0.c"), "int x;");
  EXPECT_EQ(ReadFile(dest + "parameters/p.bin"), std::string(70000, 'p'));
  struct stat st;
  ASSERT_EQ(stat((dest + "parameters/p.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_EQ(stat((dest + "codegen/host").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(stat(dest.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_EQ(ListDir(box.root + "/out/nested"), std::vector<std::string>{"dest"});  // no staging left
}

TEST(SafeExtractTest, DirectoryEntriesAndEmptyExistingDestination) {
  Sandbox box("good");
  mkdir(box.dest.c_str(), 0755);
  ASSERT_TRUE(ExtractArchive(Make(box, "good"), box.dest).ok());
  EXPECT_EQ(ListDir(box.dest), (std::vector<std::string>{"d", "top"}));
  EXPECT_EQ(ReadFile(box.dest + "/d/x"), "x");
  EXPECT_EQ(ListDir(box.root), (std::vector<std::string>{"dest", "good.tar", "mk.py", "sentinel"}));
}

TEST(SafeExtractTest, NothingOutsideDestinationAndNothingAtAllOnRefusal) {
  struct Case {
    std::string kase, error;
  };
  const std::vector<Case> cases = {
      {"traversal",
       "permission_denied: member '../sentinel/pwned': path escapes the destination ('..' "
       "component)"},
      {"absolute", ""},  // message contains the sandbox path, checked by prefix below
      {"symlink",
       "permission_denied: member 's': symbolic link to '../sentinel' (links are not allowed)"},
      {"symlink_file",
       "permission_denied: member 'file': symbolic link to '../sentinel/file' (links are not "
       "allowed)"},
      {"hardlink",
       "permission_denied: member 'h': hard link to '../sentinel/file' (links are not allowed)"},
      {"chardev",
       "permission_denied: member 'c': character device file (device files are not allowed)"},
      {"blockdev",
       "permission_denied: member 'b': block device file (device files are not allowed)"},
      {"fifo", "permission_denied: member 'p': FIFO (named pipes are not allowed)"},
      {"duplicate", "already_exists: member './a': duplicate member (same path as 'a')"},
      {"late_bad",
       "permission_denied: member '../x': path escapes the destination ('..' component)"},
      {"file_then_dir",
       "already_exists: member 'a/b': its parent directory 'a' is a file member"},
  };
  for (const Case& c : cases) {
    Sandbox box("refuse_" + c.kase);
    const std::string archive = Make(box, c.kase);
    Status s = ExtractArchive(archive, box.dest);
    EXPECT_FALSE(s.ok()) << c.kase;
    if (!c.error.empty()) {
      EXPECT_EQ(s.ToString(), c.error);
    } else {
      EXPECT_EQ(s.ToString(),
                "permission_denied: member '" + box.sentinel + "/pwned': absolute path");
    }
    box.ExpectSentinelIntact();
    EXPECT_FALSE(Exists(box.dest)) << c.kase << ": all or nothing";
    std::vector<std::string> expected = {c.kase + ".tar", "mk.py", "sentinel"};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(ListDir(box.root), expected) << c.kase << ": no staging directory left";
  }
}

TEST(SafeExtractTest, RefusesNonEmptyOrNonDirectoryDestination) {
  Sandbox box("nonempty");
  mkdir(box.dest.c_str(), 0755);
  WriteFile(box.dest + "/keep", "keep");
  const std::string archive = Make(box, "good");
  EXPECT_EQ(ExtractArchive(archive, box.dest).ToString(),
            "failed_precondition: destination '" + box.dest +
                "' exists and is not empty; extract into a new or empty directory");
  EXPECT_EQ(ListDir(box.dest), std::vector<std::string>{"keep"});
  EXPECT_EQ(
      ExtractArchive(archive, box.dest + "/keep").ToString(),
      "failed_precondition: destination '" + box.dest + "/keep' exists and is not a directory");
}

TEST(SafeExtractTest, OverwriteNeverFollowsSymlinksInTheDestination) {
  Sandbox box("overwrite");
  mkdir(box.dest.c_str(), 0755);
  ASSERT_EQ(symlink("../sentinel", (box.dest + "/d").c_str()), 0);
  ASSERT_EQ(symlink("../sentinel/file", (box.dest + "/f").c_str()), 0);
  ExtractOptions overwrite;
  overwrite.overwrite = true;
  EXPECT_EQ(ExtractArchive(Make(box, "through_d"), box.dest, {}, overwrite).ToString(),
            "permission_denied: member 'd/pwned': 'd' is a symbolic link in the destination "
            "(refusing to follow it)");
  box.ExpectSentinelIntact();
  // A symlink where a member goes is replaced by the member, not written through.
  ASSERT_TRUE(ExtractArchive(Make(box, "over_f"), box.dest, {}, overwrite).ok());
  box.ExpectSentinelIntact();
  struct stat st;
  ASSERT_EQ(lstat((box.dest + "/f").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(ReadFile(box.dest + "/f"), "new");
}

TEST(SafeExtractTest, OverwriteFailureKeepsCompletedMembersOnly) {
  Sandbox box("overwrite_fail");
  mkdir(box.dest.c_str(), 0755);
  WriteFile(box.dest + "/existing", "old");
  // Cut the archive inside the data of its second member.
  std::vector<ArchiveMember> rest = {{"a", MemberSource::Bytes(std::string(1000, 'a'))},
                                     {"b", MemberSource::Bytes(std::string(100000, 'b'))}};
  const std::string full = box.root + "/full.tar";
  ASSERT_TRUE(WriteArchive(
                  full, "metadata.json", 2,
                  [](const DigestMap&) -> Result<std::string> { return std::string("{}"); }, rest)
                  .ok());
  WriteFile(box.root + "/cut.tar", ReadFile(full).substr(0, 5000));
  ExtractOptions overwrite;
  overwrite.overwrite = true;
  EXPECT_EQ(ExtractArchive(box.root + "/cut.tar", box.dest, {}, overwrite).ToString(),
            "data_loss: member 'b': truncated archive (Truncated tar archive)");
  EXPECT_EQ(ListDir(box.dest), (std::vector<std::string>{"a", "existing", "metadata.json"}));
  // Without overwrite (fresh destination) nothing at all remains.
  EXPECT_FALSE(ExtractArchive(box.root + "/cut.tar", box.root + "/fresh").ok());
  EXPECT_FALSE(Exists(box.root + "/fresh"));
}

}  // namespace
}  // namespace mlf
