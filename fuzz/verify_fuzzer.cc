// VerifyArchive over arbitrary bytes with small reader limits: first with no
// key and TVM archives accepted (versions 5-7: their metadata, Relay text,
// headers and .params are parsed too), then, for archives that carry a
// signature, against the fixed test key (fuzz/test_key.h); both times with a
// consumer that sees every member. Invariants besides "no sanitizer finding":
//   - a consumer gets Begin / Data... / End per member, never more data than
//     the member's size, and End only with exactly that many bytes;
//   - for version 8, a report's member_count is files + metadata.json
//     (+ signature).
#include <string>
#include <string_view>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/verify.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/limits.h"
#include "fuzz/test_key.h"
#include "tvm/tvm.h"

namespace {

class CheckingConsumer : public mlf::MemberConsumer {
 public:
  mlf::Status OnMetadata(const mlf::Metadata& metadata) override {
    MLF_FUZZ_CHECK(!open_, "OnMetadata inside a member");
    return mlf::Status::Ok();
  }
  mlf::Status Begin(const mlf::EntryInfo& entry) override {
    MLF_FUZZ_CHECK(!open_, "Begin of " + entry.name + " before End of " + entry_.name);
    open_ = true;
    entry_ = entry;
    received_ = 0;
    return mlf::Status::Ok();
  }
  bool WantsData(const mlf::EntryInfo& entry) override { return entry.size % 2 == 0; }
  mlf::Status Data(const void* data, size_t size) override {
    MLF_FUZZ_CHECK(open_, "Data outside a member");
    received_ += size;
    MLF_FUZZ_CHECK(received_ <= entry_.size, "more data than the size of " + entry_.name);
    return mlf::Status::Ok();
  }
  mlf::Status End() override {
    MLF_FUZZ_CHECK(open_, "End outside a member");
    // A member the consumer does not want gets no data (digests are still checked).
    MLF_FUZZ_CHECK(received_ == entry_.size || received_ == 0,
                   "End of " + entry_.name + " after " + std::to_string(received_) + " of " +
                       std::to_string(entry_.size) + " bytes");
    open_ = false;
    return mlf::Status::Ok();
  }

 private:
  bool open_ = false;
  mlf::EntryInfo entry_;
  uint64_t received_ = 0;
};

void CheckReport(const mlf::VerifyReport& report) {
  if (report.metadata.version != mlf::kMetadataVersion) return;
  const uint64_t expected = report.metadata.files.size() + 1 + (report.is_signed ? 1 : 0);
  MLF_FUZZ_CHECK(report.member_count == expected,
                 "member_count " + std::to_string(report.member_count) + ", expected " +
                     std::to_string(expected));
}

}  // namespace

MLF_FUZZ_TARGET(verify) {
  // The input as an archive in memory (artifact/archive/archive_source.h).
  const auto source = mlf::ArchiveSource::MemoryView(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
  mlf::VerifyOptions options;
  options.limits = mlf::fuzz::SmallReaderLimits();
  options.foreign_format = &mlf::tvm_wing::ArchiveFormat();
  CheckingConsumer first;
  auto report = mlf::VerifyArchive(*source, options, &first);
  if (!report.ok()) return 0;
  CheckReport(*report);
  if (!report->is_signed) return 0;
  options.foreign_format = nullptr;  // TVM archives cannot be signed
  options.public_key_pem = mlf::fuzz::kTestPublicKeyPem;
  CheckingConsumer consumer;
  auto signed_report = mlf::VerifyArchive(*source, options, &consumer);
  if (signed_report.ok()) {
    CheckReport(*signed_report);
    MLF_FUZZ_CHECK(signed_report->signature_checked, "signature not checked");
  }
  return 0;
}
