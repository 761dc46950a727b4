// The seam for foreign archive formats (foreign_archive.h), exercised without
// the TVM wing: a fake format that claims version 7 and describes its archive
// itself shows what ReadArchiveHead and VerifyArchive ask of a format and do
// with its answer, and what they do without one.
#include "artifact/archive/foreign_archive.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "artifact/archive/read_metadata.h"
#include "artifact/archive/testing/example_archive.h"
#include "artifact/archive/verify.h"
#include "artifact/base/digest.h"

namespace mlf {
namespace {

using testutil::FreshDir;
using testutil::WriteTar;

constexpr char kForeignJson[] = R"({"version": 7})";
constexpr char kData[] = "hello";

// Claims version 7; Scan lists the one data member and reports `problems`.
class FakeFormat final : public ForeignArchiveFormat {
 public:
  explicit FakeFormat(std::vector<Status> problems = {}) : problems_(std::move(problems)) {}

  std::string name() const override { return "TVM"; }
  bool ClaimsVersion(int64_t version) const override { return version == 7; }

  Result<std::optional<ForeignArchiveScan>> Scan(
      const ArchiveSource& source, const ReaderLimits& limits,
      const std::function<void(uint64_t)>& progress) const override {
    ++scans;
    scanned_name = source.name();
    ForeignArchiveScan scan;
    scan.metadata.version = 7;
    scan.metadata.files["a.txt"] = FileEntry{5, Sha256Hex(kData)};
    scan.metadata_bytes = kForeignJson;
    scan.metadata_sha256 = Sha256Hex(kForeignJson);
    scan.member_count = 2;
    scan.data_bytes = 5 + scan.metadata_bytes.size();
    scan.report.problems = problems_;
    scan.report.unreferenced = {"extra.txt"};
    return std::optional<ForeignArchiveScan>(std::move(scan));
  }

  mutable int scans = 0;
  mutable std::string scanned_name;

 private:
  std::vector<Status> problems_;
};

// A foreign archive with metadata.json first, or after its data member.
std::string Write(const std::string& name, bool metadata_first) {
  const std::string path = FreshDir("foreign_" + name) + "/" + name + ".tar";
  if (metadata_first) return WriteTar(path, {{"metadata.json", kForeignJson}, {"a.txt", kData}});
  return WriteTar(path, {{"a.txt", kData}, {"metadata.json", kForeignJson}});
}

TEST(ForeignArchiveTest, ReadArchiveHeadTakesTheFormatsScan) {
  for (bool first : {true, false}) {
    FakeFormat format;
    const std::string path = Write(first ? "head_first" : "head_later", first);
    Result<ArchiveHead> head = ReadArchiveHead(path, {}, &format);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(format.scans, 1);
    EXPECT_EQ(format.scanned_name, path);
    ASSERT_TRUE(head->foreign.has_value());
    EXPECT_EQ(head->foreign->unreferenced, std::vector<std::string>{"extra.txt"});
    EXPECT_EQ(head->metadata.version, 7);
    EXPECT_EQ(head->metadata_bytes, kForeignJson);
  }
}

TEST(ForeignArchiveTest, VerifyChecksTheArchiveAgainstTheScan) {
  for (bool first : {true, false}) {
    FakeFormat format;
    VerifyOptions options;
    options.foreign_format = &format;
    Result<VerifyReport> report = VerifyArchive(Write(first ? "v_first" : "v_later", first), options);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(format.scans, 1);
    ASSERT_TRUE(report->foreign.has_value());
    EXPECT_EQ(report->member_count, 2u);
    EXPECT_EQ(report->metadata_sha256, Sha256Hex(kForeignJson));
  }
  // What the second pass reads must be what the scan described.
  FakeFormat format;
  VerifyOptions options;
  options.foreign_format = &format;
  const std::string path = FreshDir("foreign_changed") + "/changed.tar";
  WriteTar(path, {{"metadata.json", kForeignJson}, {"a.txt", "hellO"}});
  EXPECT_EQ(VerifyArchive(path, options).status().message(),
            "member 'a.txt' changed while the archive was being read");
}

TEST(ForeignArchiveTest, VerifyRefusesWhatTheScanReports) {
  FakeFormat format({FailedPrecondition("module 'a': x is missing"), NotFound("y is missing")});
  VerifyOptions options;
  options.foreign_format = &format;
  Status s = VerifyArchive(Write("problems", true), options).status();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "module 'a': x is missing; y is missing");

  FakeFormat fine;
  options.foreign_format = &fine;
  options.require_signature = true;
  s = VerifyArchive(Write("signature", true), options).status();
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(),
            "TVM Model Library Format archive (metadata version 7): TVM archives carry no digests "
            "and no signature, but a signature is required");
}

// Null: mlfkit archives only. A TVM version is refused by name wherever metadata.json is.
TEST(ForeignArchiveTest, WithoutAFormatTvmVersionsAreRefused) {
  for (bool first : {true, false}) {
    Status s = VerifyArchive(Write(first ? "null_first" : "null_later", first), VerifyOptions{})
                   .status();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
    EXPECT_EQ(s.message(),
              "TVM Model Library Format archive (metadata version 7): this operation reads mlfkit "
              "archives only (mlf inspect, mlf verify and mlf run read TVM archives)");
  }
}

TEST(ForeignArchiveTest, JoinForeignProblems) {
  EXPECT_TRUE(JoinForeignProblems({}).ok());
  Status s = JoinForeignProblems({NotFound("a"), DataLoss("b")});
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "a; b");
}

}  // namespace
}  // namespace mlf
