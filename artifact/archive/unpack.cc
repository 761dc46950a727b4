#include "artifact/archive/unpack.h"

namespace mlf {
namespace {

// Feeds verified members into an ExtractionTarget.
class ExtractingConsumer : public MemberConsumer {
 public:
  explicit ExtractingConsumer(ExtractionTarget* target) : target_(target) {}
  Status Begin(const EntryInfo& entry) override { return target_->BeginFile(entry.name); }
  Status Data(const void* data, size_t size) override { return target_->Write(data, size); }
  Status End() override { return target_->EndFile(); }

 private:
  ExtractionTarget* target_;
};

// Verifies `source` into `target`, which appears only if every check passed.
Result<VerifyReport> Extract(const ArchiveSource& source, ExtractionTarget* target,
                             const VerifyOptions& options) {
  ExtractingConsumer consumer(target);
  MLF_ASSIGN_OR_RETURN(VerifyReport report, VerifyArchive(source, options, &consumer));
  MLF_RETURN_IF_ERROR(target->Commit());
  return report;
}

}  // namespace

Result<VerifyReport> UnpackArchive(const ArchiveSource& archive, const std::string& dest_dir,
                                   const VerifyOptions& options) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ExtractionTarget> target, ExtractionTarget::Open(dest_dir));
  return Extract(archive, target.get(), options);
}

Result<VerifyReport> UnpackArchive(const std::string& archive, const std::string& dest_dir,
                                   const VerifyOptions& options) {
  // The destination is checked first, as it always was.
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ExtractionTarget> target, ExtractionTarget::Open(dest_dir));
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> source, ArchiveSource::OpenFile(archive));
  return Extract(*source, target.get(), options);
}

}  // namespace mlf
