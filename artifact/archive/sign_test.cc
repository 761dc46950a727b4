#include "artifact/archive/sign.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "artifact/archive/read_metadata.h"
#include "artifact/archive/signature.h"
#include "artifact/archive/testing/example_archive.h"
#include "artifact/archive/verify.h"

namespace mlf {
namespace {

using testutil::FingerprintOf;
using testutil::FreshDir;
using testutil::ListDir;
using testutil::ReadFile;
using testutil::ReadMembers;
using testutil::ReadRawMembers;
using testutil::TestKey;
using testutil::WriteExampleArchive;
using testutil::kAllCompressions;

Result<VerifyReport> VerifyWith(const std::string& path, const KeyPair& key) {
  VerifyOptions options;
  options.public_key_pem = key.public_pem;
  return VerifyArchive(path, options);
}

std::vector<std::string> Names(const std::vector<testutil::RawMember>& members) {
  std::vector<std::string> out;
  for (const auto& m : members) out.push_back(m.name);
  return out;
}

// An example archive whose last member is corrupt, so it fails verification
// only after every other member has been read (and, compressed, spooled).
std::string CorruptExample(const std::string& path, Compression c) {
  const Metadata md = WriteExampleArchive(path + ".good", c);
  std::vector<ArchiveMember> rest;
  std::string metadata;
  for (const auto& m : ReadMembers(path + ".good")) {
    if (m.name == kMetadataMember) {
      metadata = m.data;
      continue;
    }
    std::string data = m.data;
    if (m.name == testutil::kExampleModel) data[0] ^= 0x01;  // the last member
    rest.push_back({m.name, MemberSource::Bytes(data), false});
  }
  std::remove((path + ".good").c_str());
  WriteOptions options;
  options.compression = c;
  auto written = WriteArchive(path, kMetadataMember, metadata.size(),
                              [&](const DigestMap&) -> Result<std::string> { return metadata; },
                              rest, options);
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  return path;
}

TEST(SignArchiveTest, KeepsCompressionMetadataAndMembers) {
  const std::string dir = FreshDir("sign");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string in = dir + "/in.tar", out = dir + "/out.tar";
    WriteExampleArchive(in, c);
    const std::string before = ReadFile(in);
    auto report = SignArchive(in, TestKey(1).private_pem, out, SignOptions{});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->is_signed);
    EXPECT_FALSE(report->signature_checked);
    EXPECT_EQ(report->signer_key_sha256, FingerprintOf(TestKey(1)));
    EXPECT_EQ(report->compression, c);
    EXPECT_EQ(ReadFile(in), before);  // input untouched

    auto head = ReadArchiveHead(out);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(head->compression, c);
    auto in_head = ReadArchiveHead(in);
    ASSERT_TRUE(in_head.ok());
    EXPECT_EQ(head->metadata_bytes, in_head->metadata_bytes);  // byte for byte
    EXPECT_EQ(head->metadata_bytes, report->metadata_bytes);
    EXPECT_NE(head->signature_member, "");
    EXPECT_TRUE(Verify(TestKey(1).public_pem, head->metadata_bytes, head->signature_member).ok());

    auto verified = VerifyWith(out, TestKey(1));
    ASSERT_TRUE(verified.ok()) << verified.status().ToString();
    EXPECT_TRUE(verified->signature_checked);
    EXPECT_EQ(verified->signer_key_sha256, FingerprintOf(TestKey(1)));

    // Same members, same bytes, the signature inserted second.
    auto before_members = ReadRawMembers(in), after_members = ReadRawMembers(out);
    ASSERT_EQ(after_members.size(), before_members.size() + 1);
    EXPECT_EQ(after_members[0].name, kMetadataMember);
    EXPECT_EQ(after_members[1].name, kSignatureMember);
    EXPECT_EQ(after_members[1].data, head->signature_member);
    for (size_t i = 1; i < before_members.size(); ++i) {
      EXPECT_EQ(after_members[i + 1].name, before_members[i].name);
      EXPECT_EQ(after_members[i + 1].data, before_members[i].data) << before_members[i].name;
    }
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"in.tar", "out.tar"}));
  }
}

TEST(SignArchiveTest, ResigningReplacesTheSignature) {
  const std::string dir = FreshDir("resign");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    WriteExampleArchive(dir + "/a.tar", c);
    ASSERT_TRUE(SignArchive(dir + "/a.tar", TestKey(1).private_pem, dir + "/b.tar", SignOptions{}).ok());
    auto report = SignArchive(dir + "/b.tar", TestKey(2).private_pem, dir + "/c.tar", SignOptions{});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->signer_key_sha256, FingerprintOf(TestKey(2)));

    const auto names = Names(ReadRawMembers(dir + "/c.tar"));
    EXPECT_EQ(std::count(names.begin(), names.end(), kSignatureMember), 1);
    EXPECT_EQ(names.size(), 6u);
    auto ok = VerifyWith(dir + "/c.tar", TestKey(2));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_TRUE(ok->signature_checked);
    Status old = VerifyWith(dir + "/c.tar", TestKey(1)).status();
    EXPECT_EQ(old.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(old.message(), "signed by a different key: the signature names key " +
                                 FingerprintOf(TestKey(2)) + ", the given key is " + FingerprintOf(TestKey(1)));
    EXPECT_EQ(ReadArchiveHead(dir + "/c.tar")->metadata_bytes,
              ReadArchiveHead(dir + "/a.tar")->metadata_bytes);
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar", "b.tar", "c.tar"}));
  }
}

