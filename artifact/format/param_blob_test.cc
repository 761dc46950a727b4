#include "artifact/format/param_blob.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mlf {
namespace {

ParamTensor Entry(std::string name, DType dtype, std::vector<int64_t> shape,
                  uint64_t offset) {
  ParamTensor t{std::move(name), dtype, std::move(shape), offset, 0};
  t.size_bytes = *ByteSize(t.dtype, t.shape);
  return t;
}

std::string ValidationError(const std::vector<ParamTensor>& index, uint64_t blob_size) {
  Status s = ValidateParamIndex(index, blob_size);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  return s.message();
}

TEST(ParamBlobBuilderTest, LaysOutTensorsAlignedWithZeroGaps) {
  ParamBlobBuilder b;
  ASSERT_TRUE(b.Add("a", DType::kInt8, {3}, "xyz").ok());
  ASSERT_TRUE(b.Add("b", DType::kFloat32, {2}, std::string(8, '\x01')).ok());
  ASSERT_TRUE(b.Add("scalar", DType::kInt64, {}, std::string(8, '\x02')).ok());
  ASSERT_TRUE(b.Add("empty", DType::kFloat32, {0, 4}, "").ok());

  const std::vector<ParamTensor>& index = b.index();
  ASSERT_EQ(index.size(), 4u);
  EXPECT_EQ(index[0].offset, 0u);
  EXPECT_EQ(index[0].size_bytes, 3u);
  EXPECT_EQ(index[1].offset, 64u);
  EXPECT_EQ(index[1].size_bytes, 8u);
  EXPECT_EQ(index[2].offset, 128u);
  EXPECT_EQ(index[2].shape, std::vector<int64_t>{});
  EXPECT_EQ(index[3].offset, 192u);
  EXPECT_EQ(index[3].size_bytes, 0u);
  EXPECT_EQ(b.size(), 192u);

  Result<std::string> blob = b.Finish();
  ASSERT_TRUE(blob.ok());
  ASSERT_EQ(blob->size(), 192u);
  EXPECT_EQ(blob->substr(0, 3), "xyz");
  EXPECT_EQ(blob->substr(3, 61), std::string(61, '\0'));
  EXPECT_EQ(blob->substr(64, 8), std::string(8, '\x01'));
  EXPECT_EQ(blob->substr(128, 8), std::string(8, '\x02'));
  EXPECT_EQ(blob->substr(136, 56), std::string(56, '\0'));
  EXPECT_TRUE(ValidateParamIndex(b.index(), blob->size()).ok());
  EXPECT_EQ(b.size(), 192u);
}

TEST(ParamBlobBuilderTest, EmptyBuilderGivesEmptyBlob) {
  ParamBlobBuilder b;
  Result<std::string> blob = b.Finish();
  ASSERT_TRUE(blob.ok());
  EXPECT_TRUE(blob->empty());
  EXPECT_TRUE(ValidateParamIndex({}, 0).ok());
}

TEST(ParamBlobBuilderTest, RefusesBadTensorsAndStaysUnchanged) {
  ParamBlobBuilder b;
  ASSERT_TRUE(b.Add("w", DType::kInt8, {2}, "ab").ok());
  EXPECT_EQ(b.Add("", DType::kInt8, {1}, "a").message(), "parameter name is empty");
  EXPECT_EQ(b.Add("w", DType::kInt8, {1}, "a").message(), "parameter 'w' is added twice");
  EXPECT_EQ(b.Add("v", DType::kFloat32, {2, 3}, "abc").message(),
            "parameter 'v': 3 bytes given but float32 [2, 3] needs 24");
  EXPECT_EQ(b.Add("n", DType::kInt8, {-2}, "").message(),
            "parameter 'n': shape [-2]: dimension 0 is negative");
  EXPECT_EQ(b.index().size(), 1u);
  EXPECT_EQ(b.size(), 2u);
}

TEST(ParamBlobBuilderTest, FinishIsOnce) {
  ParamBlobBuilder b;
  ASSERT_TRUE(b.Finish().ok());
  Result<std::string> again = b.Finish();
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(b.Add("w", DType::kInt8, {1}, "a").code(), StatusCode::kFailedPrecondition);
}

TEST(ValidateParamIndexTest, DesignExampleIsValid) {
  EXPECT_TRUE(ValidateParamIndex({Entry("w0", DType::kFloat32, {10, 784}, 0)}, 31360).ok());
}

TEST(ValidateParamIndexTest, EmptyName) {
  EXPECT_EQ(ValidationError({Entry("a", DType::kInt8, {1}, 0),
                             Entry("", DType::kInt8, {1}, 64)},
                            65),
            "parameter 1: name is empty");
}

TEST(ValidateParamIndexTest, UnalignedOffset) {
  EXPECT_EQ(ValidationError({Entry("w0", DType::kInt8, {1}, 70)}, 100),
            "parameter 'w0': offset 70 is not 64-byte aligned");
}

TEST(ValidateParamIndexTest, SizeMismatch) {
  ParamTensor t = Entry("w0", DType::kFloat32, {10, 784}, 0);
  t.size_bytes = 100;
  EXPECT_EQ(ValidationError({t}, 31360),
            "parameter 'w0': size_bytes 100 does not match float32 [10, 784] (31360 bytes)");
}

TEST(ValidateParamIndexTest, BadShape) {
  ParamTensor t{"w0", DType::kInt8, {4, -1}, 0, 0};
  EXPECT_EQ(ValidationError({t}, 0), "parameter 'w0': shape [4, -1]: dimension 1 is negative");
  ParamTensor huge{"h", DType::kInt8, {INT64_MAX, 4}, 0, 0};
  EXPECT_EQ(ValidationError({huge}, 0),
            "parameter 'h': shape [9223372036854775807, 4]: element count overflows 64 bits");
}

TEST(ValidateParamIndexTest, PastTheEnd) {
  EXPECT_EQ(ValidationError({Entry("w0", DType::kFloat32, {10, 784}, 0)}, 31000),
            "parameter 'w0': bytes [0, 31360) extend past the end of the blob (31000 bytes)");
}

TEST(ValidateParamIndexTest, OffsetPlusSizeOverflows) {
  const uint64_t offset = UINT64_MAX - 63;  // a multiple of 64
  EXPECT_EQ(ValidationError({Entry("w0", DType::kInt8, {128}, offset)}, 1000),
            "parameter 'w0': offset 18446744073709551552 plus size 128 overflows 64 bits");
}

TEST(ValidateParamIndexTest, DuplicateNames) {
  EXPECT_EQ(ValidationError({Entry("a", DType::kInt8, {1}, 0),
                             Entry("b", DType::kInt8, {1}, 64),
                             Entry("a", DType::kInt8, {1}, 128)},
                            129),
            "parameter 'a' appears twice (entries 0 and 2)");
}

TEST(ValidateParamIndexTest, Overlap) {
  // Listed out of offset order: the message still names the lower one first.
  EXPECT_EQ(ValidationError({Entry("b", DType::kInt8, {128}, 64),
                             Entry("a", DType::kInt8, {128}, 0)},
                            192),
            "parameters 'a' and 'b' overlap: [0, 128) and [64, 192)");
}

TEST(ValidateParamIndexTest, OverlapHiddenBehindASmallNeighbour) {
  EXPECT_EQ(ValidationError({Entry("big", DType::kInt8, {512}, 0),
                             Entry("small", DType::kInt8, {1}, 64),
                             Entry("late", DType::kInt8, {1}, 256)},
                            512),
            "parameters 'big' and 'small' overlap: [0, 512) and [64, 65)");
}

TEST(ValidateParamIndexTest, EmptyTensorsNeverOverlap) {
  EXPECT_TRUE(ValidateParamIndex({Entry("a", DType::kInt8, {64}, 0),
                                  Entry("e", DType::kInt8, {0}, 0),
                                  Entry("end", DType::kInt8, {0}, 64)},
                                 64)
                  .ok());
}

TEST(ValidateParamIndexTest, SameOffsetIsOverlap) {
  EXPECT_EQ(ValidationError({Entry("a", DType::kInt8, {1}, 0),
                             Entry("b", DType::kInt8, {1}, 0)},
                            1),
            "parameters 'a' and 'b' overlap: [0, 1) and [0, 1)");
}

}  // namespace
}  // namespace mlf
