#include "artifact/archive/verify.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/signature.h"
#include "artifact/archive/testing/example_archive.h"
#include "artifact/base/digest.h"

namespace mlf {
namespace {

using testutil::Entries;
using testutil::EntriesOf;
using testutil::FreshDir;
using testutil::MakeExample;
using testutil::ReadFile;
using testutil::ReadMembers;
using testutil::WriteExampleArchive;
using testutil::WriteFile;
using testutil::WriteTar;

const KeyPair& Key1() {
  static const KeyPair* k = new KeyPair(*GenerateKeyPair());
  return *k;
}
const KeyPair& Key2() {
  static const KeyPair* k = new KeyPair(*GenerateKeyPair());
  return *k;
}

std::string Fingerprint(const KeyPair& k) { return *PublicKeyFingerprint(k.public_pem); }

// The example as an archive signed with `key` (signature member second).
std::string SignedExample(const std::string& dir, const KeyPair& key) {
  WriteExampleArchive(dir + "/unsigned.tar");
  Entries e = EntriesOf(dir + "/unsigned.tar");
  auto sig = Sign(key.private_pem, e[0].second);
  EXPECT_TRUE(sig.ok()) << sig.status().ToString();
  e.insert(e.begin() + 1, {kSignatureMember, *sig});
  return WriteTar(dir + "/signed.tar", e);
}

Status VerifyStatus(const std::string& path, const VerifyOptions& options = {}) {
  return VerifyArchive(path, options).status();
}

uint64_t SumOfMembers() {
  uint64_t sum = 0;
  for (const auto& [name, data] : MakeExample().members) sum += data.size();
  return sum;
}

// ------------------------------------------------------------ good archives --

TEST(VerifyArchiveTest, ReportOfAnUnsignedArchive) {
  const std::string dir = FreshDir("good");
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    const Metadata written = WriteExampleArchive(dir + "/a.tar", c);
    auto report = VerifyArchive(dir + "/a.tar", VerifyOptions{});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->compression, c);
    EXPECT_EQ(report->member_count, 5u);
    EXPECT_EQ(report->metadata_bytes, SerializeMetadata(written));
    EXPECT_EQ(report->data_bytes, report->metadata_bytes.size() + SumOfMembers());
    EXPECT_FALSE(report->is_signed);
    EXPECT_FALSE(report->signature_checked);
    EXPECT_EQ(report->signer_key_sha256, "");
    EXPECT_EQ(SerializeMetadata(report->metadata), SerializeMetadata(written));
  }
}

// The same archive from a file, a mapped file and memory: the same report;
// errors name the source as its creator named it.
TEST(VerifyArchiveTest, EverySourceGivesTheSameReport) {
  const std::string dir = FreshDir("sources");
  for (Compression c : {Compression::kNone, Compression::kGzip, Compression::kZstd}) {
    SCOPED_TRACE(CompressionName(c));
    WriteExampleArchive(dir + "/a.tar", c);
    const std::string bytes = ReadFile(dir + "/a.tar");
    auto from_file = VerifyArchive(dir + "/a.tar", VerifyOptions{});
    ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
    std::vector<std::unique_ptr<ArchiveSource>> sources;
    sources.push_back(ArchiveSource::Memory(bytes, "a (memory)"));
    auto mapped = ArchiveSource::MapFile(dir + "/a.tar");
    ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
    sources.push_back(std::move(*mapped));
    for (const auto& source : sources) {
      SCOPED_TRACE(source->name());
      auto report = VerifyArchive(*source, VerifyOptions{});
      ASSERT_TRUE(report.ok()) << report.status().ToString();
      EXPECT_EQ(report->compression, c);
      EXPECT_EQ(report->member_count, from_file->member_count);
      EXPECT_EQ(report->data_bytes, from_file->data_bytes);
      EXPECT_EQ(report->metadata_bytes, from_file->metadata_bytes);
      EXPECT_EQ(report->metadata_sha256, from_file->metadata_sha256);
    }
  }
  auto zip = ArchiveSource::Memory(std::string("PK\x03\x04", 4) + std::string(200, '\0'),
                                   "upload");
  EXPECT_EQ(VerifyArchive(*zip, VerifyOptions{}).status().message(),
            "'upload' is a zip archive, not a tar archive (accepted: tar, optionally gzip- or "
            "zstd-compressed)");
}

