// A content-addressed cache of host libraries compiled from archive sources.
//
// An archive that ships no library for this host is compiled once; the
// result is stored under a key that hashes everything the build depends on
// (compiler identity, flags, every staged file's path and content), so a
// change to any of them builds anew and identical inputs reuse the library,
// whichever archive they came from. Entries are written atomically, so
// concurrent loaders never see a partial library.
#ifndef MLFKIT_LOADER_HOST_COMPILE_CACHE_H_
#define MLFKIT_LOADER_HOST_COMPILE_CACHE_H_

#include <string>
#include <vector>

#include "artifact/host_build.h"
#include "artifact/status.h"

namespace mlf {

// $MLF_CACHE_DIR, else $XDG_CACHE_HOME/mlfkit, else $HOME/.cache/mlfkit.
std::string DefaultCacheDir();

// The cache key of a build (64 hex digits).
Result<std::string> HostLibraryCacheKey(const std::vector<StagedFile>& files,
                                        const std::vector<std::string>& sources,
                                        const HostBuildConfig& config);

// The path of the library built from `files` and `sources`, building it into
// `cache_dir` (created with mode 0700) when it is not there yet.
Result<std::string> CachedHostLibrary(const std::string& cache_dir,
                                      const std::vector<StagedFile>& files,
                                      const std::vector<std::string>& sources,
                                      const HostBuildConfig& config);

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_COMPILE_CACHE_H_
