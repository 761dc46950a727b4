// Safe extraction of an untrusted archive into a directory.
//
// Built on ArchiveReader, so every member is checked first (no absolute
// paths, '..', links, devices, duplicates; bounded sizes, counts and
// compression ratio). On top of that, extraction never writes outside
// `dest_dir`: directories are resolved one component at a time from a
// descriptor of the extraction root with openat/mkdirat and O_NOFOLLOW, so
// a symlink already present inside the destination cannot redirect a write;
// such a path is refused. Files are written with mode 0644 (directories
// 0755) through AtomicFile (temporary file + rename), so a member is never
// seen half-written.
//
// Atomicity of the whole archive:
//  - `dest_dir` missing or empty (the normal case): members are extracted
//    into a staging directory `.<dest>.extract.XXXXXX` next to `dest_dir`,
//    synced, and renamed to `dest_dir` at the end. On any error the staging
//    directory is removed and `dest_dir` is left as it was: all or nothing.
//    Missing parent directories of `dest_dir` are created (mode 0755).
//  - `dest_dir` exists and is not empty: refused, unless options.overwrite.
//    With overwrite, members are written into `dest_dir` in place, each one
//    atomically and durably (existing files of the same name are replaced,
//    a symlink in their place is replaced, not followed); on error the
//    members completed so far remain and the one being written is not left
//    behind.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_SAFE_EXTRACT_H_
#define MLFKIT_ARTIFACT_ARCHIVE_SAFE_EXTRACT_H_

#include <memory>
#include <string>

#include "artifact/archive/archive_reader.h"
#include "artifact/base/status.h"

namespace mlf {

struct ExtractOptions {
  // Extract into an existing non-empty directory (member by member, see above).
  bool overwrite = false;
};

// Where extracted files go, with the rules above. Callers that read the
// archive themselves (e.g. to verify it in the same pass) drive it directly:
// BeginFile / Write / EndFile per member, then Commit() once everything has
// passed. Destroying it without Commit() removes a staged tree entirely.
// Member names must already be safe (ArchiveReader guarantees that).
class ExtractionTarget {
 public:
  static Result<std::unique_ptr<ExtractionTarget>> Open(const std::string& dest_dir,
                                                        const ExtractOptions& options = {});
  ~ExtractionTarget();
  ExtractionTarget(const ExtractionTarget&) = delete;
  ExtractionTarget& operator=(const ExtractionTarget&) = delete;

  Status BeginFile(const std::string& name);
  Status Write(const void* data, size_t size);
  Status EndFile();
  // Staged: sync, then rename the tree into place. In place: nothing left to do.
  Status Commit();

 private:
  ExtractionTarget();
  Status OpenStaged(const std::string& dest);
  struct State;
  std::unique_ptr<State> state_;
};

Status ExtractArchive(const std::string& archive, const std::string& dest_dir,
                      const ReaderLimits& limits = {}, const ExtractOptions& options = {});

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_SAFE_EXTRACT_H_
