// Ed25519 signatures over metadata.json (member `metadata.json.sig`), keys
// and key files. Uses OpenSSL 3.
//
// Signature member, format v1: exactly four '\n'-terminated lines
//
//   mlfkit-signature-v1
//   algorithm ed25519
//   key-sha256 <64 lower-case hex digits: SHA-256 of the raw 32-byte public key>
//   signature <88 characters: padded standard base64 of the 64-byte signature>
//
// Text, so a person can read it and `mlf verify` can say which key signed an
// archive before (or without) checking it. The fingerprint is informative:
// verification always checks the signature bytes against the given key.
//
// Keys are PEM: PKCS#8 "PRIVATE KEY" and SubjectPublicKeyInfo "PUBLIC KEY"
// (what `openssl genpkey -algorithm ed25519` writes). Encrypted private keys
// are refused.
//
//   MLF_ASSIGN_OR_RETURN(std::string sig, Sign(private_pem, metadata_json));
//   MLF_RETURN_IF_ERROR(Verify(public_pem, metadata_json, sig));
//
// Errors: a key that is not usable (not PEM, not Ed25519, public where a
// private key is needed or the reverse, encrypted) is kInvalidArgument; a
// failed verification (malformed member, other key, altered bytes) is
// kUnauthenticated; key file problems are kIoError, kNotFound,
// kAlreadyExists, kOutOfRange or kPermissionDenied.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_SIGNATURE_H_
#define MLFKIT_ARTIFACT_ARCHIVE_SIGNATURE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "artifact/base/status.h"

namespace mlf {

// Key files larger than this are refused by ReadKeyFile.
inline constexpr uint64_t kMaxKeyFileBytes = 64 * 1024;

struct KeyPair {
  std::string private_pem;  // PKCS#8 PEM
  std::string public_pem;   // SubjectPublicKeyInfo PEM
};

// A fresh Ed25519 key pair from OpenSSL's CSPRNG.
Result<KeyPair> GenerateKeyPair();

// Signs `message` and returns the whole v1 signature member (text above).
Result<std::string> Sign(std::string_view private_pem, std::string_view message);

// Ok when `signature_member` is a well-formed v1 member made by the key in
// `public_pem` over exactly `message`. Otherwise kUnauthenticated with one of
//   "malformed signature member: <what is wrong>",
//   "signed by a different key: the signature names key <fp>, the given key is <fp>",
//   "signature does not match: the signed data or the signature was altered".
Status Verify(std::string_view public_pem, std::string_view message,
              std::string_view signature_member);

// The parsed content of a v1 signature member.
struct SignatureInfo {
  std::string key_sha256;  // 64 lower-case hex digits
  std::string signature;   // raw, 64 bytes
};

// Parses a member strictly (exact lines, lengths, alphabet, canonical
// base64); errors are kUnauthenticated "malformed signature member: ...".
Result<SignatureInfo> ParseSignatureMember(std::string_view member);

// Hex SHA-256 of the raw 32-byte Ed25519 public key in `public_pem`.
Result<std::string> PublicKeyFingerprint(std::string_view public_pem);

// Generates a key pair and writes `<base>.key` (private, mode 0600) and
// `<base>.pub` (public, mode 0644). The private file is created with
// O_CREAT|O_EXCL and mode 0600, so it is never readable by others, not even
// briefly. Existing files are never overwritten (kAlreadyExists); if writing
// fails, files this call created are removed.
Status WriteKeyFiles(const std::string& base);

// Reads a key file of at most kMaxKeyFileBytes. A private key file (name
// ending in ".key", or content holding a PEM private key) that group or
// others may access is refused, as ssh does:
//   "key file 'k.key' is readable by others (mode 0644); chmod 600 it".
Result<std::string> ReadKeyFile(const std::string& path);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_SIGNATURE_H_
