#include "artifact/archive/signature.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <vector>

#include "artifact/base/display_text.h"

namespace mlf {
namespace {

constexpr size_t kRawPublicKeyBytes = 32;
constexpr size_t kSignatureBytes = 64;
constexpr size_t kSignatureBase64Chars = 88;
constexpr size_t kFingerprintHexChars = 64;
constexpr char kFormatLine[] = "mlfkit-signature-v1";
constexpr char kMalformed[] = "malformed signature member: ";

// ---- OpenSSL plumbing ------------------------------------------------------

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// The oldest queued OpenSSL error as text; empties the queue so a later
// failure does not report a stale reason.
std::string TakeOpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no OpenSSL error reported";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

// Never prompt on the terminal for a passphrase: encrypted keys just fail.
int RefusePassphrase(char*, int, int, void*) { return -1; }

Result<std::string> BioContents(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  if (len < 0 || data == nullptr) return Internal("reading an OpenSSL memory buffer failed");
  return std::string(data, static_cast<size_t>(len));
}

std::string Hex(const unsigned char* data, size_t len) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < len; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 0xF];
  }
  return out;
}

// ---- base64 (RFC 4648, standard alphabet, padded) --------------------------

constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64Encode(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t group = 0;
    const size_t n = std::min<size_t>(3, in.size() - i);
    for (size_t k = 0; k < 3; ++k) {
      const uint32_t byte = k < n ? static_cast<unsigned char>(in[i + k]) : 0;
      group = (group << 8) | byte;
    }
    for (size_t k = 0; k < 4; ++k) {
      out += k <= n ? kBase64Alphabet[(group >> (18 - 6 * k)) & 0x3F] : '=';
    }
  }
  return out;
}

int Base64Value(char c) {
  for (int v = 0; v < 64; ++v) {
    if (kBase64Alphabet[v] == c) return v;
  }
  return -1;
}

// Strict: length a multiple of 4, '=' only as final padding, and the unused
// low bits before the padding zero, so each byte string has one encoding.
Result<std::string> Base64Decode(std::string_view in) {
  if (in.size() % 4 != 0) return InvalidArgument("length is not a multiple of 4");
  size_t pad = 0;
  while (pad < 2 && pad < in.size() && in[in.size() - 1 - pad] == '=') ++pad;
  std::string out;
  uint32_t acc = 0;
  for (size_t i = 0; i < in.size() - pad; ++i) {
    const int v = Base64Value(in[i]);
    if (v < 0) return InvalidArgument("character " + std::to_string(i) + " is not base64");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    if (i % 4 == 3) {
      for (int s = 16; s >= 0; s -= 8) out += static_cast<char>((acc >> s) & 0xFF);
      acc = 0;
    }
  }
  if (pad == 0) return out;
  const uint32_t unused_bits = pad == 1 ? 2 : 4;
  if ((acc & ((1u << unused_bits) - 1)) != 0) {
    return InvalidArgument("padding bits are not zero");
  }
  acc >>= unused_bits;
  if (pad == 1) out += static_cast<char>((acc >> 8) & 0xFF);
  out += static_cast<char>(acc & 0xFF);
  return out;
}

// ---- key loading -----------------------------------------------------------

enum class KeyRole { kPrivate, kPublic };

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The label of the first PEM block: "PRIVATE KEY" for "-----BEGIN PRIVATE KEY-----".
Result<std::string> PemLabel(std::string_view pem) {
  constexpr std::string_view kBegin = "-----BEGIN ";
  const size_t begin = pem.find(kBegin);
  if (begin == std::string_view::npos) {
    return InvalidArgument("key is not PEM: no '-----BEGIN ...-----' line");
  }
  const size_t start = begin + kBegin.size();
  const size_t end = pem.find("-----", start);
  const size_t newline = pem.find('\n', start);
  if (end == std::string_view::npos || end > newline) {
    return InvalidArgument("key is not PEM: its BEGIN line is not terminated by '-----'");
  }
  return std::string(pem.substr(start, end - start));
}

