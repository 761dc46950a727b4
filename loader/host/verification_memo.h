// A per-user memo of archives that were fully verified, so that opening the
// same unchanged file again need not rehash its parameter blobs (a 100 MiB
// blob costs ~50 ms to hash; the rest of Open() takes ~1 ms).
//
// What the memo may skip: the digests of parameter blobs only
// (artifact/archive/verify.h, VerifyOptions::trusted_metadata_sha256). Host
// libraries, sources and every other member are hashed on every open, the
// libraries while they are copied into the sealed memfd that is loaded
// (shared_object.h); structure, metadata and the signature are checked on
// every open too. So the memo can never get unverified code loaded.
//
// An entry is keyed by the file's identity — device, inode, size, and the
// modification and status-change times in nanoseconds — and records the
// SHA-256 of the metadata.json that was verified. The identity is taken
// before the archive is read (Identify) and the entry is recorded only if
// the identity is the same after the full verification (Record), so a file
// changed while it was being hashed is not memoised. Timestamps have a
// granularity (a clock tick before Linux 6.13, or coarser on some file
// systems): a second write within the same tick as the first can leave the
// status-change time unchanged. The identity is therefore also "settled"
// only when the file's status-change time is at least kSettleSeconds older
// than the clock read before the fstat; entries are recorded for settled
// identities only, so any later write gives a later status-change time.
//
// What the memo does not see: writes through a shared mapping to a page that
// is already dirty change neither timestamp. A writer with write access to
// the archive can therefore change parameter bytes without the memo
// noticing — but such a writer can change mapped parameters under a running
// model anyway, whatever was verified. Code cannot be changed that way.
//
// The memo lives in the private cache directory (compile_cache.h), in
// "verified/", reached through the checked directory descriptor.
#ifndef MLFKIT_LOADER_HOST_VERIFICATION_MEMO_H_
#define MLFKIT_LOADER_HOST_VERIFICATION_MEMO_H_

#include <optional>
#include <string>

#include "artifact/base/status.h"
#include "loader/host/compile_cache.h"

namespace mlf {

// An open file's identity, taken at one moment.
struct FileIdentity {
  std::string key;       // device, inode, size, mtime, ctime
  bool settled = false;  // see above: only settled identities are recorded
};

class VerificationMemo {
 public:
  static constexpr int kSettleSeconds = 1;

  // The memo in `cache` (not owned; must outlive the memo).
  explicit VerificationMemo(const PrivateCacheDir& cache) : cache_(cache) {}

  // The identity of the open regular file `fd`; nullopt for anything else.
  static std::optional<FileIdentity> Identify(int fd);

  // The SHA-256 of metadata.json recorded for this identity, if any.
  std::optional<std::string> Lookup(const FileIdentity& identity) const;

  // Records that the file `fd`, whose identity was `before` when its
  // verification began, passed full verification with this metadata — only
  // if `before` is settled and `fd` still has that identity. Failures are
  // ignored: the memo is only an accelerator. Returns whether it recorded.
  bool Record(const FileIdentity& before, int fd, const std::string& metadata_sha256) const;

 private:
  const PrivateCacheDir& cache_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_VERIFICATION_MEMO_H_
