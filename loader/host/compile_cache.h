// The per-user cache of host libraries compiled from archive sources, and
// the private directory it lives in.
//
// Where: $MLF_CACHE_DIR, else $XDG_CACHE_HOME/mlfkit, else
// $HOME/.cache/mlfkit. With none of them set (services, `env -i`) there is
// no cache: sources are compiled in a private temporary directory (mkdtemp,
// mode 0700) for each load and nothing is kept. There is no predictable
// fallback such as /tmp/mlfkit-cache-<uid>, which another user could create
// first.
//
// The directory is private: it is created with mode 0700 when missing, and
// opened with O_NOFOLLOW | O_DIRECTORY and checked with fstat — a directory
// that is not owned by the effective user, or that grants the group or others
// any access, is refused with an error that names it and the variable to set
// (its subdirectories likewise). Everything in it is then reached through the
// open descriptor, never again by name.
//
// An archive that ships no library for this host is compiled once; the
// result is stored under a key that hashes everything the build depends on
// (compiler identity, flags, every staged file's path and content), so a
// change to any of them builds anew and identical inputs reuse the library,
// whichever archive they came from. An entry, host-libs/<key>.lib, records
// the library's SHA-256 (taken when it was inserted) before its bytes; it is
// written to a new file (O_EXCL) and renamed into place, so concurrent
// loaders never see a partial entry. A cached library is hashed as it is
// copied into a sealed memfd (shared_object.h) and used only when the digest
// is the recorded one; otherwise it is compiled again and replaced.
#ifndef MLFKIT_LOADER_HOST_COMPILE_CACHE_H_
#define MLFKIT_LOADER_HOST_COMPILE_CACHE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/toolchain/host_build.h"
#include "loader/host/shared_object.h"

namespace mlf {

// A cache directory and where its name came from: "MLF_CACHE_DIR",
// "XDG_CACHE_HOME", "HOME", or "" when a program passed it (LoadOptions).
struct CacheLocation {
  std::string path;
  std::string variable;
};

// The default location (see above); nullopt when no variable names one.
std::optional<CacheLocation> DefaultCacheLocation();

// An open, checked private directory (see above).
class PrivateCacheDir {
 public:
  // Opens `location`, creating it (mode 0700; missing parents with the
  // umask's modes) when `create`. Ok(nullopt): it does not exist and
  // `create` is false. kPermissionDenied when it is not private.
  static Result<std::optional<PrivateCacheDir>> Open(const CacheLocation& location, bool create);
  ~PrivateCacheDir();
  PrivateCacheDir(PrivateCacheDir&& other) noexcept;
  PrivateCacheDir& operator=(PrivateCacheDir&& other) noexcept;
  PrivateCacheDir(const PrivateCacheDir&) = delete;
  PrivateCacheDir& operator=(const PrivateCacheDir&) = delete;

  // Its subdirectory `name`, opened and checked the same way (a descriptor
  // the caller closes); -1 in an Ok result when missing and not `create`.
  Result<int> OpenSubdirectory(const std::string& name, bool create) const;

  const std::string& path() const { return location_.path; }
  int fd() const { return fd_; }

 private:
  PrivateCacheDir(CacheLocation location, int fd) : location_(std::move(location)), fd_(fd) {}
  CacheLocation location_;
  int fd_ = -1;
};

// The cache key of a build (64 hex digits).
Result<std::string> HostLibraryCacheKey(const std::vector<StagedFile>& files,
                                        const std::vector<std::string>& sources,
                                        const HostBuildConfig& config);

// The name of a build's entry under host-libs/: "<key>.lib".
std::string HostLibraryEntryName(const std::string& key);

// An entry's bytes: a header recording the library's SHA-256, then the library.
std::string EncodeHostLibraryEntry(const std::string& library);

struct HostLibrary {
  std::unique_ptr<CodeImage> image;  // sealed, ready for SharedObject::Load
  bool from_cache = false;           // false: compiled now
};

// The library built from `files` and `sources`: from `cache` when it holds an
// entry whose bytes have the recorded digest, otherwise compiled now (and
// inserted into `cache`, when there is one).
Result<HostLibrary> CachedHostLibrary(const PrivateCacheDir* cache,
                                      const std::vector<StagedFile>& files,
                                      const std::vector<std::string>& sources,
                                      const HostBuildConfig& config);

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_COMPILE_CACHE_H_
