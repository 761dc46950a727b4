// Reading only metadata.json (and the signature member, if any) from an
// archive: what `mlf inspect` needs, without hashing the other members.
// The archive's structure up to those members is checked by the same reader
// as everything else; digests are NOT checked (use VerifyArchive for that).
//
// TVM archives (metadata versions 5–7) have metadata.json anywhere and too
// little in it: when the caller passes their format (`foreign`, the seam of
// artifact/archive/foreign_archive.h; tvm_wing::ArchiveFormat() of tvm/tvm.h)
// they are read whole and normalised; `foreign` then lists what verify would
// refuse. Without it they are refused as version 8 archives would be.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_READ_METADATA_H_
#define MLFKIT_ARTIFACT_ARCHIVE_READ_METADATA_H_

#include <string>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/base/status.h"
#include "artifact/archive/foreign_archive.h"
#include "artifact/format/metadata.h"

namespace mlf {

struct ArchiveHead {
  Metadata metadata;
  std::string metadata_bytes;
  Compression compression = Compression::kNone;
  std::string signature_member;  // empty when the archive is not signed
  std::optional<ForeignArchiveReport> foreign;  // set for foreign (TVM) archives
};

// Ok when `first` is a metadata.json member of an acceptable size; the
// error otherwise says what the first member is instead.
Status CheckFirstMember(const std::optional<EntryInfo>& first);

// `foreign` (may be null) reads archives of metadata versions this layer does
// not own (artifact/archive/foreign_archive.h).
Result<ArchiveHead> ReadArchiveHead(const ArchiveSource& source, const ReaderLimits& limits = {},
                                    const ForeignArchiveFormat* foreign = nullptr);
// The same for the file at `path` (ArchiveSource::OpenFile).
Result<ArchiveHead> ReadArchiveHead(const std::string& path, const ReaderLimits& limits = {},
                                    const ForeignArchiveFormat* foreign = nullptr);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_READ_METADATA_H_
