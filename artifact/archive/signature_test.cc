#include "artifact/archive/signature.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

namespace mlf {
namespace {

// RFC 8032 section 7.1, TEST 2: the key as PKCS#8 PEM, message 0x72.
constexpr char kRfcPrivatePem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIEzNCJso/5banbbDRuwRTg9bijGfNaumJNqM9u1PuKb7\n"
    "-----END PRIVATE KEY-----\n";
constexpr char kRfcPublicPem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=\n"
    "-----END PUBLIC KEY-----\n";
// SHA-256 of the raw public key 3d4017c3...2af4660c.
constexpr char kRfcFingerprint[] =
    "39f713d0a644253f04529421b9f51b9b08979d08295959c4f3990ee617f5139f";
// The RFC's signature 92a009a9...12bb0c00 in base64.
constexpr char kRfcSignatureB64[] =
    "kqAJqfDUyrhyDoILX2QlQKKye1QWUD+Ps3YiI+vbadoIWsHkPhWZbkWPNhPQ8R2MOHsurrQwKu6wDSkWErsMAA==";

std::string RfcMember() {
  return std::string("mlfkit-signature-v1\nalgorithm ed25519\nkey-sha256 ") + kRfcFingerprint +
         "\nsignature " + kRfcSignatureB64 + "\n";
}

std::string MalformedError(const std::string& member) {
  Status s = Verify(kRfcPublicPem, "r", member);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated) << s.ToString();
  EXPECT_FALSE(ParseSignatureMember(member).ok());
  return s.message();
}

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;

// PEM text of `key`: private (optionally encrypted) or public.
std::string ToPem(EVP_PKEY* key, bool private_part, bool encrypt = false) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (!private_part) {
    PEM_write_bio_PUBKEY(bio, key);
  } else if (encrypt) {
    PEM_write_bio_PKCS8PrivateKey(bio, key, EVP_aes_256_cbc(), "pw", 2, nullptr, nullptr);
  } else {
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  }
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(len));
  BIO_free(bio);
  return pem;
}

TEST(SignatureTest, MatchesRfc8032TestVector) {
  Result<std::string> member = Sign(kRfcPrivatePem, "r");
  ASSERT_TRUE(member.ok()) << member.status().ToString();
  EXPECT_EQ(*member, RfcMember());
  EXPECT_TRUE(Verify(kRfcPublicPem, "r", RfcMember()).ok());
  EXPECT_EQ(*PublicKeyFingerprint(kRfcPublicPem), kRfcFingerprint);
}

TEST(SignatureTest, GeneratedKeysSignAndVerify) {
  Result<KeyPair> pair = GenerateKeyPair();
  ASSERT_TRUE(pair.ok()) << pair.status().ToString();
  EXPECT_EQ(pair->private_pem.rfind("-----BEGIN PRIVATE KEY-----\n", 0), 0u);
  EXPECT_EQ(pair->public_pem.rfind("-----BEGIN PUBLIC KEY-----\n", 0), 0u);
  const std::string message = "{\"version\": 8}\n";
  Result<std::string> member = Sign(pair->private_pem, message);
  ASSERT_TRUE(member.ok()) << member.status().ToString();
  EXPECT_TRUE(Verify(pair->public_pem, message, *member).ok());
  Result<SignatureInfo> info = ParseSignatureMember(*member);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->key_sha256, *PublicKeyFingerprint(pair->public_pem));
  EXPECT_EQ(info->signature.size(), 64u);
  EXPECT_NE(GenerateKeyPair()->public_pem, pair->public_pem);
}

TEST(SignatureTest, EmptyMessageSignsAndVerifies) {
  Result<std::string> member = Sign(kRfcPrivatePem, "");
  ASSERT_TRUE(member.ok()) << member.status().ToString();
  EXPECT_TRUE(Verify(kRfcPublicPem, "", *member).ok());
}

TEST(SignatureTest, EveryAlteredMessageByteFails) {
  const std::string message = "metadata bytes";
  const std::string member = *Sign(kRfcPrivatePem, message);
  for (size_t i = 0; i < message.size(); ++i) {
    std::string altered = message;
    altered[i] ^= 0x01;
    Status s = Verify(kRfcPublicPem, altered, member);
    EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(s.message(),
              "signature does not match: the signed data or the signature was altered");
  }
  EXPECT_FALSE(Verify(kRfcPublicPem, message + " ", member).ok());
}

TEST(SignatureTest, AlteredSignatureFails) {
  std::string member = RfcMember();
  const size_t pos = member.find("signature ") + 10;
  member[pos] = member[pos] == 'A' ? 'B' : 'A';
  EXPECT_EQ(Verify(kRfcPublicPem, "r", member).message(),
            "signature does not match: the signed data or the signature was altered");
}

