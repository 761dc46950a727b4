// The members a ModelLibrary needs, captured while the archive is verified
// (one pass; see artifact/archive/verify.h MemberConsumer). Nothing captured here may
// be used unless VerifyArchive then returns Ok.
//
// A host library goes into a CodeImage (shared_object.h): hashed as it is
// copied into a memfd and sealed only if its SHA-256 is the one metadata.json
// "files" lists (for a signed archive, the signed metadata), whatever the
// verifier decided to hash.
#ifndef MLFKIT_LOADER_HOST_ARCHIVE_CAPTURE_H_
#define MLFKIT_LOADER_HOST_ARCHIVE_CAPTURE_H_

#include <map>
#include <memory>
#include <set>
#include <string>

#include "artifact/archive/archive_source.h"
#include "artifact/archive/verify.h"
#include "artifact/toolchain/host_build.h"
#include "loader/host/foreign_module.h"
#include "loader/host/parameter_buffer.h"
#include "loader/host/shared_object.h"

namespace mlf {

class ArchiveCapture : public MemberConsumer {
 public:
  // `archive` is the archive being verified (it must outlive the capture):
  // parameters are mapped out of its file when it has one, else copied.
  // `foreign` (may be null) says what its foreign modules need captured.
  // `compile_all`: capture every module's sources and no host library, so
  // each is compiled (LoadOptions::profile_operators).
  ArchiveCapture(const ArchiveSource& archive, const ForeignModuleRunner* foreign,
                 bool compile_all = false)
      : archive_(archive), foreign_(foreign), compile_all_(compile_all) {}

  Status OnMetadata(const Metadata& metadata) override;
  Status Begin(const EntryInfo& entry) override;
  bool WantsData(const EntryInfo& entry) override;
  Status Data(const void* data, size_t size) override;
  Status End() override;

  // Modules that have a host library for this machine, and those whose
  // sources must be compiled.
  bool HasLibraryFor(const std::string& module) const { return library_of_.count(module) > 0; }
  // The sealed image of the module's library (HasLibraryFor is true).
  const CodeImage& Library(const std::string& module) const;
  const std::string& LibraryPath(const std::string& module) const { return library_of_.at(module); }
  // Files under codegen/host/ (sources and headers), for compiling; for
  // foreign (TVM) archives also what the runner stages (StagesMember).
  const std::vector<StagedFile>& staged_files() const { return staged_; }
  // Foreign modules: the members the runner needs whole (WholeMembers, e.g. a
  // TVM graph's JSON and .params), by path.
  const std::map<std::string, std::string>& foreign_members() const { return foreign_members_; }
  // Every captured parameter blob, by member path.
  std::map<std::string, std::unique_ptr<ParameterBuffer>> TakeParameters() {
    return std::move(parameters_);
  }

 private:
  enum class Sink { kNone, kLibrary, kParameters, kStaged, kForeignWhole };

  const ArchiveSource& archive_;
  const ForeignModuleRunner* foreign_;
  bool compile_all_;
  std::map<std::string, std::string> library_of_;  // module -> library member
  std::set<std::string> parameter_members_;
  bool stage_sources_ = false;
  bool stage_foreign_ = false;  // a foreign module: the runner stages members too

  std::map<std::string, std::string> library_sha256_;  // library member -> listed digest
  std::map<std::string, std::unique_ptr<CodeImage>> libraries_;
  std::map<std::string, std::unique_ptr<ParameterBuffer>> parameters_;
  std::vector<StagedFile> staged_;
  std::map<std::string, std::string> foreign_members_;  // wanted members -> bytes

  Sink sink_ = Sink::kNone;
  std::string current_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_ARCHIVE_CAPTURE_H_