TEST(SignArchiveTest, SignsInPlace) {
  const std::string dir = FreshDir("in_place");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string path = dir + "/a.tar";
    WriteExampleArchive(path, c);
    const auto before = ReadRawMembers(path);
    auto report = SignArchive(path, TestKey(1).private_pem, path, SignOptions{});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    auto verified = VerifyWith(path, TestKey(1));
    ASSERT_TRUE(verified.ok()) << verified.status().ToString();
    EXPECT_TRUE(verified->signature_checked);
    const auto after = ReadRawMembers(path);
    ASSERT_EQ(after.size(), before.size() + 1);
    for (size_t i = 1; i < before.size(); ++i) EXPECT_EQ(after[i + 1].data, before[i].data);
    // And again in place with the other key.
    ASSERT_TRUE(SignArchive(path, TestKey(2).private_pem, path, SignOptions{}).ok());
    EXPECT_TRUE(VerifyWith(path, TestKey(2)).ok());
    EXPECT_EQ(ReadRawMembers(path).size(), before.size() + 1);
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar"}));
  }
}

// Signing in place replaces the file: it keeps the archive's owner, group
// and mode (a 0600 archive must not become world-readable). A new output gets
// 0644 and belongs to the signer. Tests run as root, so chown works.
TEST(SignArchiveTest, SigningInPlaceKeepsOwnerGroupAndMode) {
  ASSERT_EQ(geteuid(), 0u) << "this test changes file owners: run it as root (as CI does)";
  const std::string dir = FreshDir("in_place_owner");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string path = dir + "/a.tar";
    WriteExampleArchive(path, c);
    ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
    ASSERT_EQ(chmod(path.c_str(), 0600), 0);
    ASSERT_TRUE(SignArchive(path, TestKey(1).private_pem, path, SignOptions{}).ok());
    struct stat st;
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(st.st_uid, 65534u);
    EXPECT_EQ(st.st_gid, 65534u);
    EXPECT_TRUE(VerifyWith(path, TestKey(1)).ok());
    // setuid and friends are not carried over; other bits are.
    ASSERT_EQ(chmod(path.c_str(), 04751), 0);
    ASSERT_TRUE(SignArchive(path, TestKey(2).private_pem, path, SignOptions{}).ok());
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0751u);
    // Through a hard link, the same file: in place too.
    const std::string other = dir + "/other.tar";
    ASSERT_EQ(link(path.c_str(), other.c_str()), 0);
    ASSERT_EQ(chmod(path.c_str(), 0640), 0);
    ASSERT_TRUE(SignArchive(path, TestKey(1).private_pem, other, SignOptions{}).ok());
    ASSERT_EQ(stat(other.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(st.st_uid, 65534u);
    // A separate output is a new file: 0644, ours.
    const std::string fresh = dir + "/fresh.tar";
    ASSERT_TRUE(SignArchive(path, TestKey(1).private_pem, fresh, SignOptions{}).ok());
    ASSERT_EQ(stat(fresh.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);
    EXPECT_EQ(st.st_uid, 0u);
    EXPECT_EQ(st.st_gid, 0u);
    std::remove(path.c_str());
    std::remove(other.c_str());
    std::remove(fresh.c_str());
  }
}

TEST(SignArchiveTest, ArchiveThatFailsVerificationIsNotSigned) {
  const std::string dir = FreshDir("sign_bad");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string in = CorruptExample(dir + "/bad.tar", c);
    const std::string before = ReadFile(in);
    const Status expected = VerifyArchive(in, VerifyOptions{}).status();
    ASSERT_EQ(expected.code(), StatusCode::kDataLoss);
    ASSERT_NE(expected.message().find("src/default.onnx': SHA-256 mismatch"), std::string::npos)
        << expected.message();

    Status s = SignArchive(in, TestKey(1).private_pem, dir + "/out.tar", SignOptions{}).status();
    EXPECT_EQ(s.code(), expected.code());
    EXPECT_EQ(s.message(), expected.message());
    s = SignArchive(in, TestKey(1).private_pem, in, SignOptions{}).status();  // in place
    EXPECT_EQ(s.message(), expected.message());
    EXPECT_EQ(ReadFile(in), before);
    // No output, no spool directory, no temporary file.
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"bad.tar"}));
  }
}

