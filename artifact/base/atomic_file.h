// AtomicFile: write a file so that readers see either the old content or the
// complete new content, never a partial file.
//
// Data goes to a temporary file in the destination's own directory, so that
// the final rename(2) stays on one file system and is atomic. Where the file
// system supports it (O_TMPFILE: ext4, xfs, btrfs, tmpfs) and /proc is
// mounted, the file has no name while it is written; Commit() fsyncs it,
// links it as `.<name>.tmp.XXXXXX` (never following symlinks, never over an
// existing name), renames that over the destination and fsyncs the directory.
// Elsewhere the file is created under that name from the start (O_EXCL).
// After Commit() returns the new content survives a crash. Destroying an
// AtomicFile without a successful Commit() removes the temporary file and
// leaves any existing destination untouched.
//
// If the process is killed, the destination is still intact. An unnamed
// temporary file vanishes with the process; only a kill in the instant
// between the link and the rename leaves a (complete) `.<name>.tmp.*` file
// behind. A named one (no O_TMPFILE) stays wherever the kill lands.
//
//   MLF_ASSIGN_OR_RETURN(auto f, AtomicFile::Create("out/model.tar"));
//   MLF_RETURN_IF_ERROR(f->Write(bytes.data(), bytes.size()));
//   MLF_RETURN_IF_ERROR(f->Commit());
//
// The file is opened O_RDWR, so callers may also pwrite(2) / copy_file_range(2)
// on fd() at explicit offsets (Write() appends at the file position).
#ifndef MLFKIT_ARTIFACT_BASE_ATOMIC_FILE_H_
#define MLFKIT_ARTIFACT_BASE_ATOMIC_FILE_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

// The owner, group and permission bits of a file that an in-place rewrite
// keeps (AtomicFile::KeepOwnerAndMode).
struct FileOwnership {
  uid_t uid = 0;
  gid_t gid = 0;
  mode_t mode = 0644;  // permission bits (0777)
};

// The ownership of the file at `path` (symbolic links followed).
Result<FileOwnership> OwnershipOf(const std::string& path);

class AtomicFile {
 public:
  // Starts writing `dest` (a path; its directory must exist). The final file
  // gets exactly `mode` (the umask is not applied: archives and extracted
  // members must not depend on the caller's environment).
  static Result<std::unique_ptr<AtomicFile>> Create(const std::string& dest, mode_t mode = 0644);

  // Same, for the entry `name` (a single path component, no '/') inside the
  // open directory `dir_fd`. The directory fd is duplicated, so the caller may
  // close its own. Used by safe extraction, which resolves directories itself.
  // `unnamed_temp` false: always the named temporary file (for tests; file
  // systems without O_TMPFILE get it anyway).
  static Result<std::unique_ptr<AtomicFile>> CreateAt(int dir_fd, const std::string& name,
                                                      mode_t mode = 0644,
                                                      bool unnamed_temp = true);

  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // The temporary file's descriptor (valid until Commit() or destruction).
  int fd() const { return fd_; }
  // Name of the temporary file inside the destination's directory; empty
  // while it has none (O_TMPFILE, before Commit()).
  const std::string& temp_name() const { return temp_name_; }
  // Display name of the destination, used in error messages.
  const std::string& dest() const { return display_; }

  // For a rewrite in place: the new file gets `original`'s owner, group and
  // permission bits instead of the mode given to Create(), so that a 0600
  // file stays 0600 and keeps its owner. Where the owner or group cannot be
  // set (not root; not a member of the group), the file keeps ours and loses
  // the group's permission bits rather than granting them to our group.
  // setuid, setgid and sticky bits are never copied.
  Status KeepOwnerAndMode(const FileOwnership& original);

  // Appends all of `data` at the current file position (retries short writes).
  Status Write(const void* data, size_t size);
  Status Write(std::string_view data) { return Write(data.data(), data.size()); }

  // fsync the file, rename it over the destination, fsync the directory.
  // On failure the temporary file is removed and the destination is untouched.
  // May be called once. `durable = false` skips both fsyncs (still atomic for
  // readers, not crash-safe): for callers that sync a whole tree at once, such
  // as extraction into a staging directory.
  Status Commit(bool durable = true);

  // Removes the temporary file now (also done by the destructor).
  void Abort();

 private:
  AtomicFile(int dir_fd, int fd, std::string name, std::string temp_name, std::string display)
      : dir_fd_(dir_fd),
        fd_(fd),
        name_(std::move(name)),
        temp_name_(std::move(temp_name)),
        display_(std::move(display)) {}

  // Links the unnamed temporary file as `.<name>.tmp.XXXXXX` (Commit()).
  Status NameTempFile();

  int dir_fd_;
  int fd_;
  std::string name_;
  std::string temp_name_;
  std::string display_;
  bool done_ = false;
};

// Writes `data` to `path` atomically (see AtomicFile) with file mode `mode`.
Status WriteFileAtomically(const std::string& path, std::string_view data, mode_t mode = 0644);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_ATOMIC_FILE_H_
