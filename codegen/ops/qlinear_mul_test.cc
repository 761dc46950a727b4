// QLinearMul: the integer product requantized once (ties to even), numpy
// broadcasting, the generated C against evaluate bit for bit, and the
// refusals.
#include <gtest/gtest.h>

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

// A QLinearMul node as the lowering makes it (kFixedPointAttr set).
void Build(OpTest& t, DType a, const Shape& as, DType b, const Shape& bs, DType y, float sa, float sb, float sy,
           int za, int zb, int zy) {
  t.Input("a", a, as);
  t.Constant("a_scale", Scalar(DType::kFloat32, sa));
  t.Constant("a_zero_point", Scalar(a, za));
  t.Input("b", b, bs);
  t.Constant("b_scale", Scalar(DType::kFloat32, sb));
  t.Constant("b_zero_point", Scalar(b, zb));
  t.Constant("y_scale", Scalar(DType::kFloat32, sy));
  t.Constant("y_zero_point", Scalar(y, zy));
  t.Output("y");
  t.Attr(quant::kFixedPointAttr, int64_t{1});
}

// a_scale 0.5, b_scale 0.25, y_scale 0.5: y = 1 + round((a - 2) * (b - 4) / 4),
// ties to even; b broadcast over a's rows.
TEST(QLinearMul, EvaluatesWithBroadcastAndTiesToEven) {
  OpTest t("QLinearMul");
  Build(t, DType::kUInt8, {2, 3}, DType::kUInt8, {3}, DType::kUInt8, 0.5f, 0.25f, 0.5f, 2, 4, 1);
  ASSERT_TRUE(t.Infer().ok());
  // Row 0, a - 2 = 1, 2, 3; b - 4 = 2, 2, 6: 0.5 -> 0, 1, 4.5 -> 4; + 1.
  // Row 1, a - 2 = 0, -2, 10: 0, -1, 15; + 1.
  auto y = t.Evaluate({MakeTensor(DType::kUInt8, {2, 3}, {3, 4, 5, 2, 0, 12}), MakeTensor(DType::kUInt8, {3}, {6, 6, 10})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{1, 2, 5, 1, 0, 16}));
  EXPECT_EQ((*y)[0].shape, (Shape{2, 3}));
}

TEST(QLinearMul, GeneratedMatchesEvaluate) {
  struct Case {
    DType a;
    Shape as;
    DType b;
    Shape bs;
    DType y;
    float sa, sb, sy;
    int za, zb, zy;
    std::vector<int64_t> clamp;
  };
  const Case cases[] = {
      {DType::kUInt8, {1, 16, 5, 5}, DType::kUInt8, {1, 16, 1, 1}, DType::kUInt8, 0.031f, 0.0039f, 0.02f, 3, 0, 0, {}},
      {DType::kInt8, {2, 7}, DType::kInt8, {2, 7}, DType::kInt8, 0.02f, 0.011f, 0.003f, -3, 9, -1, {}},
      {DType::kUInt8, {4, 1}, DType::kInt8, {1, 6}, DType::kUInt8, 0.5f, 0.25f, 0.5f, 128, 0, 0, {0, 200}},
      {DType::kInt8, {3}, DType::kUInt8, {}, DType::kInt8, 0.07f, 0.07f, 0.1f, 5, 128, 0, {}},
  };
  uint64_t seed = 2100;
  for (const Case& c : cases) {
    OpTest t("QLinearMul");
    Build(t, c.a, c.as, c.b, c.bs, c.y, c.sa, c.sb, c.sy, c.za, c.zb, c.zy);
    if (!c.clamp.empty()) t.Attr(quant::kClampAttr, c.clamp);
    SCOPED_TRACE(FormatShape(c.as) + " * " + FormatShape(c.bs));
    ExpectGeneratedMatches(t, {RandomTensor(c.a, c.as, seed), RandomTensor(c.b, c.bs, seed + 1)});
    seed += 2;
  }
}

TEST(QLinearMul, Refusals) {
  {
    OpTest t("QLinearMul");
    Build(t, DType::kUInt8, {4}, DType::kUInt8, {4}, DType::kUInt8, 0.1f, 0.1f, 0.1f, 0, 0, 0);
    t.node().attrs.erase(quant::kFixedPointAttr);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("made by mlfkit's QDQ lowering only"), std::string::npos) << s.ToString();
  }
  {
    OpTest t("QLinearMul");
    Build(t, DType::kUInt8, {4}, DType::kUInt8, {3}, DType::kUInt8, 0.1f, 0.1f, 0.1f, 0, 0, 0);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("not broadcastable"), std::string::npos) << s.ToString();
  }
  {
    OpTest t("QLinearMul");
    Build(t, DType::kUInt8, {4}, DType::kUInt8, {4}, DType::kUInt8, 0.1f, -0.1f, 0.1f, 0, 0, 0);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("input 4 (b_scale) must be positive and finite"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace mlf::ops::testing
