// Verified extraction: an archive is checked exactly as VerifyArchive checks
// it and extracted in the same pass (artifact/archive/safe_extract.h rules). The
// destination appears only when every check has passed: on any failure the
// staged tree is removed and the destination is left as it was.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_UNPACK_H_
#define MLFKIT_ARTIFACT_ARCHIVE_UNPACK_H_

#include <string>

#include "artifact/archive/safe_extract.h"
#include "artifact/archive/verify.h"
#include "artifact/base/status.h"

namespace mlf {

Result<VerifyReport> UnpackArchive(const ArchiveSource& archive, const std::string& dest_dir,
                                   const VerifyOptions& options);
// The same for the file at `archive` (ArchiveSource::OpenFile).
Result<VerifyReport> UnpackArchive(const std::string& archive, const std::string& dest_dir,
                                   const VerifyOptions& options);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_UNPACK_H_
