#include "artifact/archive/archive_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/archive/archive_writer.h"
#include "artifact/base/digest.h"
#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::ReadFile;
using testutil::WriteFile;

std::string Tmp() { return std::getenv("TEST_TMPDIR"); }

void Shell(const std::string& cmd) { ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd; }

// Builds hostile and unusual tars with Python's tarfile module:
//   python3 mk.py <case> <output>
constexpr char kMaker[] = R"PY(
import io, os, random, sys, tarfile
case, out = sys.argv[1], sys.argv[2]
def f(name, data=b'x', **kw):
    ti = tarfile.TarInfo(name)
    ti.size = 0 if data is None else len(data)
    for k, v in kw.items(): setattr(ti, k, v)
    return ti, data
def tar_bytes(entries):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.PAX_FORMAT) as t:
        for ti, d in entries: t.addfile(ti, None if d is None else io.BytesIO(d))
    return buf.getvalue()
rnd = random.Random(5)
text = ''.join(rnd.choice('abcdefgh \n') for _ in range(300000)).encode()
cases = {
  'traversal': [f('a'), f('../x')],
  'nested_traversal': [f('a/../../x')],
  'absolute': [f('/etc/passwd')],
  'symlink': [f('s', None, type=tarfile.SYMTYPE, linkname='/etc')],
  'hardlink': [f('a'), f('h', None, type=tarfile.LNKTYPE, linkname='a')],
  'chardev': [f('c', None, type=tarfile.CHRTYPE, devmajor=1, devminor=3)],
  'blockdev': [f('b', None, type=tarfile.BLKTYPE, devmajor=8)],
  'fifo': [f('p', None, type=tarfile.FIFOTYPE)],
  'duplicate': [f('a'), f('a')],
  'dot_duplicate': [f('a'), f('./a')],
  'dir_duplicate': [f('d'), f('d/', None, type=tarfile.DIRTYPE)],
  'dir_traversal': [f('../d/', None, type=tarfile.DIRTYPE)],
  'many': [f('m%02d' % i) for i in range(20)],
  'two600': [f('a', b'a' * 600), f('b', b'b' * 600)],
  'longname': [f('n' * 5000)],
  'dirs': [f('./', None, type=tarfile.DIRTYPE), f('d/', None, type=tarfile.DIRTYPE),
           f('./d/x', b'hello'), f('d//y/./z', b'zz')],
  'unicode': [f('dir/\u00e9t\u00e9.txt', b'utf8')],
  'text': [f('a', b'hello'), f('b', text)],
  'zeros': [f('zeros', b'\0' * (16 << 20))],
  'zeros_then': [f('zeros', b'\0' * (16 << 20)), f('after', b'x')],
}
if case == 'corrupt_gz':
    # Valid deflate up to a flush point inside member b's data, then a block
    # of reserved type (0xff): inflate must fail there.
    import zlib
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    t = tar_bytes(cases['text'])
    data = c.compress(t[:1536 + 100000]) + c.flush(zlib.Z_FULL_FLUSH) + b'\xff' * 100
else:
    data = tar_bytes(cases[case])
open(out, 'wb').write(data)
)PY";

std::string Make(const std::string& kase, const std::string& suffix = ".tar") {
  static bool written = false;
  if (!written) {
    WriteFile(Tmp() + "/mk.py", kMaker);
    written = true;
  }
  const std::string out = Tmp() + "/" + kase + suffix;
  Shell("/usr/bin/python3 " + Tmp() + "/mk.py " + kase + " " + out);
  return out;
}

// Reads every member (data included); returns the first error, or "ok".
std::string ReadAllMembers(const std::string& path, const ReaderLimits& limits = {},
                           bool read_data = true) {
  Result<std::unique_ptr<ArchiveReader>> r = ArchiveReader::Open(path, limits);
  if (!r.ok()) return r.status().ToString();
  for (;;) {
    Result<std::optional<EntryInfo>> e = (*r)->Next();
    if (!e.ok()) return e.status().ToString();
    if (!e->has_value()) return "ok";
    if (!read_data) continue;
    Status s = (*r)->ReadData([](const void*, size_t) { return Status::Ok(); });
    if (!s.ok()) return s.ToString();
  }
}

