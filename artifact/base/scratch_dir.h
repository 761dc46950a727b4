// ScratchDir: a private temporary directory (mode 0700) that is removed with
// everything in it when the ScratchDir goes away, and that a killed process
// does not leave behind for long.
//
// SIGKILL runs no destructor, so the owner also holds an exclusive flock(2)
// on the directory for as long as it lives; the kernel drops the lock when
// the process dies, however it dies. Create() first removes the directories
// `<prefix>XXXXXX` in the same parent that such a process left: ours (same
// user), not locked, and unchanged for kStaleAfterSeconds (which covers the
// moment between a live creator's mkdtemp and its flock).
//
//   MLF_ASSIGN_OR_RETURN(ScratchDir dir, ScratchDir::CreateInTemp("mlf-build-"));
//   ... write dir.path() + "/lib.c" ...
//   // removed at the end of the scope
//
// Used for every temporary directory mlfkit makes: host builds and exports
// in $TMPDIR, and staging directories next to a destination (extraction,
// `mlf project`, `mlf sign`'s spool), which Release() once renamed into place.
#ifndef MLFKIT_ARTIFACT_BASE_SCRATCH_DIR_H_
#define MLFKIT_ARTIFACT_BASE_SCRATCH_DIR_H_

#include <string>

#include "artifact/base/status.h"

namespace mlf {

class ScratchDir {
 public:
  // How long an unlocked scratch directory must be unchanged before another
  // process removes it.
  static constexpr int kStaleAfterSeconds = 60;

  // A new directory <parent>/<prefix>XXXXXX. `prefix` must not contain '/'.
  static Result<ScratchDir> Create(const std::string& parent, const std::string& prefix);
  // The same in TempDirectory().
  static Result<ScratchDir> CreateInTemp(const std::string& prefix);

  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  // Removes the directory and everything in it, unless released.
  ~ScratchDir();

  const std::string& path() const { return path_; }
  // The open directory (O_RDONLY | O_DIRECTORY), which holds the lock.
  int fd() const { return fd_; }

  // Keeps the directory (the caller renamed it into place) and drops the lock.
  void Release();

 private:
  ScratchDir(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  void Reset();

  std::string path_;
  int fd_ = -1;
};

// Removes the directories <parent>/<prefix>XXXXXX (six characters, as
// mkdtemp makes them) that belong to this user, that no process holds locked
// and whose status changed at least `min_age_seconds` ago. Never follows a
// symlink; leaves files and anything else alone. Returns how many it removed.
int RemoveStaleScratchDirs(const std::string& parent, const std::string& prefix,
                           int min_age_seconds = ScratchDir::kStaleAfterSeconds);

// The system's temporary directory: std::filesystem::temp_directory_path()
// ($TMPDIR, else /tmp).
std::string TempDirectory();

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_SCRATCH_DIR_H_
