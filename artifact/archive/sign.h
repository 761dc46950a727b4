// Signing an archive: adds (or replaces) metadata.json.sig.
//
// The archive is verified first (structure, metadata, every digest); an
// archive that does not verify is not signed. The signature covers the exact
// bytes of metadata.json, which stay unchanged, and through its "files" every
// member. The result keeps the input's member order and compression and is
// written atomically (in place when `out` is the file `in`; the archive then
// keeps its owner, group and permission bits: a 0600 archive stays 0600).
// A new `out` gets mode 0644.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_SIGN_H_
#define MLFKIT_ARTIFACT_ARCHIVE_SIGN_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/archive/verify.h"
#include "artifact/base/status.h"

namespace mlf {

struct SignOptions {
  int64_t mtime = 0;  // SOURCE_DATE_EPOCH when set
  ReaderLimits limits;
};

// Returns the verification report of the input, with the signer fields
// describing the new signature (is_signed, signer_key_sha256).
// `in` is read twice (verified, then copied): it must be rereadable. When it
// is a file and `out` names that file, it is signed in place.
Result<VerifyReport> SignArchive(const ArchiveSource& in, std::string_view private_key_pem,
                                 const std::string& out, const SignOptions& options);
// The same for the file at `in` (ArchiveSource::OpenFile).
Result<VerifyReport> SignArchive(const std::string& in, std::string_view private_key_pem,
                                 const std::string& out, const SignOptions& options);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_SIGN_H_
