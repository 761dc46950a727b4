#include "artifact/archive/unpack.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "artifact/archive/signature.h"
#include "artifact/archive/testing/example_archive.h"

namespace mlf {
namespace {

using testutil::Exists;
using testutil::FreshDir;
using testutil::ListDir;
using testutil::MakeExample;
using testutil::ReadMembers;
using testutil::ReadTree;
using testutil::TestKey;
using testutil::WriteExampleArchive;
using testutil::WriteFile;
using testutil::kAllCompressions;

// Every member of the archive, name -> bytes.
std::map<std::string, std::string> MembersOf(const std::string& path) {
  std::map<std::string, std::string> out;
  for (const auto& m : ReadMembers(path)) out[m.name] = m.data;
  return out;
}

// Rewrites `path` (written by WriteArchive) with a signature member second.
void AddSignature(const std::string& path, const KeyPair& key, Compression c) {
  std::vector<ArchiveMember> rest;
  std::string metadata;
  for (const auto& m : ReadMembers(path)) {
    if (m.name == kMetadataMember) {
      metadata = m.data;
      auto sig = Sign(key.private_pem, metadata);
      ASSERT_TRUE(sig.ok()) << sig.status().ToString();
      rest.push_back({kSignatureMember, MemberSource::Bytes(*sig), false});
      continue;
    }
    rest.push_back({m.name, MemberSource::Bytes(m.data), m.name == testutil::kExampleParams});
  }
  WriteOptions options;
  options.compression = c;
  ASSERT_TRUE(WriteArchive(path, kMetadataMember, metadata.size(),
                           [&](const DigestMap&) -> Result<std::string> { return metadata; },
                           rest, options)
                  .ok());
}

// The example with the data of its LAST member (src/default.onnx) altered.
std::string CorruptLastMember(const std::string& path, Compression c) {
  WriteExampleArchive(path, c);
  std::vector<ArchiveMember> rest;
  std::string metadata;
  for (const auto& m : ReadMembers(path)) {
    if (m.name == kMetadataMember) {
      metadata = m.data;
      continue;
    }
    std::string data = m.data;
    if (m.name == testutil::kExampleModel) data[1] ^= 0x01;
    rest.push_back({m.name, MemberSource::Bytes(data), false});
  }
  EXPECT_EQ(rest.back().name, testutil::kExampleModel);
  WriteOptions options;
  options.compression = c;
  EXPECT_TRUE(WriteArchive(path, kMetadataMember, metadata.size(),
                           [&](const DigestMap&) -> Result<std::string> { return metadata; },
                           rest, options)
                  .ok());
  return path;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

TEST(UnpackArchiveTest, RoundTripsEveryMemberByteForByte) {
  const std::string dir = FreshDir("round_trip");
  for (Compression c : kAllCompressions) {
    for (bool sign : {false, true}) {
      SCOPED_TRACE(std::string(CompressionName(c)) + (sign ? " signed" : " unsigned"));
      const std::string archive = dir + "/a.tar", dest = dir + "/out";
      testutil::RemoveTree(dest);
      WriteExampleArchive(archive, c);
      if (sign) AddSignature(archive, TestKey(1), c);
      VerifyOptions options;
      if (sign) options.public_key_pem = TestKey(1).public_pem;
      auto report = UnpackArchive(archive, dest, options);
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      EXPECT_EQ(report->signature_checked, sign);
      EXPECT_EQ(report->member_count, sign ? 6u : 5u);
      EXPECT_EQ(report->compression, c);

      const auto tree = ReadTree(dest);
      EXPECT_EQ(tree, MembersOf(archive));
      EXPECT_EQ(tree.at(kMetadataMember), report->metadata_bytes);
      for (const auto& [name, data] : MakeExample().members) EXPECT_EQ(tree.at(name), data) << name;
      EXPECT_EQ(tree.count(kSignatureMember), sign ? 1u : 0u);
      EXPECT_EQ(ModeOf(dest), 0755u);
      EXPECT_EQ(ModeOf(dest + "/" + testutil::kExampleParams), 0644u);
      EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar", "out"}));  // no staging left
    }
  }
}

TEST(UnpackArchiveTest, ExtractsIntoAnExistingEmptyDirectory) {
  const std::string dir = FreshDir("empty_dest");
  WriteExampleArchive(dir + "/a.tar");
  testutil::MakeDirs(dir + "/out");
  auto report = UnpackArchive(dir + "/a.tar", dir + "/out", VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(ReadTree(dir + "/out"), MembersOf(dir + "/a.tar"));
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar", "out"}));
}

TEST(UnpackArchiveTest, FailureInTheLastMemberLeavesNothingBehind) {
  const std::string dir = FreshDir("last_member");
  for (Compression c : kAllCompressions) {
    SCOPED_TRACE(CompressionName(c));
    const std::string archive = CorruptLastMember(dir + "/bad.tar", c);
    const Status expected = VerifyArchive(archive, VerifyOptions{}).status();
    ASSERT_EQ(expected.code(), StatusCode::kDataLoss);
    ASSERT_EQ(expected.message().rfind("member 'src/default.onnx': SHA-256 mismatch", 0), 0u)
        << expected.message();

    Status s = UnpackArchive(archive, dir + "/out", VerifyOptions{}).status();
    EXPECT_EQ(s.code(), expected.code());
    EXPECT_EQ(s.message(), expected.message());
    EXPECT_FALSE(Exists(dir + "/out"));
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"bad.tar"}));  // no .out.extract.*

    // An existing empty destination stays empty.
    testutil::MakeDirs(dir + "/empty");
    s = UnpackArchive(archive, dir + "/empty", VerifyOptions{}).status();
    EXPECT_EQ(s.message(), expected.message());
    EXPECT_TRUE(ListDir(dir + "/empty").empty());
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"bad.tar", "empty"}));
    testutil::RemoveTree(dir + "/empty");
  }
}

