// Det: hand-computed determinants through evaluate, the generated C against
// evaluate (within a tolerance: the C eliminates in the element type), and
// errors.
#include <gtest/gtest.h>

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

std::vector<double> Det(const HostTensor& x, Shape* shape) {
  OpTest t("Det");
  t.Input("x", x.dtype, x.shape);
  t.Output("y");
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  *shape = t.graph().value(t.node().outputs[0]).shape;
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

TEST(Det, HandComputedValues) {
  Shape shape;
  // test_det_2d: [[1, 2], [3, 4]] -> -2.
  EXPECT_EQ(Det(MakeTensor(DType::kFloat32, {2, 2}, {1, 2, 3, 4}), &shape), (std::vector<double>{-2}));
  EXPECT_EQ(shape, (Shape{}));
  // test_det_nd: [[1, 2], [3, 4]], [[1, 2], [2, 1]], [[1, 3], [3, 1]] -> -2, -3, -8.
  const std::vector<double> nd =
      Det(MakeTensor(DType::kFloat64, {3, 2, 2}, {1, 2, 3, 4, 1, 2, 2, 1, 1, 3, 3, 1}), &shape);
  ASSERT_EQ(nd.size(), 3u);
  EXPECT_NEAR(nd[0], -2, 1e-12);
  EXPECT_NEAR(nd[1], -3, 1e-12);
  EXPECT_NEAR(nd[2], -8, 1e-12);
  EXPECT_EQ(shape, (Shape{3}));
  // A pivot: the first column's top element is 0; a singular matrix.
  const std::vector<double> pivot = Det(MakeTensor(DType::kFloat64, {3, 3}, {0, 2, 1, 1, 1, 1, 2, 0, 3}), &shape);
  EXPECT_NEAR(pivot[0], 0 * (3 - 0) - 2 * (3 - 2) + 1 * (0 - 2), 1e-12);
  EXPECT_EQ(Det(MakeTensor(DType::kFloat32, {2, 2}, {1, 2, 2, 4}), &shape), (std::vector<double>{0}));
  // M = 0: 1.
  EXPECT_EQ(Det(HostTensor::Zeros(DType::kFloat32, {2, 0, 0}), &shape), (std::vector<double>{1, 1}));
}

TEST(Det, GeneratedMatchesReference) {
  const Shape shapes[] = {{1, 1}, {2, 2}, {4, 3, 3}, {2, 3, 5, 5}, {2, 0, 0}, {0, 3, 3}};
  uint64_t seed = 9;
  for (DType d : {DType::kFloat32, DType::kFloat64}) {
    for (const Shape& shape : shapes) {
      OpTest t("Det");
      t.Input("x", d, shape);
      t.Output("y");
      SCOPED_TRACE(std::string(DTypeName(d)) + FormatShape(shape));
      ExpectGeneratedMatches(t, {RandomTensor(d, shape, seed++)}, 1e-5, seed % 3 == 0);
    }
  }
}

TEST(Det, Errors) {
  OpTest square("Det", "det");
  square.Input("x", DType::kFloat32, {2, 3});
  square.Output("y");
  EXPECT_EQ(InferError(square), "node 'det' (Det): input 0 (X) must end in a square matrix [..., M, M], got shape [2, 3]");
  OpTest rank("Det", "det");
  rank.Input("x", DType::kFloat32, {4});
  rank.Output("y");
  EXPECT_EQ(InferError(rank), "node 'det' (Det): input 0 (X) must end in a square matrix [..., M, M], got shape [4]");
  OpTest dtype("Det", "det");
  dtype.Input("x", DType::kInt32, {2, 2});
  dtype.Output("y");
  EXPECT_EQ(InferError(dtype), "node 'det' (Det): input 0 (X) has dtype int32; supported: float32, float64");
}

}  // namespace
}  // namespace mlf::ops::testing