// Maps a PEM label to the key role it holds, with a clear error for the
// labels that are not keys mlfkit can use.
Result<KeyRole> RoleOfLabel(const std::string& label) {
  if (label == "OPENSSH PRIVATE KEY") {
    return InvalidArgument("key is an OpenSSH private key; mlfkit needs a PEM key (mlf keygen)");
  }
  if (label == "RSA PUBLIC KEY") return InvalidArgument("key is RSA, expected Ed25519");
  if (EndsWith(label, "PRIVATE KEY")) return KeyRole::kPrivate;
  if (EndsWith(label, "PUBLIC KEY")) return KeyRole::kPublic;
  return InvalidArgument("key is a PEM '" + label + "' block, not a public or private key");
}

Status CheckRole(KeyRole got, KeyRole want) {
  if (got == want) return Status::Ok();
  if (want == KeyRole::kPrivate) {
    return InvalidArgument(
        "expected a private key but got a public key (use the .key file, not the .pub file)");
  }
  return InvalidArgument(
      "expected a public key but got a private key (use the .pub file; keep the .key file "
      "private)");
}

Result<PkeyPtr> ParsePem(std::string_view pem, KeyRole role, const std::string& label) {
  if (pem.size() > kMaxKeyFileBytes) {
    return InvalidArgument("key is " + std::to_string(pem.size()) + " bytes; a key is at most " +
                           std::to_string(kMaxKeyFileBytes));
  }
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return Internal("BIO_new_mem_buf failed: " + TakeOpenSslError());
  EVP_PKEY* raw = role == KeyRole::kPrivate
                      ? PEM_read_bio_PrivateKey(bio.get(), nullptr, RefusePassphrase, nullptr)
                      : PEM_read_bio_PUBKEY(bio.get(), nullptr, RefusePassphrase, nullptr);
  if (raw == nullptr) {
    return InvalidArgument("key PEM '" + label + "' could not be parsed: " + TakeOpenSslError());
  }
  return PkeyPtr(raw);
}

Status CheckEd25519(EVP_PKEY* key) {
  if (EVP_PKEY_get_id(key) == EVP_PKEY_ED25519) return Status::Ok();
  const char* type = EVP_PKEY_get0_type_name(key);
  return InvalidArgument(std::string("key is ") + (type != nullptr ? type : "of an unknown type") +
                         ", expected Ed25519");
}

Result<PkeyPtr> LoadKey(std::string_view pem, KeyRole want) {
  MLF_ASSIGN_OR_RETURN(const std::string label, PemLabel(pem));
  MLF_ASSIGN_OR_RETURN(const KeyRole role, RoleOfLabel(label));
  MLF_RETURN_IF_ERROR(CheckRole(role, want));
  if (label == "ENCRYPTED PRIVATE KEY") {
    return InvalidArgument(
        "private key is encrypted; mlfkit needs an unencrypted key (openssl pkey -in IN -out OUT)");
  }
  MLF_ASSIGN_OR_RETURN(PkeyPtr key, ParsePem(pem, want, label));
  MLF_RETURN_IF_ERROR(CheckEd25519(key.get()));
  return key;
}

Result<std::string> FingerprintOf(EVP_PKEY* key) {
  unsigned char raw[kRawPublicKeyBytes];
  size_t raw_len = sizeof(raw);
  if (EVP_PKEY_get_raw_public_key(key, raw, &raw_len) != 1 || raw_len != sizeof(raw)) {
    return Internal("cannot read the raw Ed25519 public key: " + TakeOpenSslError());
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  if (EVP_Digest(raw, raw_len, digest, &digest_len, EVP_sha256(), nullptr) != 1) {
    return Internal("SHA-256 failed: " + TakeOpenSslError());
  }
  return Hex(digest, digest_len);
}

// ---- the signature member --------------------------------------------------

// How much of a line of the signature member a message shows.
constexpr size_t kShownLineBytes = 40;

Status Malformed(const std::string& what) { return Unauthenticated(kMalformed + what); }

Result<std::vector<std::string_view>> SplitLines(std::string_view member) {
  if (member.empty()) return Malformed("it is empty");
  if (member.back() != '\n') return Malformed("the last line does not end with a newline");
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < member.size() && lines.size() <= 4) {
    const size_t end = member.find('\n', start);
    lines.push_back(member.substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() != 4 || start != member.size()) {
    return Malformed("expected exactly 4 lines, got " +
                     (lines.size() > 4 ? std::string("more") : std::to_string(lines.size())));
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].empty() && lines[i].back() == '\r') {
      return Malformed("line " + std::to_string(i + 1) + " ends with a carriage return");
    }
  }
  return lines;
}

