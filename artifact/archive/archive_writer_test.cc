#include "artifact/archive/archive_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/base/digest.h"
#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::ReadFile;
using testutil::WriteFile;

std::string TmpDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

// Runs a shell command; returns its stdout, fails the test on a non-zero exit.
std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd;
  return out;
}

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// A fixed-size metadata placeholder filled in from the digests.
FirstMemberFn MetadataFrom(size_t size) {
  return [size](const DigestMap& d) -> Result<std::string> {
    std::string s = "{";
    for (const auto& [name, md] : d) s += name + "=" + md.sha256 + ";";
    s.resize(size, ' ');
    return s;
  };
}

struct Fixture {
  std::string dir;
  std::vector<ArchiveMember> members;
  std::map<std::string, std::string> contents;  // expected member bytes
};

Fixture MakeFixture(const std::string& name) {
  Fixture f;
  f.dir = TmpDir(name);
  const std::string big = RandomBytes(5 << 20 | 123, 1);  // > parallel threshold
  WriteFile(f.dir + "/big.src", big);
  const std::string blob = RandomBytes(70000, 2);
  WriteFile(f.dir + "/blob.src", blob);
  const std::string long_flat(150, 'L');  // no '/': needs a pax path record
  const std::string long_split = std::string(120, 'd') + "/" + std::string(90, 'f');
  auto add = [&](std::string n, MemberSource s, std::string content, bool align = false) {
    f.members.push_back({n, std::move(s), align});
    f.contents[n] = std::move(content);
  };
  add("codegen/host/src/default_lib0.c", MemberSource::Bytes("int x;\n"), "int x;\n");
  add("codegen/host/src/empty.c", MemberSource::Bytes(""), "");
  add(long_flat, MemberSource::Bytes("flat"), "flat");
  add(long_split, MemberSource::Bytes("split"), "split");
  add("parameters/a.bin", MemberSource::File(f.dir + "/blob.src"), blob, true);
  add("parameters/b.bin", MemberSource::FileRange(f.dir + "/blob.src", 1000, 513),
      blob.substr(1000, 513), true);
  add("parameters/big.bin", MemberSource::File(f.dir + "/big.src"), big, true);
  add("src/z.txt", MemberSource::Bytes(std::string(511, 'z')), std::string(511, 'z'));
  return f;
}

Result<DigestMap> WriteFixture(const Fixture& f, const std::string& dest, WriteOptions o = {}) {
  return WriteArchive(dest, "metadata.json", 2000, MetadataFrom(2000), f.members, o);
}

TEST(ArchiveWriterTest, GnuTarListsAndExtractsIdenticalContent) {
  Fixture f = MakeFixture("gnutar");
  WriteOptions o;
  o.mtime = 1700000000;
  Result<DigestMap> d = WriteFixture(f, f.dir + "/out.tar", o);
  ASSERT_TRUE(d.ok()) << d.status().ToString();

  // No warnings on stderr: the padding records are standard pax.
  const std::string listing = Shell("tar --numeric-owner --utc -tvf " + f.dir + "/out.tar 2>&1");
  std::istringstream lines(listing);
  std::string line;
  std::vector<std::string> names;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("-rw-r--r-- 0/0 ", 0), 0u) << line;
    EXPECT_NE(line.find("2023-11-14 22:13"), std::string::npos) << line;
    names.push_back(line.substr(line.rfind(' ') + 1));
  }
  std::vector<std::string> expected = {"metadata.json"};
  for (const ArchiveMember& m : f.members) expected.push_back(m.name);
  EXPECT_EQ(names, expected);

  const std::string x = TmpDir("gnutar_x");
  Shell("tar -xf " + f.dir + "/out.tar -C " + x + " 2>&1");
  for (const auto& [name, content] : f.contents) {
    EXPECT_EQ(ReadFile(x + "/" + name), content) << name;
    EXPECT_EQ((*d)[name].sha256, Sha256Hex(content)) << name;
    EXPECT_EQ((*d)[name].size, content.size()) << name;
  }
  const std::string md = ReadFile(x + "/metadata.json");
  EXPECT_EQ(md.size(), 2000u);
  EXPECT_EQ((*d)["metadata.json"].sha256, Sha256Hex(md));
  // make_first saw the digests of the other members, not its own.
  EXPECT_NE(md.find("parameters/big.bin=" + Sha256Hex(f.contents["parameters/big.bin"])),
            std::string::npos);
  EXPECT_EQ(md.find("metadata.json="), std::string::npos);

  struct stat st;
  ASSERT_EQ(stat((f.dir + "/out.tar").c_str(), &st), 0);
  EXPECT_EQ(st.st_size % 512, 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  const std::string bytes = ReadFile(f.dir + "/out.tar");
  EXPECT_EQ(bytes.substr(bytes.size() - 1024), std::string(1024, '\0'));
}

