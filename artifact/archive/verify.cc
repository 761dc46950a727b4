#include "artifact/archive/verify.h"

#include <set>

#include "artifact/archive/read_metadata.h"
#include "artifact/archive/signature.h"
#include "artifact/base/digest.h"
#include "artifact/base/display_text.h"

namespace mlf {
namespace {

// Drives one pass over the archive; each step below is one rule of verify.h.
class Verifier {
 public:
  Verifier(const VerifyOptions& options, MemberConsumer* consumer)
      : options_(options), consumer_(consumer) {}

  Result<VerifyReport> Run(const ArchiveSource& source) {
    MLF_ASSIGN_OR_RETURN(reader_, ArchiveReader::Open(source, options_.limits));
    archive_size_ = source.size();
    report_.compression = reader_->compression();
    MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> entry, reader_->Next());
    if (!entry || entry->name != kMetadataMember) {
      // TVM archives carry metadata.json anywhere; anything else keeps the
      // first-member error.
      if (options_.foreign_format == nullptr) {
        std::optional<int> version = ForeignVersionInside(source);
        if (version) return RefuseForeign(*version);
      }
      MLF_ASSIGN_OR_RETURN(std::optional<ForeignArchiveScan> scan, ScanForeign(source));
      if (scan) return RunForeign(source, std::move(*scan));
    }
    MLF_ASSIGN_OR_RETURN(const std::optional<int> foreign, ReadMetadata(entry));
    if (foreign) {
      if (options_.foreign_format == nullptr) return RefuseForeign(*foreign);
      MLF_ASSIGN_OR_RETURN(std::optional<ForeignArchiveScan> scan, ScanForeign(source));
      if (!scan) return Internal("metadata.json of a TVM version was not found again");
      return RunForeign(source, std::move(*scan));
    }
    MLF_ASSIGN_OR_RETURN(entry, reader_->Next());
    if (entry && entry->name == kSignatureMember) {
      MLF_RETURN_IF_ERROR(ReadSignature(*entry));
      MLF_ASSIGN_OR_RETURN(entry, reader_->Next());
    }
    MLF_RETURN_IF_ERROR(CheckSignaturePolicy());
    if (consumer_) MLF_RETURN_IF_ERROR(consumer_->OnMetadata(report_.metadata));
    for (; entry; ) {
      MLF_RETURN_IF_ERROR(CheckMember(*entry));
      MLF_ASSIGN_OR_RETURN(entry, reader_->Next());
    }
    MLF_RETURN_IF_ERROR(CheckNothingMissing());
    return std::move(report_);
  }

 private:
  // Reads a small member whole, passing it to the consumer as well.
  Result<std::string> ReadSmall(const EntryInfo& entry, uint64_t max_bytes) {
    MLF_ASSIGN_OR_RETURN(std::string bytes, reader_->ReadAll(max_bytes));
    Count(entry);
    if (consumer_) {
      MLF_RETURN_IF_ERROR(consumer_->Begin(entry));
      MLF_RETURN_IF_ERROR(consumer_->Data(bytes.data(), bytes.size()));
      MLF_RETURN_IF_ERROR(consumer_->End());
    }
    return bytes;
  }

  void Count(const EntryInfo& entry) {
    ++report_.member_count;
    report_.data_bytes += entry.size;
  }

  // Whether metadata.json of `version` is a foreign format's: TVM's versions
  // (known to the metadata model) or what the caller's format claims.
  bool IsForeignVersion(int version) const {
    return IsTvmMetadataVersion(version) ||
           (options_.foreign_format != nullptr && options_.foreign_format->ClaimsVersion(version));
  }

  // The version when metadata.json is a foreign format's (its passes take
  // over), nullopt for version 8.
  Result<std::optional<int>> ReadMetadata(const std::optional<EntryInfo>& entry) {
    MLF_RETURN_IF_ERROR(CheckFirstMember(entry));
    MLF_ASSIGN_OR_RETURN(report_.metadata_bytes, reader_->ReadAll(kMaxMetadataBytes));
    Result<int> version = PeekMetadataVersion(report_.metadata_bytes);
    if (version.ok() && IsForeignVersion(*version)) return std::optional<int>(*version);
    Count(*entry);
    MLF_RETURN_IF_ERROR(Deliver(*entry, report_.metadata_bytes));
    MLF_ASSIGN_OR_RETURN(report_.metadata, ParseMetadata(report_.metadata_bytes));
    report_.metadata_sha256 = Sha256Hex(report_.metadata_bytes);
    if (options_.trusted_metadata_sha256 == report_.metadata_sha256) {
      // Only parameter data may go unhashed: code is always checked. A blob
      // counts only under parameters/ (never sources, never a library).
      for (const auto& [name, module] : report_.metadata.modules) {
        if (module.parameters && module.parameters->storage == ParamStorage::kFile &&
            module.parameters->path.rfind("parameters/", 0) == 0) {
          unhashed_parameters_.insert(module.parameters->path);
        }
      }
      for (const auto& [name, module] : report_.metadata.modules) {
        if (module.host_library) unhashed_parameters_.erase(module.host_library->path);
      }
    }
    report_.digests_checked = unhashed_parameters_.empty();
    return std::optional<int>();
  }

