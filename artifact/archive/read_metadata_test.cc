#include "artifact/archive/read_metadata.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "artifact/archive/signature.h"
#include "artifact/archive/testing/example_archive.h"

namespace mlf {
namespace {

using testutil::Entries;
using testutil::EntriesOf;
using testutil::FreshDir;
using testutil::ReadMembers;
using testutil::WriteExampleArchive;
using testutil::WriteFile;
using testutil::WriteTar;

Status HeadStatus(const std::string& path) { return ReadArchiveHead(path).status(); }

TEST(ReadArchiveHeadTest, ReadsMetadataOfEveryCompression) {
  const std::string dir = FreshDir("head");
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    const Metadata written = WriteExampleArchive(dir + "/a.tar", c);
    auto head = ReadArchiveHead(dir + "/a.tar");
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(head->compression, c);
    EXPECT_EQ(head->metadata_bytes, SerializeMetadata(written));
    EXPECT_EQ(SerializeMetadata(head->metadata), SerializeMetadata(written));
    EXPECT_EQ(head->signature_member, "");
  }
}

TEST(ReadArchiveHeadTest, ReadsTheSignatureMember) {
  const std::string dir = FreshDir("head_signed");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  auto key = GenerateKeyPair();
  ASSERT_TRUE(key.ok());
  auto sig = Sign(key->private_pem, e[0].second);
  ASSERT_TRUE(sig.ok());
  e.insert(e.begin() + 1, {kSignatureMember, *sig});
  auto head = ReadArchiveHead(WriteTar(dir + "/signed.tar", e));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->signature_member, *sig);
  EXPECT_EQ(head->metadata_bytes, e[0].second);

  // Only directly after metadata.json does it count as the signature.
  std::swap(e[1], e[2]);
  head = ReadArchiveHead(WriteTar(dir + "/late.tar", e));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->signature_member, "");

  // A signature member too large to be one is not read into memory.
  std::swap(e[1], e[2]);
  e[1].second = std::string(kMaxKeyFileBytes + 1, 's');
  Status s = ReadArchiveHead(WriteTar(dir + "/big.tar", e)).status();
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message().rfind("member 'metadata.json.sig': size ", 0), 0u) << s.message();
}

TEST(ReadArchiveHeadTest, DoesNotHashMembers) {
  const std::string dir = FreshDir("head_corrupt");
  const Metadata written = WriteExampleArchive(dir + "/a.tar");
  for (const auto& m : ReadMembers(dir + "/a.tar")) {
    if (m.name != kMetadataMember) testutil::FlipByte(dir + "/a.tar", m.data_offset);
  }
  auto head = ReadArchiveHead(dir + "/a.tar");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->metadata_bytes, SerializeMetadata(written));

  // Nor does it look for missing or extra members.
  Entries e = EntriesOf(dir + "/a.tar");
  e.resize(1);
  e.push_back({"extra.txt", "x"});
  head = ReadArchiveHead(WriteTar(dir + "/b.tar", e));
  ASSERT_TRUE(head.ok()) << head.status().ToString();
}

TEST(ReadArchiveHeadTest, FirstMemberErrors) {
  const std::string dir = FreshDir("head_errors");
  Status s = HeadStatus(WriteTar(dir + "/empty.tar", {}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "archive is empty: expected metadata.json as its first member");

  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  std::swap(e[0], e[3]);
  s = HeadStatus(WriteTar(dir + "/b.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "first member is 'parameters/default.bin', expected metadata.json (is this a Model "
            "Library Format archive?)");

  s = HeadStatus(WriteTar(dir + "/c.tar", {{"./metadata.json", "{}"}}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "metadata.json: missing integer field \"version\"");

  s = HeadStatus(WriteTar(dir + "/d.tar", {{"metadata.json", "{\"version\": 10}"}}));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "metadata version 10 is newer than this mlfkit supports (version 9); upgrade mlfkit");

  // Too large: refused from the header, before any data is read.
  const uint64_t size = kMaxMetadataBytes + 1;
  WriteFile(dir + "/e.tar", EncodeMemberHeader(kMetadataMember, size, 0, 0, false));
  ASSERT_EQ(truncate((dir + "/e.tar").c_str(), static_cast<off_t>(512 + (size + 511) / 512 * 512 +
                                                                  1024)),
            0);
  s = HeadStatus(dir + "/e.tar");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "metadata.json is 16777217 bytes, more than the limit of 16777216");
}

TEST(CheckFirstMemberTest, Cases) {
  EXPECT_EQ(CheckFirstMember(std::nullopt).message(),
            "archive is empty: expected metadata.json as its first member");
  EXPECT_EQ(CheckFirstMember(EntryInfo{"a/b.c", 3, 0}).message(),
            "first member is 'a/b.c', expected metadata.json (is this a Model Library Format "
            "archive?)");
  EXPECT_TRUE(CheckFirstMember(EntryInfo{kMetadataMember, 17, 0}).ok());
  EXPECT_TRUE(CheckFirstMember(EntryInfo{kMetadataMember, kMaxMetadataBytes, 0}).ok());
  Status s = CheckFirstMember(EntryInfo{kMetadataMember, kMaxMetadataBytes + 1, 0});
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "metadata.json is 16777217 bytes, more than the limit of 16777216");
  // The signature member is not metadata.json either.
  EXPECT_EQ(CheckFirstMember(EntryInfo{kSignatureMember, 10, 0}).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mlf