TEST(ArchiveWriterTest, AlignedMembersStartOn4096InTheArchive) {
  Fixture f = MakeFixture("align");
  ASSERT_TRUE(WriteFixture(f, f.dir + "/out.tar").ok());
  const std::string offsets = Shell(
      "/usr/bin/python3 -c 'import sys,tarfile\n"
      "for m in tarfile.open(sys.argv[1]): print(m.offset_data, m.size, m.name)' " +
      f.dir + "/out.tar");
  std::istringstream in(offsets);
  uint64_t off, size;
  std::string name;
  int aligned = 0;
  const std::string archive = ReadFile(f.dir + "/out.tar");
  while (in >> off >> size >> name) {
    if (name.rfind("parameters/", 0) == 0) {
      EXPECT_EQ(off % 4096, 0u) << name;
      ++aligned;
    }
    if (f.contents.count(name)) {
      EXPECT_EQ(archive.substr(off, size), f.contents[name]) << name;
    }
  }
  EXPECT_EQ(aligned, 3);
}

TEST(ArchiveWriterTest, HeaderLayoutAlignsForEveryOffsetAndNameLength) {
  for (uint64_t offset = 0; offset < 3 * 4096; offset += 512) {
    for (size_t len : {1, 99, 100, 101, 300, 494, 495, 496, 3000, 5000}) {
      const std::string name(len, 'n');
      const std::string h = EncodeMemberHeader(name, 10, 0, offset, true);
      EXPECT_EQ(h.size() % 512, 0u);
      EXPECT_EQ((offset + h.size()) % 4096, 0u) << offset << " " << len;
      EXPECT_LE(h.size(), 4096 + 512 + 512 + len + 100);
    }
  }
  // Already aligned and short: no pax header at all.
  EXPECT_EQ(EncodeMemberHeader("parameters/x.bin", 10, 0, 3584, true).size(), 512u);
}

TEST(ArchiveWriterTest, HugeSizesAndOddTimesUsePaxRecords) {
  const uint64_t nine_gib = 9ull << 30;
  const std::string h = EncodeMemberHeader("p.bin", nine_gib, -5, 0, false);
  ASSERT_EQ(h.size(), 1536u);
  EXPECT_NE(h.find(" size=9663676416\n"), std::string::npos);
  EXPECT_NE(h.find(" mtime=-5\n"), std::string::npos);
  const std::string ustar = h.substr(1024);
  EXPECT_EQ(ustar.substr(124, 12), std::string("00000000000\0", 12));
  EXPECT_EQ(ustar[156], '0');
  // Exactly 8 GiB - 1 still fits the octal field.
  EXPECT_EQ(EncodeMemberHeader("p.bin", (8ull << 30) - 1, 0, 0, false).size(), 512u);
}

TEST(ArchiveWriterTest, SameInputSameBytes) {
  Fixture f = MakeFixture("determinism");
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    WriteOptions o;
    o.compression = c;
    ASSERT_TRUE(WriteFixture(f, f.dir + "/a", o).ok());
    ASSERT_TRUE(WriteFixture(f, f.dir + "/b", o).ok());
    EXPECT_EQ(ReadFile(f.dir + "/a"), ReadFile(f.dir + "/b")) << CompressionName(c);
  }
}

