// QLinearAveragePool: the integer rule against the real average it stands
// for, the generated C against evaluate bit for bit (dtypes, zero points,
// windows and strides, a whole-plane window, a clamp), and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/requantize.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

HostTensor Scalar(DType dtype, double v) { return MakeTensor(dtype, {}, {v}); }

// A QLinearAveragePool node as the lowering makes it (kFixedPointAttr set).
void Build(OpTest& t, DType x, DType y, const Shape& shape, float sx, float sy, int zx, int zy,
           const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides) {
  t.Input("x", x, shape);
  t.Constant("x_scale", Scalar(DType::kFloat32, sx));
  t.Constant("x_zero_point", Scalar(x, zx));
  t.Constant("y_scale", Scalar(DType::kFloat32, sy));
  t.Constant("y_zero_point", Scalar(y, zy));
  t.Output("y");
  t.Attr("kernel_shape", kernel);
  if (!strides.empty()) t.Attr("strides", strides);
  t.Attr(quant::kFixedPointAttr, int64_t{1});
}

// 2x2 windows, stride 2, x_scale 0.1, y_scale 0.05, zero points 10 and 3:
// y = 3 + round(2 * mean(x - 10)), ties to even (a power-of-two ratio puts
// values exactly on ties).
TEST(QLinearAveragePool, EvaluatesWithTiesToEven) {
  OpTest t("QLinearAveragePool");
  Build(t, DType::kUInt8, DType::kUInt8, {1, 1, 2, 6}, 0.1f, 0.05f, 10, 3, {2, 2}, {2, 2});
  ASSERT_TRUE(t.Infer().ok());
  // Window 1: 11, 11, 11, 12 -> mean 1.25 -> 2.5 -> 2 (to even) + 3 = 5.
  // Window 2: 10, 10, 10, 11 -> mean 0.25 -> 0.5 -> 0 (to even) + 3 = 3.
  // Window 3: 0, 0, 0, 1 -> mean -9.75 -> -19.5 -> -20 + 3: saturates to 0.
  auto y = t.Evaluate({MakeTensor(DType::kUInt8, {1, 1, 2, 6}, {11, 11, 10, 10, 0, 0, 11, 12, 10, 11, 0, 1})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{5, 3, 0}));
  EXPECT_EQ((*y)[0].shape, (Shape{1, 1, 1, 3}));
}

// Over many windows, the rule is the rounded real average but
// within 2^-20 of a step of a tie (the Q31 multiplier's error on sums of at
// most a few thousand).
TEST(QLinearAveragePool, IsTheRoundedRealAverage) {
  const Shape shape = {1, 3, 7, 7};
  const float sx = 0.0237f, sy = 0.0113f;
  const int zx = 117;
  OpTest t("QLinearAveragePool");
  Build(t, DType::kUInt8, DType::kInt8, shape, sx, sy, zx, 0, {7, 7}, {});
  ASSERT_TRUE(t.Infer().ok());
  const HostTensor x = RandomTensor(DType::kUInt8, shape, 77);
  auto y = t.Evaluate({x});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t c = 0; c < 3; ++c) {
    double sum = 0;
    for (int64_t i = 0; i < 49; ++i) sum += x.GetInt(static_cast<uint64_t>(c * 49 + i)) - zx;
    const double exact = sum * sx / (sy * 49.0);
    ASSERT_GT(std::fabs(exact - std::floor(exact) - 0.5), 1.0 / (1 << 20));
    EXPECT_EQ((*y)[0].GetInt(static_cast<uint64_t>(c)), std::max(-128.0, std::min(127.0, std::floor(exact + 0.5))))
        << exact;
  }
}

TEST(QLinearAveragePool, GeneratedMatchesEvaluate) {
  struct Case {
    DType x, y;
    Shape shape;
    float sx, sy;
    int zx, zy;
    std::vector<int64_t> kernel, strides, clamp;
  };
  const Case cases[] = {
      {DType::kUInt8, DType::kUInt8, {1, 24, 7, 7}, 0.031f, 0.017f, 131, 2, {7, 7}, {}, {}},
      {DType::kInt8, DType::kInt8, {2, 5, 25, 5}, 0.02f, 0.011f, -3, 9, {25, 5}, {25, 5}, {}},
      {DType::kUInt8, DType::kInt8, {1, 3, 9, 8}, 0.5f, 0.3f, 0, -4, {3, 2}, {2, 3}, {}},
      {DType::kInt8, DType::kUInt8, {1, 4, 6, 6}, 0.07f, 0.1f, 5, 0, {2, 2}, {1, 1}, {0, 200}},
      {DType::kUInt8, DType::kUInt8, {0, 3, 4, 4}, 0.1f, 0.1f, 0, 0, {2, 2}, {}, {}},
      // The same scale in and out, 2x2: a ratio of 1/4, a tie in every
      // fourth window or so.
      {DType::kUInt8, DType::kUInt8, {1, 5, 6, 6}, 0.05f, 0.05f, 7, 3, {2, 2}, {2, 2}, {}},
      {DType::kInt8, DType::kInt8, {1, 5, 6, 6}, 0.05f, 0.05f, -7, 3, {2, 2}, {2, 2}, {}},
  };
  uint64_t seed = 1300;
  for (const Case& c : cases) {
    OpTest t("QLinearAveragePool");
    Build(t, c.x, c.y, c.shape, c.sx, c.sy, c.zx, c.zy, c.kernel, c.strides);
    if (!c.clamp.empty()) t.Attr(quant::kClampAttr, c.clamp);
    SCOPED_TRACE(FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.x, c.shape, seed++)});
  }
}

TEST(QLinearAveragePool, Refusals) {
  struct Refusal {
    const char* what;
    Shape shape;
    std::vector<int64_t> kernel, strides;
    float sy;
    bool fixed;
    const char* error;
  };
  const Refusal refusals[] = {
      {"not made by the lowering", {1, 1, 4, 4}, {2, 2}, {}, 0.1f, false, "made by mlfkit's QDQ lowering only"},
      {"3-D input", {1, 4, 4}, {2, 2}, {}, 0.1f, true, "input 0 (x) must be 4-D (NCHW), got shape [1, 4, 4]"},
      {"window too large", {1, 1, 4, 4}, {5, 2}, {}, 0.1f, true, "kernel_shape [5, 2] is larger than the input's [4, 4]"},
      {"one-dimensional kernel", {1, 1, 4, 4}, {2}, {}, 0.1f, true, "kernel_shape must be two positive integers"},
      {"zero stride", {1, 1, 4, 4}, {2, 2}, {0, 1}, 0.1f, true, "strides must be two positive integers"},
      {"zero y_scale", {1, 1, 4, 4}, {2, 2}, {}, 0.0f, true, "input 3 (y_scale) must be positive and finite"},
  };
  for (const Refusal& r : refusals) {
    SCOPED_TRACE(r.what);
    OpTest t("QLinearAveragePool");
    Build(t, DType::kUInt8, DType::kUInt8, r.shape, 0.1f, r.sy, 0, 0, r.kernel, r.strides);
    if (!r.fixed) t.node().attrs.erase(quant::kFixedPointAttr);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find(r.error), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace mlf::ops::testing
