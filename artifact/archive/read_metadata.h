// Reading only metadata.json (and the signature member, if any) from an
// archive: what `mlf inspect` needs, without hashing the other members.
// The archive's structure up to those members is checked by the same reader
// as everything else; digests are NOT checked (use VerifyArchive for that).
//
// TVM archives (metadata versions 5–7) have metadata.json anywhere and too
// little in it: they are read whole (ScanTvmArchive, tvm/format/tvm_archive.h)
// and normalised; `tvm` then lists what verify would refuse.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_READ_METADATA_H_
#define MLFKIT_ARTIFACT_ARCHIVE_READ_METADATA_H_

#include <string>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "tvm/format/tvm_archive.h"

namespace mlf {

struct ArchiveHead {
  Metadata metadata;
  std::string metadata_bytes;
  Compression compression = Compression::kNone;
  std::string signature_member;  // empty when the archive is not signed
  std::optional<TvmArchiveReport> tvm;  // set for TVM archives
};

// Ok when `first` is a metadata.json member of an acceptable size; the
// error otherwise says what the first member is instead.
Status CheckFirstMember(const std::optional<EntryInfo>& first);

Result<ArchiveHead> ReadArchiveHead(const ArchiveSource& source, const ReaderLimits& limits = {});
// The same for the file at `path` (ArchiveSource::OpenFile).
Result<ArchiveHead> ReadArchiveHead(const std::string& path, const ReaderLimits& limits = {});

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_READ_METADATA_H_
