#include "loader/host/compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "artifact/base/digest.h"
#include "artifact/base/scratch_dir.h"

namespace mlf {
namespace {

constexpr char kEntryHeader[] = "mlfkit-host-library-v1\n";
constexpr size_t kEntryHeaderBytes = sizeof(kEntryHeader) - 1 + 64 + 1;  // header, digest, \n
constexpr uint64_t kMaxLibraryBytes = uint64_t{1} << 30;

void AddField(Sha256& hash, const std::string& field) {
  hash.Update(field);
  hash.Update(std::string_view("\0", 1));
}

std::string Octal(mode_t mode) {
  char text[8];
  snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// What the user can do about a refused directory, by where its name came from.
std::string Remedy(const std::string& variable) {
  if (variable == "MLF_CACHE_DIR") return "set MLF_CACHE_DIR to a directory of your own with mode 0700";
  if (variable.empty()) return "pass a cache directory of your own with mode 0700";
  return "set XDG_CACHE_HOME or HOME to a directory of your own, or MLF_CACHE_DIR to one with "
         "mode 0700";
}

// Opens `name` under `parent_fd` (or the absolute `path` when parent_fd is
// AT_FDCWD) without following a final symbolic link, and checks the result
// is a directory owned by the effective user with no group or other access.
// -1 when it does not exist.
Result<int> OpenPrivateDirectory(int parent_fd, const std::string& name, const std::string& path,
                                 const std::string& variable) {
  const int fd = openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return -1;
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
    return PermissionDenied("cache directory '" + path +
                            "' is a symbolic link or not a directory; not using it: " +
                            Remedy(variable));
  }
  if (fd < 0) return ErrnoError("cannot open cache directory '" + path + "'");
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    Status s = ErrnoError("cannot stat cache directory '" + path + "'");
    close(fd);
    return s;
  }
  const uid_t me = geteuid();
  if (st.st_uid != me) {
    close(fd);
    return PermissionDenied("cache directory '" + path + "' is owned by uid " +
                            std::to_string(st.st_uid) + ", not by this user (uid " +
                            std::to_string(me) + "); not using it: " + Remedy(variable));
  }
  if ((st.st_mode & 077) != 0) {
    close(fd);
    return PermissionDenied("cache directory '" + path + "' is open to its group or others (mode " +
                            Octal(st.st_mode) + "); not using it: " + Remedy(variable));
  }
  return fd;
}

// A valid entry of `libs_fd`, loaded into a sealed image; nullptr when there
// is none, or it is not ours, or its bytes are not the recorded ones.
std::unique_ptr<CodeImage> ReadEntry(int libs_fd, const std::string& name) {
  const int fd = openat(libs_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  std::string bytes;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
      (st.st_mode & 022) == 0 && static_cast<uint64_t>(st.st_size) <= kMaxLibraryBytes) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    bytes.resize(got);
  }
  close(fd);
  if (bytes.size() < kEntryHeaderBytes || bytes.compare(0, sizeof(kEntryHeader) - 1, kEntryHeader) != 0 ||
      bytes[kEntryHeaderBytes - 1] != '\n') {
    return nullptr;
  }
  const std::string recorded = bytes.substr(sizeof(kEntryHeader) - 1, 64);
  Result<std::unique_ptr<CodeImage>> image = CodeImage::Create("cached " + name);
  if (!image.ok()) return nullptr;
  if (!(*image)->Append(bytes.data() + kEntryHeaderBytes, bytes.size() - kEntryHeaderBytes).ok() ||
      !(*image)->Seal(recorded, "cached host library").ok()) {
    return nullptr;
  }
  return std::move(*image);
}

