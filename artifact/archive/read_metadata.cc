#include "artifact/archive/read_metadata.h"

#include "artifact/archive/signature.h"

namespace mlf {

Status CheckFirstMember(const std::optional<EntryInfo>& first) {
  if (!first) return InvalidArgument("archive is empty: expected metadata.json as its first member");
  if (first->name != kMetadataMember) {
    return InvalidArgument("first member is '" + first->name +
                           "', expected metadata.json (is this a Model Library Format archive?)");
  }
  if (first->size > kMaxMetadataBytes) {
    return OutOfRange("metadata.json is " + std::to_string(first->size) +
                      " bytes, more than the limit of " + std::to_string(kMaxMetadataBytes));
  }
  return Status::Ok();
}

namespace {

Result<ArchiveHead> ForeignHead(ForeignArchiveScan scan) {
  ArchiveHead head;
  head.metadata = std::move(scan.metadata);
  head.metadata_bytes = std::move(scan.metadata_bytes);
  head.compression = scan.compression;
  head.foreign = std::move(scan.report);
  return head;
}

}  // namespace

Result<ArchiveHead> ReadArchiveHead(const std::string& path, const ReaderLimits& limits,
                                    const ForeignArchiveFormat* foreign) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveSource> source, ArchiveSource::OpenFile(path));
  return ReadArchiveHead(*source, limits, foreign);
}

Result<ArchiveHead> ReadArchiveHead(const ArchiveSource& source, const ReaderLimits& limits,
                                    const ForeignArchiveFormat* foreign) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, ArchiveReader::Open(source, limits));
  ArchiveHead head;
  head.compression = reader->compression();
  MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> entry, reader->Next());
  if ((!entry || entry->name != kMetadataMember) && foreign != nullptr) {
    MLF_ASSIGN_OR_RETURN(std::optional<ForeignArchiveScan> scan,
                         foreign->Scan(source, limits, nullptr));
    if (scan) return ForeignHead(std::move(*scan));
  }
  MLF_RETURN_IF_ERROR(CheckFirstMember(entry));
  MLF_ASSIGN_OR_RETURN(head.metadata_bytes, reader->ReadAll(kMaxMetadataBytes));
  Result<int> version = PeekMetadataVersion(head.metadata_bytes);
  if (version.ok() && foreign != nullptr && foreign->ClaimsVersion(*version)) {
    MLF_ASSIGN_OR_RETURN(std::optional<ForeignArchiveScan> scan,
                         foreign->Scan(source, limits, nullptr));
    if (scan) return ForeignHead(std::move(*scan));
  }
  MLF_ASSIGN_OR_RETURN(head.metadata, ParseMetadata(head.metadata_bytes));
  MLF_ASSIGN_OR_RETURN(entry, reader->Next());
  if (entry && entry->name == kSignatureMember) {
    MLF_ASSIGN_OR_RETURN(head.signature_member, reader->ReadAll(kMaxKeyFileBytes));
  }
  return head;
}

}  // namespace mlf
