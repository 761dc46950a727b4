#include "artifact/format/dtype.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mlf {
namespace {

TEST(DTypeTest, EveryNameRoundTripsThroughParse) {
  for (DType t : kAllDTypes) {
    Result<DType> parsed = ParseDType(DTypeName(t));
    ASSERT_TRUE(parsed.ok()) << DTypeName(t);
    EXPECT_EQ(*parsed, t);
  }
}

TEST(DTypeTest, NamesAndSizes) {
  const std::vector<std::pair<std::string, size_t>> expected = {
      {"bool", 1},    {"int8", 1},    {"int16", 2},   {"int32", 4},     {"int64", 8},
      {"uint8", 1},   {"uint16", 2},  {"uint32", 4},  {"uint64", 8},    {"float16", 2},
      {"bfloat16", 2}, {"float32", 4}, {"float64", 8},
  };
  ASSERT_EQ(std::size(kAllDTypes), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(DTypeName(kAllDTypes[i]), expected[i].first);
    EXPECT_EQ(DTypeSize(kAllDTypes[i]), expected[i].second) << expected[i].first;
  }
}

TEST(DTypeTest, UnknownNameListsAcceptedNames) {
  Result<DType> r = ParseDType("float");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "unknown dtype 'float' (expected one of: bool, int8, int16, int32, int64, "
            "uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64)");
  EXPECT_FALSE(ParseDType("Float32").ok());
  EXPECT_FALSE(ParseDType("").ok());
}

TEST(DTypeTest, DLPackCodes) {
  auto expect = [](DType t, uint8_t code, uint8_t bits) {
    DLDataType d = ToDLPack(t);
    EXPECT_EQ(d.code, code) << DTypeName(t);
    EXPECT_EQ(d.bits, bits) << DTypeName(t);
    EXPECT_EQ(d.lanes, 1) << DTypeName(t);
  };
  expect(DType::kBool, kDLUInt, 1);
  expect(DType::kInt8, kDLInt, 8);
  expect(DType::kInt64, kDLInt, 64);
  expect(DType::kUInt16, kDLUInt, 16);
  expect(DType::kFloat16, kDLFloat, 16);
  expect(DType::kBFloat16, kDLBfloat, 16);
  expect(DType::kFloat64, kDLFloat, 64);
}

TEST(DTypeTest, DLPackRoundTripsForEveryDType) {
  for (DType t : kAllDTypes) {
    Result<DType> back = FromDLPack(ToDLPack(t));
    ASSERT_TRUE(back.ok()) << DTypeName(t) << ": " << back.status().ToString();
    EXPECT_EQ(*back, t);
  }
}

TEST(DTypeTest, NewerDLPackBoolIsAccepted) {
  Result<DType> r = FromDLPack(DLDataType{6, 8, 1});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, DType::kBool);
}

TEST(DTypeTest, VectorDLPackTypeIsRefused) {
  Result<DType> r = FromDLPack(DLDataType{kDLFloat, 32, 4});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "vector DLPack dtype (code 2, bits 32, lanes 4) is not supported; lanes must be 1");
}

