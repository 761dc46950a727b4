// SHA-256 digests of member data, metadata bytes and whole files.
//
// Backed by OpenSSL's EVP interface, which uses the CPU's SHA extensions
// (SHA-NI) when present. Digests are reported as 64 lower-case hex digits,
// the form stored in metadata.json's "files" map.
//
//   Sha256 h;
//   h.Update(chunk.data(), chunk.size());   // any number of times
//   std::string hex = h.FinishHex();
#ifndef MLFKIT_ARTIFACT_BASE_DIGEST_H_
#define MLFKIT_ARTIFACT_BASE_DIGEST_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

// Length of a SHA-256 digest in hex digits.
inline constexpr size_t kSha256HexLength = 64;

// A streaming SHA-256. Movable, not copyable. After Finish*(), the object is
// reset and can hash a new message.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(const void* data, size_t size);
  void Update(std::string_view data) { Update(data.data(), data.size()); }

  // Returns the raw 32-byte digest and resets.
  std::array<uint8_t, 32> Finish();
  // Returns the digest as 64 lower-case hex digits and resets.
  std::string FinishHex();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// SHA-256 of `data` as lower-case hex.
std::string Sha256Hex(std::string_view data);

// SHA-256 of the whole file at `path`, read in large chunks (never loaded whole).
Result<std::string> Sha256OfFile(const std::string& path);

// Lower-case hex of `size` bytes.
std::string HexEncode(const uint8_t* data, size_t size);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_DIGEST_H_