// The value after "<key> " on line `number`, or an error showing the line.
Result<std::string_view> FieldValue(std::string_view line, int number, std::string_view key,
                                    const char* expected) {
  if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ' ') {
    return Malformed("line " + std::to_string(number) + " is " +
                     QuoteForMessage(line, kShownLineBytes) + ", expected '" + expected + "'");
  }
  return line.substr(key.size() + 1);
}

Status CheckHeaderLines(std::string_view format, std::string_view algorithm_line) {
  if (format != kFormatLine) {
    if (format.substr(0, 17) == "mlfkit-signature-") {
      return Malformed("unsupported format " + QuoteForMessage(format, kShownLineBytes) +
                       " (this mlfkit reads " + kFormatLine + ")");
    }
    return Malformed("line 1 is " + QuoteForMessage(format, kShownLineBytes) + ", expected '" +
                     kFormatLine + "'");
  }
  MLF_ASSIGN_OR_RETURN(std::string_view algorithm,
                       FieldValue(algorithm_line, 2, "algorithm", "algorithm ed25519"));
  if (algorithm != "ed25519") {
    return Malformed("unsupported algorithm " + QuoteForMessage(algorithm, kShownLineBytes) +
                     " (expected ed25519)");
  }
  return Status::Ok();
}

Result<std::string> ParseFingerprint(std::string_view line) {
  MLF_ASSIGN_OR_RETURN(std::string_view hex,
                       FieldValue(line, 3, "key-sha256", "key-sha256 <64 hex digits>"));
  if (hex.size() != kFingerprintHexChars) {
    return Malformed("key-sha256 has " + std::to_string(hex.size()) +
                     " characters, expected 64 lower-case hex digits");
  }
  for (char c : hex) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return Malformed("key-sha256 contains " +
                       QuoteForMessage(std::string_view(&c, 1), kShownLineBytes) +
                       ", expected lower-case hex digits");
    }
  }
  return std::string(hex);
}

Result<std::string> ParseSignatureBytes(std::string_view line) {
  MLF_ASSIGN_OR_RETURN(std::string_view b64,
                       FieldValue(line, 4, "signature", "signature <base64>"));
  if (b64.size() != kSignatureBase64Chars) {
    return Malformed("signature has " + std::to_string(b64.size()) +
                     " base64 characters, expected 88");
  }
  Result<std::string> raw = Base64Decode(b64);
  if (!raw.ok()) return Malformed("signature is not valid base64: " + raw.status().message());
  if (raw->size() != kSignatureBytes) {
    return Malformed("signature decodes to " + std::to_string(raw->size()) + " bytes, expected 64");
  }
  return raw;
}

std::string FormatMember(const std::string& fingerprint, std::string_view signature) {
  return std::string(kFormatLine) + "\nalgorithm ed25519\nkey-sha256 " + fingerprint +
         "\nsignature " + Base64Encode(signature) + "\n";
}

// ---- key files -------------------------------------------------------------

// Closes a descriptor on every return path.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now, reporting the error a deferred write may surface at close.
  bool Close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

