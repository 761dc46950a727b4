// Range, EyeLike, Size, OneHot, Trilu: reference values (the ONNX
// documentation examples), generated C against the reference, edge cases and
// errors.
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

HostTensor ScalarOf(DType dtype, double v) { return MakeTensor(dtype, {}, {v}); }

// Range with constant inputs: values through evaluate, and the generated C.
std::vector<double> RangeValues(DType dtype, double start, double limit, double delta) {
  OpTest t("Range");
  t.Constant("start", ScalarOf(dtype, start));
  t.Constant("limit", ScalarOf(dtype, limit));
  t.Constant("delta", ScalarOf(dtype, delta));
  t.Output("y");
  ExpectGeneratedMatches(t, {});
  auto y = t.Evaluate({});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

TEST(Range, DocumentationExamplesAndGeneratedCode) {
  EXPECT_EQ(RangeValues(DType::kFloat32, 1, 5, 2), (std::vector<double>{1, 3}));       // positive delta
  EXPECT_EQ(RangeValues(DType::kInt32, 10, 6, -3), (std::vector<double>{10, 7}));     // negative delta
  EXPECT_EQ(RangeValues(DType::kInt64, 0, 7, 7), (std::vector<double>{0}));
  EXPECT_EQ(RangeValues(DType::kInt16, -3, 3, 2), (std::vector<double>{-3, -1, 1}));
  EXPECT_EQ(RangeValues(DType::kInt64, 5, 1, 2), (std::vector<double>{}));            // empty
  EXPECT_EQ(RangeValues(DType::kFloat64, 0.5, 1.75, 0.25), (std::vector<double>{0.5, 0.75, 1, 1.25, 1.5}));
  EXPECT_EQ(RangeValues(DType::kFloat32, 1, -1, -0.5), (std::vector<double>{1, 0.5, 0, -0.5}));
}

TEST(Range, Errors) {
  OpTest runtime("Range", "r");
  runtime.Constant("start", ScalarOf(DType::kInt64, 0));
  runtime.Input("limit", DType::kInt64, {});
  runtime.Constant("delta", ScalarOf(DType::kInt64, 1));
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'r' (Range): input 1 (limit) must be a constant");

  OpTest zero("Range", "r");
  zero.Constant("start", ScalarOf(DType::kFloat32, 0));
  zero.Constant("limit", ScalarOf(DType::kFloat32, 1));
  zero.Constant("delta", ScalarOf(DType::kFloat32, 0));
  zero.Output("y");
  EXPECT_EQ(InferError(zero), "node 'r' (Range): input 2 (delta) is 0");

  OpTest mixed("Range", "r");
  mixed.Constant("start", ScalarOf(DType::kFloat32, 0));
  mixed.Constant("limit", ScalarOf(DType::kInt64, 1));
  mixed.Constant("delta", ScalarOf(DType::kFloat32, 1));
  mixed.Output("y");
  EXPECT_EQ(InferError(mixed), "node 'r' (Range): inputs start, limit and delta must have one dtype, got float32 and int64");

  OpTest two("Range", "r");
  two.Constant("start", MakeTensor(DType::kInt64, {2}, {0, 1}));
  two.Constant("limit", ScalarOf(DType::kInt64, 1));
  two.Constant("delta", ScalarOf(DType::kInt64, 1));
  two.Output("y");
  EXPECT_EQ(InferError(two), "node 'r' (Range): input 0 (start) must hold one value, got shape [2]");

  OpTest dtype("Range", "r");
  dtype.Constant("start", ScalarOf(DType::kUInt8, 0));
  dtype.Constant("limit", ScalarOf(DType::kUInt8, 1));
  dtype.Constant("delta", ScalarOf(DType::kUInt8, 1));
  dtype.Output("y");
  EXPECT_EQ(InferError(dtype),
            "node 'r' (Range): input start has dtype uint8; supported: int16, int32, int64, float32, float64");
}

std::vector<double> EyeValues(DType in, Shape shape, int64_t k, int64_t dtype_code, DType* out) {
  OpTest t("EyeLike");
  t.Input("x", in, shape);
  t.Output("y");
  t.Attr("k", k);
  if (dtype_code != 0) t.Attr("dtype", dtype_code);
  ExpectGeneratedMatches(t, {RandomTensor(in, shape, 3)});
  auto y = t.Evaluate({RandomTensor(in, shape, 3)});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *out = (*y)[0].dtype;
  return Values((*y)[0]);
}

TEST(EyeLike, DocumentationExamplesAndGeneratedCode) {
  DType d;
  // test_eyelike_without_dtype: int32 4x4.
  std::vector<double> eye(16, 0);
  for (int i = 0; i < 4; ++i) eye[i * 5] = 1;
  EXPECT_EQ(EyeValues(DType::kInt32, {4, 4}, 0, 0, &d), eye);
  EXPECT_EQ(d, DType::kInt32);
  // test_eyelike_with_dtype: float64 from int32, 3x4.
  EXPECT_EQ(EyeValues(DType::kInt32, {3, 4}, 0, 11, &d), (std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(d, DType::kFloat64);
  // test_eyelike_populate_off_main_diagonal: k=1, 4x5 float32.
  std::vector<double> off(20, 0);
  for (int i = 0; i < 4; ++i) off[i * 5 + i + 1] = 1;
  EXPECT_EQ(EyeValues(DType::kFloat32, {4, 5}, 1, 1, &d), off);
  // Below the diagonal, beyond the matrix, bool, empty.
  EXPECT_EQ(EyeValues(DType::kInt64, {3, 2}, -1, 9, &d), (std::vector<double>{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(d, DType::kBool);
  EXPECT_EQ(EyeValues(DType::kFloat32, {2, 3}, 3, 0, &d), (std::vector<double>(6, 0)));
  EXPECT_EQ(EyeValues(DType::kFloat32, {2, 3}, -5, 0, &d), (std::vector<double>(6, 0)));
  EXPECT_EQ(EyeValues(DType::kFloat32, {0, 3}, 0, 0, &d), (std::vector<double>{}));
}

TEST(EyeLike, Errors) {
  OpTest rank("EyeLike", "e");
  rank.Input("x", DType::kFloat32, {2, 2, 2});
  rank.Output("y");
  EXPECT_EQ(InferError(rank), "node 'e' (EyeLike): input 0 must be 2-D, got shape [2, 2, 2]");
  OpTest dtype("EyeLike", "e");
  dtype.Input("x", DType::kFloat32, {2, 2});
  dtype.Output("y");
  dtype.Attr("dtype", int64_t{8});
  EXPECT_EQ(InferError(dtype), "node 'e' (EyeLike): dtype 8 is not supported");
}

TEST(Size, CountsElements) {
  OpTest t("Size");
  t.Input("x", DType::kFloat32, {3, 0, 2});
  t.Output("n");
  ExpectGeneratedMatches(t, {HostTensor::Zeros(DType::kFloat32, {3, 0, 2})});
  OpTest u("Size");
  u.Input("x", DType::kInt8, {3, 4, 5});
  u.Output("n");
  ExpectGeneratedMatches(u, {RandomTensor(DType::kInt8, {3, 4, 5}, 1)});
  auto n = u.Evaluate({RandomTensor(DType::kInt8, {3, 4, 5}, 1)});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)[0].shape, Shape{});
  EXPECT_EQ((*n)[0].data<int64_t>()[0], 60);
}

// OneHot with constant depth; indices and values at run time.
OpTest OneHotTest(DType index, Shape shape, double depth, DType value, int64_t axis) {
  OpTest t("OneHot");
  t.Input("indices", index, std::move(shape));
  t.Constant("depth", ScalarOf(DType::kInt64, depth));
  t.Input("values", value, {2});
  t.Output("y");
  t.Attr("axis", axis);
  return t;
}

TEST(OneHot, DocumentationExamples) {
  // test_onehot_without_axis: indices [0, 7, 8], depth 12, values [2, 5].
  OpTest t = OneHotTest(DType::kInt64, {3}, 12, DType::kInt32, -1);
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({Int64s({0, 7, 8}), MakeTensor(DType::kInt32, {2}, {2, 5})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  std::vector<double> want(36, 2);
  want[0] = want[12 + 7] = want[24 + 8] = 5;
  EXPECT_EQ(Values((*y)[0]), want);
  EXPECT_EQ((*y)[0].shape, (Shape{3, 12}));

  // test_onehot_negative_indices: [0, -7, -8], depth 10, axis 1, values [1, 3].
  OpTest n = OneHotTest(DType::kInt64, {3}, 10, DType::kFloat32, 1);
  ASSERT_TRUE(n.Infer().ok());
  auto z = n.Evaluate({Int64s({0, -7, -8}), MakeTensor(DType::kFloat32, {2}, {1, 3})});
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  std::vector<double> want_n(30, 1);
  want_n[0] = want_n[10 + 3] = want_n[20 + 2] = 3;
  EXPECT_EQ(Values((*z)[0]), want_n);

  // axis 0 of 2-D indices: depth becomes the first dimension.
  OpTest a = OneHotTest(DType::kInt32, {2, 2}, 3, DType::kInt64, 0);
  ASSERT_TRUE(a.Infer().ok());
  auto w = a.Evaluate({MakeTensor(DType::kInt32, {2, 2}, {1, 9, 2, 0}), MakeTensor(DType::kInt64, {2}, {0, 1})});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ((*w)[0].shape, (Shape{3, 2, 2}));
  EXPECT_EQ(Values((*w)[0]), (std::vector<double>{0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0}));
}

// Out-of-range indices and float indices that are not whole numbers leave
// their row all off, in evaluate and the generated code alike.
TEST(OneHot, GeneratedCodeWithEdgeIndices) {
  OpTest f = OneHotTest(DType::kFloat32, {2, 4}, 5, DType::kFloat32, 1);
  const HostTensor fi = MakeTensor(DType::kFloat32, {2, 4}, {1, -1, 2.5, 5, -5, -6, NAN, 4});
  ExpectGeneratedMatches(f, {fi, MakeTensor(DType::kFloat32, {2}, {-1, 7})}, 0, true);
  auto y = f.RunGenerated({fi, MakeTensor(DType::kFloat32, {2}, {0, 1})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // y[i, d, j]: per index (i, j) the position set, if any.
  const std::vector<int> want_pos = {1, 4, -1, -1, 0, -1, -1, 4};
  const std::vector<double> got = Values((*y)[0]);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int d = 0; d < 5; ++d) {
        EXPECT_EQ(got[static_cast<size_t>((i * 5 + d) * 4 + j)], want_pos[static_cast<size_t>(i * 4 + j)] == d ? 1 : 0)
            << i << " " << j << " " << d;
      }
    }
  }
  OpTest s = OneHotTest(DType::kInt8, {6}, 4, DType::kUInt8, -1);
  ExpectGeneratedMatches(s, {MakeTensor(DType::kInt8, {6}, {-128, -5, -4, 3, 4, 127}), MakeTensor(DType::kUInt8, {2}, {0, 255})});
  OpTest u = OneHotTest(DType::kUInt64, {3}, 2, DType::kBool, 0);
  ExpectGeneratedMatches(u, {MakeTensor(DType::kUInt64, {3}, {1, 2, 0}), MakeTensor(DType::kBool, {2}, {0, 1})});
  OpTest e = OneHotTest(DType::kInt64, {0, 3}, 2, DType::kFloat64, -1);
  ExpectGeneratedMatches(e, {HostTensor::Zeros(DType::kInt64, {0, 3}), MakeTensor(DType::kFloat64, {2}, {0, 1})});
}

TEST(OneHot, Errors) {
  OpTest runtime("OneHot", "o");
  runtime.Input("indices", DType::kInt64, {3});
  runtime.Input("depth", DType::kInt64, {});
  runtime.Input("values", DType::kFloat32, {2});
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'o' (OneHot): input 1 (depth) must be a constant");

  OpTest zero = OneHotTest(DType::kInt64, {3}, 0, DType::kFloat32, -1);
  zero.node().name = "o";
  EXPECT_EQ(InferError(zero), "node 'o' (OneHot): input 1 (depth) must be at least 1, got 0");
  OpTest values("OneHot", "o");
  values.Input("indices", DType::kInt64, {3});
  values.Constant("depth", ScalarOf(DType::kInt64, 3));
  values.Input("values", DType::kFloat32, {3});
  values.Output("y");
  EXPECT_EQ(InferError(values), "node 'o' (OneHot): input 2 (values) must hold two values [off, on], got shape [3]");
  OpTest axis = OneHotTest(DType::kInt64, {3}, 3, DType::kFloat32, 2);
  axis.node().name = "o";
  EXPECT_EQ(InferError(axis), "node 'o' (OneHot): axis 2 is out of range for rank 2 (expected -2 to 1)");
}

// Trilu on the documentation's 4x5 matrix.
std::vector<double> TriluValues(int64_t upper, const HostTensor* k) {
  OpTest t("Trilu");
  const HostTensor x = MakeTensor(DType::kInt64, {4, 5}, {4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 0, 8, 7, 4, 3, 4, 2, 4});
  t.Input("x", DType::kInt64, {4, 5});
  if (k != nullptr) t.Constant("k", *k);
  t.Output("y");
  t.Attr("upper", upper);
  ExpectGeneratedMatches(t, {x});
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

TEST(Trilu, DocumentationExamples) {
  EXPECT_EQ(TriluValues(1, nullptr),  // test_triu
            (std::vector<double>{4, 7, 3, 7, 9, 0, 2, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 2, 4}));
  EXPECT_EQ(TriluValues(0, nullptr),  // test_tril
            (std::vector<double>{4, 0, 0, 0, 0, 1, 2, 0, 0, 0, 9, 4, 0, 0, 0, 4, 3, 4, 2, 0}));
  const HostTensor one = MakeTensor(DType::kInt64, {}, {1});
  EXPECT_EQ(TriluValues(1, &one),  // test_triu_pos
            (std::vector<double>{0, 7, 3, 7, 9, 0, 0, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 0, 4}));
  const HostTensor minus = MakeTensor(DType::kInt64, {1}, {-1});
  EXPECT_EQ(TriluValues(0, &minus),  // test_tril_neg
            (std::vector<double>{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 9, 4, 0, 0, 0, 4, 3, 4, 0, 0}));
  HostTensor huge = ScalarOf(DType::kInt64, 0);
  huge.data<int64_t>()[0] = INT64_MIN;
  EXPECT_EQ(TriluValues(1, &huge), (std::vector<double>{4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 0, 8, 7, 4, 3, 4, 2, 4}));
}

TEST(Trilu, GeneratedWithRuntimeK) {
  struct Case {
    DType dtype;
    Shape shape;
    int64_t upper, k;
  };
  const Case cases[] = {{DType::kFloat32, {2, 3, 4}, 1, 0},  {DType::kFloat64, {5, 3}, 0, 1},
                        {DType::kBool, {3, 3}, 1, -1},       {DType::kFloat16, {2, 2, 4, 4}, 0, -2},
                        {DType::kUInt8, {3, 0}, 1, 0},       {DType::kInt32, {4, 6}, 1, 9}};
  uint64_t seed = 40;
  for (const Case& c : cases) {
    OpTest t("Trilu");
    t.Input("x", c.dtype, c.shape);
    t.Input("k", DType::kInt64, {});
    t.Output("y");
    t.Attr("upper", c.upper);
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.dtype, c.shape, seed++), ScalarOf(DType::kInt64, static_cast<double>(c.k))},
                           0, seed % 2 == 0);
  }
}

TEST(Trilu, Errors) {
  OpTest rank("Trilu", "t");
  rank.Input("x", DType::kFloat32, {4});
  rank.Output("y");
  EXPECT_EQ(InferError(rank), "node 't' (Trilu): input 0 must have rank 2 or more, got shape [4]");
  OpTest k("Trilu", "t");
  k.Input("x", DType::kFloat32, {4, 4});
  k.Input("k", DType::kInt32, {});
  k.Output("y");
  EXPECT_EQ(InferError(k), "node 't' (Trilu): input 1 (k) must be int64, got int32");
  OpTest two("Trilu", "t");
  two.Input("x", DType::kFloat32, {4, 4});
  two.Input("k", DType::kInt64, {2});
  two.Output("y");
  EXPECT_EQ(InferError(two), "node 't' (Trilu): input 1 (k) must hold one value, got shape [2]");
}

}  // namespace
}  // namespace mlf::ops::testing
