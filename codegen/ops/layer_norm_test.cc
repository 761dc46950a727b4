// LayerNormalization: hand-computed values, generated C against the
// reference (within a tolerance: the C computes statistics in the stash
// type, evaluate in double), and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

TEST(LayerNormalization, HandComputedValues) {
  OpTest t("LayerNormalization");
  t.Input("x", DType::kFloat32, {2, 3});
  t.Input("scale", DType::kFloat32, {3});
  t.Input("b", DType::kFloat32, {3});
  t.Output("y");
  t.Output("mean");
  t.Output("inv");
  t.Attr("epsilon", 0.0);
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(t.graph().value(t.node().outputs[1]).shape, (Shape{2, 1}));
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {2, 3}, {1, 2, 3, -4, 0, 4}),
                       MakeTensor(DType::kFloat32, {3}, {1, 2, 0.5}), MakeTensor(DType::kFloat32, {3}, {0, 1, -1})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const double a = std::sqrt(1.5);            // row 0: mean 2, variance 2/3
  const double b = 1 / std::sqrt(32.0 / 3);   // row 1: mean 0, variance 32/3
  const std::vector<double> want = {-a, 1, 0.5 * a - 1, -4 * b, 1, 0.5 * 4 * b - 1};
  const std::vector<double> got = Values((*y)[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  EXPECT_EQ(Values((*y)[1]), (std::vector<double>{2, 0}));
  EXPECT_NEAR(Values((*y)[2])[0], a, 1e-6);
  EXPECT_NEAR(Values((*y)[2])[1], b, 1e-6);
  EXPECT_EQ((*y)[2].dtype, DType::kFloat32);
}

TEST(LayerNormalization, GeneratedMatchesReference) {
  struct Case {
    DType dtype;
    Shape x;
    int64_t axis;
    Shape scale;  // {} = one value
    bool bias;
    size_t outputs;
    int64_t stash;
  };
  const Case cases[] = {
      {DType::kFloat32, {2, 4, 8}, -1, {8}, true, 1, 1},       // a transformer's layer norm
      {DType::kFloat32, {3, 4, 5}, 1, {4, 5}, true, 3, 1},     // test_layer_normalization_3d_axis1
      {DType::kFloat32, {2, 3, 4, 5}, 0, {2, 3, 4, 5}, false, 3, 1},
      {DType::kFloat32, {2, 3, 4, 5}, 1, {1, 3, 4, 5}, true, 3, 1},
      {DType::kFloat64, {6, 7}, -1, {7}, true, 2, 11},
      {DType::kFloat64, {5, 3}, 1, {1}, true, 3, 1},
      {DType::kFloat32, {4, 6}, -2, {4, 6}, false, 1, 1},
      {DType::kFloat32, {0, 6}, -1, {6}, true, 3, 1},
  };
  uint64_t seed = 90;
  for (const Case& c : cases) {
    OpTest t("LayerNormalization");
    t.Input("x", c.dtype, c.x);
    t.Input("scale", c.dtype, c.scale);
    if (c.bias) t.Input("b", c.dtype, c.scale);
    for (size_t j = 0; j < c.outputs; ++j) t.Output("out" + std::to_string(j));
    t.Attr("axis", c.axis);
    t.Attr("stash_type", c.stash);
    std::vector<HostTensor> in = {RandomTensor(c.dtype, c.x, seed++), RandomTensor(c.dtype, c.scale, seed++)};
    if (c.bias) in.push_back(RandomTensor(c.dtype, c.scale, seed++));
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + FormatShape(c.x) + " axis " + std::to_string(c.axis));
    ExpectGeneratedMatches(t, in, 1e-5, seed % 2 == 0);
  }
}

TEST(LayerNormalization, Errors) {
  auto error = [](Shape x, Shape scale, int64_t axis, DType scale_dtype, int64_t stash) {
    OpTest t("LayerNormalization", "ln");
    t.Input("x", DType::kFloat32, std::move(x));
    t.Input("scale", scale_dtype, std::move(scale));
    t.Output("y");
    t.Attr("axis", axis);
    t.Attr("stash_type", stash);
    return InferError(t);
  };
  EXPECT_EQ(error({2, 3}, {2}, -1, DType::kFloat32, 1),
            "node 'ln' (LayerNormalization): input 1 (Scale) of shape [2] broadcast to the normalized shape [3] "
            "is not supported");
  EXPECT_EQ(error({2, 3}, {3}, 2, DType::kFloat32, 1),
            "node 'ln' (LayerNormalization): axis 2 is out of range for rank 2 (expected -2 to 1)");
  EXPECT_EQ(error({2, 3}, {3}, -1, DType::kFloat64, 1),
            "node 'ln' (LayerNormalization): input 1 (Scale) has dtype float64, expected float32 as X");
  EXPECT_EQ(error({2, 3}, {3}, -1, DType::kFloat32, 10),
            "node 'ln' (LayerNormalization): stash_type 10 is not supported (1: float32, 11: float64)");

  OpTest dtype("LayerNormalization", "ln");
  dtype.Input("x", DType::kInt32, {2, 3});
  dtype.Input("scale", DType::kInt32, {3});
  dtype.Output("y");
  EXPECT_EQ(InferError(dtype), "node 'ln' (LayerNormalization): input X has dtype int32; supported: float32, float64");

  OpTest arity("LayerNormalization", "ln");
  arity.Input("x", DType::kFloat32, {2, 3});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), "node 'ln' (LayerNormalization): expects 2 to 3 inputs, got 1");
}

}  // namespace
}  // namespace mlf::ops::testing