TEST(UnpackArchiveTest, FailureRemovesParentDirectoriesItCreated) {
  const std::string dir = FreshDir("parents");
  const std::string archive = CorruptLastMember(dir + "/bad.tar", Compression::kNone);
  Status s = UnpackArchive(archive, dir + "/x/y/out", VerifyOptions{}).status();
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"bad.tar"}));

  // A missing archive does not create anything either.
  s = UnpackArchive(dir + "/missing.tar", dir + "/x/y/out", VerifyOptions{}).status();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"bad.tar"}));

  // On success they are created.
  WriteExampleArchive(dir + "/good.tar");
  ASSERT_TRUE(UnpackArchive(dir + "/good.tar", dir + "/x/y/out", VerifyOptions{}).ok());
  EXPECT_EQ(ReadTree(dir + "/x/y/out"), MembersOf(dir + "/good.tar"));
  EXPECT_EQ(ListDir(dir + "/x/y"), (std::vector<std::string>{"out"}));
}

TEST(UnpackArchiveTest, NonEmptyDestinationIsRefused) {
  const std::string dir = FreshDir("non_empty");
  WriteExampleArchive(dir + "/a.tar");
  testutil::MakeDirs(dir + "/out");
  WriteFile(dir + "/out/keep.txt", "mine\n");
  Status s = UnpackArchive(dir + "/a.tar", dir + "/out", VerifyOptions{}).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "destination '" + dir +
                             "/out' exists and is not empty; extract into a new or empty directory");
  EXPECT_EQ(ReadTree(dir + "/out"), (std::map<std::string, std::string>{{"keep.txt", "mine\n"}}));
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"a.tar", "out"}));
}

TEST(UnpackArchiveTest, DestinationThatIsAFileIsRefused) {
  const std::string dir = FreshDir("dest_file");
  WriteExampleArchive(dir + "/a.tar");
  WriteFile(dir + "/out", "a file\n");
  Status s = UnpackArchive(dir + "/a.tar", dir + "/out", VerifyOptions{}).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "destination '" + dir + "/out' exists and is not a directory");
  EXPECT_EQ(testutil::ReadFile(dir + "/out"), "a file\n");
}

TEST(UnpackArchiveTest, SignaturePolicyFailuresWriteNothing) {
  const std::string dir = FreshDir("policy");
  for (Compression c : {Compression::kNone, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    WriteExampleArchive(dir + "/unsigned.tar", c);
    VerifyOptions options;
    options.public_key_pem = TestKey(1).public_pem;
    Status s = UnpackArchive(dir + "/unsigned.tar", dir + "/out", options).status();
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(s.message(),
              "archive is not signed (no metadata.json.sig after metadata.json) but a signature is "
              "required; sign it with `mlf sign`");
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"unsigned.tar"}));

    VerifyOptions required;
    required.require_signature = true;
    s = UnpackArchive(dir + "/unsigned.tar", dir + "/out", required).status();
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"unsigned.tar"}));

    WriteExampleArchive(dir + "/signed.tar", c);
    AddSignature(dir + "/signed.tar", TestKey(2), c);
    s = UnpackArchive(dir + "/signed.tar", dir + "/out", options).status();
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(s.message().rfind("signed by a different key: ", 0), 0u) << s.message();
    EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"signed.tar", "unsigned.tar"}));
    std::remove((dir + "/signed.tar").c_str());
  }
}

}  // namespace
}  // namespace mlf
