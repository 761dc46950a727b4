// Writing Model Library Format archives: from a Metadata model plus member
// files (what the compiler produces), or from a directory in MLF layout.
//
// The writer fills in metadata "files" (size and SHA-256 of every member),
// validates the final metadata.json exactly as a reader will (schema and
// semantic rules, every referenced member present), and writes the archive
// atomically and deterministically (artifact/archive/archive_writer.h): metadata.json
// first, then metadata.json.sig when given, then the members sorted by name;
// parameters/*.bin data 4096-byte aligned in uncompressed archives.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_PACK_H_
#define MLFKIT_ARTIFACT_ARCHIVE_PACK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "artifact/archive/archive_writer.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf {

struct PackOptions {
  Compression compression = Compression::kNone;
  int64_t mtime = 0;  // SOURCE_DATE_EPOCH when set
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// True for members whose data must be 4096-byte aligned (parameters/*.bin).
bool IsAlignedMember(const std::string& name);

// Returns the mtime for archives: SOURCE_DATE_EPOCH from the environment when
// set (refused with an error when it is not a non-negative integer), else 0.
Result<int64_t> ArchiveMtimeFromEnvironment();

// Writes `metadata` (its "files" replaced by the members' digests) and
// `members` (metadata.json and metadata.json.sig excluded) to `out`.
// Returns the metadata as written.
Result<Metadata> WriteMlfArchive(const std::string& out, Metadata metadata,
                                 std::vector<ArchiveMember> members,
                                 const PackOptions& options);

// Packs directory `dir` (metadata.json at its top; every other regular file
// becomes a member; a metadata.json.sig is kept as the signature member).
// Symbolic links and special files in `dir` are refused, naming the path.
Result<Metadata> PackDirectory(const std::string& dir, const std::string& out,
                               const PackOptions& options);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_PACK_H_