struct Member {
  EntryInfo info;
  std::string data;
};

std::vector<Member> ReadMembers(const std::string& path, Compression* compression = nullptr) {
  std::vector<Member> out;
  auto r = ArchiveReader::Open(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return out;
  if (compression) *compression = (*r)->compression();
  for (;;) {
    auto e = (*r)->Next();
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    if (!e.ok() || !e->has_value()) break;
    Result<std::string> data = (*r)->ReadAll(1 << 30);
    EXPECT_TRUE(data.ok()) << data.status().ToString();
    out.push_back({**e, data.ok() ? *data : ""});
  }
  return out;
}

FirstMemberFn Fixed(std::string s) {
  return [s](const DigestMap&) -> Result<std::string> { return s; };
}

TEST(ArchiveReaderTest, RoundTripsTheWriterWithOffsets) {
  const std::string dir = Tmp() + "/roundtrip";
  mkdir(dir.c_str(), 0755);
  const std::string blob(100000, 'p');
  WriteFile(dir + "/blob", blob);
  std::vector<ArchiveMember> rest = {
      {"codegen/host/src/lib0.c", MemberSource::Bytes("int x;"), false},
      {"parameters/default.bin", MemberSource::File(dir + "/blob"), true},
      {std::string(180, 'l') + "/\xc3\xa9.txt", MemberSource::Bytes("long"), false},
  };
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    WriteOptions o;
    o.compression = c;
    const std::string path = dir + "/out." + CompressionName(c);
    ASSERT_TRUE(WriteArchive(path, "metadata.json", 2, Fixed("{}"), rest, o).ok());
    Compression detected;
    std::vector<Member> got = ReadMembers(path, &detected);
    EXPECT_EQ(detected, c);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].info.name, "metadata.json");
    EXPECT_EQ(got[0].data, "{}");
    EXPECT_EQ(got[2].info.name, "parameters/default.bin");
    EXPECT_EQ(got[2].data, blob);
    EXPECT_EQ(got[3].info.name, rest[2].name);
    if (c == Compression::kNone) {
      EXPECT_EQ(got[0].info.data_offset, 512u);
      EXPECT_EQ(got[2].info.data_offset % 4096, 0u);
      // The offset can be used to copy the member out of the archive.
      const std::string archive = ReadFile(path);
      for (const Member& m : got) {
        EXPECT_EQ(archive.substr(m.info.data_offset, m.info.size), m.data) << m.info.name;
      }
    } else {
      EXPECT_EQ(got[2].info.data_offset, kUnknownOffset);
    }
  }
}

TEST(ArchiveReaderTest, DirectoriesAreSkippedAndNamesNormalised) {
  std::vector<Member> got = ReadMembers(Make("dirs"));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].info.name, "d/x");
  EXPECT_EQ(got[0].data, "hello");
  EXPECT_EQ(got[1].info.name, "d/y/z");
}

TEST(ArchiveReaderTest, NonAsciiNamesKeepTheirUtf8Bytes) {
  std::vector<Member> got = ReadMembers(Make("unicode"));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].info.name, "dir/\xc3\xa9t\xc3\xa9.txt");
}

struct Refusal {
  std::string kase;
  std::string error;
};