std::string ModeText(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return ErrnoError("cannot write key file " + QuoteForMessage(path, kQuotedPathBytes));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// Fills an already created file; the caller removes it on failure.
Status FillNewFile(Fd& fd, mode_t mode, std::string_view content, const std::string& path) {
  // The umask may have narrowed `mode` at creation; set exactly what we promise.
  if (::fchmod(fd.get(), mode) != 0) {
    return ErrnoError("cannot chmod key file " + QuoteForMessage(path, kQuotedPathBytes));
  }
  MLF_RETURN_IF_ERROR(WriteAll(fd.get(), content, path));
  if (::fsync(fd.get()) != 0) {
    return ErrnoError("cannot sync key file " + QuoteForMessage(path, kQuotedPathBytes));
  }
  if (!fd.Close()) {
    return ErrnoError("cannot close key file " + QuoteForMessage(path, kQuotedPathBytes));
  }
  return Status::Ok();
}

Status CreateExclusive(const std::string& path, mode_t mode, std::string_view content) {
  // O_EXCL: never overwrite, never follow a planted symlink; the mode applies
  // from the moment the file exists.
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (fd.get() < 0) {
    if (errno == EEXIST) {
      return AlreadyExists("key file " + QuoteForMessage(path, kQuotedPathBytes) +
                           " already exists; refusing to overwrite it");
    }
    return ErrnoError("cannot create key file " + QuoteForMessage(path, kQuotedPathBytes));
  }
  Status status = FillNewFile(fd, mode, content, path);
  if (!status.ok()) ::unlink(path.c_str());
  return status;
}

Status CheckAbsent(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    return AlreadyExists("key file " + QuoteForMessage(path, kQuotedPathBytes) +
                         " already exists; refusing to overwrite it");
  }
  return Status::Ok();
}

Result<std::string> ReadBounded(int fd, const std::string& path) {
  std::string content;
  char buf[4096];
  while (content.size() <= kMaxKeyFileBytes) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot read key file " + QuoteForMessage(path, kQuotedPathBytes));
    if (n == 0) return content;
    content.append(buf, static_cast<size_t>(n));
  }
  return OutOfRange("key file " + QuoteForMessage(path, kQuotedPathBytes) + " is larger than " +
                    std::to_string(kMaxKeyFileBytes) + " bytes; it is not a key");
}

bool HoldsPrivateKey(const std::string& path, const std::string& content) {
  if (EndsWith(path, ".key")) return true;
  Result<std::string> label = PemLabel(content);
  return label.ok() && EndsWith(*label, "PRIVATE KEY");
}

Status CheckPrivateMode(const std::string& path, mode_t mode) {
  if ((mode & 077) == 0) return Status::Ok();
  const char* how = (mode & 044) != 0 ? "readable" : (mode & 022) != 0 ? "writable" : "accessible";
  return PermissionDenied("key file " + QuoteForMessage(path, kQuotedPathBytes) + " is " + how +
                          " by others (mode " + ModeText(mode) + "); chmod 600 it");
}

}  // namespace

Result<KeyPair> GenerateKeyPair() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!key) return Internal("Ed25519 key generation failed: " + TakeOpenSslError());
  BioPtr priv(BIO_new(BIO_s_mem()));
  BioPtr pub(BIO_new(BIO_s_mem()));
  if (!priv || !pub ||
      PEM_write_bio_PrivateKey(priv.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      PEM_write_bio_PUBKEY(pub.get(), key.get()) != 1) {
    return Internal("writing the key pair as PEM failed: " + TakeOpenSslError());
  }
  KeyPair pair;
  MLF_ASSIGN_OR_RETURN(pair.private_pem, BioContents(priv.get()));
  MLF_ASSIGN_OR_RETURN(pair.public_pem, BioContents(pub.get()));
  return pair;
}

