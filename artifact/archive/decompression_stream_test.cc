#include "artifact/archive/decompression_stream.h"

#include <gtest/gtest.h>

#include <string>

namespace mlf {
namespace {

// Hands out "abc" once, then fails with `fault` (kNone: ends cleanly).
class OneChunkStream : public DecompressionStream {
 public:
  explicit OneChunkStream(Fault fault) : end_fault_(fault) {}

  Status Read(const void** data, size_t* size) override {
    *data = chunk_.data();
    *size = 0;
    if (!error().ok()) return error();
    if (!sent_) {
      sent_ = true;
      CountIn(2);
      *size = chunk_.size();
      CountOut(*size);
      return Status::Ok();
    }
    if (end_fault_ == Fault::kNone) return Status::Ok();
    return Failed(end_fault_, DataLoss("bad byte"));
  }

 private:
  const std::string chunk_ = "abc";
  const Fault end_fault_;
  bool sent_ = false;
};

TEST(DecompressionStreamTest, StartsWithoutFaultOrCounts) {
  OneChunkStream s(DecompressionStream::Fault::kCorrupt);
  EXPECT_EQ(s.fault(), DecompressionStream::Fault::kNone);
  EXPECT_TRUE(s.error().ok());
  EXPECT_EQ(s.bytes_in(), 0u);
  EXPECT_EQ(s.bytes_out(), 0u);
}

// The chunk of a OneChunkStream, and what the Read after it returns.
struct ChunkThenNext {
  std::string chunk;
  Status next;
  size_t next_size = 1;
};

ChunkThenNext ReadChunkThenNext(DecompressionStream* s) {
  ChunkThenNext r;
  const void* data = nullptr;
  size_t size = 0;
  EXPECT_TRUE(s->Read(&data, &size).ok());
  r.chunk.assign(static_cast<const char*>(data), size);
  r.next = s->Read(&data, &size);
  r.next_size = size;
  return r;
}

TEST(DecompressionStreamTest, FailedKeepsTheFaultAndTheError) {
  OneChunkStream s(DecompressionStream::Fault::kTruncated);
  const ChunkThenNext r = ReadChunkThenNext(&s);
  EXPECT_EQ(r.chunk, "abc");
  EXPECT_EQ(r.next.ToString(), "data_loss: bad byte");
  EXPECT_EQ(r.next_size, 0u);
  EXPECT_EQ(s.fault(), DecompressionStream::Fault::kTruncated);
  EXPECT_EQ(s.error().ToString(), "data_loss: bad byte");
  EXPECT_EQ(s.bytes_in(), 2u);
  EXPECT_EQ(s.bytes_out(), 3u);
}

TEST(DecompressionStreamTest, CleanEndLeavesNoFault) {
  OneChunkStream s(DecompressionStream::Fault::kNone);
  const ChunkThenNext r = ReadChunkThenNext(&s);
  EXPECT_EQ(r.chunk, "abc");
  EXPECT_TRUE(r.next.ok());
  EXPECT_EQ(r.next_size, 0u);
  EXPECT_EQ(s.fault(), DecompressionStream::Fault::kNone);
  EXPECT_TRUE(s.error().ok());
}

}  // namespace
}  // namespace mlf