TEST(ArchiveReaderTest, RefusesUnsafeMembers) {
  const std::vector<Refusal> cases = {
      {"traversal",
       "permission_denied: member '../x': path escapes the destination ('..' component)"},
      {"nested_traversal",
       "permission_denied: member 'a/../../x': path escapes the destination ('..' component)"},
      {"absolute", "permission_denied: member '/etc/passwd': absolute path"},
      {"symlink", "permission_denied: member 's': symbolic link to '/etc' (links are not allowed)"},
      {"hardlink", "permission_denied: member 'h': hard link to 'a' (links are not allowed)"},
      {"chardev",
       "permission_denied: member 'c': character device file (device files are not allowed)"},
      {"blockdev",
       "permission_denied: member 'b': block device file (device files are not allowed)"},
      {"fifo", "permission_denied: member 'p': FIFO (named pipes are not allowed)"},
      {"duplicate", "already_exists: member 'a': duplicate member"},
      {"dot_duplicate", "already_exists: member './a': duplicate member (same path as 'a')"},
      {"dir_duplicate", "already_exists: member 'd/': directory has the name of a file"},
      {"dir_traversal",
       "permission_denied: member '../d/': path escapes the destination ('..' component)"},
      {"longname", "out_of_range: member '" + std::string(200, 'n') +
                       "...': name is 5000 bytes, longer than the limit of 4096"},
  };
  for (const Refusal& c : cases) {
    EXPECT_EQ(ReadAllMembers(Make(c.kase)), c.error) << c.kase;
    // Refused even when the caller never reads data.
    EXPECT_EQ(ReadAllMembers(Make(c.kase), {}, false), c.error) << c.kase;
  }
}

TEST(ArchiveReaderTest, RefusesSparseFiles) {
  const std::string dir = Tmp() + "/sparse";
  mkdir(dir.c_str(), 0755);
  Shell("cd " + dir +
        " && truncate -s 1M hole && echo end >> hole && "
        "tar --sparse --format=pax -cf pax.tar hole && tar --sparse --format=gnu -cf gnu.tar hole");
  EXPECT_EQ(ReadAllMembers(dir + "/pax.tar"),
            "invalid_argument: member 'hole': sparse file (not supported)");
  EXPECT_EQ(ReadAllMembers(dir + "/gnu.tar"),
            "invalid_argument: member 'hole': sparse file (not supported)");
}

TEST(ArchiveReaderTest, EnforcesSizeCountAndTotalBounds) {
  // Only headers: the sizes are claimed, never written. 10 GiB needs pax `size`.
  const std::string huge = Tmp() + "/huge.tar";
  WriteFile(huge, EncodeMemberHeader("big.bin", 10ull << 30, 0, 0, false));
  ReaderLimits small;
  small.max_member_bytes = 1ull << 30;
  EXPECT_EQ(ReadAllMembers(huge, small, false),
            "out_of_range: member 'big.bin': size 10737418240 bytes (10.0 GiB) exceeds the limit "
            "of 1073741824 bytes (1.0 GiB)");
  // Within the default member limit, the missing data is a truncation.
  EXPECT_EQ(ReadAllMembers(huge),
            "data_loss: member 'big.bin': truncated archive (Truncated tar archive)");
  const std::string octal = Tmp() + "/octal.tar";
  WriteFile(octal, EncodeMemberHeader("five.bin", 5ull << 30, 0, 0, false));
  EXPECT_EQ(ReadAllMembers(octal, small, false),
            "out_of_range: member 'five.bin': size 5368709120 bytes (5.0 GiB) exceeds the limit "
            "of 1073741824 bytes (1.0 GiB)");

  ReaderLimits few;
  few.max_members = 10;
  EXPECT_EQ(ReadAllMembers(Make("many"), few), "out_of_range: archive has more than 10 members");
  EXPECT_EQ(ReadAllMembers(Make("many")), "ok");

  ReaderLimits total;
  total.max_total_bytes = 1000;
  EXPECT_EQ(ReadAllMembers(Make("two600"), total),
            "out_of_range: member 'b': members total more than the limit of 1000 bytes");
}

