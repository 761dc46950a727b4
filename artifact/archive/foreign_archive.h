// The seam through which archives of a Model Library Format other than
// version 8 reach the readers of this layer (verify, read_metadata).
//
// Such a format (today Apache TVM's metadata versions 5–7, implemented by the
// TVM wing: tvm_wing::ArchiveFormat() in tvm/tvm.h) lays its archives
// out differently and records less: metadata.json anywhere, no sizes, digests
// or signature. Its implementation reads the whole archive once into the one
// metadata model (artifact/format/metadata.h), computing what the archive
// does not record, and reports what verify must refuse.
//
// Callers pass an implementation explicitly (VerifyOptions::foreign_format,
// ReadArchiveHead's `foreign`); null means "version 8 only": an archive of
// a foreign version is then refused as today (verify.h says how).
#ifndef MLFKIT_ARTIFACT_ARCHIVE_FOREIGN_ARCHIVE_H_
#define MLFKIT_ARTIFACT_ARCHIVE_FOREIGN_ARCHIVE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf {

// What a foreign archive's reader found beyond the metadata model.
// What `mlf inspect` and `mlf verify` say of one module of a foreign archive
// on this machine, as the format's wing decides it (tvm/tvm.h HostChecks).
struct ForeignModuleCheck {
  Status host;  // what `mlf run` checks before compiling: Ok, or why not
  // Headers of vendor libraries its code includes that nothing here
  // provides, sorted ("needs vendor library: esp_kernel.h").
  std::vector<std::string> vendor_headers;
  std::string runs;  // "host", "firmware only (...)" or "nowhere here"
};

struct ForeignArchiveReport {
  // What `mlf verify` refuses: a referenced file missing, a corrupt
  // parameter file, sizes that contradict each other. Each names the module
  // and the member.
  std::vector<Status> problems;
  // Members no module uses (e.g. appended later by another tool); reported,
  // not refused.
  std::vector<std::string> unreferenced;
};

// One whole read of a foreign archive.
struct ForeignArchiveScan {
  Metadata metadata;  // normalised and completed; `files` holds computed digests
  std::string metadata_bytes;
  std::string metadata_sha256;
  Compression compression = Compression::kNone;
  uint64_t member_count = 0;  // regular-file members, metadata.json included
  uint64_t data_bytes = 0;
  ForeignArchiveReport report;
};

class ForeignArchiveFormat {
 public:
  virtual ~ForeignArchiveFormat() = default;

  // The format's name in messages ("TVM").
  virtual std::string name() const = 0;

  // Whether metadata.json of `version` belongs to this format.
  virtual bool ClaimsVersion(int64_t version) const = 0;

  // Reads `source` whole, from its start (twice when it must). nullopt when it is not an archive of this format
  // (the caller then reports its own error); once the format's metadata.json
  // was found, reader and metadata errors are returned as they are.
  // `progress` sees the data bytes read so far. Thread-safe: implementations
  // keep no state between calls.
  virtual Result<std::optional<ForeignArchiveScan>> Scan(
      const ArchiveSource& source, const ReaderLimits& limits,
      const std::function<void(uint64_t done)>& progress) const = 0;
};

// "problem 1; problem 2" as one Status with the first problem's code, or Ok.
Status JoinForeignProblems(const std::vector<Status>& problems);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_FOREIGN_ARCHIVE_H_
