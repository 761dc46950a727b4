#include "tvm/format/tvm_archive.h"

#include "artifact/base/digest.h"
#include "tvm/format/tvm_metadata.h"
#include "tvm/format/tvm_params.h"

namespace mlf {
namespace {

bool IsParamsMember(const std::string& path) {
  return path.rfind("parameters/", 0) == 0 && path.size() > 7 &&
         path.compare(path.size() - 7, 7, ".params") == 0;
}

class Scanner {
 public:
  Scanner(const ArchiveSource& source, const ReaderLimits& limits,
          const std::function<void(uint64_t)>& progress)
      : source_(source), limits_(limits), progress_(progress) {}

  Result<std::optional<TvmArchiveScan>> Run() {
    if (!LooksLikeTvm()) return std::optional<TvmArchiveScan>();
    Result<std::unique_ptr<ArchiveReader>> reader = ArchiveReader::Open(source_, limits_);
    if (!reader.ok()) return std::optional<TvmArchiveScan>();
    reader_ = std::move(*reader);
    scan_.compression = reader_->compression();
    for (;;) {
      Result<std::optional<EntryInfo>> entry = reader_->Next();
      if (!entry.ok()) {
        if (!found_) return std::optional<TvmArchiveScan>();
        return entry.status();
      }
      if (!*entry) break;
      ++scan_.member_count;
      scan_.data_bytes += (*entry)->size;
      if ((*entry)->name == kMetadataMember) {
        Result<bool> tvm = ReadMetadata(**entry);
        if (!tvm.ok()) return tvm.status();
        if (!*tvm) return std::optional<TvmArchiveScan>();
        continue;
      }
      Status s = ReadMember(**entry);
      if (!s.ok()) {
        if (!found_) return std::optional<TvmArchiveScan>();
        return s;
      }
    }
    if (!found_) return std::optional<TvmArchiveScan>();
    TvmCompletion completion = CompleteTvmMetadata(&scan_.metadata, contents_);
    scan_.report.problems = std::move(completion.problems);
    scan_.report.unreferenced = std::move(completion.unreferenced);
    return std::optional<TvmArchiveScan>(std::move(scan_));
  }

 private:
  // A quick pass over the member headers only (data is skipped): whether
  // the archive has a metadata.json of a TVM version. Spares reading a large
  // archive that is not TVM's twice before its reader reports the error.
  bool LooksLikeTvm() const {
    Result<std::unique_ptr<ArchiveReader>> reader = ArchiveReader::Open(source_, limits_);
    if (!reader.ok()) return false;
    for (;;) {
      Result<std::optional<EntryInfo>> entry = (*reader)->Next();
      if (!entry.ok() || !*entry) return false;
      if ((*entry)->name != kMetadataMember) continue;
      if ((*entry)->size > kMaxMetadataBytes) return false;
      Result<std::string> bytes = (*reader)->ReadAll(kMaxMetadataBytes);
      if (!bytes.ok()) return false;
      Result<int> version = PeekMetadataVersion(*bytes);
      return version.ok() && IsTvmMetadataVersion(*version);
    }
  }

  // Ok(false) when metadata.json is not TVM's (the caller's error applies).
  Result<bool> ReadMetadata(const EntryInfo& entry) {
    if (entry.size > kMaxMetadataBytes) {
      if (!found_) return false;
      return OutOfRange("metadata.json is " + std::to_string(entry.size) +
                        " bytes, more than the limit of " + std::to_string(kMaxMetadataBytes));
    }
    Result<std::string> bytes = reader_->ReadAll(kMaxMetadataBytes);
    if (!bytes.ok()) return found_ ? Result<bool>(bytes.status()) : Result<bool>(false);
    Result<int> version = PeekMetadataVersion(*bytes);
    if (!version.ok() || !IsTvmMetadataVersion(*version)) return false;
    found_ = true;
    MLF_ASSIGN_OR_RETURN(scan_.metadata, ParseTvmMetadata(*bytes));
    scan_.metadata_sha256 = Sha256Hex(*bytes);
    scan_.metadata_bytes = std::move(*bytes);
    Progress(entry.size);
    return true;
  }

  Status ReadMember(const EntryInfo& entry) {
    const bool text = IsTvmTextMember(entry.name);
    const bool code = IsTvmCodeMember(entry.name);
    const bool params = IsParamsMember(entry.name);
    const uint64_t bound = params ? kMaxTvmParamsBytes : code ? kMaxTvmCodeBytes : kMaxTvmTextBytes;
    const bool keep = (text || code || params) && entry.size <= bound &&
                      (!text || retained_ + entry.size <= kMaxTvmRetainedBytes);
    if ((text || code || params) && !keep) contents_.too_large[entry.name] = entry.size;
    std::string bytes;
    if (keep) bytes.reserve(entry.size);
    Sha256 digest;
    MLF_RETURN_IF_ERROR(reader_->ReadData([&](const void* data, size_t size) {
      digest.Update(data, size);
      if (keep) bytes.append(static_cast<const char*>(data), size);
      Progress(size);
      return Status::Ok();
    }));
    contents_.files[entry.name] = FileEntry{entry.size, digest.FinishHex()};
    if (!keep) return Status::Ok();
    if (code) contents_.code[entry.name] = ScanTvmCode(bytes);
    if (params) {
      TvmParamsContents index;
      Result<std::vector<NamedTensor>> tensors = ReadTvmParams(bytes);
      if (tensors.ok()) {
        index.tensors = TvmParamsIndex(*tensors);
      } else {
        index.status = tensors.status();
      }
      contents_.params[entry.name] = std::move(index);
    }
    if (text) {
      retained_ += bytes.size();
      contents_.texts[entry.name] = std::move(bytes);
    }
    return Status::Ok();
  }

  void Progress(uint64_t n) {
    done_ += n;
    if (progress_) progress_(done_);
  }

  const ArchiveSource& source_;
  ReaderLimits limits_;
  std::function<void(uint64_t)> progress_;
  std::unique_ptr<ArchiveReader> reader_;
  TvmArchiveScan scan_;
  TvmArchiveContents contents_;
  bool found_ = false;
  uint64_t done_ = 0;
  uint64_t retained_ = 0;  // bytes of texts kept for the completion
};

}  // namespace

Result<std::optional<TvmArchiveScan>> ScanTvmArchive(const ArchiveSource& source,
                                                     const ReaderLimits& limits,
                                                     const std::function<void(uint64_t)>& progress) {
  Scanner scanner(source, limits, progress);
  return scanner.Run();
}

Result<std::optional<TvmArchiveScan>> ScanTvmArchive(const std::string& path,
                                                     const ReaderLimits& limits,
                                                     const std::function<void(uint64_t)>& progress) {
  // An archive that cannot be opened is not TVM's: the caller reports its own error.
  Result<std::unique_ptr<ArchiveSource>> source = ArchiveSource::OpenFile(path);
  if (!source.ok()) return std::optional<TvmArchiveScan>();
  return ScanTvmArchive(**source, limits, progress);
}

namespace {

class TvmFormat final : public ForeignArchiveFormat {
 public:
  std::string name() const override { return "TVM"; }
  bool ClaimsVersion(int64_t version) const override { return IsTvmMetadataVersion(version); }
  Result<std::optional<ForeignArchiveScan>> Scan(
      const ArchiveSource& source, const ReaderLimits& limits,
      const std::function<void(uint64_t)>& progress) const override {
    return ScanTvmArchive(source, limits, progress);
  }
};

}  // namespace

const ForeignArchiveFormat& TvmArchiveFormat() {
  static const TvmFormat* format = new TvmFormat();
  return *format;
}

}  // namespace mlf
