// No code from an archive runs before the archive has passed verification:
// the "marker" fixture's library writes a file from its constructor, so the
// file's existence tells whether dlopen happened.
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

TEST_F(HostLoaderTrustTest, RequireSignatureWithoutKeyRefusesUnsigned) {
  options_.require_signature = true;
  bool loaded = true;
  EXPECT_FALSE(OpenAndCheckMarker(archive_, &loaded).ok());
  EXPECT_FALSE(loaded);
}

}  // namespace
}  // namespace mlf
