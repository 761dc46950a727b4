#include "loader/host/verification_memo.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <sstream>

#include "artifact/base/digest.h"

namespace mlf {
namespace {

constexpr char kHeader[] = "mlfkit-verified-v2";
constexpr size_t kMaxEntryBytes = 4096;

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Whether `a` is earlier than `b` by at least `seconds`.
bool OlderBy(const timespec& a, const timespec& b, int seconds) {
  const timespec limit{a.tv_sec + seconds, a.tv_nsec};
  return limit.tv_sec < b.tv_sec || (limit.tv_sec == b.tv_sec && limit.tv_nsec <= b.tv_nsec);
}

std::string ReadSmallFile(int dir_fd, const std::string& name) {
  Descriptor fd(openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return "";
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      (st.st_mode & 022) != 0 || st.st_size > static_cast<off_t>(kMaxEntryBytes)) {
    return "";
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return bytes;
}

bool WriteSmallFile(int dir_fd, const std::string& name, const std::string& bytes) {
  static std::atomic<unsigned> counter{0};
  const std::string temp = "." + name + "." + std::to_string(getpid()) + "." +
                           std::to_string(counter.fetch_add(1)) + ".tmp";
  const int fd = openat(dir_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0600);
  if (fd < 0) return false;
  const bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  const bool closed = close(fd) == 0;
  if (written && closed && renameat(dir_fd, temp.c_str(), dir_fd, name.c_str()) == 0) return true;
  unlinkat(dir_fd, temp.c_str(), 0);
  return false;
}

}  // namespace

std::optional<FileIdentity> VerificationMemo::Identify(int fd) {
  // The clock first: a write after this reading stamps a time at or after it.
  timespec now{};
  if (clock_gettime(CLOCK_REALTIME_COARSE, &now) != 0) return std::nullopt;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::ostringstream id;
  id << "dev " << st.st_dev << " ino " << st.st_ino << " size " << st.st_size << " mtime "
     << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec << " ctime " << st.st_ctim.tv_sec << "."
     << st.st_ctim.tv_nsec;
  return FileIdentity{id.str(), OlderBy(st.st_ctim, now, kSettleSeconds)};
}

std::optional<std::string> VerificationMemo::Lookup(const FileIdentity& identity) const {
  Result<int> dir = cache_.OpenSubdirectory("verified", /*create=*/false);
  if (!dir.ok() || *dir < 0) return std::nullopt;
  Descriptor closer(*dir);
  std::istringstream in(ReadSmallFile(*dir, Sha256Hex(identity.key)));
  std::string header, recorded_id, metadata_sha256;
  if (!std::getline(in, header) || !std::getline(in, recorded_id) ||
      !std::getline(in, metadata_sha256)) {
    return std::nullopt;
  }
  if (header != kHeader || recorded_id != identity.key || metadata_sha256.size() != 64) {
    return std::nullopt;
  }
  return metadata_sha256;
}

bool VerificationMemo::Record(const FileIdentity& before, int fd,
                              const std::string& metadata_sha256) const {
  if (!before.settled) return false;
  std::optional<FileIdentity> after = Identify(fd);
  if (!after || after->key != before.key) return false;
  Result<int> dir = cache_.OpenSubdirectory("verified", /*create=*/true);
  if (!dir.ok() || *dir < 0) return false;
  Descriptor closer(*dir);
  return WriteSmallFile(*dir, Sha256Hex(before.key),
                        std::string(kHeader) + "\n" + before.key + "\n" + metadata_sha256 + "\n");
}

}  // namespace mlf
