#include "loader/firmware/project_input.h"

#include <utility>


namespace mlf::firmware {
namespace {

bool Kept(const std::string& path) {
  for (const char* prefix : {"codegen/host/src/", "codegen/host/include/", "parameters/",
                             "runtime/include/", "executor-config/graph/"}) {
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// Keeps the members a project needs as they stream by during verification.
class Capture : public MemberConsumer {
 public:
  explicit Capture(std::map<std::string, std::string>* members) : members_(members) {}

  Status OnMetadata(const Metadata& metadata) override {
    if (metadata.version < kOldestMetadataVersion && !IsTvmMetadataVersion(metadata.version)) {
      return FailedPrecondition("mlf project reads archives of versions " +
                                std::to_string(kOldestMetadataVersion) + "-" + std::to_string(kMetadataVersion) +
                                " and TVM's versions 5-7, this one is version " +
                                std::to_string(metadata.version));
    }
    uint64_t total = 0;
    for (const auto& [path, entry] : metadata.files) {
      if (Kept(path)) total += entry.size;
    }
    if (total > kMaxProjectInputBytes) {
      return OutOfRange("the archive's sources and parameters take " + std::to_string(total) +
                        " bytes, more than a firmware project may hold (" +
                        std::to_string(kMaxProjectInputBytes) + ")");
    }
    return Status::Ok();
  }

  Status Begin(const EntryInfo& entry) override {
    current_ = Kept(entry.name) ? &(*members_)[entry.name] : nullptr;
    if (current_) current_->reserve(entry.size);
    return Status::Ok();
  }
  bool WantsData(const EntryInfo& entry) override { return Kept(entry.name); }
  Status Data(const void* data, size_t size) override {
    if (current_) current_->append(static_cast<const char*>(data), size);
    return Status::Ok();
  }
  Status End() override {
    current_ = nullptr;
    return Status::Ok();
  }

 private:
  std::map<std::string, std::string>* members_;
  std::string* current_ = nullptr;
};

}  // namespace

Result<ProjectInput> ReadProjectInput(const std::string& archive, const VerifyOptions& options) {
  ProjectInput input;
  Capture capture(&input.members);
  Result<VerifyReport> report = VerifyArchive(archive, options, &capture);
  if (!report.ok()) return report.status().WithContext(archive);
  input.report = std::move(*report);
  input.report.metadata_bytes.clear();
  input.metadata = input.report.metadata;
  return input;
}

}  // namespace mlf::firmware