TEST(VerifyArchiveTest, SignedArchiveWithTheRightKey) {
  const std::string dir = FreshDir("signed_ok");
  const std::string path = SignedExample(dir, Key1());
  VerifyOptions options;
  options.public_key_pem = Key1().public_pem;
  auto report = VerifyArchive(path, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::string sig = EntriesOf(path)[1].second;
  EXPECT_TRUE(report->is_signed);
  EXPECT_TRUE(report->signature_checked);
  EXPECT_EQ(report->signer_key_sha256, Fingerprint(Key1()));
  EXPECT_EQ(report->member_count, 6u);
  EXPECT_EQ(report->data_bytes, report->metadata_bytes.size() + sig.size() + SumOfMembers());

  options.require_signature = true;  // both: still checked
  report = VerifyArchive(path, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->signature_checked);
}

TEST(VerifyArchiveTest, SignatureWithoutKeyIsReportedNotChecked) {
  const std::string dir = FreshDir("signed_no_key");
  const std::string path = SignedExample(dir, Key1());
  for (bool require : {false, true}) {
    VerifyOptions options;
    options.require_signature = require;
    auto report = VerifyArchive(path, options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->is_signed);
    EXPECT_FALSE(report->signature_checked);
    EXPECT_EQ(report->signer_key_sha256, Fingerprint(Key1()));
  }
}

// ------------------------------------------------------- signature policy --

constexpr char kNotSigned[] =
    "archive is not signed (no metadata.json.sig after metadata.json) but a signature is "
    "required; sign it with `mlf sign`";

TEST(VerifyArchiveTest, UnsignedArchiveIsRefusedWhenAKeyIsGiven) {
  const std::string dir = FreshDir("unsigned_key");
  for (Compression c : {Compression::kNone, Compression::kZstd}) {
    WriteExampleArchive(dir + "/a.tar", c);
    VerifyOptions options;
    options.public_key_pem = Key1().public_pem;
    Status s = VerifyStatus(dir + "/a.tar", options);
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(s.message(), kNotSigned);
  }
}

TEST(VerifyArchiveTest, UnsignedArchiveIsRefusedWhenASignatureIsRequired) {
  const std::string dir = FreshDir("unsigned_require");
  WriteExampleArchive(dir + "/a.tar");
  VerifyOptions options;
  options.require_signature = true;
  Status s = VerifyStatus(dir + "/a.tar", options);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), kNotSigned);
}

TEST(VerifyArchiveTest, OtherKeyIsRefusedNamingBothKeys) {
  const std::string dir = FreshDir("wrong_key");
  const std::string path = SignedExample(dir, Key1());
  VerifyOptions options;
  options.public_key_pem = Key2().public_pem;
  Status s = VerifyStatus(path, options);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), "signed by a different key: the signature names key " +
                             Fingerprint(Key1()) + ", the given key is " + Fingerprint(Key2()));
}

TEST(VerifyArchiveTest, PrivateKeyWhereThePublicKeyBelongsIsRefused) {
  const std::string dir = FreshDir("private_as_public");
  const std::string path = SignedExample(dir, Key1());
  VerifyOptions options;
  options.public_key_pem = Key1().private_pem;
  Status s = VerifyStatus(path, options);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "expected a public key but got a private key (use the .pub file; keep the .key file "
            "private)");
}

TEST(VerifyArchiveTest, TamperedMetadataUnderAValidLookingSignatureIsRefused) {
  const std::string dir = FreshDir("tampered");
  Entries e = EntriesOf(SignedExample(dir, Key1()));
  const std::string from = "\"export_datetime\": \"1970-01-01 00:00:00Z\"";
  const size_t at = e[0].second.find(from);
  ASSERT_NE(at, std::string::npos) << e[0].second;
  e[0].second.replace(at, from.size(), "\"export_datetime\": \"2024-01-01 00:00:00Z\"");
  const std::string path = WriteTar(dir + "/tampered.tar", e);

  VerifyOptions options;
  options.public_key_pem = Key1().public_pem;
  Status s = VerifyStatus(path, options);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), "signature does not match: the signed data or the signature was altered");

  // Without a key nothing is proven: the archive is consistent, only reported as signed.
  auto report = VerifyArchive(path, VerifyOptions{});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->is_signed);
  EXPECT_FALSE(report->signature_checked);
}

