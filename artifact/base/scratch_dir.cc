#include "artifact/base/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace mlf {
namespace {

constexpr size_t kRandomChars = 6;  // mkdtemp's XXXXXX

bool LooksLikeScratchName(const std::string& name, const std::string& prefix) {
  return name.size() == prefix.size() + kRandomChars && name.compare(0, prefix.size(), prefix) == 0;
}

// Opens <parent>/<name> if it is a directory of ours that nobody holds
// locked, and locks it; -1 otherwise.
int LockAbandoned(int parent_fd, const std::string& name, int min_age_seconds) {
  const int fd = openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  const time_t now = time(nullptr);
  const bool candidate = fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
                         now - st.st_mtime >= min_age_seconds &&
                         now - st.st_ctime >= min_age_seconds;
  if (!candidate || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  // Still the same directory under that name (another sweeper may have
  // removed it between our open and our lock)?
  struct stat now_st;
  if (fstatat(parent_fd, name.c_str(), &now_st, AT_SYMLINK_NOFOLLOW) != 0 ||
      now_st.st_ino != st.st_ino || now_st.st_dev != st.st_dev) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

std::string TempDirectory() {
  std::error_code error;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(error);
  return error ? std::string("/tmp") : dir.string();
}

int RemoveStaleScratchDirs(const std::string& parent, const std::string& prefix,
                           int min_age_seconds) {
  const int parent_fd = open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0) return 0;
  DIR* dir = fdopendir(fcntl(parent_fd, F_DUPFD_CLOEXEC, 0));
  int removed = 0;
  while (dirent* entry = dir == nullptr ? nullptr : readdir(dir)) {
    const std::string name = entry->d_name;
    if (!LooksLikeScratchName(name, prefix)) continue;
    const int fd = LockAbandoned(parent_fd, name, min_age_seconds);
    if (fd < 0) continue;
    std::error_code ignored;  // what cannot be removed now is tried again next time
    if (std::filesystem::remove_all(parent + "/" + name, ignored) > 0 && !ignored) ++removed;
    close(fd);
  }
  if (dir != nullptr) closedir(dir);
  close(parent_fd);
  return removed;
}

Result<ScratchDir> ScratchDir::Create(const std::string& parent, const std::string& prefix) {
  if (prefix.find('/') != std::string::npos) {
    return InvalidArgument("scratch directory prefix '" + prefix + "' contains '/'");
  }
  RemoveStaleScratchDirs(parent, prefix);
  const std::string pattern = parent + "/" + prefix + "XXXXXX";
  std::string path = pattern;  // mkdtemp fills in the X's, even when it fails
  if (mkdtemp(path.data()) == nullptr) return ErrnoError("cannot create " + pattern);
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_EX) != 0) {
    Status s = ErrnoError("cannot lock " + path);
    if (fd >= 0) close(fd);
    rmdir(path.c_str());
    return s;
  }
  return ScratchDir(std::move(path), fd);
}

Result<ScratchDir> ScratchDir::CreateInTemp(const std::string& prefix) {
  return Create(TempDirectory(), prefix);
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
  other.path_.clear();
  other.fd_ = -1;
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    Reset();
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.path_.clear();
    other.fd_ = -1;
  }
  return *this;
}

ScratchDir::~ScratchDir() { Reset(); }

void ScratchDir::Reset() {
  if (!path_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  Release();
}

void ScratchDir::Release() {
  if (fd_ >= 0) close(fd_);  // drops the lock
  fd_ = -1;
  path_.clear();
}

}  // namespace mlf