TEST(SignatureTest, OtherKeyIsNamedByFingerprint) {
  Result<KeyPair> other = GenerateKeyPair();
  ASSERT_TRUE(other.ok());
  const std::string other_fp = *PublicKeyFingerprint(other->public_pem);
  Status s = Verify(other->public_pem, "r", RfcMember());
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), "signed by a different key: the signature names key " +
                             std::string(kRfcFingerprint) + ", the given key is " + other_fp);
}

TEST(SignatureTest, ForgedFingerprintStillNeedsAValidSignature) {
  Result<KeyPair> other = GenerateKeyPair();
  std::string member = RfcMember();
  member.replace(member.find(kRfcFingerprint), 64, *PublicKeyFingerprint(other->public_pem));
  EXPECT_EQ(Verify(other->public_pem, "r", member).message(),
            "signature does not match: the signed data or the signature was altered");
}

TEST(SignatureMemberTest, MalformedMembersSayWhatIsWrong) {
  const std::string good = RfcMember();
  const std::string head = "mlfkit-signature-v1\nalgorithm ed25519\nkey-sha256 " +
                           std::string(kRfcFingerprint) + "\n";
  const std::string p = "malformed signature member: ";
  EXPECT_EQ(MalformedError(""), p + "it is empty");
  EXPECT_EQ(MalformedError(good.substr(0, good.size() - 1)),
            p + "the last line does not end with a newline");
  EXPECT_EQ(MalformedError(head), p + "expected exactly 4 lines, got 3");
  EXPECT_EQ(MalformedError(good + "extra\n"), p + "expected exactly 4 lines, got more");
  EXPECT_EQ(MalformedError("mlfkit-signature-v1\r\nalgorithm ed25519\r\nx\r\ny\r\n"),
            p + "line 1 ends with a carriage return");
  EXPECT_EQ(MalformedError("hello\n" + good.substr(good.find('\n') + 1)),
            p + "line 1 is 'hello', expected 'mlfkit-signature-v1'");
  EXPECT_EQ(MalformedError("mlfkit-signature-v2\n" + good.substr(good.find('\n') + 1)),
            p + "unsupported format 'mlfkit-signature-v2' (this mlfkit reads "
                "mlfkit-signature-v1)");
}

TEST(SignatureMemberTest, MalformedFields) {
  const std::string p = "malformed signature member: ";
  const std::string fp_line = std::string("key-sha256 ") + kRfcFingerprint + "\n";
  const std::string sig_line = std::string("signature ") + kRfcSignatureB64 + "\n";
  auto member = [](const std::string& l2, const std::string& l3, const std::string& l4) {
    return "mlfkit-signature-v1\n" + l2 + l3 + l4;
  };
  EXPECT_EQ(MalformedError(member("algorithm: ed25519\n", fp_line, sig_line)),
            p + "line 2 is 'algorithm: ed25519', expected 'algorithm ed25519'");
  EXPECT_EQ(MalformedError(member("algorithm rsa-sha256\n", fp_line, sig_line)),
            p + "unsupported algorithm 'rsa-sha256' (expected ed25519)");
  EXPECT_EQ(MalformedError(member("algorithm ed25519\n", "key-sha256 abc\n", sig_line)),
            p + "key-sha256 has 3 characters, expected 64 lower-case hex digits");
  std::string upper = kRfcFingerprint;
  upper[0] = 'F';
  EXPECT_EQ(MalformedError(member("algorithm ed25519\n", "key-sha256 " + upper + "\n", sig_line)),
            p + "key-sha256 contains 'F', expected lower-case hex digits");
  EXPECT_EQ(MalformedError(member("algorithm ed25519\n", "fingerprint x\n", sig_line)),
            p + "line 3 is 'fingerprint x', expected 'key-sha256 <64 hex digits>'");
  EXPECT_EQ(MalformedError(member("algorithm ed25519\n", fp_line, "sig AAAA\n")),
            p + "line 4 is 'sig AAAA', expected 'signature <base64>'");
  EXPECT_EQ(MalformedError(member("algorithm ed25519\n", fp_line, "signature AAAA\n")),
            p + "signature has 4 base64 characters, expected 88");
}

