// A per-user memo of archives that were fully verified, so that opening the
// same unchanged file again need not rehash every member (a 100 MiB parameter
// blob costs ~50 ms to hash; the rest of Open() takes ~1 ms).
//
// An entry is keyed by the file's identity — device, inode, size, and the
// modification and status-change times in nanoseconds — and records the
// SHA-256 of the metadata.json that was verified. A hit requires all of them
// to match; any write to the file changes its ctime, which no unprivileged
// process can set back, so a modified or replaced archive always misses and
// is verified in full. The memo lives in the user's private cache directory
// (mode 0700) next to the compiled libraries, which it trusts equally.
// Signatures and metadata are still checked on every open (cheap).
//
// Not covered (and not claimed): a writer with write access to the archive
// file while it is in use; mmapped parameters would change under a running
// model in that case whatever was verified.
#ifndef MLFKIT_LOADER_HOST_VERIFICATION_MEMO_H_
#define MLFKIT_LOADER_HOST_VERIFICATION_MEMO_H_

#include <optional>
#include <string>

#include "artifact/status.h"

namespace mlf {

class VerificationMemo {
 public:
  explicit VerificationMemo(std::string cache_dir) : dir_(std::move(cache_dir) + "/verified") {}

  // The SHA-256 of metadata.json recorded for the open file `fd`, if any.
  std::optional<std::string> Lookup(int fd) const;

  // Records that the open file `fd` passed full verification with this
  // metadata. Failures are ignored: the memo is only an accelerator.
  void Record(int fd, const std::string& metadata_sha256) const;

 private:
  std::string dir_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_VERIFICATION_MEMO_H_
