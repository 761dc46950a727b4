#include "loader/host/compile_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "artifact/digest.h"

namespace mlf {
namespace {

void AddField(Sha256& hash, const std::string& field) {
  hash.Update(field);
  hash.Update(std::string_view("\0", 1));
}

Status CreatePrivateDirectory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("cannot create cache directory " + dir + ": " + ec.message());
  chmod(dir.c_str(), 0700);
  return Status::Ok();
}

}  // namespace

std::string DefaultCacheDir() {
  if (const char* dir = std::getenv("MLF_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/mlfkit";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/mlfkit";
  return "/tmp/mlfkit-cache-" + std::to_string(getuid());
}

Result<std::string> HostLibraryCacheKey(const std::vector<StagedFile>& files,
                                        const std::vector<std::string>& sources,
                                        const HostBuildConfig& config) {
  const std::string compiler = ResolveCompiler(config);
  MLF_ASSIGN_OR_RETURN(std::string identity, CompilerIdentity(compiler));
  Sha256 hash;
  AddField(hash, "mlfkit host library v1");
  AddField(hash, compiler);
  AddField(hash, identity);
  for (const std::string& f : config.flags) AddField(hash, "flag " + f);
  for (const std::string& i : config.include_dirs) AddField(hash, "include " + i);
  for (const std::string& d : config.defines) AddField(hash, "define " + d);
  for (const std::string& l : config.link_flags) AddField(hash, "link " + l);
  for (const StagedFile& f : files) AddField(hash, "file " + f.path + " " + Sha256Hex(f.content));
  for (const std::string& s : sources) AddField(hash, "source " + s);
  return hash.FinishHex();
}

Result<std::string> CachedHostLibrary(const std::string& cache_dir,
                                      const std::vector<StagedFile>& files,
                                      const std::vector<std::string>& sources,
                                      const HostBuildConfig& config) {
  MLF_ASSIGN_OR_RETURN(std::string key, HostLibraryCacheKey(files, sources, config));
  const std::string dir = cache_dir + "/host-libs";
  const std::string path = dir + "/" + key + ".so";
  if (access(path.c_str(), R_OK) == 0) return path;
  MLF_RETURN_IF_ERROR(CreatePrivateDirectory(cache_dir));
  MLF_RETURN_IF_ERROR(CreatePrivateDirectory(dir));
  MLF_RETURN_IF_ERROR(BuildHostLibrary(files, sources, path, config));
  return path;
}

}  // namespace mlf