TEST(DTypeTest, UnsupportedDLPackTypeIsRefused) {
  Result<DType> r = FromDLPack(DLDataType{kDLFloat, 8, 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "unsupported DLPack dtype (code 2, bits 8, lanes 1)");
  EXPECT_EQ(FromDLPack(DLDataType{kDLComplex, 64, 1}).status().message(),
            "unsupported DLPack dtype (code 5, bits 64, lanes 1)");
}

TEST(DTypeTest, FormatShape) {
  EXPECT_EQ(FormatShape({}), "[]");
  EXPECT_EQ(FormatShape({7}), "[7]");
  EXPECT_EQ(FormatShape({1, 28, 28, 1}), "[1, 28, 28, 1]");
}

TEST(DTypeTest, ElementCount) {
  EXPECT_EQ(*ElementCount({}), 1u);
  EXPECT_EQ(*ElementCount({10, 784}), 7840u);
  EXPECT_EQ(*ElementCount({3, 0, 5}), 0u);
  // Zero wins even when the other dimensions alone would overflow.
  EXPECT_EQ(*ElementCount({INT64_MAX, INT64_MAX, 0}), 0u);
}

TEST(DTypeTest, NegativeDimensionIsRefused) {
  Result<uint64_t> r = ElementCount({2, -1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "shape [2, -1]: dimension 1 is negative");
}

TEST(DTypeTest, ElementCountOverflowIsRefused) {
  Result<uint64_t> r = ElementCount({INT64_MAX, 3});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(),
            "shape [9223372036854775807, 3]: element count overflows 64 bits");
  // 2^32 * 2^32 is exactly 2^64: one past the largest uint64.
  EXPECT_FALSE(ElementCount({int64_t{1} << 32, int64_t{1} << 32}).ok());
  EXPECT_TRUE(ElementCount({int64_t{1} << 32, (int64_t{1} << 32) - 1}).ok());
}

TEST(DTypeTest, ByteSize) {
  EXPECT_EQ(*ByteSize(DType::kFloat32, {10, 784}), 31360u);
  EXPECT_EQ(*ByteSize(DType::kBool, {3}), 3u);
  EXPECT_EQ(*ByteSize(DType::kInt64, {}), 8u);
  EXPECT_EQ(*ByteSize(DType::kFloat64, {0}), 0u);
}

TEST(DTypeTest, ByteSizeOverflowIsRefused) {
  Result<uint64_t> r = ByteSize(DType::kFloat64, {INT64_MAX});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(),
            "float64 [9223372036854775807]: byte size overflows 64 bits");
  EXPECT_EQ(ByteSize(DType::kInt8, {-4}).status().message(),
            "shape [-4]: dimension 0 is negative");
}

// ---- DTypeValue ----

TEST(DTypeValueTest, EveryKnownNameRoundTripsThroughReadAndToString) {
  for (DType t : kAllDTypes) {
    const DTypeValue v = DTypeValue::Read(DTypeName(t));
    ASSERT_TRUE(v.known().has_value()) << DTypeName(t);
    EXPECT_EQ(*v.known(), t);
    EXPECT_TRUE(v == t);
    EXPECT_TRUE(v == DTypeValue(t));
    EXPECT_EQ(v.text(), "");
    EXPECT_TRUE(v.stated());
    EXPECT_EQ(ToString(v), DTypeName(t));
    EXPECT_TRUE(DTypeValue::Read(ToString(v)) == v);
  }
}

TEST(DTypeValueTest, UnknownTextIsKeptAndRoundTrips) {
  for (const std::string text : {"float32x4", "custom[posit]32", "int4", "Float32", "float"}) {
    const DTypeValue v = DTypeValue::Read(text);
    EXPECT_FALSE(v.known().has_value()) << text;
    EXPECT_TRUE(v.stated()) << text;
    EXPECT_EQ(v.text(), text);
    EXPECT_EQ(ToString(v), text);
    EXPECT_TRUE(DTypeValue::Read(ToString(v)) == v) << text;
    for (DType t : kAllDTypes) EXPECT_TRUE(v != t) << text << " vs " << DTypeName(t);
  }
  EXPECT_TRUE(DTypeValue::Read("int4") != DTypeValue::Read("uint4"));
}

TEST(DTypeValueTest, KnownGivesTheDTypeOrTheParseError) {
  Result<DType> known = DTypeValue(DType::kInt8).Known();
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  EXPECT_EQ(*known, DType::kInt8);

  Result<DType> unknown = DTypeValue::Read("float32x4").Known();
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "unknown dtype 'float32x4' (expected one of: bool, int8, int16, int32, int64, "
            "uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64)");
}

TEST(DTypeValueTest, DefaultIsNotStated) {
  const DTypeValue none;
  EXPECT_FALSE(none.stated());
  EXPECT_FALSE(none.known().has_value());
  EXPECT_EQ(ToString(none), "");
  EXPECT_TRUE(DTypeValue::Read("") == none);
  Result<DType> r = none.Known();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "no dtype stated");
}

}  // namespace
}  // namespace mlf
