// Verification of a Model Library Format archive in one streaming pass.
//
// What VerifyArchive proves, in this order, stopping at the first failure:
//   1. the file is a safe tar archive within the reader's bounds
//      (artifact/archive/archive_reader.h: no traversal, links, devices, bombs ...);
//   2. the first member is metadata.json and it passes ParseMetadata
//      (JSON bounds, the mlfkit schema, semantic rules);
//   3. the signature policy (below), before any other member is read;
//   4. every other member is listed in metadata.json "files" with the same
//      size and SHA-256, and every listed member is present.
// Because "files" is inside metadata.json, a valid signature over
// metadata.json's exact bytes covers every member.
//
// Signature policy:
//   - public_key_pem set: the archive must carry metadata.json.sig (directly
//     after metadata.json) and it must verify against that key;
//   - require_signature without a key: the signature must be present and well
//     formed; its key fingerprint is reported but nothing is proven about who
//     signed (the report says signature_checked = false);
//   - neither: a signature, if present, is parsed and its fingerprint reported.
//
// A MemberConsumer sees every member's bytes as they stream by, so callers
// that also need the content (unpack, loaders) read the archive once.
//
// Archives of a foreign format (artifact/archive/foreign_archive.h; today
// TVM's, metadata versions 5–7, read by the TVM wing), when the caller passes
// the format as foreign_format; otherwise they are refused (kUnimplemented)
// so that callers that only understand version 8 never see TVM's model. TVM
// archives have no digests and no signatures, so what can be proven is less:
//   1. the same structure and safety checks (metadata.json may be anywhere,
//      members may be named "./x", directory members are skipped);
//   2. metadata.json against its own version's schema;
//   3. no signature can be required: a key or require_signature is refused
//      (kUnauthenticated);
//   4. every file that metadata, the interface header and the sources
//      reference is present (sources, #included headers, the graph
//      executor's graph JSON and .params), .params files parse, and sizes
//      that metadata, the Relay text and the header give agree — each
//      problem names the module and member (report.foreign has the list);
//   5. a second pass sees exactly the members and bytes the first pass
//      analysed (their SHA-256, computed by the first pass, become
//      metadata.files; they prove nothing about where the archive came from).
// The consumer sees metadata.json at its place among the other members,
// after OnMetadata.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_VERIFY_H_
#define MLFKIT_ARTIFACT_ARCHIVE_VERIFY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/base/status.h"
#include "artifact/archive/foreign_archive.h"
#include "artifact/format/metadata.h"

namespace mlf {

struct VerifyOptions {
  std::optional<std::string> public_key_pem;
  bool require_signature = false;
  ReaderLimits limits;
  // When set and equal to the SHA-256 of metadata.json, the digests of
  // parameter blobs (members under parameters/ that a module's "parameters"
  // names with storage "file", and no module's host library) are not
  // recomputed: a caller's memo vouches that this
  // file was fully verified before (loader/host/verification_memo.h). Every
  // other member — host libraries, sources, anything that can become code —
  // is hashed on every pass, and everything else (structure, metadata,
  // signature policy, member sizes, nothing missing or extra) is checked.
  std::optional<std::string> trusted_metadata_sha256;
  // Bytes of member data checked so far, and the archive file's size (an
  // estimate of the total for compressed archives).
  std::function<void(uint64_t done, uint64_t total)> progress;
  // The foreign format (e.g. TVM's, tvm_wing::ArchiveFormat() of tvm/tvm.h) whose
  // archives this caller reads into the normalised model; callers that handle
  // ModuleMetadata::tvm set it. Null: an archive of a foreign version is
  // kUnimplemented.
  const ForeignArchiveFormat* foreign_format = nullptr;
};

struct VerifyReport {
  Metadata metadata;
  std::string metadata_bytes;  // metadata.json exactly as stored
  Compression compression = Compression::kNone;
  bool is_signed = false;
  bool signature_checked = false;  // verified against options.public_key_pem
  std::string signer_key_sha256;   // fingerprint named in the signature
  uint64_t member_count = 0;       // metadata.json and its signature included
  uint64_t data_bytes = 0;         // sum of member sizes
  bool digests_checked = true;     // false: trusted_metadata_sha256 spared parameter blobs
  std::string metadata_sha256;     // of metadata.json's bytes
  // Set for foreign (TVM) archives: what else the reader found (problems are
  // empty when verification succeeded; unreferenced members are listed).
  std::optional<ForeignArchiveReport> foreign;
};

// Receives each member (metadata.json and metadata.json.sig included) while
// it is verified. Data arrives in order; End() is called only after the
// member's size and digest have been checked.
class MemberConsumer {
 public:
  virtual ~MemberConsumer() = default;
  // Called once metadata.json is valid and the signature policy is met,
  // before any other member is read.
  virtual Status OnMetadata(const Metadata& metadata) { return Status::Ok(); }
  virtual Status Begin(const EntryInfo& entry) = 0;
  // Whether Data() should receive this member's bytes. Verification reads
  // them anyway unless digests are trusted, so this only saves reading then.
  virtual bool WantsData(const EntryInfo& entry) { return true; }
  virtual Status Data(const void* data, size_t size) = 0;
  virtual Status End() = 0;
};

// Verifies the archive in `source` (read from its start; twice for a TVM
// archive). Messages name it by source.name().
Result<VerifyReport> VerifyArchive(const ArchiveSource& source, const VerifyOptions& options,
                                   MemberConsumer* consumer = nullptr);
// The same for the file at `path` (ArchiveSource::OpenFile).
Result<VerifyReport> VerifyArchive(const std::string& path, const VerifyOptions& options,
                                   MemberConsumer* consumer = nullptr);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_VERIFY_H_
