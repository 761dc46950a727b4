// No code from an archive runs before the archive has passed verification:
// the "marker" fixture's library writes a file from its constructor, so the
// file's existence tells whether dlopen happened.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "artifact/archive_reader.h"
#include "artifact/sign.h"
#include "artifact/signature.h"
#include "loader/host/model_library.h"
#include "tests/fixtures/fixture_models.h"
#include "tests/test_files.h"

namespace mlf {
namespace {

class HostLoaderTrustTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    marker_ = dir_ + "/loaded.marker";
    testing::FixtureOptions fixture;
    fixture.marker_path = marker_;
    auto m = testing::MakeFixture("marker", "marker", fixture);
    ASSERT_TRUE(m.ok());
    archive_ = dir_ + "/marker.tar";
    ASSERT_TRUE(testing::WriteFixtureArchive({*m}, archive_).ok());
    auto keys = GenerateKeyPair();
    auto other = GenerateKeyPair();
    ASSERT_TRUE(keys.ok() && other.ok());
    keys_ = *keys;
    other_ = *other;
    signed_ = dir_ + "/signed.tar";
    ASSERT_TRUE(SignArchive(archive_, keys_.private_pem, signed_, {}).ok());
    options_.cache_dir = dir_ + "/cache";
  }

  // Opens `archive` and reports whether the library's constructor ran.
  Status OpenAndCheckMarker(const std::string& archive, bool* loaded) {
    unlink(marker_.c_str());
    auto lib = ModelLibrary::Open(archive, options_);
    *loaded = Exists(marker_);
    return lib.status();
  }

  // Flips one byte inside the data of `member` of an uncompressed archive.
  std::string Corrupt(const std::string& archive, const std::string& member) {
    auto reader = ArchiveReader::Open(archive);
    uint64_t offset = kUnknownOffset;
    for (;;) {
      auto e = (*reader)->Next();
      if (!e.ok() || !*e) break;
      if ((*e)->name == member) offset = (*e)->data_offset + (*e)->size / 2;
    }
    EXPECT_NE(offset, kUnknownOffset);
    std::string bytes = ReadFile(archive);
    bytes[offset] ^= 0x01;
    const std::string out = dir_ + "/corrupt.tar";
    WriteFile(out, bytes);
    return out;
  }

  std::string dir_, marker_, archive_, signed_;
  KeyPair keys_, other_;
  LoadOptions options_;
};

TEST_F(HostLoaderTrustTest, AValidArchiveLoadsItsLibrary) {
  bool loaded = false;
  EXPECT_TRUE(OpenAndCheckMarker(archive_, &loaded).ok());
  EXPECT_TRUE(loaded);
  options_.public_key_pem = keys_.public_pem;
  EXPECT_TRUE(OpenAndCheckMarker(signed_, &loaded).ok());
  EXPECT_TRUE(loaded);
}

TEST_F(HostLoaderTrustTest, WrongDigestOfTheLibraryIsRefusedBeforeLoading) {
  bool loaded = true;
  const std::string bad = Corrupt(archive_, "codegen/host/lib/marker.so");
  Status s = OpenAndCheckMarker(bad, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("member 'codegen/host/lib/marker.so': SHA-256 mismatch"),
            std::string::npos)
      << s.message();
}