TEST(ArchiveReaderTest, TruncatedAndCorruptTar) {
  const std::string text = Make("text");
  const std::string bytes = ReadFile(text);
  WriteFile(Tmp() + "/cut_data.tar", bytes.substr(0, 1536 + 100000));
  EXPECT_EQ(ReadAllMembers(Tmp() + "/cut_data.tar"),
            "data_loss: member 'b': truncated archive (Truncated tar archive)");
  // Skipping the data does not hide the truncation either.
  EXPECT_EQ(ReadAllMembers(Tmp() + "/cut_data.tar", {}, false),
            "data_loss: truncated archive after member 'b' (Truncated input file (needed 300032 "
            "bytes, only 100000 available))");
  WriteFile(Tmp() + "/cut_header.tar", bytes.substr(0, 1024 + 200));
  EXPECT_EQ(ReadAllMembers(Tmp() + "/cut_header.tar"),
            "data_loss: truncated archive after member 'a' (Truncated tar archive)");
  std::string bad = bytes;
  bad[1024 + 148] ^= 1;  // checksum of member 'b'
  WriteFile(Tmp() + "/badsum.tar", bad);
  EXPECT_EQ(ReadAllMembers(Tmp() + "/badsum.tar"),
            "data_loss: corrupt tar header (bad checksum) after member 'a' (Damaged tar archive)");
}

TEST(ArchiveReaderTest, CorruptAndTruncatedCompressedData) {
  const std::string text = Make("text");
  Shell("gzip -nkf " + text + " && zstd -qf " + text);
  const std::string gz = ReadFile(text + ".gz");
  const std::string zst = ReadFile(text + ".zst");

  std::string bad_start = gz;
  bad_start[10] = '\xff';  // first deflate block: reserved block type
  WriteFile(Tmp() + "/bad_start.tar.gz", bad_start);
  EXPECT_EQ(ReadAllMembers(Tmp() + "/bad_start.tar.gz"),
            "data_loss: corrupt gzip data at the start of the archive (gzip decompression failed)");

  EXPECT_EQ(ReadAllMembers(Make("corrupt_gz", ".tar.gz")),
            "data_loss: member 'b': corrupt gzip data (gzip decompression failed)");

  WriteFile(Tmp() + "/cut.tar.gz", gz.substr(0, gz.size() / 2));
  EXPECT_EQ(ReadAllMembers(Tmp() + "/cut.tar.gz"),
            "data_loss: member 'b': truncated archive (truncated gzip input)");

  std::string bad_zst = zst;
  bad_zst.back() ^= '\xff';  // the frame's content checksum
  WriteFile(Tmp() + "/bad.tar.zst", bad_zst);
  EXPECT_EQ(ReadAllMembers(Tmp() + "/bad.tar.zst"),
            "data_loss: member 'b': corrupt zstd data (Zstd decompression failed: Restored data "
            "doesn't match checksum)");
  std::string bad_zst_start = zst;
  for (size_t i = 20; i < 84; ++i) bad_zst_start[i] = '\xff';
  WriteFile(Tmp() + "/bad_start.tar.zst", bad_zst_start);
  EXPECT_EQ(ReadAllMembers(Tmp() + "/bad_start.tar.zst"),
            "data_loss: corrupt zstd data at the start of the archive (Zstd decompression failed: "
            "Data corruption detected)");

  WriteFile(Tmp() + "/cut.tar.zst", zst.substr(0, zst.size() / 2));
  EXPECT_EQ(ReadAllMembers(Tmp() + "/cut.tar.zst"),
            "data_loss: member 'b': truncated archive (Truncated zstd input)");
}