TEST(ArchiveWriterTest, CompressedOutputsDecompressToTheSameTar) {
  Fixture f = MakeFixture("compressed");
  Result<DigestMap> plain = WriteFixture(f, f.dir + "/out.tar");
  ASSERT_TRUE(plain.ok());
  WriteOptions gz, zs;
  gz.compression = Compression::kGzip;
  zs.compression = Compression::kZstd;
  Result<DigestMap> g = WriteFixture(f, f.dir + "/out.tar.gz", gz);
  Result<DigestMap> z = WriteFixture(f, f.dir + "/out.tar.zst", zs);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(*g, *plain);
  EXPECT_EQ(*z, *plain);
  const std::string tar = ReadFile(f.dir + "/out.tar");
  EXPECT_EQ(Shell("gzip -dc " + f.dir + "/out.tar.gz"), tar);
  EXPECT_EQ(Shell("zstd -q -dc " + f.dir + "/out.tar.zst"), tar);
  const std::string gzbytes = ReadFile(f.dir + "/out.tar.gz");
  EXPECT_EQ(gzbytes.substr(0, 10), std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10));
  Shell("gzip -t " + f.dir + "/out.tar.gz");
}

TEST(ArchiveWriterTest, ZstdBytesDoNotDependOnWorkerCount) {
  const std::string dir = TmpDir("zstd_workers");
  // Compressible but not trivial, and larger than several zstd jobs.
  std::string data;
  std::mt19937 rng(7);
  while (data.size() < (40u << 20)) data += std::to_string(rng() % 100000) + ",";
  WriteFile(dir + "/data", data);
  std::vector<ArchiveMember> rest = {{"data", MemberSource::File(dir + "/data"), true}};
  std::string first;
  for (int workers : {1, 2, 3}) {
    WriteOptions o;
    o.compression = Compression::kZstd;
    o.zstd_workers = workers;
    ASSERT_TRUE(WriteArchive(dir + "/out", "metadata.json", 10, MetadataFrom(10), rest, o).ok());
    if (first.empty()) first = ReadFile(dir + "/out");
    EXPECT_EQ(ReadFile(dir + "/out"), first) << workers << " workers";
  }
}

TEST(ArchiveWriterTest, FirstMemberSizeMismatchFailsAndKeepsDestination) {
  Fixture f = MakeFixture("mismatch");
  const std::string dest = f.dir + "/out.tar";
  WriteFile(dest, "previous");
  for (Compression c : {Compression::kNone, Compression::kZstd}) {
    WriteOptions o;
    o.compression = c;
    Result<DigestMap> d =
        WriteArchive(dest, "metadata.json", 2000, MetadataFrom(1999), f.members, o);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(d.status().message(),
              "member 'metadata.json': content is 1999 bytes but its size was announced as 2000 "
              "(serialise with placeholder digests of the same length)");
    EXPECT_EQ(ReadFile(dest), "previous");
  }
  Result<DigestMap> failing = WriteArchive(
      dest, "metadata.json", 1,
      [](const DigestMap&) -> Result<std::string> { return InvalidArgument("bad schema"); },
      f.members);
  EXPECT_EQ(failing.status().ToString(), "invalid_argument: member 'metadata.json': bad schema");
  EXPECT_EQ(ReadFile(dest), "previous");
  EXPECT_EQ(Shell("ls -A " + f.dir), "big.src\nblob.src\nout.tar\n");  // no temp files left
}

