// MaxPool's Indices output: the two ONNX backend cases (storage_order 0 and
// 1, padding), hand-computed indices of a two-plane input, the generated C
// against evaluate over ranks, dtypes, strides, dilations, pads and
// ceil_mode, and the errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;
using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;

OpTest MaxPool(DType d, const Shape& x, const Attrs& attrs) {
  OpTest t("MaxPool", "mp");
  t.Input("x", d, x);
  t.Output("y");
  t.Output("indices");
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  return t;
}

std::vector<HostTensor> Evaluated(OpTest& t, const HostTensor& x) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  EXPECT_EQ((*y)[1].dtype, DType::kInt64);
  EXPECT_EQ((*y)[1].shape, t.graph().value(t.node().outputs[1]).shape);
  return *y;
}

std::vector<double> Ramp(int n) {
  std::vector<double> v;
  for (int i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

TEST(MaxPoolIndices, BackendCases) {
  const HostTensor x = MakeTensor(DType::kFloat32, {1, 1, 5, 5}, Ramp(25));
  // test_maxpool_with_argmax_2d_precomputed_pads
  OpTest pads = MaxPool(DType::kFloat32, {1, 1, 5, 5}, {{"kernel_shape", Shape{5, 5}}, {"pads", Shape{2, 2, 2, 2}}});
  std::vector<HostTensor> y = Evaluated(pads, x);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25, 25, 25,
                                               23, 24, 25, 25, 25, 23, 24, 25, 25, 25}));
  EXPECT_EQ(Values(y[1]), (std::vector<double>{12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24, 24, 24,
                                               22, 23, 24, 24, 24, 22, 23, 24, 24, 24}));
  ExpectGeneratedMatches(pads, {x}, 0, true);
  // test_maxpool_with_argmax_2d_precomputed_strides (storage_order 1).
  OpTest strides = MaxPool(DType::kFloat32, {1, 1, 5, 5},
                           {{"kernel_shape", Shape{2, 2}}, {"strides", Shape{2, 2}}, {"storage_order", int64_t{1}}});
  y = Evaluated(strides, x);
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{7, 9, 17, 19}));
  EXPECT_EQ(Values(y[1]), (std::vector<double>{6, 16, 8, 18}));
  ExpectGeneratedMatches(strides, {x});
}

TEST(MaxPoolIndices, CountsBatchAndChannels) {
  // Two planes of [[1, 5], [3, 2]] and [[0, 0], [0, 9]] x 2 images: the
  // index counts the planes before (N x C x H x W flattened); equal values
  // keep the first tap.
  const HostTensor x = MakeTensor(DType::kInt8, {2, 2, 2, 2}, {1, 5, 3, 2, 0, 0, 0, 9, 1, 5, 3, 2, 0, 0, 0, -1});
  for (int64_t order : {0, 1}) {
    OpTest t = MaxPool(DType::kInt8, {2, 2, 2, 2}, {{"kernel_shape", Shape{2, 2}}, {"storage_order", order}});
    const std::vector<HostTensor> y = Evaluated(t, x);
    ASSERT_EQ(y.size(), 2u);
    EXPECT_EQ(Values(y[0]), (std::vector<double>{5, 9, 5, 0}));
    if (order == 0) {
      EXPECT_EQ(Values(y[1]), (std::vector<double>{1, 7, 9, 12}));
    } else {
      EXPECT_EQ(Values(y[1]), (std::vector<double>{2, 7, 10, 12}));
    }
    ExpectGeneratedMatches(t, {x});
  }
}

TEST(MaxPoolIndices, GeneratedMatchesReference) {
  struct Case {
    DType d;
    Shape x;
    Attrs attrs;
  };
  const Case cases[] = {
      {DType::kFloat32, {2, 3, 7}, {{"kernel_shape", Shape{3}}, {"strides", Shape{2}}, {"pads", Shape{1, 1}}}},
      {DType::kFloat64, {1, 2, 5, 7},
       {{"kernel_shape", Shape{3, 2}}, {"dilations", Shape{2, 1}}, {"storage_order", int64_t{1}}}},
      {DType::kUInt8, {1, 1, 6, 5}, {{"kernel_shape", Shape{2, 3}}, {"strides", Shape{2, 2}}, {"ceil_mode", int64_t{1}}}},
      {DType::kInt8, {1, 2, 3, 4, 5},
       {{"kernel_shape", Shape{2, 2, 2}}, {"pads", Shape{1, 0, 1, 0, 1, 1}}, {"storage_order", int64_t{1}}}},
      {DType::kFloat32, {1, 3, 9, 9}, {{"kernel_shape", Shape{3, 3}}, {"auto_pad", std::string("SAME_UPPER")}}},
  };
  uint64_t seed = 17;
  for (const Case& c : cases) {
    OpTest t = MaxPool(c.d, c.x, c.attrs);
    SCOPED_TRACE(std::string(DTypeName(c.d)) + FormatShape(c.x));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.x, seed++)}, 0, seed % 2 == 0);
  }
}

TEST(MaxPoolIndices, Errors) {
  OpTest order = MaxPool(DType::kFloat32, {1, 1, 4, 4}, {{"kernel_shape", Shape{2, 2}}, {"storage_order", int64_t{2}}});
  EXPECT_EQ(InferError(order), "node 'mp' (MaxPool): attribute 'storage_order' must be 0 or 1, got 2");
  OpTest dtype = MaxPool(DType::kInt32, {1, 1, 4, 4}, {{"kernel_shape", Shape{2, 2}}});
  EXPECT_EQ(InferError(dtype), "node 'mp' (MaxPool): X has dtype int32; supported: float32, float64, int8, uint8");
  OpTest rank = MaxPool(DType::kFloat32, {1, 4}, {{"kernel_shape", Shape{2}}});
  EXPECT_EQ(InferError(rank),
            "node 'mp' (MaxPool): input X [1, 4] must have rank >= 3 (N, C and at least one spatial axis)");
  OpTest three = MaxPool(DType::kFloat32, {1, 1, 4, 4}, {{"kernel_shape", Shape{2, 2}}});
  three.Output("extra");
  EXPECT_EQ(InferError(three), "node 'mp' (MaxPool): expects 1 to 2 outputs, got 3");
}

}  // namespace
}  // namespace mlf::ops::testing