TEST(VerifyArchiveTest, MalformedSignatureMemberIsRefusedWithOrWithoutKey) {
  const std::string dir = FreshDir("malformed_sig");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  e.insert(e.begin() + 1, {kSignatureMember, "garbage\n"});
  const std::string path = WriteTar(dir + "/bad.tar", e);
  VerifyOptions with_key;
  with_key.public_key_pem = Key1().public_pem;
  for (const VerifyOptions& options : {VerifyOptions{}, with_key}) {
    Status s = VerifyStatus(path, options);
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(s.message(), "malformed signature member: expected exactly 4 lines, got 1");
  }

  e[1].second = std::string(kMaxKeyFileBytes + 1, 'x');
  Status s = VerifyStatus(WriteTar(dir + "/big.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), "malformed signature member: metadata.json.sig is 65537 bytes");
}

TEST(VerifyArchiveTest, SignatureElsewhereThanSecondIsRefused) {
  const std::string dir = FreshDir("late_sig");
  Entries e = EntriesOf(SignedExample(dir, Key1()));
  std::pair<std::string, std::string> sig = e[1];
  e.erase(e.begin() + 1);
  e.push_back(sig);
  const std::string path = WriteTar(dir + "/late.tar", e);
  Status s = VerifyStatus(path);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "member 'metadata.json.sig' must directly follow metadata.json");

  VerifyOptions options;
  options.public_key_pem = Key1().public_pem;
  s = VerifyStatus(path, options);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), kNotSigned);
}

// ---------------------------------------------------------- bad structure --

