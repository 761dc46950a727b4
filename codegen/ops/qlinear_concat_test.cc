// QLinearConcat: each input requantized to the output's grid (ties to
// even), a copy where the parameters agree, the generated C against
// evaluate bit for bit, and the refusals.
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

struct In {
  DType dtype;
  Shape shape;
  float scale;
  int zero_point;
};

// A QLinearConcat node as the lowering makes it (kFixedPointAttr set).
void Build(OpTest& t, float sy, DType y, int zy, const std::vector<In>& inputs, int64_t axis) {
  t.Constant("y_scale", Scalar(DType::kFloat32, sy));
  t.Constant("y_zero_point", Scalar(y, zy));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string k = std::to_string(i);
    t.Input("x" + k, inputs[i].dtype, inputs[i].shape);
    t.Constant("x" + k + "_scale", Scalar(DType::kFloat32, inputs[i].scale));
    t.Constant("x" + k + "_zero_point", Scalar(inputs[i].dtype, inputs[i].zero_point));
  }
  t.Output("y");
  t.Attr("axis", axis);
  t.Attr(quant::kFixedPointAttr, int64_t{1});
}

// y_scale 0.1, zero point 0: input 0 at scale 0.05 (ratio 1/2) halves its
// values with ties to even, input 1 has y's parameters and is copied.
TEST(QLinearConcat, Evaluates) {
  OpTest t("QLinearConcat");
  Build(t, 0.1f, DType::kUInt8, 0, {{DType::kUInt8, {1, 4}, 0.05f, 2}, {DType::kUInt8, {1, 2}, 0.1f, 0}}, 1);
  ASSERT_TRUE(t.Infer().ok());
  // (x - 2) / 2: 3 -> 0.5 -> 0, 5 -> 1.5 -> 2, 9 -> 3.5 -> 4, 0 -> -1 -> 0 (saturates); then 7, 250.
  auto y = t.Evaluate({MakeTensor(DType::kUInt8, {1, 4}, {3, 5, 9, 0}), MakeTensor(DType::kUInt8, {1, 2}, {7, 250})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{0, 2, 4, 0, 7, 250}));
  EXPECT_EQ((*y)[0].shape, (Shape{1, 6}));
}

TEST(QLinearConcat, GeneratedMatchesEvaluate) {
  struct Case {
    float sy;
    DType y;
    int zy;
    std::vector<In> inputs;
    int64_t axis;
    std::vector<int64_t> clamp;
  };
  const Case cases[] = {
      {0.04f, DType::kUInt8, 120, {{DType::kUInt8, {1, 8, 5, 5}, 0.031f, 131}, {DType::kUInt8, {1, 4, 5, 5}, 0.04f, 120}}, 1, {}},
      {0.02f, DType::kInt8, -3, {{DType::kInt8, {2, 3, 4}, 0.01f, 5}, {DType::kUInt8, {2, 1, 4}, 0.07f, 128},
                                 {DType::kInt8, {2, 2, 4}, 0.02f, -3}}, 1, {}},
      {0.1f, DType::kUInt8, 0, {{DType::kInt8, {3, 2}, 0.1f, 0}, {DType::kInt8, {3, 5}, 0.3f, -10}}, -1, {0, 200}},
      {0.05f, DType::kInt8, 0, {{DType::kInt8, {0, 2}, 0.05f, 0}, {DType::kInt8, {0, 3}, 0.025f, 0}}, 1, {}},
  };
  uint64_t seed = 1700;
  for (const Case& c : cases) {
    OpTest t("QLinearConcat");
    Build(t, c.sy, c.y, c.zy, c.inputs, c.axis);
    if (!c.clamp.empty()) t.Attr(quant::kClampAttr, c.clamp);
    std::vector<HostTensor> values;
    for (const In& in : c.inputs) values.push_back(RandomTensor(in.dtype, in.shape, seed++));
    ExpectGeneratedMatches(t, values);
  }
}

TEST(QLinearConcat, Refusals) {
  {
    OpTest t("QLinearConcat");
    Build(t, 0.1f, DType::kUInt8, 0, {{DType::kUInt8, {1, 4}, 0.05f, 2}}, 1);
    t.node().attrs.erase(quant::kFixedPointAttr);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("made by mlfkit's QDQ lowering only"), std::string::npos) << s.ToString();
  }
  {
    OpTest t("QLinearConcat");
    Build(t, 0.1f, DType::kUInt8, 0, {{DType::kUInt8, {1, 4}, 0.05f, 2}, {DType::kUInt8, {2, 4}, 0.05f, 2}}, 1);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("input 5 has shape [2, 4], which does not match input 2 [1, 4] outside axis 1"),
              std::string::npos)
        << s.ToString();
  }
  {
    OpTest t("QLinearConcat");
    Build(t, 0.0f, DType::kUInt8, 0, {{DType::kUInt8, {1, 4}, 0.05f, 2}}, 1);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("input 0 (y_scale) must be positive and finite"), std::string::npos) << s.ToString();
  }
}

}  // namespace
}  // namespace mlf::ops::testing