  Status Deliver(const EntryInfo& entry, const std::string& bytes) {
    if (!consumer_) return Status::Ok();
    MLF_RETURN_IF_ERROR(consumer_->Begin(entry));
    MLF_RETURN_IF_ERROR(consumer_->Data(bytes.data(), bytes.size()));
    return consumer_->End();
  }

  // ---- Foreign (TVM) archives (verify.h): a scanning pass, then a checking pass.

  static std::string ForeignWhat(const std::string& format, int version) {
    return format + " Model Library Format archive (metadata version " + std::to_string(version) +
           ")";
  }

  // Callers that read version 8 only: a foreign archive is refused by name.
  Status RefuseForeign(int version) const {
    return Unimplemented(ForeignWhat("TVM", version) +
                         ": this operation reads mlfkit archives only (mlf inspect, "
                         "mlf verify and mlf run read TVM archives)");
  }

  // Without a foreign format: the version of a foreign metadata.json that is
  // not the first member (member headers only, data skipped), so that a
  // mlfkit caller refuses a TVM archive by name rather than by its first
  // member. nullopt when there is none or the archive cannot be read (the
  // first-member error applies).
  std::optional<int> ForeignVersionInside(const ArchiveSource& source) const {
    Result<std::unique_ptr<ArchiveReader>> reader = ArchiveReader::Open(source, options_.limits);
    if (!reader.ok()) return std::nullopt;
    for (;;) {
      Result<std::optional<EntryInfo>> entry = (*reader)->Next();
      if (!entry.ok() || !*entry) return std::nullopt;
      if ((*entry)->name != kMetadataMember) continue;
      if ((*entry)->size > kMaxMetadataBytes) return std::nullopt;
      Result<std::string> bytes = (*reader)->ReadAll(kMaxMetadataBytes);
      if (!bytes.ok()) return std::nullopt;
      Result<int> version = PeekMetadataVersion(*bytes);
      if (!version.ok() || !IsForeignVersion(*version)) return std::nullopt;
      return *version;
    }
  }

  Result<std::optional<ForeignArchiveScan>> ScanForeign(const ArchiveSource& source) {
    if (options_.foreign_format == nullptr) return std::optional<ForeignArchiveScan>();
    std::function<void(uint64_t)> progress;
    if (options_.progress) {
      progress = [this](uint64_t done) {
        done_ = done;
        options_.progress(done_, 2 * archive_size_);
      };
    }
    return options_.foreign_format->Scan(source, options_.limits, progress);
  }

  Result<VerifyReport> RunForeign(const ArchiveSource& source, ForeignArchiveScan scan) {
    const std::string what = ForeignWhat(options_.foreign_format->name(), scan.metadata.version);
    if (options_.public_key_pem || options_.require_signature) {
      return Unauthenticated(what + ": TVM archives carry no digests and no signature, but a "
                                    "signature is required");
    }
    MLF_RETURN_IF_ERROR(JoinForeignProblems(scan.report.problems));
    foreign_ = true;
    report_ = VerifyReport{};
    report_.metadata = std::move(scan.metadata);
    report_.metadata_bytes = std::move(scan.metadata_bytes);
    report_.metadata_sha256 = scan.metadata_sha256;
    report_.compression = scan.compression;
    report_.digests_checked = true;
    report_.foreign = std::move(scan.report);
    if (options_.progress) archive_size_ *= 2;
    if (consumer_) MLF_RETURN_IF_ERROR(consumer_->OnMetadata(report_.metadata));
    MLF_ASSIGN_OR_RETURN(reader_, ArchiveReader::Open(source, options_.limits));
    for (;;) {
      MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> entry, reader_->Next());
      if (!entry) break;
      if (entry->name == kMetadataMember) {
        MLF_ASSIGN_OR_RETURN(std::string bytes, reader_->ReadAll(kMaxMetadataBytes));
        if (Sha256Hex(bytes) != report_.metadata_sha256) {
          return DataLoss("metadata.json changed while the archive was being read");
        }
        Count(*entry);
        MLF_RETURN_IF_ERROR(Deliver(*entry, bytes));
        continue;
      }
      MLF_RETURN_IF_ERROR(CheckMember(*entry));
    }
    MLF_RETURN_IF_ERROR(CheckNothingMissing());
    return std::move(report_);
  }

