// MaxUnpool: the ONNX examples through evaluate, the generated C against
// evaluate (indices out of range skipped, a larger output_shape), errors.
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

OpTest Unpool(DType d, const Shape& x, const Shape& kernel, const Shape& strides, const Shape& output_shape = {}) {
  OpTest t("MaxUnpool", "u");
  t.Input("x", d, x);
  t.Input("i", DType::kInt64, x);
  if (!output_shape.empty()) t.Constant("output_shape", Int64s(output_shape));
  t.Output("y");
  t.Attr("kernel_shape", kernel);
  t.Attr("strides", strides);
  return t;
}

HostTensor Indices(const Shape& shape, const std::vector<int64_t>& v) {
  HostTensor t = Int64s(v);
  t.shape = shape;
  return t;
}

TEST(MaxUnpool, OnnxExamples) {
  const HostTensor i = Indices({1, 1, 2, 2}, {5, 7, 13, 15});
  {
    SCOPED_TRACE("test_maxunpool_export_without_output_shape");
    OpTest t = Unpool(DType::kFloat32, {1, 1, 2, 2}, {2, 2}, {2, 2});
    ASSERT_TRUE(t.Infer().ok());
    EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, (Shape{1, 1, 4, 4}));
    auto y = t.Evaluate({MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4}), i});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(Values((*y)[0]), (std::vector<double>{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}));
  }
  {
    SCOPED_TRACE("test_maxunpool_export_with_output_shape");
    OpTest t = Unpool(DType::kFloat32, {1, 1, 2, 2}, {2, 2}, {2, 2}, {1, 1, 5, 5});
    ASSERT_TRUE(t.Infer().ok());
    auto y = t.Evaluate({MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {5, 6, 7, 8}), i});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(Values((*y)[0]), (std::vector<double>{0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 8, 0,
                                                   0, 0, 0, 0, 0}));
  }
}

TEST(MaxUnpool, GeneratedMatchesReference) {
  struct Case {
    DType d;
    Shape x, kernel, strides, output_shape;
  };
  const Case cases[] = {
      {DType::kFloat32, {2, 3, 3, 3}, {2, 2}, {2, 2}, {}},
      {DType::kFloat64, {1, 2, 4}, {3}, {2}, {1, 2, 11}},
      {DType::kInt32, {2, 1, 2, 3}, {2, 2}, {1, 1}, {2, 1, 4, 6}},
      {DType::kFloat32, {1, 1, 2, 2, 2}, {2, 2, 2}, {2, 2, 2}, {}},
  };
  uint64_t seed = 60;
  for (const Case& c : cases) {
    OpTest t = Unpool(c.d, c.x, c.kernel, c.strides, c.output_shape);
    ASSERT_TRUE(t.Infer().ok());
    uint64_t total = 1;
    for (int64_t v : t.graph().value(t.node().outputs[0]).shape) total *= static_cast<uint64_t>(v);
    HostTensor i = HostTensor::Zeros(DType::kInt64, c.x);
    // In range (duplicates too), negative and beyond the end (skipped).
    for (uint64_t e = 0; e < i.element_count(); ++e) {
      i.data<int64_t>()[e] = static_cast<int64_t>((e * 7 + seed) % (total + 4)) - 2;
    }
    SCOPED_TRACE(std::string(DTypeName(c.d)) + FormatShape(c.x));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.x, seed++), i}, 0, seed % 2 == 0);
  }
}

TEST(MaxUnpool, Errors) {
  OpTest small = Unpool(DType::kFloat32, {1, 1, 2, 2}, {2, 2}, {2, 2}, {1, 1, 3, 5});
  EXPECT_EQ(InferError(small),
            "node 'u' (MaxUnpool): input 2 (output_shape) [1, 1, 3, 5] must keep N and C and hold the unpooled shape "
            "[1, 1, 4, 4]");
  OpTest kernel = Unpool(DType::kFloat32, {1, 1, 2, 2}, {2}, {2, 2});
  EXPECT_EQ(InferError(kernel),
            "node 'u' (MaxUnpool): kernel_shape, strides and pads must have 2, 2 and 4 values for X of shape [1, 1, 2, 2]");
  OpTest rank = Unpool(DType::kFloat32, {4, 4}, {2}, {2});
  EXPECT_EQ(InferError(rank), "node 'u' (MaxUnpool): input 0 (X) must have rank 3 or more [N, C, D1, ...], got shape [4, 4]");
  OpTest i32("MaxUnpool", "u");
  i32.Input("x", DType::kFloat32, {1, 1, 2});
  i32.Input("i", DType::kInt32, {1, 1, 2});
  i32.Output("y");
  i32.Attr("kernel_shape", Shape{2});
  EXPECT_EQ(InferError(i32), "node 'u' (MaxUnpool): input 1 (I) must be int64, got int32");
  OpTest none("MaxUnpool", "u");
  none.Input("x", DType::kFloat32, {1, 1, 2});
  none.Input("i", DType::kInt64, {1, 1, 2});
  none.Output("y");
  EXPECT_EQ(InferError(none), "node 'u' (MaxUnpool): attribute 'kernel_shape' is required");
}

}  // namespace
}  // namespace mlf::ops::testing
