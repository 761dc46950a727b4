#include "artifact/base/digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace mlf {

struct Sha256::Ctx {
  EVP_MD_CTX* md = nullptr;
};

namespace {

// EVP only fails on allocation failure or a broken OpenSSL installation;
// neither is recoverable by a caller, and returning a wrong digest is worse.
void InitOrDie(EVP_MD_CTX* md) {
  if (md == nullptr || EVP_DigestInit_ex(md, EVP_sha256(), nullptr) != 1) std::abort();
}

}  // namespace

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  InitOrDie(ctx_->md);
}

Sha256::~Sha256() {
  if (ctx_ != nullptr) EVP_MD_CTX_free(ctx_->md);
}

Sha256::Sha256(Sha256&&) noexcept = default;

Sha256& Sha256::operator=(Sha256&& other) noexcept {
  if (this != &other) {
    if (ctx_ != nullptr) EVP_MD_CTX_free(ctx_->md);
    ctx_ = std::move(other.ctx_);
  }
  return *this;
}

void Sha256::Update(const void* data, size_t size) {
  if (size == 0) return;
  if (EVP_DigestUpdate(ctx_->md, data, size) != 1) std::abort();
}

std::array<uint8_t, 32> Sha256::Finish() {
  std::array<uint8_t, 32> out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, out.data(), &len) != 1 || len != out.size()) std::abort();
  InitOrDie(ctx_->md);
  return out;
}

std::string Sha256::FinishHex() {
  const std::array<uint8_t, 32> raw = Finish();
  return HexEncode(raw.data(), raw.size());
}

std::string HexEncode(const uint8_t* data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  Sha256 h;
  h.Update(data);
  return h.FinishHex();
}

Result<std::string> Sha256OfFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open '" + path + "'");
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  std::vector<char> buf(1 << 20);
  Sha256 h;
  for (;;) {
    const ssize_t n = read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status s = ErrnoError("cannot read '" + path + "'");
      close(fd);
      return s;
    }
    if (n == 0) break;
    h.Update(buf.data(), static_cast<size_t>(n));
  }
  close(fd);
  return h.FinishHex();
}

}  // namespace mlf
