#include "loader/host/verification_memo.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "artifact/atomic_file.h"
#include "artifact/digest.h"

namespace mlf {
namespace {

constexpr char kHeader[] = "mlfkit-verified-v1";

std::optional<std::string> Identity(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::ostringstream id;
  id << "dev " << st.st_dev << " ino " << st.st_ino << " size " << st.st_size << " mtime "
     << st.st_mtim.tv_sec << "." << st.st_mtim.tv_nsec << " ctime " << st.st_ctim.tv_sec << "."
     << st.st_ctim.tv_nsec;
  return id.str();
}

}  // namespace

std::optional<std::string> VerificationMemo::Lookup(int fd) const {
  std::optional<std::string> id = Identity(fd);
  if (!id) return std::nullopt;
  std::ifstream in(dir_ + "/" + Sha256Hex(*id));
  std::string header, recorded_id, metadata_sha256;
  if (!std::getline(in, header) || !std::getline(in, recorded_id) ||
      !std::getline(in, metadata_sha256)) {
    return std::nullopt;
  }
  if (header != kHeader || recorded_id != *id || metadata_sha256.size() != 64) return std::nullopt;
  return metadata_sha256;
}

void VerificationMemo::Record(int fd, const std::string& metadata_sha256) const {
  std::optional<std::string> id = Identity(fd);
  if (!id) return;
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return;
  chmod(dir_.c_str(), 0700);
  Status ignored = WriteFileAtomically(dir_ + "/" + Sha256Hex(*id),
                                       std::string(kHeader) + "\n" + *id + "\n" + metadata_sha256 + "\n",
                                       0600);
  (void)ignored;
}

}  // namespace mlf
