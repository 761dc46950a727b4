#include "artifact/archive/sign.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "artifact/archive/archive_writer.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/signature.h"
#include "artifact/base/scratch_dir.h"

namespace mlf {
namespace {

// A private directory for spooled member data, removed with its files
// (artifact/base/scratch_dir.h). Created on first use, in the directory of the
// output (compressed inputs only: uncompressed members are copied straight
// from the input).
class SpoolDir {
 public:
  explicit SpoolDir(const std::string& near_file) {
    const size_t slash = near_file.rfind('/');
    dir_ = slash == std::string::npos ? "." : near_file.substr(0, slash);
  }
  Result<std::string> NewFile() {
    if (!scratch_) {
      MLF_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::Create(dir_, ".mlf-sign-"));
      scratch_ = std::move(scratch);
    }
    return scratch_->path() + "/" + std::to_string(files_++);
  }

 private:
  std::string dir_;
  std::optional<ScratchDir> scratch_;
  int files_ = 0;
};

// Collects every member except metadata.json and an old signature, as
// sources for the rewrite: byte ranges of the input when it is uncompressed
// (and not a stream, which cannot be read again), spooled copies otherwise.
class MemberCollector : public MemberConsumer {
 public:
  MemberCollector(const ArchiveSource& archive, SpoolDir* spool) : archive_(archive), spool_(spool) {}

  Status Begin(const EntryInfo& entry) override {
    skip_ = entry.name == kMetadataMember || entry.name == kSignatureMember;
    if (skip_) return Status::Ok();
    if (entry.data_offset != kUnknownOffset && archive_.rereadable()) {
      members_.push_back({entry.name, MemberSource::ArchiveRange(archive_, entry.data_offset, entry.size), false});
      return Status::Ok();
    }
    MLF_ASSIGN_OR_RETURN(const std::string path, spool_->NewFile());
    spool_fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (spool_fd_ < 0) return ErrnoError("cannot create " + path);
    members_.push_back({entry.name, MemberSource::File(path), false});
    return Status::Ok();
  }

  Status Data(const void* data, size_t size) override {
    if (skip_ || spool_fd_ < 0) return Status::Ok();
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = write(spool_fd_, p, size);
      if (n < 0) return ErrnoError("cannot write spooled member data");
      p += n;
      size -= static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  Status End() override {
    if (spool_fd_ >= 0 && close(spool_fd_) != 0) {
      spool_fd_ = -1;
      return ErrnoError("cannot write spooled member data");
    }
    spool_fd_ = -1;
    return Status::Ok();
  }

  ~MemberCollector() override {
    if (spool_fd_ >= 0) close(spool_fd_);
  }

  std::vector<ArchiveMember>& members() { return members_; }

 private:
  const ArchiveSource& archive_;
  SpoolDir* spool_;
  std::vector<ArchiveMember> members_;
  int spool_fd_ = -1;
  bool skip_ = false;
};

// The owner and mode of `in` when `out` exists and is the file `in` (signing
// in place), else nullopt.
std::optional<FileOwnership> InPlace(const ArchiveSource& in, const std::string& out) {
  struct stat a, b;
  if (in.fd() < 0 || fstat(in.fd(), &a) != 0 || stat(out.c_str(), &b) != 0 ||
      a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
    return std::nullopt;
  }
  return FileOwnership{a.st_uid, a.st_gid, static_cast<mode_t>(a.st_mode & 0777)};
}

}  // namespace

Result<VerifyReport> SignArchive(const std::string& in, std::string_view private_key_pem,
                                 const std::string& out, const SignOptions& options) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> source, ArchiveSource::OpenFile(in));
  return SignArchive(*source, private_key_pem, out, options);
}

Result<VerifyReport> SignArchive(const ArchiveSource& in, std::string_view private_key_pem,
                                 const std::string& out, const SignOptions& options) {
  // Taken before anything is read: the rewrite replaces this very file.
  const std::optional<FileOwnership> in_place = InPlace(in, out);
  SpoolDir spool(out);
  MemberCollector collector(in, &spool);
  VerifyOptions verify_options;
  verify_options.limits = options.limits;
  MLF_ASSIGN_OR_RETURN(VerifyReport report, VerifyArchive(in, verify_options, &collector));
  MLF_ASSIGN_OR_RETURN(std::string signature, Sign(private_key_pem, report.metadata_bytes));
  MLF_ASSIGN_OR_RETURN(SignatureInfo info, ParseSignatureMember(signature));

  std::vector<ArchiveMember> rest;
  rest.push_back({kSignatureMember, MemberSource::Bytes(signature), false});
  for (ArchiveMember& m : collector.members()) {
    m.align_data = IsAlignedMember(m.name);
    rest.push_back(std::move(m));
  }
  WriteOptions write_options;
  write_options.compression = report.compression;
  write_options.mtime = options.mtime;
  write_options.keep_ownership = in_place;
  const std::string& metadata = report.metadata_bytes;
  MLF_RETURN_IF_ERROR(WriteArchive(out, kMetadataMember, metadata.size(),
                                   [&](const DigestMap&) -> Result<std::string> { return metadata; },
                                   rest, write_options)
                          .status());
  report.is_signed = true;
  report.signature_checked = false;
  report.signer_key_sha256 = info.key_sha256;
  return report;
}

}  // namespace mlf