// Puts an entry in place atomically; failures leave the cache as it was (it
// is only an accelerator).
void InsertEntry(int libs_fd, const std::string& name, const std::string& library) {
  static std::atomic<unsigned> counter{0};
  const std::string temp = "." + name + "." + std::to_string(getpid()) + "." +
                           std::to_string(counter.fetch_add(1)) + ".tmp";
  const int fd = openat(libs_fd, temp.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return;
  const std::string entry = EncodeHostLibraryEntry(library);
  size_t done = 0;
  while (done < entry.size()) {
    const ssize_t n = write(fd, entry.data() + done, entry.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool ok = done == entry.size() && close(fd) == 0;
  if (!ok || renameat(libs_fd, temp.c_str(), libs_fd, name.c_str()) != 0) {
    unlinkat(libs_fd, temp.c_str(), 0);
  }
}

Result<std::string> ReadBuiltLibrary(const ScratchDir& scratch) {
  const int fd = openat(scratch.fd(), "lib.so", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open the compiled library in " + scratch.path());
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = ErrnoError("cannot read the compiled library in " + scratch.path());
      close(fd);
      return s;
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return bytes;
}

}  // namespace

std::optional<CacheLocation> DefaultCacheLocation() {
  if (const char* dir = std::getenv("MLF_CACHE_DIR"); dir && *dir) {
    return CacheLocation{dir, "MLF_CACHE_DIR"};
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return CacheLocation{std::string(xdg) + "/mlfkit", "XDG_CACHE_HOME"};
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return CacheLocation{std::string(home) + "/.cache/mlfkit", "HOME"};
  }
  return std::nullopt;
}

Result<std::optional<PrivateCacheDir>> PrivateCacheDir::Open(const CacheLocation& location,
                                                             bool create) {
  if (location.path.empty()) return InvalidArgument("the cache directory name is empty");
  if (create) {
    const std::filesystem::path parent = std::filesystem::path(location.path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) return IoError("cannot create cache directory '" + location.path + "': " + ec.message());
    if (mkdir(location.path.c_str(), 0700) != 0 && errno != EEXIST) {
      return ErrnoError("cannot create cache directory '" + location.path + "'");
    }
  }
  MLF_ASSIGN_OR_RETURN(int fd,
                       OpenPrivateDirectory(AT_FDCWD, location.path, location.path, location.variable));
  if (fd < 0) return std::optional<PrivateCacheDir>();
  return std::optional<PrivateCacheDir>(PrivateCacheDir(location, fd));
}

PrivateCacheDir::~PrivateCacheDir() {
  if (fd_ >= 0) close(fd_);
}

PrivateCacheDir::PrivateCacheDir(PrivateCacheDir&& other) noexcept
    : location_(std::move(other.location_)), fd_(other.fd_) {
  other.fd_ = -1;
}

PrivateCacheDir& PrivateCacheDir::operator=(PrivateCacheDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    location_ = std::move(other.location_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Result<int> PrivateCacheDir::OpenSubdirectory(const std::string& name, bool create) const {
  const std::string path = location_.path + "/" + name;
  if (create && mkdirat(fd_, name.c_str(), 0700) != 0 && errno != EEXIST) {
    return ErrnoError("cannot create cache directory '" + path + "'");
  }
  return OpenPrivateDirectory(fd_, name, path, location_.variable);
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

std::string HostLibraryEntryName(const std::string& key) { return key + ".lib"; }

std::string EncodeHostLibraryEntry(const std::string& library) {
  return std::string(kEntryHeader) + Sha256Hex(library) + "\n" + library;
}

Result<HostLibrary> CachedHostLibrary(const PrivateCacheDir* cache,
                                      const std::vector<StagedFile>& files,
                                      const std::vector<std::string>& sources,
                                      const HostBuildConfig& config) {
  MLF_ASSIGN_OR_RETURN(std::string key, HostLibraryCacheKey(files, sources, config));
  const std::string name = HostLibraryEntryName(key);
  int libs = -1;
  if (cache != nullptr) {
    MLF_ASSIGN_OR_RETURN(libs, cache->OpenSubdirectory("host-libs", true));
  }
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) close(fd);
    }
  } closer{libs};
  HostLibrary library;
  if (libs >= 0 && (library.image = ReadEntry(libs, name)) != nullptr) {
    library.from_cache = true;
    return library;
  }
  MLF_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::CreateInTemp("mlf-lib-"));
  MLF_RETURN_IF_ERROR(BuildHostLibrary(files, sources, scratch.path() + "/lib.so", config));
  MLF_ASSIGN_OR_RETURN(std::string bytes, ReadBuiltLibrary(scratch));
  const std::string digest = Sha256Hex(bytes);
  if (libs >= 0) InsertEntry(libs, name, bytes);
  MLF_ASSIGN_OR_RETURN(library.image, CodeImage::Create("compiled " + name));
  MLF_RETURN_IF_ERROR(library.image->Append(bytes.data(), bytes.size()));
  MLF_RETURN_IF_ERROR(library.image->Seal(digest, "compiled host library"));
  return library;
}

}  // namespace mlf