TEST_F(HostLoaderTrustTest, WrongDigestOfAnotherMemberIsRefusedBeforeLoading) {
  bool loaded = true;
  Status s = OpenAndCheckMarker(Corrupt(archive_, "codegen/host/src/marker_lib0.c"), &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

TEST_F(HostLoaderTrustTest, WrongSignatureIsRefusedBeforeLoading) {
  options_.public_key_pem = other_.public_pem;
  bool loaded = true;
  Status s = OpenAndCheckMarker(signed_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_NE(s.message().find("signed by a different key"), std::string::npos) << s.message();
}

TEST_F(HostLoaderTrustTest, UnsignedArchiveIsRefusedWhenAKeyIsConfigured) {
  options_.public_key_pem = keys_.public_pem;
  bool loaded = true;
  Status s = OpenAndCheckMarker(archive_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.message(), archive_ +
                             ": archive is not signed (no metadata.json.sig after metadata.json) "
                             "but a signature is required; sign it with `mlf sign`");
}

TEST_F(HostLoaderTrustTest, TamperedMetadataUnderTheRightKeyIsRefusedBeforeLoading) {
  // The same JSON in other bytes (": " becomes " :"), so only the signature
  // can tell; the archive stays a valid tar of the same size.
  std::string bytes = ReadFile(signed_);
  const size_t metadata = bytes.find("{");
  const size_t colon = bytes.find("\": ", metadata);
  ASSERT_NE(colon, std::string::npos);
  bytes.replace(colon + 1, 2, " :");
  const std::string tampered = dir_ + "/tampered.tar";
  WriteFile(tampered, bytes);
  options_.public_key_pem = keys_.public_pem;
  bool loaded = true;
  Status s = OpenAndCheckMarker(tampered, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(s.message(), tampered + ": signature does not match: the signed data or the "
                                    "signature was altered");
  // Without a key the same archive loads: nothing proves who made it.
  options_.public_key_pem.reset();
  EXPECT_TRUE(OpenAndCheckMarker(tampered, &loaded).ok());
  EXPECT_TRUE(loaded);
}

TEST_F(HostLoaderTrustTest, RequireSignatureWithoutKeyRefusesUnsigned) {
  options_.require_signature = true;
  bool loaded = true;
  EXPECT_FALSE(OpenAndCheckMarker(archive_, &loaded).ok());
  EXPECT_FALSE(loaded);
}

// Flips one byte of `path` in place (same inode), then puts its modification
// time back, as a tamperer hiding the change would.
void TamperInPlace(const std::string& path, uint64_t offset) {
  struct stat before {};
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  const int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char byte = 0;
  ASSERT_EQ(pread(fd, &byte, 1, static_cast<off_t>(offset)), 1);
  byte ^= 0x01;
  ASSERT_EQ(pwrite(fd, &byte, 1, static_cast<off_t>(offset)), 1);
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(futimens(fd, times), 0);
  close(fd);
}

TEST_F(HostLoaderTrustTest, TheMemoSkipsRehashingOnlyForTheUnchangedFile) {
  auto first = ModelLibrary::Open(archive_, options_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE((*first)->digests_checked());
  auto second = ModelLibrary::Open(archive_, options_);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE((*second)->digests_checked());

  // The library's bytes change in place and the mtime is restored: the
  // status-change time still differs, so the memo misses and the full check
  // refuses the archive before loading anything.
  auto reader = ArchiveReader::Open(archive_);
  uint64_t offset = kUnknownOffset;
  for (;;) {
    auto e = (*reader)->Next();
    if (!e.ok() || !*e) break;
    if ((*e)->name == "codegen/host/lib/marker.so") offset = (*e)->data_offset + 100;
  }
  ASSERT_NE(offset, kUnknownOffset);
  TamperInPlace(archive_, offset);
  bool loaded = true;
  Status s = OpenAndCheckMarker(archive_, &loaded);
  EXPECT_FALSE(loaded);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
}

TEST_F(HostLoaderTrustTest, TheMemoCanBeTurnedOff) {
  options_.use_verification_memo = false;
  for (int i = 0; i < 2; ++i) {
    auto lib = ModelLibrary::Open(archive_, options_);
    ASSERT_TRUE(lib.ok());
    EXPECT_TRUE((*lib)->digests_checked());
  }
}

TEST_F(HostLoaderTrustTest, TheMemoStillChecksTheSignature) {
  ASSERT_TRUE(ModelLibrary::Open(signed_, options_).ok());  // memo recorded, no key
  options_.public_key_pem = other_.public_pem;
  auto lib = ModelLibrary::Open(signed_, options_);
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace mlf