TEST(SignatureMemberTest, StrictBase64) {
  const std::string p = "malformed signature member: ";
  const std::string b64 = kRfcSignatureB64;
  auto with_sig = [](const std::string& s) {
    return std::string("mlfkit-signature-v1\nalgorithm ed25519\nkey-sha256 ") + kRfcFingerprint +
           "\nsignature " + s + "\n";
  };
  std::string bad_char = b64;
  bad_char[5] = '-';
  EXPECT_EQ(MalformedError(with_sig(bad_char)),
            p + "signature is not valid base64: character 5 is not base64");
  // "AA==" encodes one zero byte; "AB==" sets padding bits that must be zero.
  EXPECT_EQ(MalformedError(with_sig(b64.substr(0, 85) + "B==")),
            p + "signature is not valid base64: padding bits are not zero");
  EXPECT_EQ(MalformedError(with_sig(b64.substr(0, 86) + "A=")),
            p + "signature decodes to 65 bytes, expected 64");
  EXPECT_EQ(MalformedError(with_sig(b64.substr(0, 84) + "=AAA")),
            p + "signature is not valid base64: character 84 is not base64");
}

TEST(SignatureMemberTest, LongGarbageIsQuotedShortAndEscaped) {
  const std::string line1 = "\x01" + std::string(100, 'z');
  EXPECT_EQ(MalformedError(line1 + "\na\nb\nc\n"),
            "malformed signature member: line 1 is '\\x01" + std::string(39, 'z') +
                "...', expected 'mlfkit-signature-v1'");
}

TEST(SignatureKeyTest, NotPem) {
  Status s = Verify("ssh-ed25519 AAAAC3Nz user@host", "m", RfcMember());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "key is not PEM: no '-----BEGIN ...-----' line");
  EXPECT_EQ(Sign("-----BEGIN PRIVATE KEY\nabc\n", "m").status().message(),
            "key is not PEM: its BEGIN line is not terminated by '-----'");
  EXPECT_EQ(PublicKeyFingerprint("-----BEGIN CERTIFICATE-----\nMII=\n").status().message(),
            "key is a PEM 'CERTIFICATE' block, not a public or private key");
  EXPECT_EQ(Sign("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbg==\n", "m").status().message(),
            "key is an OpenSSH private key; mlfkit needs a PEM key (mlf keygen)");
}

TEST(SignatureKeyTest, CorruptPemBody) {
  Result<std::string> r =
      Sign("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "m");
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message().rfind("key PEM 'PRIVATE KEY' could not be parsed: ", 0), 0u)
      << r.status().message();
}

TEST(SignatureKeyTest, WrongRole) {
  EXPECT_EQ(Sign(kRfcPublicPem, "m").status().message(),
            "expected a private key but got a public key (use the .key file, not the .pub file)");
  const std::string want_public =
      "expected a public key but got a private key (use the .pub file; keep the .key file "
      "private)";
  EXPECT_EQ(Verify(kRfcPrivatePem, "r", RfcMember()).message(), want_public);
  EXPECT_EQ(PublicKeyFingerprint(kRfcPrivatePem).status().message(), want_public);
  EXPECT_EQ(Verify(kRfcPrivatePem, "r", RfcMember()).code(), StatusCode::kInvalidArgument);
}

TEST(SignatureKeyTest, RsaKeyIsRefused) {
  PkeyPtr rsa(EVP_RSA_gen(2048));
  ASSERT_TRUE(rsa);
  Result<std::string> signed_with_rsa = Sign(ToPem(rsa.get(), true), "m");
  EXPECT_EQ(signed_with_rsa.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(signed_with_rsa.status().message(), "key is RSA, expected Ed25519");
  EXPECT_EQ(Verify(ToPem(rsa.get(), false), "r", RfcMember()).message(),
            "key is RSA, expected Ed25519");
  EXPECT_EQ(PublicKeyFingerprint("-----BEGIN RSA PUBLIC KEY-----\nMII=\n").status().message(),
            "key is RSA, expected Ed25519");
}

TEST(SignatureKeyTest, Ed448KeyIsRefused) {
  PkeyPtr ed448(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED448"));
  ASSERT_TRUE(ed448);
  EXPECT_EQ(Sign(ToPem(ed448.get(), true), "m").status().message(),
            "key is ED448, expected Ed25519");
}

TEST(SignatureKeyTest, EncryptedPrivateKeyIsRefusedWithoutPrompting) {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  ASSERT_TRUE(key);
  EXPECT_EQ(Sign(ToPem(key.get(), true, /*encrypt=*/true), "m").status().message(),
            "private key is encrypted; mlfkit needs an unencrypted key (openssl pkey -in IN "
            "-out OUT)");
}

// ---- key files ---------------------------------------------------------------

class KeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/keysXXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  static mode_t ModeOf(const std::string& path) {
    struct stat st;
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }

  static void WriteFile(const std::string& path, const std::string& content, mode_t mode) {
    std::ofstream(path, std::ios::binary) << content;
    ASSERT_EQ(chmod(path.c_str(), mode), 0);
  }

  std::string dir_;
};

TEST_F(KeyFileTest, WritesPrivate0600AndPublic0644EvenUnderStrictUmask) {
  const mode_t old_umask = umask(077);
  Status s = WriteKeyFiles(Path("release"));
  umask(old_umask);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ModeOf(Path("release.key")), 0600u);
  EXPECT_EQ(ModeOf(Path("release.pub")), 0644u);

  Result<std::string> priv = ReadKeyFile(Path("release.key"));
  Result<std::string> pub = ReadKeyFile(Path("release.pub"));
  ASSERT_TRUE(priv.ok()) << priv.status().ToString();
  ASSERT_TRUE(pub.ok()) << pub.status().ToString();
  Result<std::string> member = Sign(*priv, "m");
  ASSERT_TRUE(member.ok()) << member.status().ToString();
  EXPECT_TRUE(Verify(*pub, "m", *member).ok());
}