TEST(VerifyArchiveTest, EmptyArchiveIsRefused) {
  const std::string dir = FreshDir("empty");
  Status s = VerifyStatus(WriteTar(dir + "/empty.tar", {}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "archive is empty: expected metadata.json as its first member");
}

TEST(VerifyArchiveTest, FirstMemberOtherThanMetadataIsRefused) {
  const std::string dir = FreshDir("first_member");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  std::swap(e[0], e[1]);
  Status s = VerifyStatus(WriteTar(dir + "/b.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "first member is '" + e[0].first +
                             "', expected metadata.json (is this a Model Library Format archive?)");
}

TEST(VerifyArchiveTest, OversizedMetadataIsRefusedFromItsHeader) {
  const std::string dir = FreshDir("big_metadata");
  // A header announcing 16 MiB + 1 bytes; the data is a hole (sparse file).
  const uint64_t size = kMaxMetadataBytes + 1;
  std::string tar = EncodeMemberHeader(kMetadataMember, size, 0, 0, false);
  const uint64_t total = tar.size() + (size + 511) / 512 * 512 + 1024;
  WriteFile(dir + "/big.tar", tar);
  ASSERT_EQ(truncate((dir + "/big.tar").c_str(), static_cast<off_t>(total)), 0);
  Status s = VerifyStatus(dir + "/big.tar");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "metadata.json is 16777217 bytes, more than the limit of 16777216");
}

TEST(VerifyArchiveTest, InvalidMetadataIsRefused) {
  const std::string dir = FreshDir("bad_metadata");
  Status s = VerifyStatus(WriteTar(dir + "/a.tar", {{kMetadataMember, "{}"}}));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "metadata.json: missing integer field \"version\"");

  // Valid JSON, valid schema, but a member listed in "files" under a reserved name.
  WriteExampleArchive(dir + "/b.tar");
  Entries e = EntriesOf(dir + "/b.tar");
  auto md = ParseMetadata(e[0].second);
  ASSERT_TRUE(md.ok());
  md->files[kSignatureMember] = FileEntry{1, std::string(64, '0')};
  e[0].second = SerializeMetadata(*md);
  s = VerifyStatus(WriteTar(dir + "/c.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "metadata.json: files must not list 'metadata.json.sig'");
}

TEST(VerifyArchiveTest, ExtraMemberIsRefused) {
  const std::string dir = FreshDir("extra");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  e.insert(e.begin() + 2, {"notes/extra.txt", "not listed\n"});
  Status s = VerifyStatus(WriteTar(dir + "/b.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "extra member 'notes/extra.txt' is not listed in metadata.json files");
}

TEST(VerifyArchiveTest, MissingMemberIsRefused) {
  const std::string dir = FreshDir("missing");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  ASSERT_EQ(e[1].first, testutil::kExampleHeader);
  e.erase(e.begin() + 1);
  Status s = VerifyStatus(WriteTar(dir + "/b.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), std::string("member '") + testutil::kExampleHeader +
                             "' is listed in metadata.json files but missing from the archive");
}

TEST(VerifyArchiveTest, SizeMismatchIsRefused) {
  const std::string dir = FreshDir("size");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  ASSERT_EQ(e[2].first, testutil::kExampleSource);
  const size_t listed = e[2].second.size();
  e[2].second += "// one more line\n";
  Status s = VerifyStatus(WriteTar(dir + "/b.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), std::string("member '") + testutil::kExampleSource + "': size " +
                             std::to_string(e[2].second.size()) +
                             " does not match metadata.json files (" + std::to_string(listed) +
                             ")");
}

TEST(VerifyArchiveTest, DigestMismatchIsRefused) {
  const std::string dir = FreshDir("digest");
  const Metadata md = WriteExampleArchive(dir + "/a.tar");
  const auto members = ReadMembers(dir + "/a.tar");
  ASSERT_EQ(members[3].name, testutil::kExampleParams);
  testutil::FlipByte(dir + "/a.tar", members[3].data_offset + 100);
  std::string corrupted = members[3].data;
  corrupted[100] ^= 0x01;
  Status s = VerifyStatus(dir + "/a.tar");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), std::string("member '") + testutil::kExampleParams +
                             "': SHA-256 mismatch (archive has " + Sha256Hex(corrupted) +
                             ", metadata.json files says " +
                             md.files.at(testutil::kExampleParams).sha256 + ")");
}

// A trusted metadata digest (the host loader's memo) spares parameter blobs
// only: every other member is hashed whatever the caller vouches for.
TEST(VerifyArchiveTest, ATrustedMetadataDigestSparesParameterBlobsOnly) {
  const std::string dir = FreshDir("trusted_digest");
  const Metadata md = WriteExampleArchive(dir + "/a.tar");
  const auto members = ReadMembers(dir + "/a.tar");
  VerifyOptions trusted;
  trusted.trusted_metadata_sha256 = Sha256Hex(members[0].data);
  ASSERT_EQ(members[3].name, testutil::kExampleParams);
  testutil::FlipByte(dir + "/a.tar", members[3].data_offset + 100);
  Result<VerifyReport> spared = VerifyArchive(dir + "/a.tar", trusted);
  ASSERT_TRUE(spared.ok()) << spared.status().ToString();
  EXPECT_FALSE(spared->digests_checked);
  testutil::FlipByte(dir + "/a.tar", members[3].data_offset + 100);  // back

  for (const std::string member : {testutil::kExampleSource, testutil::kExampleHeader}) {
    SCOPED_TRACE(member);
    uint64_t offset = 0;
    std::string corrupted;
    for (const auto& m : members) {
      if (m.name == member) offset = m.data_offset, corrupted = m.data;
    }
    ASSERT_FALSE(corrupted.empty());
    testutil::FlipByte(dir + "/a.tar", offset + corrupted.size() / 2);
    corrupted[corrupted.size() / 2] ^= 0x01;
    Status s = VerifyStatus(dir + "/a.tar", trusted);
    EXPECT_EQ(s.message(), "member '" + member + "': SHA-256 mismatch (archive has " +
                               Sha256Hex(corrupted) + ", metadata.json files says " +
                               md.files.at(member).sha256 + ")");
    testutil::FlipByte(dir + "/a.tar", offset + corrupted.size() / 2);
  }
}

TEST(VerifyArchiveTest, MetadataAppearingAgainIsRefused) {
  const std::string dir = FreshDir("metadata_again");
  WriteExampleArchive(dir + "/a.tar");
  Entries e = EntriesOf(dir + "/a.tar");
  e.push_back(e[0]);
  Status s = VerifyStatus(WriteTar(dir + "/b.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(), "member 'metadata.json': duplicate member");

  e.back().first = "./metadata.json";
  s = VerifyStatus(WriteTar(dir + "/c.tar", e));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(),
            "member './metadata.json': duplicate member (same path as 'metadata.json')");
}

// ------------------------------------------------------------------ progress --

TEST(VerifyArchiveTest, ProgressIsMonotonicAndCoversEveryMember) {
  const std::string dir = FreshDir("progress");
  for (Compression c : {Compression::kNone, Compression::kGzip}) {
    SCOPED_TRACE(CompressionName(c));
    WriteExampleArchive(dir + "/a.tar", c);
    const uint64_t archive_size = ReadFile(dir + "/a.tar").size();
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    VerifyOptions options;
    options.progress = [&](uint64_t done, uint64_t total) { calls.push_back({done, total}); };
    ASSERT_TRUE(VerifyArchive(dir + "/a.tar", options).ok());
    ASSERT_FALSE(calls.empty());
    for (size_t i = 0; i < calls.size(); ++i) {
      if (i > 0) {
        EXPECT_GT(calls[i].first, calls[i - 1].first);
      }
      EXPECT_EQ(calls[i].second, archive_size);
    }
    EXPECT_EQ(calls.back().first, SumOfMembers());
    if (c == Compression::kNone) {
      EXPECT_LE(calls.back().first, archive_size);
    }
  }
}

// ------------------------------------------------------------ MemberConsumer --

class RecordingConsumer : public MemberConsumer {
 public:
  Status OnMetadata(const Metadata& metadata) override {
    events.push_back("metadata");
    metadata_json = SerializeMetadata(metadata);
    return Fail("metadata");
  }
  Status Begin(const EntryInfo& entry) override {
    current = entry.name;
    events.push_back("begin " + entry.name);
    data[entry.name];
    return Fail("begin " + entry.name);
  }
  Status Data(const void* p, size_t n) override {
    data[current].append(static_cast<const char*>(p), n);
    return Fail("data " + current);
  }
  Status End() override {
    events.push_back("end " + current);
    return Fail("end " + current);
  }

  std::vector<std::string> events;
  std::map<std::string, std::string> data;
  std::string metadata_json;
  std::string current;
  std::string fail_at;  // e.g. "begin parameters/default.bin"

 private:
  Status Fail(const std::string& at) {
    return at == fail_at ? Internal("consumer refused " + at) : Status::Ok();
  }
};

TEST(MemberConsumerTest, SeesMetadataFirstThenEveryMemberInOrder) {
  const std::string dir = FreshDir("consumer");
  const std::string path = SignedExample(dir, Key1());
  const Entries e = EntriesOf(path);
  RecordingConsumer consumer;
  VerifyOptions options;
  options.public_key_pem = Key1().public_pem;
  auto report = VerifyArchive(path, options, &consumer);
  ASSERT_TRUE(report.ok()) << report.status().ToString();

  std::vector<std::string> expected = {"begin metadata.json", "end metadata.json",
                                       "begin metadata.json.sig", "end metadata.json.sig",
                                       "metadata"};
  for (size_t i = 2; i < e.size(); ++i) {
    expected.push_back("begin " + e[i].first);
    expected.push_back("end " + e[i].first);
  }
  EXPECT_EQ(consumer.events, expected);
  ASSERT_EQ(consumer.data.size(), e.size());
  for (const auto& [name, bytes] : e) EXPECT_EQ(consumer.data[name], bytes) << name;
  EXPECT_EQ(consumer.metadata_json, SerializeMetadata(report->metadata));
}

TEST(MemberConsumerTest, LargeMemberArrivesWholeInCompressedArchives) {
  const std::string dir = FreshDir("consumer_big");
  auto ex = MakeExample();
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 2654435761u >> 13);
  ex.members["src/big.bin"] = big;
  PackOptions pack;
  pack.compression = Compression::kZstd;
  ASSERT_TRUE(
      WriteMlfArchive(dir + "/a.tar.zst", ex.metadata, testutil::ExampleMembers(ex), pack).ok());
  RecordingConsumer consumer;
  ASSERT_TRUE(VerifyArchive(dir + "/a.tar.zst", VerifyOptions{}, &consumer).ok());
  EXPECT_EQ(consumer.data["src/big.bin"], big);
}

TEST(MemberConsumerTest, EndIsNotCalledForAMemberWithABadDigest) {
  const std::string dir = FreshDir("consumer_digest");
  WriteExampleArchive(dir + "/a.tar");
  const auto members = ReadMembers(dir + "/a.tar");
  ASSERT_EQ(members[3].name, testutil::kExampleParams);
  testutil::FlipByte(dir + "/a.tar", members[3].data_offset);
  RecordingConsumer consumer;
  Status s = VerifyArchive(dir + "/a.tar", VerifyOptions{}, &consumer).status();
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(consumer.events,
            (std::vector<std::string>{
                "begin metadata.json", "end metadata.json", "metadata",
                std::string("begin ") + testutil::kExampleHeader,
                std::string("end ") + testutil::kExampleHeader,
                std::string("begin ") + testutil::kExampleSource,
                std::string("end ") + testutil::kExampleSource,
                std::string("begin ") + testutil::kExampleParams}));
}

TEST(MemberConsumerTest, OnMetadataIsNotCalledWhenTheSignaturePolicyFails) {
  const std::string dir = FreshDir("consumer_policy");
  WriteExampleArchive(dir + "/a.tar");
  RecordingConsumer consumer;
  VerifyOptions options;
  options.require_signature = true;
  EXPECT_EQ(VerifyArchive(dir + "/a.tar", options, &consumer).status().message(), kNotSigned);
  for (const std::string& ev : consumer.events) {
    EXPECT_NE(ev, "metadata");
    EXPECT_TRUE(ev.find(kMetadataMember) != std::string::npos) << ev;
  }
}

// With a key configured, a refused archive never gets past metadata.json and
// its signature: the consumer sees no other member and no OnMetadata.
TEST(MemberConsumerTest, NothingButMetadataAndSignatureReachesTheConsumerWhenTheKeyRefuses) {
  const std::string dir = FreshDir("consumer_key");
  WriteExampleArchive(dir + "/unsigned.tar");
  Entries tampered = EntriesOf(SignedExample(dir, Key1()));
  const size_t colon = tampered[0].second.find(": ");
  ASSERT_NE(colon, std::string::npos);
  tampered[0].second.replace(colon, 2, " :");  // still the same JSON, other bytes
  const std::string tampered_path = WriteTar(dir + "/tampered.tar", tampered);
  struct Case {
    std::string path;
    const KeyPair* key;
    std::string error;
  };
  const std::vector<Case> cases = {
      {dir + "/unsigned.tar", &Key1(), kNotSigned},
      {dir + "/signed.tar", &Key2(),
       "signed by a different key: the signature names key " + Fingerprint(Key1()) +
           ", the given key is " + Fingerprint(Key2())},
      {tampered_path, &Key1(),
       "signature does not match: the signed data or the signature was altered"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    RecordingConsumer consumer;
    VerifyOptions options;
    options.public_key_pem = c.key->public_pem;
    Status s = VerifyArchive(c.path, options, &consumer).status();
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(s.message(), c.error);
    for (const std::string& name : {std::string(kMetadataMember), std::string(kSignatureMember)}) {
      consumer.data.erase(name);
    }
    EXPECT_TRUE(consumer.data.empty()) << consumer.data.begin()->first;
    for (const std::string& ev : consumer.events) EXPECT_NE(ev, "metadata");
  }
}

TEST(MemberConsumerTest, ConsumerErrorAbortsVerification) {
  const std::string dir = FreshDir("consumer_error");
  WriteExampleArchive(dir + "/a.tar");
  const std::string params = testutil::kExampleParams;
  for (const std::string& at :
       {std::string("metadata"), "begin " + params, "data " + params, "end " + params,
        std::string("begin metadata.json"), std::string("end metadata.json")}) {
    SCOPED_TRACE(at);
    RecordingConsumer consumer;
    consumer.fail_at = at;
    Status s = VerifyArchive(dir + "/a.tar", VerifyOptions{}, &consumer).status();
    EXPECT_EQ(s.code(), StatusCode::kInternal);
    EXPECT_EQ(s.message(), "consumer refused " + at);
    // Nothing after the failure point reaches the consumer.
    EXPECT_EQ(consumer.data.count(testutil::kExampleModel), 0u);
  }
}

}  // namespace
}  // namespace mlf
