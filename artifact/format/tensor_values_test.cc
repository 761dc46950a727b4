#include "artifact/format/tensor_values.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace mlf {
namespace {

TEST(TensorValuesTest, HalfConversionsAreExactForRepresentableValues) {
  for (float v : {0.0f, 1.0f, -2.5f, 65504.0f, 0.000061035156f, 5.9604645e-08f, 0.099975586f}) {
    EXPECT_EQ(HalfToFloat(FloatToHalf(v)), v) << v;
  }
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7c00);
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(NAN))));
  EXPECT_EQ(FloatToHalf(1.0009765625f), 0x3c01);  // one ulp above 1
  EXPECT_EQ(FloatToHalf(2047.5f), 0x6800);         // rounding carries into the exponent
}

TEST(TensorValuesTest, ReadWriteEveryDtype) {
  for (DType d : kAllDTypes) {
    std::vector<uint64_t> storage(4);
    WriteElement(d, storage.data(), 2, 3.0);
    EXPECT_EQ(ReadElement(d, storage.data(), 2), d == DType::kBool ? 1.0 : 3.0) << DTypeName(d);
  }
}

TEST(TensorValuesTest, IntegersSaturate) {
  int8_t v[1];
  WriteElement(DType::kInt8, v, 0, 1000);
  EXPECT_EQ(v[0], 127);
  WriteElement(DType::kInt8, v, 0, -1000);
  EXPECT_EQ(v[0], -128);
  uint8_t u[1];
  WriteElement(DType::kUInt8, u, 0, -3);
  EXPECT_EQ(u[0], 0);
}

TEST(TensorValuesTest, RandomFillIsReproducibleAndInRange) {
  std::vector<float> a(1000), b(1000);
  FillRandom(DType::kFloat32, a.data(), a.size(), 7);
  FillRandom(DType::kFloat32, b.data(), b.size(), 7);
  EXPECT_EQ(a, b);
  for (float v : a) {
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
  }
  FillRandom(DType::kFloat32, b.data(), b.size(), 8);
  EXPECT_NE(a, b);
  std::vector<int32_t> ints(1000);
  FillRandom(DType::kInt32, ints.data(), ints.size(), 1);
  for (int32_t v : ints) {
    EXPECT_GE(v, -10);
    EXPECT_LE(v, 10);
  }
}

TEST(TensorValuesTest, Format) {
  EXPECT_EQ(FormatElement(DType::kFloat32, 0.1f), "0.100000001");
  EXPECT_EQ(FormatElement(DType::kInt64, -42), "-42");
}

}  // namespace
}  // namespace mlf