TEST_F(KeyFileTest, NeverOverwrites) {
  ASSERT_TRUE(WriteKeyFiles(Path("k")).ok());
  const std::string before = *ReadKeyFile(Path("k.key"));
  Status s = WriteKeyFiles(Path("k"));
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.message(),
            "key file '" + Path("k.key") + "' already exists; refusing to overwrite it");
  EXPECT_EQ(*ReadKeyFile(Path("k.key")), before);
}

TEST_F(KeyFileTest, ExistingPublicFileLeavesNoPrivateKeyBehind) {
  WriteFile(Path("p.pub"), "old", 0644);
  Status s = WriteKeyFiles(Path("p"));
  EXPECT_EQ(s.message(),
            "key file '" + Path("p.pub") + "' already exists; refusing to overwrite it");
  EXPECT_NE(access(Path("p.key").c_str(), F_OK), 0);
  EXPECT_EQ(*ReadKeyFile(Path("p.pub")), "old");
}

TEST_F(KeyFileTest, DanglingSymlinkIsNotFollowed) {
  ASSERT_EQ(symlink(Path("elsewhere").c_str(), Path("s.key").c_str()), 0);
  EXPECT_EQ(WriteKeyFiles(Path("s")).code(), StatusCode::kAlreadyExists);
  EXPECT_NE(access(Path("elsewhere").c_str(), F_OK), 0);
}

TEST_F(KeyFileTest, PrivateKeyReadableByOthersIsRefused) {
  const std::string pem = GenerateKeyPair()->private_pem;
  WriteFile(Path("a.key"), pem, 0644);
  Result<std::string> r = ReadKeyFile(Path("a.key"));
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(r.status().message(),
            "key file '" + Path("a.key") + "' is readable by others (mode 0644); chmod 600 it");
  WriteFile(Path("b.key"), "anything", 0620);
  EXPECT_EQ(ReadKeyFile(Path("b.key")).status().message(),
            "key file '" + Path("b.key") + "' is writable by others (mode 0620); chmod 600 it");
  // Private content is protected whatever the file is called.
  WriteFile(Path("c.pem"), pem, 0640);
  EXPECT_EQ(ReadKeyFile(Path("c.pem")).status().message(),
            "key file '" + Path("c.pem") + "' is readable by others (mode 0640); chmod 600 it");
  WriteFile(Path("d.key"), pem, 0400);
  EXPECT_TRUE(ReadKeyFile(Path("d.key")).ok());
}

TEST_F(KeyFileTest, PublicKeyMayBeWorldReadable) {
  WriteFile(Path("x.pub"), kRfcPublicPem, 0644);
  Result<std::string> r = ReadKeyFile(Path("x.pub"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, kRfcPublicPem);
}

TEST_F(KeyFileTest, MissingDirectoryAndOversizedFiles) {
  Result<std::string> missing = ReadKeyFile(Path("none.pub"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "key file '" + Path("none.pub") + "' does not exist");
  EXPECT_EQ(ReadKeyFile(dir_).status().message(),
            "key file '" + dir_ + "' is not a regular file");
  WriteFile(Path("big.pub"), std::string(64 * 1024 + 1, 'a'), 0644);
  Result<std::string> big = ReadKeyFile(Path("big.pub"));
  EXPECT_EQ(big.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(big.status().message(),
            "key file '" + Path("big.pub") + "' is larger than 65536 bytes; it is not a key");
  WriteFile(Path("max.pub"), std::string(64 * 1024, 'a'), 0644);
  EXPECT_TRUE(ReadKeyFile(Path("max.pub")).ok());
}

TEST_F(KeyFileTest, EmptyBaseName) {
  EXPECT_EQ(WriteKeyFiles("").message(), "key file name is empty");
}

}  // namespace
}  // namespace mlf