// libarchive's gzip filter ignores the trailer; the reader checks it with zlib.
TEST(ArchiveReaderTest, GzipTrailerIsChecked) {
  const std::string text = Make("text");
  Shell("gzip -nkf " + text);
  const std::string gz = ReadFile(text + ".gz");
  struct Bad {
    const char* name;
    std::string bytes;
    std::string error;
  };
  std::string crc = gz;
  crc[crc.size() - 8] ^= 0xff;
  std::string isize = gz;
  isize[isize.size() - 2] ^= 0xff;
  const std::vector<Bad> cases = {
      {"crc", crc,
       "data_loss: corrupt gzip data at the end of the archive (CRC-32 mismatch in the gzip "
       "trailer)"},
      {"isize", isize,
       "data_loss: corrupt gzip data at the end of the archive (ISIZE (length) mismatch in the "
       "gzip trailer)"},
      {"no_trailer", gz.substr(0, gz.size() - 8),
       "data_loss: truncated archive at the end of the archive (truncated gzip input)"},
      {"garbage", gz + "garbage",
       "data_loss: corrupt gzip data at the end of the archive (trailing bytes after the gzip "
       "stream)"},
  };
  for (const Bad& c : cases) {
    const std::string path = Tmp() + "/trailer_" + c.name + ".tar.gz";
    WriteFile(path, c.bytes);
    EXPECT_EQ(ReadAllMembers(path), c.error) << c.name;
    EXPECT_EQ(ReadAllMembers(path, {}, false), c.error) << c.name;
  }
  // Zero padding after the stream (tape blocking; gzip -t accepts it) is not an error.
  WriteFile(Tmp() + "/padded.tar.gz", gz + std::string(4096, '\0'));
  EXPECT_EQ(ReadAllMembers(Tmp() + "/padded.tar.gz"), "ok");
}

TEST(ArchiveReaderTest, ConcatenatedGzipMembers) {
  // Split inside member b's data, as `cat a.gz b.gz` or pigz may.
  const std::string text = Make("text");
  const std::string bytes = ReadFile(text);
  WriteFile(Tmp() + "/part1", bytes.substr(0, 1536 + 1000));
  WriteFile(Tmp() + "/part2", bytes.substr(1536 + 1000));
  Shell("cd " + Tmp() + " && gzip -nf part1 part2 && cat part1.gz part2.gz > two.tar.gz");
  Compression c = Compression::kNone;
  std::vector<Member> got = ReadMembers(Tmp() + "/two.tar.gz", &c);
  std::vector<Member> want = ReadMembers(text);
  EXPECT_EQ(c, Compression::kGzip);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].info.name, "b");
  EXPECT_EQ(got[1].data, want[1].data);
  EXPECT_EQ(got[1].info.data_offset, kUnknownOffset);

  // A bad trailer on the first member is found where its data ends: in 'b'.
  std::string first = ReadFile(Tmp() + "/part1.gz");
  first[first.size() - 8] ^= 0xff;
  WriteFile(Tmp() + "/two_bad.tar.gz", first + ReadFile(Tmp() + "/part2.gz"));
  EXPECT_EQ(ReadAllMembers(Tmp() + "/two_bad.tar.gz"),
            "data_loss: member 'b': corrupt gzip data (CRC-32 mismatch in the gzip trailer)");
}

TEST(ArchiveReaderTest, DataAfterTheTarEndIsBounded) {
  // 64 MiB of zeros after the end-of-archive marker, inside the gzip stream.
  const std::string text = Make("text");
  const std::string gz = Tmp() + "/tail_bomb.tar.gz";
  Shell("(cat " + text + "; head -c 64M /dev/zero) | gzip -n > " + gz);
  EXPECT_EQ(ReadAllMembers(gz), "ok");
  ReaderLimits total;
  total.max_total_bytes = 4 << 20;
  EXPECT_EQ(ReadAllMembers(gz, total),
            "out_of_range: data after the end of the tar archive takes the archive over the limit "
            "of 4194304 bytes (4.0 MiB)");
  ReaderLimits ratio;
  ratio.max_compression_ratio = 100;
  ratio.ratio_grace_bytes = 1 << 20;
  const std::string err = ReadAllMembers(gz, ratio);
  EXPECT_EQ(err.rfind("out_of_range: after the end of the tar archive: decompressed data exceeds "
                      "the allowed size for ",
                      0),
            0u)
      << err;
}

