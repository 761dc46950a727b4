#include "artifact/archive/gzip_stream.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "artifact/archive/testing/decompression_testing.h"

namespace mlf {
namespace {

// One gzip member holding `data` (zlib writes the header and trailer).
std::string Gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(&out[0]);
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A text that needs several output buffers.
std::string Text() {
  std::string s;
  for (int i = 0; s.size() < 3 * GzipStream::kBufferSize; ++i) s += std::to_string(i) + " ";
  return s;
}

using Outcome = testutil::StreamOutcome;

Outcome Decompress(const std::string& gz) {
  return testutil::Decompress<GzipStream>(gz, GzipStream::kBufferSize);
}

TEST(GzipStreamTest, DecompressesAndCounts) {
  const std::string text = Text();
  const std::string gz = Gzip(text);
  Outcome o = Decompress(gz);
  EXPECT_EQ(o.error, "ok");
  EXPECT_EQ(o.data, text);
  EXPECT_EQ(o.bytes_in, gz.size());
  EXPECT_EQ(Decompress(Gzip("")).error, "ok");
}

TEST(GzipStreamTest, ConcatenatedMembersAreOneStream) {
  const std::string text = Text();
  const std::string gz = Gzip(text.substr(0, 1000)) + Gzip("") + Gzip(text.substr(1000));
  Outcome o = Decompress(gz);
  EXPECT_EQ(o.error, "ok");
  EXPECT_EQ(o.data, text);
  EXPECT_EQ(o.bytes_in, gz.size());
}

TEST(GzipStreamTest, ZeroPaddingIsAcceptedOtherTrailingBytesAreNot) {
  const std::string gz = Gzip("hello");
  Outcome padded = Decompress(gz + std::string(10240 - gz.size(), '\0'));
  EXPECT_EQ(padded.error, "ok");
  EXPECT_EQ(padded.data, "hello");
  EXPECT_EQ(padded.bytes_in, 10240u);
  const std::string refused = "data_loss: trailing bytes after the gzip stream";
  for (const std::string& tail : {std::string("garbage"), std::string("\x1f"),
                                  std::string("\x1f\x8c"), std::string("\0\0\0x", 4)}) {
    Outcome o = Decompress(gz + tail);
    EXPECT_EQ(o.error, refused) << tail;
    EXPECT_EQ(o.fault, GzipStream::Fault::kCorrupt);
    EXPECT_EQ(o.data, "hello");  // delivered before the error
  }
}

TEST(GzipStreamTest, TrailerIsChecked) {
  const std::string text = Text();
  const std::string gz = Gzip(text);
  std::string crc = gz;
  crc[crc.size() - 8] ^= 0x01;
  Outcome o = Decompress(crc);
  EXPECT_EQ(o.error, "data_loss: CRC-32 mismatch in the gzip trailer");
  EXPECT_EQ(o.fault, GzipStream::Fault::kCorrupt);
  EXPECT_EQ(o.data, text);  // all of it: the error comes after the data
  std::string isize = gz;
  isize[isize.size() - 2] ^= 0x01;
  EXPECT_EQ(Decompress(isize).error, "data_loss: ISIZE (length) mismatch in the gzip trailer");
  // A bad trailer on a first member is found before the second is read.
  std::string first = Gzip("a");
  first[first.size() - 4] ^= 0x01;
  EXPECT_EQ(Decompress(first + Gzip("b")).error,
            "data_loss: ISIZE (length) mismatch in the gzip trailer");
}

TEST(GzipStreamTest, TruncationAndCorruption) {
  const std::string text = Text();
  const std::string gz = Gzip(text);
  for (size_t cut : {size_t{8}, size_t{4}, size_t{1}, gz.size() / 2, gz.size() - 5}) {
    Outcome o = Decompress(gz.substr(0, gz.size() - cut));
    EXPECT_EQ(o.error, "data_loss: truncated gzip input") << cut;
    EXPECT_EQ(o.fault, GzipStream::Fault::kTruncated);
  }
  std::string bad = gz;
  bad[10] = '\xff';  // the first deflate block: reserved type
  Outcome o = Decompress(bad);
  EXPECT_EQ(o.error, "data_loss: gzip decompression failed");
  EXPECT_TRUE(o.data.empty());
  std::string method = gz;
  method[2] = 7;  // compression method other than deflate
  EXPECT_EQ(Decompress(method).error, "data_loss: bad gzip header: unknown compression method");
}

}  // namespace
}  // namespace mlf
