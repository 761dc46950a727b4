// QLinearAdd: the integer rule against the real sum it stands for, the
// generated C against evaluate bit for bit (dtypes, zero points, scales of
// both orders, a clamp), and the refusals.
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

// A QLinearAdd node as the lowering makes it (kFixedPointAttr set).
void Build(OpTest& t, DType a, DType b, DType y, const Shape& shape, float sa, float sb, float sy, int za, int zb,
           int zy) {
  t.Input("a", a, shape);
  t.Constant("a_scale", Scalar(DType::kFloat32, sa));
  t.Constant("a_zero_point", Scalar(a, za));
  t.Input("b", b, shape);
  t.Constant("b_scale", Scalar(DType::kFloat32, sb));
  t.Constant("b_zero_point", Scalar(b, zb));
  t.Constant("y_scale", Scalar(DType::kFloat32, sy));
  t.Constant("y_zero_point", Scalar(y, zy));
  t.Output("y");
  t.Attr(quant::kFixedPointAttr, int64_t{1});
}

// Over pairs of zero-point-adjusted inputs, the rule is the rounded real
// sum (ties up) except within 255 * 2^-shift of a step of a tie.
TEST(QLinearAddRule, IsTheRoundedRealSum) {
  const float scales[][3] = {{0.05f, 0.02f, 0.04f}, {0.013f, 0.031f, 0.0071f}, {0.2f, 0.2f, 0.4f},
                             {1e-4f, 3e-4f, 0.5f}, {0.9f, 0.01f, 0.0036f}};
  for (const auto& s : scales) {
    quant::AddRule r;
    ASSERT_TRUE(quant::MakeAddRule(s[0], s[1], s[2], &r));
    EXPECT_GE(r.shift, 13);
    EXPECT_LE(std::max(r.ma, r.mb), 1 << 21);
    for (int da = -255; da <= 255; da += 3) {
      for (int db = -255; db <= 255; db += 5) {
        const double exact = (static_cast<double>(s[0]) * da + static_cast<double>(s[1]) * db) / s[2];
        const double got = quant::AddFixed(da, db, r);
        if (std::fabs(exact - std::floor(exact) - 0.5) <= 255.0 / (1 << r.shift)) {
          EXPECT_TRUE(got == std::floor(exact) || got == std::floor(exact) + 1) << exact;
        } else {
          EXPECT_EQ(got, std::floor(exact + 0.5)) << da << " " << db;
        }
      }
    }
  }
}

TEST(QLinearAddRule, RefusesRatiosAbove256AndNonPositiveScales) {
  quant::AddRule r;
  EXPECT_FALSE(quant::MakeAddRule(1.0f, 0.001f, 0.001f, &r));  // a step worth 1000 output steps
  EXPECT_FALSE(quant::MakeAddRule(0.0f, 0.1f, 0.1f, &r));
  EXPECT_FALSE(quant::MakeAddRule(0.1f, 0.1f, INFINITY, &r));
  EXPECT_TRUE(quant::MakeAddRule(0.256f, 0.001f, 0.001f, &r));
  EXPECT_EQ(r.shift, 13);
}

TEST(QLinearAdd, Evaluates) {
  OpTest t("QLinearAdd");
  Build(t, DType::kUInt8, DType::kUInt8, DType::kUInt8, {4}, 0.5f, 0.25f, 1.0f, 10, 20, 3);
  ASSERT_TRUE(t.Infer().ok());
  // 0.5 * (a - 10) + 0.25 * (b - 20) + 3: 0 + 3, 10 + 3, -10 + 3 (saturates), 2.5 (tie up) + 3
  auto y = t.Evaluate({MakeTensor(DType::kUInt8, {4}, {10, 20, 0, 15}),
                       MakeTensor(DType::kUInt8, {4}, {20, 40, 0, 20})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{3, 13, 0, 6}));
  EXPECT_EQ((*y)[0].dtype, DType::kUInt8);
}

TEST(QLinearAdd, GeneratedMatchesEvaluate) {
  struct Case {
    DType a, b, y;
    Shape shape;
    float sa, sb, sy;
    int za, zb, zy;
    std::vector<int64_t> clamp;
  };
  const Case cases[] = {
      {DType::kUInt8, DType::kUInt8, DType::kUInt8, {1, 24, 7, 7}, 0.031f, 0.047f, 0.052f, 131, 117, 125, {}},
      {DType::kInt8, DType::kInt8, DType::kInt8, {3, 17}, 0.02f, 0.011f, 0.03f, -3, 9, -1, {}},
      {DType::kUInt8, DType::kInt8, DType::kInt8, {33}, 0.5f, 0.003f, 0.004f, 0, 0, 0, {}},
      {DType::kInt8, DType::kUInt8, DType::kUInt8, {2, 2, 5}, 0.07f, 0.07f, 0.1f, 5, 128, 0, {0, 200}},
      {DType::kUInt8, DType::kUInt8, DType::kUInt8, {0, 3}, 0.1f, 0.1f, 0.1f, 0, 0, 0, {}},
  };
  uint64_t seed = 900;
  for (const Case& c : cases) {
    OpTest t("QLinearAdd");
    Build(t, c.a, c.b, c.y, c.shape, c.sa, c.sb, c.sy, c.za, c.zb, c.zy);
    if (!c.clamp.empty()) t.Attr(quant::kClampAttr, c.clamp);
    SCOPED_TRACE(FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.a, c.shape, seed), RandomTensor(c.b, c.shape, seed + 1)});
    seed += 2;
  }
}

TEST(QLinearAdd, Refusals) {
  {  // not made by the lowering
    OpTest t("QLinearAdd");
    Build(t, DType::kUInt8, DType::kUInt8, DType::kUInt8, {4}, 0.1f, 0.1f, 0.1f, 0, 0, 0);
    t.node().attrs.erase(quant::kFixedPointAttr);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("made by mlfkit's QDQ lowering only"), std::string::npos) << s.ToString();
  }
  {  // shapes differ
    OpTest t("QLinearAdd");
    t.Input("a", DType::kUInt8, {4});
    t.Constant("a_scale", Scalar(DType::kFloat32, 0.1));
    t.Constant("a_zero_point", Scalar(DType::kUInt8, 0));
    t.Input("b", DType::kUInt8, {1});
    t.Constant("b_scale", Scalar(DType::kFloat32, 0.1));
    t.Constant("b_zero_point", Scalar(DType::kUInt8, 0));
    t.Constant("y_scale", Scalar(DType::kFloat32, 0.1));
    t.Constant("y_zero_point", Scalar(DType::kUInt8, 0));
    t.Output("y");
    t.Attr(quant::kFixedPointAttr, int64_t{1});
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("does not broadcast"), std::string::npos) << s.ToString();
  }
  {  // an input step worth 1000 output steps
    OpTest t("QLinearAdd");
    Build(t, DType::kUInt8, DType::kUInt8, DType::kUInt8, {4}, 1.0f, 0.1f, 0.001f, 0, 0, 0);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("at most 256"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace mlf::ops::testing