TEST(SignArchiveTest, PublicKeyIsRefused) {
  const std::string dir = FreshDir("sign_public");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    WriteExampleArchive(dir + "/a.tar", c);
    const std::string before = ReadFile(dir + "/a.tar");
    for (const std::string& out : {dir + "/out.tar", dir + "/a.tar"}) {
      Status s = SignArchive(dir + "/a.tar", TestKey(1).public_pem, out, SignOptions{}).status();
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(s.message(),
                "expected a private key but got a public key (use the .key file, not the .pub "
                "file)");
    }
    Status s = SignArchive(dir + "/a.tar", "not a key", dir + "/out.tar", SignOptions{}).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), "key is not PEM: no '-----BEGIN ...-----' line");
    EXPECT_EQ(ReadFile(dir + "/a.tar"), before);
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar"}));
  }
}

TEST(SignArchiveTest, ParametersStay4096AlignedAfterSigning) {
  const std::string dir = FreshDir("sign_align");
  WriteExampleArchive(dir + "/a.tar");
  ASSERT_TRUE(SignArchive(dir + "/a.tar", TestKey(1).private_pem, dir + "/b.tar", SignOptions{}).ok());
  // Re-signing changes nothing before the blob but the signature's bytes.
  ASSERT_TRUE(SignArchive(dir + "/b.tar", TestKey(2).private_pem, dir + "/c.tar", SignOptions{}).ok());
  for (const std::string name : {"a.tar", "b.tar", "c.tar"}) {
    SCOPED_TRACE(name);
    const std::string archive = ReadFile(dir + "/" + name);
    int aligned = 0;
    for (const auto& m : ReadMembers(dir + "/" + name)) {
      EXPECT_EQ(archive.substr(m.data_offset, m.size), m.data) << m.name;
      if (m.name != testutil::kExampleParams) continue;
      ++aligned;
      EXPECT_EQ(m.data_offset % kDataAlignment, 0u) << m.data_offset;
    }
    EXPECT_EQ(aligned, 1);
  }
}

TEST(SignArchiveTest, MtimeOptionAppliesToEveryHeader) {
  const std::string dir = FreshDir("sign_mtime");
  WriteExampleArchive(dir + "/a.tar", Compression::kNone, /*mtime=*/1000);
  SignOptions options;
  options.mtime = 1700000000;
  ASSERT_TRUE(SignArchive(dir + "/a.tar", TestKey(1).private_pem, dir + "/b.tar", options).ok());
  for (const auto& m : ReadRawMembers(dir + "/b.tar")) EXPECT_EQ(m.mtime, 1700000000) << m.name;
}

TEST(SignArchiveTest, MissingOutputDirectoryIsRefused) {
  const std::string dir = FreshDir("sign_no_dir");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    WriteExampleArchive(dir + "/a.tar", c);
    const std::string out = dir + "/missing/b.tar";
    Status s = SignArchive(dir + "/a.tar", TestKey(1).private_pem, out, SignOptions{}).status();
    EXPECT_EQ(s.code(), StatusCode::kIoError);
    if (c == Compression::kNone) {
      EXPECT_EQ(s.message(), "cannot open directory '" + dir + "/missing' to write '" + out +
                                 "': No such file or directory");
    } else {
      EXPECT_EQ(s.message(),
                "cannot create " + dir + "/missing/.mlf-sign-XXXXXX: No such file or directory");
    }
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar"}));
  }
}

// Signing reads its input from an ArchiveSource: from memory (copied or
// borrowed) and from a mapped file the result is byte for byte what signing
// the file gives; the input is left as it was.
TEST(SignArchiveTest, EverySourceSignsToTheSameBytes) {
  const std::string dir = FreshDir("sign_sources");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string in = dir + "/in.tar";
    WriteExampleArchive(in, c);
    const std::string bytes = ReadFile(in);
    SignOptions options;
    options.mtime = 1700000000;
    ASSERT_TRUE(SignArchive(in, TestKey(1).private_pem, dir + "/from_file.tar", options).ok());
    std::vector<std::unique_ptr<ArchiveSource>> sources;
    sources.push_back(ArchiveSource::Memory(bytes, "in (memory)"));
    sources.push_back(ArchiveSource::MemoryView(bytes, "in (view)"));
    auto mapped = ArchiveSource::MapFile(in);
    ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
    sources.push_back(std::move(*mapped));
    for (const auto& source : sources) {
      SCOPED_TRACE(source->name());
      const std::string out = dir + "/out.tar";
      Result<VerifyReport> report = SignArchive(*source, TestKey(1).private_pem, out, options);
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      EXPECT_EQ(ReadFile(out), ReadFile(dir + "/from_file.tar"));
      EXPECT_TRUE(VerifyWith(out, TestKey(1)).ok());
    }
    EXPECT_EQ(ReadFile(in), bytes);
  }
}

}  // namespace
}  // namespace mlf
