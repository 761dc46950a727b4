// Compress: the ONNX backend cases' values through evaluate (with and
// without axis, negative axis, a short condition), the generated C against
// evaluate over dtypes and shapes, and every error of infer.
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

HostTensor Bools(const std::vector<int>& v) {
  HostTensor t = HostTensor::Zeros(DType::kBool, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<uint8_t>()[i] = static_cast<uint8_t>(v[i]);
  return t;
}

// Compress of an input `x` by the constant `condition`, with `axis` unless
// it is absent (kNoAxis).
constexpr int64_t kNoAxis = 99;
OpTest Compress(DType d, const Shape& shape, const HostTensor& condition, int64_t axis) {
  OpTest t("Compress", "c");
  t.Input("input", d, shape);
  t.Constant("condition", condition);
  t.Output("output");
  if (axis != kNoAxis) t.Attr("axis", axis);
  return t;
}

HostTensor Compressed(OpTest& t, const HostTensor& x, Shape* shape) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return HostTensor();
  *shape = t.graph().value(t.node().outputs[0]).shape;
  EXPECT_EQ((*y)[0].shape, *shape);
  return (*y)[0];
}

TEST(Compress, BackendCases) {
  const HostTensor x = MakeTensor(DType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  Shape shape;
  OpTest c0 = Compress(DType::kFloat32, {3, 2}, Bools({0, 1, 1}), 0);  // test_compress_0
  EXPECT_EQ(Values(Compressed(c0, x, &shape)), (std::vector<double>{3, 4, 5, 6}));
  EXPECT_EQ(shape, (Shape{2, 2}));
  OpTest c1 = Compress(DType::kFloat32, {3, 2}, Bools({0, 1}), 1);  // test_compress_1
  EXPECT_EQ(Values(Compressed(c1, x, &shape)), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(shape, (Shape{3, 1}));
  OpTest flat = Compress(DType::kFloat32, {3, 2}, Bools({0, 1, 0, 0, 1}), kNoAxis);  // default_axis
  EXPECT_EQ(Values(Compressed(flat, x, &shape)), (std::vector<double>{2, 5}));
  EXPECT_EQ(shape, (Shape{2}));
  OpTest neg = Compress(DType::kFloat32, {3, 2}, Bools({0, 1}), -1);  // negative_axis
  EXPECT_EQ(Values(Compressed(neg, x, &shape)), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(shape, (Shape{3, 1}));
  // Nothing selected: an empty output.
  OpTest none = Compress(DType::kFloat32, {3, 2}, Bools({0, 0, 0}), 0);
  EXPECT_EQ(Values(Compressed(none, x, &shape)), (std::vector<double>{}));
  EXPECT_EQ(shape, (Shape{0, 2}));
}

TEST(Compress, GeneratedMatchesReference) {
  struct Case {
    DType d;
    Shape shape;
    std::vector<int> condition;
    int64_t axis;
  };
  const Case cases[] = {
      {DType::kFloat32, {3, 2}, {0, 1, 1}, 0},
      {DType::kFloat32, {3, 2}, {0, 1, 0, 0, 1}, kNoAxis},
      {DType::kInt8, {2, 5, 3}, {1, 0, 1, 1}, 1},
      {DType::kFloat64, {2, 3, 7}, {1, 0, 0, 1, 1, 0, 1}, -1},
      {DType::kBool, {4, 3}, {1, 1, 1, 1}, 0},
      {DType::kFloat16, {5, 2, 2}, {0, 0, 1}, -3},
      {DType::kInt64, {2, 3}, {0, 0}, 1},
      {DType::kUInt16, {0, 4}, {1, 0, 1}, 1},
  };
  uint64_t seed = 7;
  for (const Case& c : cases) {
    OpTest t = Compress(c.d, c.shape, Bools(c.condition), c.axis);
    SCOPED_TRACE(std::string(DTypeName(c.d)) + FormatShape(c.shape) + " axis " + std::to_string(c.axis));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.shape, seed++)}, 0, seed % 3 == 0);
  }
}

TEST(Compress, Errors) {
  OpTest runtime("Compress", "c");
  runtime.Input("input", DType::kFloat32, {3, 2});
  runtime.Input("condition", DType::kBool, {3});
  runtime.Output("output");
  runtime.Attr("axis", int64_t{0});
  EXPECT_EQ(InferError(runtime), "node 'c' (Compress): input 1 (condition) must be a constant");
  OpTest dtype = Compress(DType::kFloat32, {3, 2}, Int64s({0, 1, 1}), 0);
  EXPECT_EQ(InferError(dtype), "node 'c' (Compress): input 1 (condition) must be bool, got int64");
  HostTensor matrix = HostTensor::Zeros(DType::kBool, {1, 3});
  OpTest rank = Compress(DType::kFloat32, {3, 2}, matrix, 0);
  EXPECT_EQ(InferError(rank), "node 'c' (Compress): input 1 (condition) must be 1-D, got shape [1, 3]");
  OpTest axis = Compress(DType::kFloat32, {3, 2}, Bools({1}), 2);
  EXPECT_EQ(InferError(axis), "node 'c' (Compress): axis 2 is out of range for rank 2 (expected -2 to 1)");
  OpTest longer = Compress(DType::kFloat32, {3, 2}, Bools({1, 0, 1, 1}), 0);
  EXPECT_EQ(InferError(longer),
            "node 'c' (Compress): input 1 (condition) has 4 entries, more than the 3 slices along the axis");
  OpTest longer_flat = Compress(DType::kFloat32, {3, 2}, Bools({1, 0, 1, 1, 0, 0, 1}), kNoAxis);
  EXPECT_EQ(InferError(longer_flat),
            "node 'c' (Compress): input 1 (condition) has 7 entries, more than the 6 input elements");
  OpTest arity("Compress", "c");
  arity.Input("input", DType::kFloat32, {3, 2});
  arity.Output("output");
  EXPECT_EQ(InferError(arity), "node 'c' (Compress): expects 2 inputs, got 1");
}

}  // namespace
}  // namespace mlf::ops::testing