TEST(ArchiveWriterTest, RejectsBadNames) {
  const std::string dir = TmpDir("names");
  struct Case {
    std::string name;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"", "invalid_argument: member name is empty"},
      {"/etc/passwd", "invalid_argument: member '/etc/passwd': absolute path"},
      {"a/../../x",
       "invalid_argument: member 'a/../../x': path escapes the destination ('..' component)"},
      {"..", "invalid_argument: member '..': path escapes the destination ('..' component)"},
      {std::string("a\0b", 3), "invalid_argument: member 'a\\x00b': name contains a NUL byte"},
      {"a//b",
       "invalid_argument: member 'a//b': empty or '.' path component (names must be canonical)"},
      {"./a",
       "invalid_argument: member './a': empty or '.' path component (names must be canonical)"},
      {"dir/",
       "invalid_argument: member 'dir/': empty or '.' path component (names must be canonical)"},
      {"metadata.json", "already_exists: member 'metadata.json': duplicate member"},
  };
  for (const Case& c : cases) {
    std::vector<ArchiveMember> rest = {{c.name, MemberSource::Bytes("x")}};
    Result<DigestMap> d = WriteArchive(dir + "/out.tar", "metadata.json", 1, MetadataFrom(1), rest);
    EXPECT_EQ(d.status().ToString(), c.error);
  }
  std::vector<ArchiveMember> dup = {{"a", MemberSource::Bytes("x")},
                                    {"a", MemberSource::Bytes("y")}};
  EXPECT_EQ(
      WriteArchive(dir + "/out.tar", "metadata.json", 1, MetadataFrom(1), dup).status().ToString(),
      "already_exists: member 'a': duplicate member");
  EXPECT_EQ(Shell("ls -A " + dir), "");
}

TEST(ArchiveWriterTest, BadSourcesNameTheMember) {
  const std::string dir = TmpDir("sources");
  WriteFile(dir + "/ten", "0123456789");
  std::vector<ArchiveMember> missing = {{"m", MemberSource::File(dir + "/nope")}};
  Status s = WriteArchive(dir + "/o", "metadata.json", 1, MetadataFrom(1), missing).status();
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(),
            "member 'm': cannot read source '" + dir + "/nope': No such file or directory");
  std::vector<ArchiveMember> range = {{"r", MemberSource::FileRange(dir + "/ten", 8, 3)}};
  s = WriteArchive(dir + "/o", "metadata.json", 1, MetadataFrom(1), range).status();
  EXPECT_EQ(s.ToString(), "out_of_range: member 'r': range [8, +3) lies outside source '" + dir +
                              "/ten' (10 bytes)");
  std::vector<ArchiveMember> directory = {{"d", MemberSource::File(dir)}};
  s = WriteArchive(dir + "/o", "metadata.json", 1, MetadataFrom(1), directory).status();
  EXPECT_EQ(s.ToString(),
            "invalid_argument: member 'd': source '" + dir + "' is not a regular file");
}

TEST(ArchiveWriterTest, ReportsProgressUpToTheTotal) {
  Fixture f = MakeFixture("progress");
  uint64_t data = 2000;
  for (const auto& [n, c] : f.contents) data += c.size();
  for (Compression c : {Compression::kNone, Compression::kGzip}) {
    WriteOptions o;
    o.compression = c;
    uint64_t last = 0, total = 0;
    bool monotonic = true;
    o.progress = [&](uint64_t done, uint64_t t) {
      monotonic = monotonic && done >= last;
      last = done;
      total = t;
    };
    ASSERT_TRUE(WriteFixture(f, f.dir + "/out", o).ok());
    EXPECT_TRUE(monotonic);
    EXPECT_EQ(total, c == Compression::kNone ? data : 2 * data - 2000);
    EXPECT_EQ(last, total);
  }
}

TEST(ArchiveWriterTest, EmptyRestAndEmptyFirst) {
  const std::string dir = TmpDir("empty");
  Result<DigestMap> d = WriteArchive(dir + "/out.tar", "metadata.json", 0, MetadataFrom(0), {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(ReadFile(dir + "/out.tar").size(), 512u * 3);
  EXPECT_EQ(Shell("tar -tf " + dir + "/out.tar"), "metadata.json\n");
}

}  // namespace
}  // namespace mlf