Result<std::string> Sign(std::string_view private_pem, std::string_view message) {
  MLF_ASSIGN_OR_RETURN(PkeyPtr key, LoadKey(private_pem, KeyRole::kPrivate));
  MLF_ASSIGN_OR_RETURN(const std::string fingerprint, FingerprintOf(key.get()));
  MdCtxPtr ctx(EVP_MD_CTX_new());
  unsigned char sig[kSignatureBytes];
  size_t sig_len = sizeof(sig);
  // Ed25519 hashes internally: no digest, one-shot over the whole message.
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), sig, &sig_len,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      sig_len != sizeof(sig)) {
    return Internal("Ed25519 signing failed: " + TakeOpenSslError());
  }
  return FormatMember(fingerprint, std::string_view(reinterpret_cast<const char*>(sig), sig_len));
}

Result<SignatureInfo> ParseSignatureMember(std::string_view member) {
  MLF_ASSIGN_OR_RETURN(const std::vector<std::string_view> lines, SplitLines(member));
  MLF_RETURN_IF_ERROR(CheckHeaderLines(lines[0], lines[1]));
  SignatureInfo info;
  MLF_ASSIGN_OR_RETURN(info.key_sha256, ParseFingerprint(lines[2]));
  MLF_ASSIGN_OR_RETURN(info.signature, ParseSignatureBytes(lines[3]));
  return info;
}

Status Verify(std::string_view public_pem, std::string_view message,
              std::string_view signature_member) {
  MLF_ASSIGN_OR_RETURN(PkeyPtr key, LoadKey(public_pem, KeyRole::kPublic));
  MLF_ASSIGN_OR_RETURN(const std::string fingerprint, FingerprintOf(key.get()));
  MLF_ASSIGN_OR_RETURN(const SignatureInfo info, ParseSignatureMember(signature_member));
  if (info.key_sha256 != fingerprint) {
    return Unauthenticated("signed by a different key: the signature names key " + info.key_sha256 +
                           ", the given key is " + fingerprint);
  }
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) {
    return Internal("Ed25519 verification setup failed: " + TakeOpenSslError());
  }
  const int rc =
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(info.signature.data()),
                       info.signature.size(),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size());
  ERR_clear_error();
  // Anything but 1 fails closed.
  if (rc != 1) {
    return Unauthenticated(
        "signature does not match: the signed data or the signature was altered");
  }
  return Status::Ok();
}

Result<std::string> PublicKeyFingerprint(std::string_view public_pem) {
  MLF_ASSIGN_OR_RETURN(PkeyPtr key, LoadKey(public_pem, KeyRole::kPublic));
  return FingerprintOf(key.get());
}

Status WriteKeyFiles(const std::string& base) {
  if (base.empty()) return InvalidArgument("key file name is empty");
  const std::string key_path = base + ".key";
  const std::string pub_path = base + ".pub";
  // Checked up front so a clash leaves nothing behind; O_EXCL still decides.
  MLF_RETURN_IF_ERROR(CheckAbsent(key_path));
  MLF_RETURN_IF_ERROR(CheckAbsent(pub_path));
  MLF_ASSIGN_OR_RETURN(const KeyPair pair, GenerateKeyPair());
  MLF_RETURN_IF_ERROR(CreateExclusive(key_path, 0600, pair.private_pem));
  Status status = CreateExclusive(pub_path, 0644, pair.public_pem);
  if (!status.ok()) ::unlink(key_path.c_str());
  return status;
}

Result<std::string> ReadKeyFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      return NotFound("key file " + QuoteForMessage(path, kQuotedPathBytes) + " does not exist");
    }
    return ErrnoError("cannot open key file " + QuoteForMessage(path, kQuotedPathBytes));
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return ErrnoError("cannot stat key file " + QuoteForMessage(path, kQuotedPathBytes));
  }
  if (!S_ISREG(st.st_mode)) {
    return InvalidArgument("key file " + QuoteForMessage(path, kQuotedPathBytes) +
                           " is not a regular file");
  }
  MLF_ASSIGN_OR_RETURN(std::string content, ReadBounded(fd.get(), path));
  if (HoldsPrivateKey(path, content)) MLF_RETURN_IF_ERROR(CheckPrivateMode(path, st.st_mode));
  return content;
}

}  // namespace mlf
