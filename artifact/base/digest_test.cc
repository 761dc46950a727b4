#include "artifact/base/digest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace mlf {
namespace {

// FIPS 180-2 / NIST example vectors.
constexpr char kEmpty[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kAbc[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr char kTwoBlock[] = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr char kMillionA[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

TEST(DigestTest, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), kEmpty);
  EXPECT_EQ(Sha256Hex("abc"), kAbc);
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), kTwoBlock);
  EXPECT_EQ(Sha256Hex(std::string(1000000, 'a')), kMillionA);
}

TEST(DigestTest, StreamingEqualsOneShotAndResetsAfterFinish) {
  Sha256 h;
  const std::string a(1000000, 'a');
  for (size_t i = 0; i < a.size(); i += 777)
    h.Update(a.data() + i, std::min<size_t>(777, a.size() - i));
  EXPECT_EQ(h.FinishHex(), kMillionA);
  h.Update("abc");
  EXPECT_EQ(h.FinishHex(), kAbc);
  EXPECT_EQ(h.FinishHex(), kEmpty);
}

TEST(DigestTest, MovedHasherKeepsState) {
  Sha256 a;
  a.Update("ab");
  Sha256 b = std::move(a);
  b.Update("c");
  EXPECT_EQ(b.FinishHex(), kAbc);
}

TEST(DigestTest, HexEncode) {
  const uint8_t bytes[] = {0x00, 0x0f, 0xa5, 0xff};
  EXPECT_EQ(HexEncode(bytes, 4), "000fa5ff");
}

TEST(DigestTest, FileDigestAndMissingFile) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string path = dir + "/million_a";
  std::ofstream(path, std::ios::binary) << std::string(1000000, 'a');
  Result<std::string> d = Sha256OfFile(path);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(*d, kMillionA);

  Result<std::string> missing = Sha256OfFile(dir + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("cannot open '" + dir + "/nope'"), std::string::npos);
}

}  // namespace
}  // namespace mlf