  Status ReadSignature(const EntryInfo& entry) {
    if (entry.size > kMaxKeyFileBytes) {
      return Unauthenticated("malformed signature member: metadata.json.sig is " +
                             std::to_string(entry.size) + " bytes");
    }
    MLF_ASSIGN_OR_RETURN(signature_, ReadSmall(entry, kMaxKeyFileBytes));
    MLF_ASSIGN_OR_RETURN(SignatureInfo info, ParseSignatureMember(signature_));
    report_.is_signed = true;
    report_.signer_key_sha256 = info.key_sha256;
    return Status::Ok();
  }

  Status CheckSignaturePolicy() {
    const bool have_key = options_.public_key_pem.has_value();
    if (!report_.is_signed && (have_key || options_.require_signature)) {
      return Unauthenticated(
          "archive is not signed (no metadata.json.sig after metadata.json) but a signature "
          "is required; sign it with `mlf sign`");
    }
    if (!have_key || !report_.is_signed) return Status::Ok();
    MLF_RETURN_IF_ERROR(Verify(*options_.public_key_pem, report_.metadata_bytes, signature_));
    report_.signature_checked = true;
    return Status::Ok();
  }

  Status CheckMember(const EntryInfo& entry) {
    if (entry.name == kSignatureMember && !foreign_) {
      return InvalidArgument("member 'metadata.json.sig' must directly follow metadata.json");
    }
    auto listed = report_.metadata.files.find(entry.name);
    if (listed == report_.metadata.files.end()) {
      if (foreign_) {
        return DataLoss("member " + QuoteForMessage(entry.name) +
                        " appeared while the archive was being read");
      }
      return DataLoss("extra member " + QuoteForMessage(entry.name) +
                      " is not listed in metadata.json files");
    }
    if (foreign_ && entry.size != listed->second.size) {
      return DataLoss("member " + QuoteForMessage(entry.name) +
                      " changed while the archive was being read");
    }
    if (entry.size != listed->second.size) {
      return DataLoss("member " + QuoteForMessage(entry.name) + ": size " +
                      std::to_string(entry.size) + " does not match metadata.json files (" +
                      std::to_string(listed->second.size) + ")");
    }
    MLF_RETURN_IF_ERROR(HashMember(entry, listed->second.sha256));
    seen_.insert(entry.name);
    Count(entry);
    return Status::Ok();
  }

  Status HashMember(const EntryInfo& entry, const std::string& expected) {
    if (consumer_) MLF_RETURN_IF_ERROR(consumer_->Begin(entry));
    const bool hash = unhashed_parameters_.count(entry.name) == 0;
    const bool feed = consumer_ != nullptr && consumer_->WantsData(entry);
    if (!hash && !feed) return consumer_ ? consumer_->End() : Status::Ok();
    Sha256 digest;
    MLF_RETURN_IF_ERROR(reader_->ReadData([&](const void* data, size_t size) {
      if (hash) digest.Update(data, size);
      done_ += size;
      if (options_.progress) options_.progress(done_, archive_size_);
      return feed ? consumer_->Data(data, size) : Status::Ok();
    }));
    if (hash) {
      const std::string actual = digest.FinishHex();
      if (actual != expected && foreign_) {
        return DataLoss("member " + QuoteForMessage(entry.name) +
                        " changed while the archive was being read");
      }
      if (actual != expected) {
        return DataLoss("member " + QuoteForMessage(entry.name) +
                        ": SHA-256 mismatch (archive has " + actual +
                        ", metadata.json files says " + expected + ")");
      }
    }
    return consumer_ ? consumer_->End() : Status::Ok();
  }

  Status CheckNothingMissing() {
    for (const auto& [name, entry] : report_.metadata.files) {
      if (!seen_.count(name) && foreign_) {
        return DataLoss("member " + QuoteForMessage(name) +
                        " disappeared while the archive was being read");
      }
      if (!seen_.count(name)) {
        return DataLoss("member " + QuoteForMessage(name) +
                        " is listed in metadata.json files but missing from the archive");
      }
    }
    return Status::Ok();
  }

  const VerifyOptions& options_;
  MemberConsumer* consumer_;
  std::unique_ptr<ArchiveReader> reader_;
  VerifyReport report_;
  std::string signature_;
  std::set<std::string> seen_;
  std::set<std::string> unhashed_parameters_;  // trusted_metadata_sha256 applied
  bool foreign_ = false;
  uint64_t archive_size_ = 0;
  uint64_t done_ = 0;
};

}  // namespace

Result<VerifyReport> VerifyArchive(const ArchiveSource& source, const VerifyOptions& options,
                                   MemberConsumer* consumer) {
  Verifier verifier(options, consumer);
  return verifier.Run(source);
}

Result<VerifyReport> VerifyArchive(const std::string& path, const VerifyOptions& options,
                                   MemberConsumer* consumer) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> source, ArchiveSource::OpenFile(path));
  return VerifyArchive(*source, options, consumer);
}

}  // namespace mlf
