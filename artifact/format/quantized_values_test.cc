#include "artifact/format/quantized_values.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace mlf {
namespace {

std::string Floats(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

std::vector<float> AsFloats(const std::string& bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

QuantizationInfo PerTensor(double scale, int64_t zero_point) {
  QuantizationInfo q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  return q;
}

TEST(QuantizedValuesTest, QuantizesRoundingHalfToEvenAndSaturates) {
  // x / 0.5: 0.5, 1.5, 2.5 and -2.5 are ties, 1000 and -1000 saturate.
  const std::string bytes = Floats({0.25f, 0.75f, 1.25f, -1.25f, 500.0f, -500.0f, 0.3f});
  Result<std::string> q = QuantizeFloat32(bytes, {7}, DType::kInt8, PerTensor(0.5, -3));
  ASSERT_TRUE(q.ok()) << q.status().message();
  const std::vector<int8_t> want = {-3, -1, -1, -5, 127, -128, -2};
  EXPECT_EQ(std::vector<int8_t>(q->begin(), q->end()), want);
}

TEST(QuantizedValuesTest, Uint8RoundTrip) {
  const QuantizationInfo q = PerTensor(0.1, 128);
  Result<std::string> bytes = QuantizeFloat32(Floats({-12.8f, 0.0f, 1.0f, 12.7f}), {2, 2},
                                              DType::kUInt8, q);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(std::vector<uint8_t>(bytes->begin(), bytes->end()),
            (std::vector<uint8_t>{0, 128, 138, 255}));
  Result<std::string> back = DequantizeToFloat32(*bytes, {2, 2}, DType::kUInt8, q);
  ASSERT_TRUE(back.ok()) << back.status().message();
  const std::vector<float> values = AsFloats(*back);
  ASSERT_EQ(values.size(), 4u);
  EXPECT_FLOAT_EQ(values[0], -12.8f);
  EXPECT_FLOAT_EQ(values[1], 0.0f);
  EXPECT_FLOAT_EQ(values[2], 1.0f);
  EXPECT_FLOAT_EQ(values[3], 12.7f);
}

TEST(QuantizedValuesTest, PerAxisUsesEachIndexsParameters) {
  QuantizationInfo q;
  q.scale = {1.0, 0.5};
  q.zero_point = {0, 10};
  q.axis = 1;
  // shape [2,2,2]: element (a,c,b) takes channel c.
  const std::string bytes = Floats({1, 2, 1, 2, 3, 4, 3, 4});
  Result<std::string> out = QuantizeFloat32(bytes, {2, 2, 2}, DType::kInt16, q);
  ASSERT_TRUE(out.ok()) << out.status().message();
  std::vector<int16_t> got(8);
  std::memcpy(got.data(), out->data(), out->size());
  EXPECT_EQ(got, (std::vector<int16_t>{1, 2, 12, 14, 3, 4, 16, 18}));
  Result<std::string> back = DequantizeToFloat32(*out, {2, 2, 2}, DType::kInt16, q);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(AsFloats(*back), (std::vector<float>{1, 2, 1, 2, 3, 4, 3, 4}));
}

TEST(QuantizedValuesTest, RefusesWhatCannotBeQuantized) {
  const std::string four = Floats({1, 2, 3, 4});
  EXPECT_EQ(QuantizeFloat32(four, {4}, DType::kFloat32, PerTensor(1, 0)).status().message(),
            "float32 does not hold quantized values (int8, uint8, int16, uint16 or int32 do)");
  EXPECT_EQ(QuantizeFloat32(four, {5}, DType::kInt8, PerTensor(1, 0)).status().message(),
            "holds 16 bytes where 5 float32 elements take 20");
  QuantizationInfo q;
  q.scale = {1, 1, 1};
  q.zero_point = {0, 0, 0};
  EXPECT_EQ(QuantizeFloat32(four, {4}, DType::kInt8, q).status().message(), "3 scales but no axis");
  q.axis = 0;
  EXPECT_EQ(QuantizeFloat32(four, {4}, DType::kInt8, q).status().message(),
            "3 scales for the 4 indices of axis 0");
  q.axis = 2;
  EXPECT_EQ(DequantizeToFloat32("abcd", {4}, DType::kInt8, q).status().message(),
            "quantization axis 2 is outside shape [4]");
  q.zero_point = {0};
  EXPECT_EQ(DequantizeToFloat32("abcd", {4}, DType::kInt8, q).status().message(),
            "the quantization has 3 scales and 1 zero points");
}

TEST(QuantizedValuesTest, Describes) {
  EXPECT_EQ(DescribeQuantization(PerTensor(0.25, -3)), "scale 0.25, zero point -3");
  QuantizationInfo q;
  q.scale = {1, 2};
  q.zero_point = {0, 0};
  q.axis = 0;
  EXPECT_EQ(DescribeQuantization(q), "2 scales along axis 0");
}

}  // namespace
}  // namespace mlf