// `tar -i` reads on past the end-of-archive blocks and extracts whatever
// follows them: only zero padding may follow (GNU tar and Python pad to a
// 10240-byte record; the writer does not pad at all).
TEST(ArchiveReaderTest, RefusesDataAfterTheEndOfArchiveMarker) {
  const std::string dir = Tmp() + "/after_end";
  mkdir(dir.c_str(), 0755);
  const std::string path = dir + "/base.tar";
  ASSERT_TRUE(WriteArchive(path, "metadata.json", 2, Fixed("{}"),
                           {{"lib.so", MemberSource::Bytes("code"), false}})
                  .ok());
  const std::string base = ReadFile(path);
  const std::string end = std::to_string(base.size());  // the writer ends with two zero blocks
  const std::string appended = ReadFile(Make("two600"));
  struct Case {
    const char* name;
    std::string bytes;
    std::string want;
  };
  const std::string refused =
      "data_loss: data after the end-of-archive marker at offset " + end +
      " (only zero padding may follow it)";
  const std::vector<Case> cases = {
      {"padded", base + std::string(10240 - base.size() % 10240, '\0'), "ok"},
      {"long_padding", base + std::string(3 << 20, '\0'), "ok"},
      {"appended_tar", base + appended, refused},
      {"byte_after_padding", base + std::string(5000, '\0') + "x", refused},
      {"byte_after_a_mib", base + std::string(1 << 20, '\0') + "\x01" + std::string(10, '\0'),
       refused},
      // One zero block, then a header: the second block is not part of the marker.
      {"one_zero_block", base.substr(0, base.size() - 512) + appended,
       "data_loss: data after the end-of-archive marker at offset " +
           std::to_string(base.size() - 512) + " (only zero padding may follow it)"},
  };
  for (const Case& c : cases) {
    const std::string file = dir + "/" + c.name + ".tar";
    WriteFile(file, c.bytes);
    EXPECT_EQ(ReadAllMembers(file), c.want) << c.name;
    EXPECT_EQ(ReadAllMembers(file, {}, false), c.want) << c.name;
  }
  // The members before the end are read as usual before the error.
  auto r = ArchiveReader::Open(dir + "/appended_tar.tar");
  ASSERT_TRUE(r.ok());
  std::vector<std::string> names;
  Status last;
  for (;;) {
    Result<std::optional<EntryInfo>> e = (*r)->Next();
    if (!e.ok()) {
      last = e.status();
      break;
    }
    if (!e->has_value()) break;
    names.push_back((*e)->name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"metadata.json", "lib.so"}));
  EXPECT_EQ(last.ToString(), refused);

  // From a pipe, where nothing can be read back with pread: the same.
  const std::string fifo = dir + "/fifo";
  Shell("mkfifo " + fifo);
  for (const char* name : {"appended_tar", "byte_after_a_mib", "padded", "long_padding"}) {
    Shell("(cat " + dir + "/" + name + ".tar > " + fifo + " 2>/dev/null &)");
    EXPECT_EQ(ReadAllMembers(fifo), std::string(name).find("padd") != std::string::npos
                                        ? "ok"
                                        : refused)
        << name;
  }

  // gzip: inside the decompressed tar (one gzip member or a second one).
  const std::string gz_refused =
      "data_loss: data after the end-of-archive marker at offset " + end +
      " of the decompressed tar (only zero padding may follow it)";
  Shell("cd " + dir + " && gzip -nkf appended_tar.tar padded.tar" +
        " && gzip -nc base.tar > two.tar.gz && gzip -nc " + Make("two600") + " >> two.tar.gz");
  EXPECT_EQ(ReadAllMembers(dir + "/appended_tar.tar.gz"), gz_refused);
  EXPECT_EQ(ReadAllMembers(dir + "/appended_tar.tar.gz", {}, false), gz_refused);
  EXPECT_EQ(ReadAllMembers(dir + "/two.tar.gz"), gz_refused);
  EXPECT_EQ(ReadAllMembers(dir + "/padded.tar.gz"), "ok");
}

