#include "artifact/base/atomic_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace mlf {
namespace {

// A file name may be at most NAME_MAX (255) bytes; the temp name adds
// ".", ".tmp." and six random characters to the destination's name, so long
// names are shortened in the temp name only.
constexpr size_t kMaxNameInTemp = 200;

std::string RandomSuffix() {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char raw[6] = {};
  if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    // getrandom cannot fail for 6 bytes once the pool is initialised; fall
    // back to something still unlikely to collide (O_EXCL catches collisions).
    const unsigned long long v =
        static_cast<unsigned long long>(getpid()) * 2654435761u ^ reinterpret_cast<uintptr_t>(&raw);
    for (size_t i = 0; i < sizeof raw; ++i) raw[i] = static_cast<unsigned char>(v >> (8 * i));
  }
  std::string s;
  for (unsigned char c : raw) s += kChars[c % (sizeof kChars - 1)];
  return s;
}

std::string TempStem(const std::string& name) {
  return "." + name.substr(0, kMaxNameInTemp) + ".tmp.";
}

std::string ProcFdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// An unnamed file in `dir_fd` (O_TMPFILE) that linkat(2) can later name
// through /proc/self/fd, or -1 when the file system or /proc cannot do that.
int OpenUnnamedTemp(int dir_fd) {
  const int fd = openat(dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  struct stat st;
  if (stat(ProcFdPath(fd).c_str(), &st) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A new file `.<name>.tmp.XXXXXX` in `dir_fd`; its name in *temp.
Result<int> CreateNamedTemp(int dir_fd, const std::string& name, std::string* temp) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    *temp = TempStem(name) + RandomSuffix();
    // 0600 until the content is complete; Commit() sets the final mode.
    const int fd =
        openat(dir_fd, temp->c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    if (errno != EEXIST) return ErrnoError("cannot create a temporary file for '" + name + "'");
  }
  return IoError("cannot create a temporary file for '" + name + "': too many name collisions");
}

void SplitPath(const std::string& path, std::string* dir, std::string* base) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    *dir = ".";
    *base = path;
  } else {
    *dir = slash == 0 ? "/" : path.substr(0, slash);
    *base = path.substr(slash + 1);
  }
}

}  // namespace

Result<std::unique_ptr<AtomicFile>> AtomicFile::Create(const std::string& dest, mode_t mode) {
  std::string dir, base;
  SplitPath(dest, &dir, &base);
  const int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return ErrnoError("cannot open directory '" + dir + "' to write '" + dest + "'");
  Result<std::unique_ptr<AtomicFile>> f = CreateAt(dir_fd, base, mode);
  close(dir_fd);
  if (f.ok()) (*f)->display_ = dest;
  return f;
}

Result<std::unique_ptr<AtomicFile>> AtomicFile::CreateAt(int dir_fd, const std::string& name,
                                                         mode_t mode, bool unnamed_temp) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return InvalidArgument("cannot write '" + name + "': not a plain file name");
  }
  const int own_dir = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (own_dir < 0) return ErrnoError("cannot write '" + name + "'");
  std::string temp;  // stays empty for an unnamed file
  int fd = unnamed_temp ? OpenUnnamedTemp(own_dir) : -1;
  if (fd < 0) {
    Result<int> named = CreateNamedTemp(own_dir, name, &temp);
    if (!named.ok()) {
      close(own_dir);
      return named.status();
    }
    fd = *named;
  }
  if (fchmod(fd, mode) != 0) {
    Status s = ErrnoError("cannot set the mode of '" + name + "'");
    close(fd);
    if (!temp.empty()) unlinkat(own_dir, temp.c_str(), 0);
    close(own_dir);
    return s;
  }
  return std::unique_ptr<AtomicFile>(new AtomicFile(own_dir, fd, name, std::move(temp), name));
}

AtomicFile::~AtomicFile() {
  Abort();
  if (dir_fd_ >= 0) close(dir_fd_);
}

void AtomicFile::Abort() {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (!temp_name_.empty()) unlinkat(dir_fd_, temp_name_.c_str(), 0);
}

Status AtomicFile::NameTempFile() {
  const std::string proc = ProcFdPath(fd_);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temp = TempStem(name_) + RandomSuffix();
    if (linkat(AT_FDCWD, proc.c_str(), dir_fd_, temp.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      temp_name_ = temp;
      return Status::Ok();
    }
    if (errno != EEXIST) return ErrnoError("cannot name the temporary file of '" + display_ + "'");
  }
  return IoError("cannot name the temporary file of '" + display_ + "': too many name collisions");
}

Result<FileOwnership> OwnershipOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return ErrnoError("cannot read the owner and mode of '" + path + "'");
  }
  return FileOwnership{st.st_uid, st.st_gid, static_cast<mode_t>(st.st_mode & 0777)};
}

Status AtomicFile::KeepOwnerAndMode(const FileOwnership& original) {
  if (done_) return FailedPrecondition("'" + display_ + "' was already committed or aborted");
  mode_t mode = original.mode & 0777;
  // chown first: it may clear permission bits that chmod then sets.
  if (fchown(fd_, original.uid, original.gid) != 0) {
    if (errno != EPERM) return ErrnoError("cannot set the owner of '" + display_ + "'");
    if (fchown(fd_, static_cast<uid_t>(-1), original.gid) != 0) {
      if (errno != EPERM) return ErrnoError("cannot set the group of '" + display_ + "'");
      mode &= ~static_cast<mode_t>(070);
    }
  }
  if (fchmod(fd_, mode) != 0) return ErrnoError("cannot set the mode of '" + display_ + "'");
  return Status::Ok();
}

Status AtomicFile::Write(const void* data, size_t size) {
  if (done_) return FailedPrecondition("'" + display_ + "' was already committed or aborted");
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot write '" + display_ + "'");
    p += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status AtomicFile::Commit(bool durable) {
  if (done_) return FailedPrecondition("'" + display_ + "' was already committed or aborted");
  Status s;
  if (durable && fsync(fd_) != 0) s = ErrnoError("cannot flush '" + display_ + "' to disk");
  // The name is given only now, so that a killed writer leaves nothing.
  if (s.ok() && temp_name_.empty()) s = NameTempFile();
  // close() may report a deferred write error (e.g. NFS quota).
  if (close(fd_) != 0 && s.ok()) s = ErrnoError("cannot write '" + display_ + "'");
  fd_ = -1;
  if (s.ok() && renameat(dir_fd_, temp_name_.c_str(), dir_fd_, name_.c_str()) != 0) {
    s = ErrnoError("cannot rename the temporary file over '" + display_ + "'");
  }
  if (!s.ok()) {
    Abort();
    return s;
  }
  done_ = true;
  // The rename is only durable once the directory entry is on disk.
  if (durable && fsync(dir_fd_) != 0) {
    return ErrnoError("cannot flush the directory of '" + display_ + "'");
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view data, mode_t mode) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<AtomicFile> f, AtomicFile::Create(path, mode));
  MLF_RETURN_IF_ERROR(f->Write(data));
  return f->Commit();
}

}  // namespace mlf
