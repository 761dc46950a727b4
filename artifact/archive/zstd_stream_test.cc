#include "artifact/archive/zstd_stream.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <string>

#include "artifact/archive/testing/decompression_testing.h"

namespace mlf {
namespace {

// One zstd frame holding `data`, with a content checksum (as `zstd` writes).
std::string Zstd(const std::string& data) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress2(c, &out[0], out.size(), data.data(), data.size());
  EXPECT_FALSE(ZSTD_isError(n));
  ZSTD_freeCCtx(c);
  out.resize(n);
  return out;
}

// A text that needs many output blocks.
std::string Text() {
  std::string s;
  for (int i = 0; s.size() < 4 * ZSTD_DStreamOutSize(); ++i) s += std::to_string(i) + " ";
  return s;
}

using Outcome = testutil::StreamOutcome;

Outcome Decompress(const std::string& zst) {
  return testutil::Decompress<ZstdStream>(zst, ZSTD_DStreamOutSize());
}

TEST(ZstdStreamTest, DecompressesOneFrameAndConcatenatedFrames) {
  const std::string text = Text();
  const std::string one = Zstd(text);
  Outcome o = Decompress(one);
  EXPECT_EQ(o.error, "ok");
  EXPECT_EQ(o.data, text);
  EXPECT_EQ(o.bytes_in, one.size());
  o = Decompress(Zstd("abc") + Zstd(text));
  EXPECT_EQ(o.error, "ok");
  EXPECT_EQ(o.data, "abc" + text);
  // A skippable frame (magic 0x184D2A50, 4-byte length) is skipped.
  o = Decompress(Zstd("abc") + std::string("\x50\x2a\x4d\x18\x03\x00\x00\x00xyz", 11));
  EXPECT_EQ(o.error, "ok");
  EXPECT_EQ(o.data, "abc");
}

TEST(ZstdStreamTest, RefusesTruncationCorruptionAndTrailingBytes) {
  const std::string text = Text();
  const std::string zst = Zstd(text);
  Outcome o = Decompress(zst.substr(0, zst.size() - 1));
  EXPECT_EQ(o.error, "data_loss: Truncated zstd input");
  EXPECT_EQ(o.fault, ZstdStream::Fault::kTruncated);
  o = Decompress(zst.substr(0, 4));
  EXPECT_EQ(o.error, "data_loss: Truncated zstd input");

  std::string bad = zst;
  bad.back() ^= '\xff';  // the content checksum
  o = Decompress(bad);
  EXPECT_EQ(o.error,
            "data_loss: Zstd decompression failed: Restored data doesn't match checksum");
  EXPECT_EQ(o.fault, ZstdStream::Fault::kCorrupt);

  // After the last frame: a byte or zero padding that is no frame is corrupt;
  // the start of a frame's magic number is a truncated frame.
  for (const std::string& tail : {std::string("x"), std::string(512, '\0')}) {
    o = Decompress(zst + tail);
    EXPECT_EQ(o.data, text);
    EXPECT_EQ(o.fault, ZstdStream::Fault::kCorrupt) << tail.size();
  }
  o = Decompress(zst + "\x28\xb5");
  EXPECT_EQ(o.data, text);
  EXPECT_EQ(o.error, "data_loss: Truncated zstd input");
  o = Decompress(zst + "garbage!");
  EXPECT_EQ(o.error, "data_loss: Zstd decompression failed: Unknown frame descriptor");
}

}  // namespace
}  // namespace mlf