TEST(ArchiveReaderTest, RefusesDecompressionBombs) {
  ReaderLimits limits;
  limits.max_compression_ratio = 100;
  limits.ratio_grace_bytes = 1 << 20;
  const std::string zeros = Make("zeros");
  const std::string then = Make("zeros_then");
  Shell("gzip -nkf " + zeros + " && zstd -qf " + zeros + " && gzip -nkf " + then);
  for (const std::string& path : {zeros + ".gz", zeros + ".zst"}) {
    const std::string err = ReadAllMembers(path, limits);
    EXPECT_EQ(err.rfind("out_of_range: member 'zeros': decompressed data exceeds the allowed size "
                        "for ",
                        0),
              0u)
        << err;
    EXPECT_NE(err.find(":1 exceeds the limit of 100:1; possible decompression bomb)"),
              std::string::npos)
        << err;
  }
  // Skipping the member's data still decompresses it under the same bound.
  const std::string skipped = ReadAllMembers(then + ".gz", limits, false);
  EXPECT_NE(skipped.find("member 'zeros': decompressed data exceeds"), std::string::npos)
      << skipped;
  // Default limits accept the same archives (16 MiB is under the grace size).
  EXPECT_EQ(ReadAllMembers(zeros + ".gz"), "ok");
  // The uncompressed archive has no ratio to check.
  EXPECT_EQ(ReadAllMembers(zeros, limits), "ok");
}

TEST(ArchiveReaderTest, RefusesOtherFormats) {
  const std::string dir = Tmp() + "/formats";
  mkdir(dir.c_str(), 0755);
  Shell("cd " + dir +
        " && echo hi > h && /usr/bin/python3 -c \"import zipfile; "
        "zipfile.ZipFile('x.zip','w').writestr('a','b')\" && "
        "printf '070701000000000000' > x.cpio && head -c 5000 /dev/urandom > garbage && "
        ": > empty && bzip2 -kc h > h.bz2");
  const std::string tail =
      ", not a tar archive (accepted: tar, optionally gzip- or zstd-compressed)";
  EXPECT_EQ(ReadAllMembers(dir + "/x.zip"),
            "invalid_argument: '" + dir + "/x.zip' is a zip archive" + tail);
  EXPECT_EQ(ReadAllMembers(dir + "/x.cpio"),
            "invalid_argument: '" + dir + "/x.cpio' is a cpio archive" + tail);
  EXPECT_EQ(ReadAllMembers(dir + "/h.bz2"),
            "invalid_argument: '" + dir + "/h.bz2' is bzip2-compressed data" + tail);
  EXPECT_EQ(ReadAllMembers(dir + "/garbage"),
            "invalid_argument: '" + dir + "/garbage' is not recognised" + tail);
  EXPECT_EQ(ReadAllMembers(dir + "/empty"),
            "invalid_argument: '" + dir + "/empty' is not recognised" + tail);
  EXPECT_EQ(ReadAllMembers(dir), "invalid_argument: '" + dir + "' is a directory, not an archive");
  EXPECT_EQ(ReadAllMembers(dir + "/missing"),
            "io_error: cannot open archive '" + dir + "/missing': No such file or directory");
}

TEST(ArchiveReaderTest, ReadApiContract) {
  auto r = ArchiveReader::Open(Make("text"));
  ASSERT_TRUE(r.ok());
  ArchiveReader& reader = **r;
  EXPECT_EQ(reader.ReadData([](const void*, size_t) { return Status::Ok(); }).ToString(),
            "failed_precondition: no current member: call Next() first");
  auto a = reader.Next();
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ(reader.ReadAll(4).status().ToString(),
            "out_of_range: member 'a': size 5 bytes exceeds the limit of 4 bytes for reading it "
            "into memory");
  // A sink error is returned as is and does not break the reader.
  EXPECT_EQ(reader.ReadData([](const void*, size_t) { return Internal("sink full"); }).ToString(),
            "internal: sink full");
  EXPECT_EQ(reader.ReadAll(100).status().ToString(),
            "failed_precondition: member 'a': data was already read");
  auto b = reader.Next();
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->name, "b");
  Result<std::string> data = reader.ReadAll(1 << 20);
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->size(), 300000u);
  auto end = reader.Next();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
  EXPECT_FALSE(reader.Next()->has_value());
}

}  // namespace
}  // namespace mlf
