// ArgMax, ArgMin, Hardmax, TopK, CumSum: reference values (the ONNX
// documentation examples), generated C against the reference over dtypes,
// axes, ties and NaN, and errors.
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

struct Attrs {
  int64_t axis = 0, keepdims = 1, last = 0;
};

OpTest ArgTest(const std::string& op, DType dtype, Shape shape, const Attrs& a) {
  OpTest t(op);
  t.Input("x", dtype, std::move(shape));
  t.Output("y");
  t.Attr("axis", a.axis);
  if (op != "Hardmax") {
    t.Attr("keepdims", a.keepdims);
    t.Attr("select_last_index", a.last);
  }
  return t;
}

std::vector<double> ArgValues(const std::string& op, const HostTensor& x, const Attrs& a, Shape* shape) {
  OpTest t = ArgTest(op, x.dtype, x.shape, a);
  ExpectGeneratedMatches(t, {x});
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = (*y)[0].shape;
  return Values((*y)[0]);
}

TEST(ArgMax, DocumentationExamples) {
  Shape shape;
  const HostTensor x = MakeTensor(DType::kFloat32, {2, 2}, {2, 1, 3, 10});
  EXPECT_EQ(ArgValues("ArgMax", x, {0, 1, 0}, &shape), (std::vector<double>{1, 1}));  // default axis
  EXPECT_EQ(shape, (Shape{1, 2}));
  EXPECT_EQ(ArgValues("ArgMax", x, {1, 1, 0}, &shape), (std::vector<double>{0, 1}));  // keepdims
  EXPECT_EQ(shape, (Shape{2, 1}));
  EXPECT_EQ(ArgValues("ArgMax", x, {-1, 0, 0}, &shape), (std::vector<double>{0, 1}));  // negative axis, no keepdims
  EXPECT_EQ(shape, (Shape{2}));
  EXPECT_EQ(ArgValues("ArgMin", x, {1, 1, 0}, &shape), (std::vector<double>{1, 0}));
  // select_last_index: ties.
  const HostTensor ties = MakeTensor(DType::kFloat32, {2, 2}, {2, 2, 3, 10});
  EXPECT_EQ(ArgValues("ArgMax", ties, {1, 1, 1}, &shape), (std::vector<double>{1, 1}));
  EXPECT_EQ(ArgValues("ArgMax", ties, {1, 1, 0}, &shape), (std::vector<double>{0, 1}));
  EXPECT_EQ(ArgValues("ArgMin", ties, {1, 1, 1}, &shape), (std::vector<double>{1, 0}));
}

// NaN counts as larger than every number: the first NaN for ArgMax (the
// last with select_last_index), never picked by ArgMin unless all are NaN.
TEST(ArgMax, NaN) {
  Shape shape;
  const HostTensor x = MakeTensor(DType::kFloat64, {3, 4}, {1, NAN, 5, NAN, NAN, NAN, NAN, NAN, 3, 2, 2, 9});
  EXPECT_EQ(ArgValues("ArgMax", x, {1, 0, 0}, &shape), (std::vector<double>{1, 0, 3}));
  EXPECT_EQ(ArgValues("ArgMax", x, {1, 0, 1}, &shape), (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(ArgValues("ArgMin", x, {1, 0, 0}, &shape), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(ArgValues("ArgMin", x, {1, 0, 1}, &shape), (std::vector<double>{0, 3, 2}));
}

TEST(ArgMax, GeneratedMatchesReference) {
  struct Case {
    const char* op;
    DType dtype;
    Shape shape;
    Attrs a;
  };
  const Case cases[] = {
      {"ArgMax", DType::kFloat32, {3, 4, 5}, {1, 1, 0}}, {"ArgMin", DType::kFloat32, {3, 4, 5}, {-1, 0, 1}},
      {"ArgMax", DType::kInt8, {7, 3}, {0, 1, 1}},       {"ArgMin", DType::kUInt16, {6}, {0, 0, 0}},
      {"ArgMax", DType::kInt64, {2, 3, 1}, {2, 0, 0}},   {"ArgMin", DType::kFloat64, {0, 3}, {1, 1, 0}},
      {"Hardmax", DType::kFloat32, {3, 4, 5}, {-1}},     {"Hardmax", DType::kFloat64, {3, 4, 5}, {1}},
      {"Hardmax", DType::kFloat32, {2, 0}, {0}},
  };
  uint64_t seed = 50;
  for (const Case& c : cases) {
    OpTest t = ArgTest(c.op, c.dtype, c.shape, c.a);
    // Few distinct values, for ties.
    HostTensor x = RandomTensor(c.dtype, c.shape, seed++);
    for (uint64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, std::round(x.GetDouble(i)) / 2);
    SCOPED_TRACE(std::string(c.op) + " " + DTypeName(c.dtype) + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {x}, 0, seed % 2 == 0);
  }
}

TEST(Hardmax, DocumentationExamples) {
  Shape shape;
  const HostTensor x = MakeTensor(DType::kFloat32, {4, 4}, {3, 0, 1, 2, 2, 5, 1, 0, 0, 1, 3, 2, 0, 1, 2, 3});
  EXPECT_EQ(ArgValues("Hardmax", x, {-1}, &shape),
            (std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  // test_hardmax_one_hot: ties give the first.
  EXPECT_EQ(ArgValues("Hardmax", MakeTensor(DType::kFloat32, {1, 1, 4}, {1, 1, 1, 1}), {-1}, &shape),
            (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(shape, (Shape{1, 1, 4}));
}

TEST(ArgMax, Errors) {
  OpTest empty = ArgTest("ArgMax", DType::kFloat32, {2, 0}, {1, 1, 0});
  empty.node().name = "a";
  EXPECT_EQ(InferError(empty), "node 'a' (ArgMax): cannot pick an index along axis 1 of size 0");
  OpTest axis = ArgTest("ArgMin", DType::kFloat32, {2, 3}, {2, 1, 0});
  axis.node().name = "a";
  EXPECT_EQ(InferError(axis), "node 'a' (ArgMin): axis 2 is out of range for rank 2 (expected -2 to 1)");
  OpTest scalar = ArgTest("ArgMax", DType::kFloat32, {}, {0, 1, 0});
  scalar.node().name = "a";
  EXPECT_EQ(InferError(scalar), "node 'a' (ArgMax): input 0 must have rank 1 or more");
  OpTest dtype = ArgTest("Hardmax", DType::kInt32, {2, 3}, {1});
  dtype.node().name = "a";
  EXPECT_EQ(InferError(dtype), "node 'a' (Hardmax): input 0 has dtype int32; supported: float32, float64");
}

OpTest TopKTest(DType dtype, Shape shape, int64_t k, int64_t axis, int64_t largest) {
  OpTest t("TopK");
  t.Input("x", dtype, std::move(shape));
  t.Constant("k", Int64s({k}));
  t.Output("values");
  t.Output("indices");
  t.Attr("axis", axis);
  t.Attr("largest", largest);
  return t;
}

TEST(TopK, DocumentationExamples) {
  // test_top_k: arange(12) as 3x4, k 3, axis 1.
  OpTest t = TopKTest(DType::kFloat32, {3, 4}, 3, 1, 1);
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({Iota(DType::kFloat32, {3, 4})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{3, 2, 1, 7, 6, 5, 11, 10, 9}));
  EXPECT_EQ(Values((*y)[1]), (std::vector<double>{3, 2, 1, 3, 2, 1, 3, 2, 1}));
  EXPECT_EQ((*y)[1].dtype, DType::kInt64);
  // test_top_k_smallest.
  OpTest s = TopKTest(DType::kFloat32, {3, 4}, 3, 1, 0);
  ASSERT_TRUE(s.Infer().ok());
  auto z = s.Evaluate({MakeTensor(DType::kFloat32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 11, 10, 9, 8})});
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(Values((*z)[0]), (std::vector<double>{0, 1, 2, 4, 5, 6, 8, 9, 10}));
  EXPECT_EQ(Values((*z)[1]), (std::vector<double>{0, 1, 2, 0, 1, 2, 3, 2, 1}));
  // Ties by lower index; NaN largest.
  OpTest n = TopKTest(DType::kFloat32, {6}, 4, 0, 1);
  ASSERT_TRUE(n.Infer().ok());
  auto w = n.Evaluate({MakeTensor(DType::kFloat32, {6}, {1, 3, NAN, 3, 1, 2})});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(Values((*w)[1]), (std::vector<double>{2, 1, 3, 5}));
}

TEST(TopK, GeneratedMatchesReference) {
  struct Case {
    DType dtype;
    Shape shape;
    int64_t k, axis, largest;
  };
  const Case cases[] = {
      {DType::kFloat32, {3, 4}, 3, 1, 1},     {DType::kFloat32, {5, 7, 3}, 4, 1, 0}, {DType::kInt32, {20}, 20, 0, 1},
      {DType::kFloat64, {4, 9}, 1, -1, 0},    {DType::kUInt8, {6, 2, 5}, 6, 0, 1},   {DType::kInt64, {3, 5}, 0, 1, 1},
      {DType::kFloat32, {0, 5}, 2, 1, 1},
  };
  uint64_t seed = 60;
  for (const Case& c : cases) {
    OpTest t = TopKTest(c.dtype, c.shape, c.k, c.axis, c.largest);
    HostTensor x = RandomTensor(c.dtype, c.shape, seed++);
    for (uint64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, std::round(x.GetDouble(i)));  // ties
    if (c.dtype == DType::kFloat32 && x.element_count() > 10) {
      x.SetDouble(3, NAN);
      x.SetDouble(9, NAN);
    }
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + FormatShape(c.shape) + " k " + std::to_string(c.k));
    ExpectGeneratedMatches(t, {x}, 0, seed % 2 == 0);
  }
}

TEST(TopK, Errors) {
  OpTest runtime("TopK", "k");
  runtime.Input("x", DType::kFloat32, {3, 4});
  runtime.Input("k", DType::kInt64, {1});
  runtime.Output("values");
  runtime.Output("indices");
  EXPECT_EQ(InferError(runtime), "node 'k' (TopK): input 1 (K) must be a constant");
  OpTest big = TopKTest(DType::kFloat32, {3, 4}, 5, 1, 1);
  big.node().name = "k";
  EXPECT_EQ(InferError(big), "node 'k' (TopK): k 5 is out of range for axis 1 of size 4");
  OpTest negative = TopKTest(DType::kFloat32, {3, 4}, -1, 0, 1);
  negative.node().name = "k";
  EXPECT_EQ(InferError(negative), "node 'k' (TopK): k -1 is out of range for axis 0 of size 3");
  OpTest one("TopK", "k");
  one.Input("x", DType::kFloat32, {3, 4});
  one.Constant("k", Int64s({1}));
  one.Output("values");
  EXPECT_EQ(InferError(one), "node 'k' (TopK): expects 2 outputs, got 1");
}

// TopK-1 (before opset 10) has k as an attribute.
TEST(TopK, KAsAttribute) {
  OpTest t("TopK");
  t.Input("x", DType::kFloat32, {3, 4});
  t.Output("values");
  t.Output("indices");
  t.Attr("k", int64_t{2});
  ExpectGeneratedMatches(t, {RandomTensor(DType::kFloat32, {3, 4}, 9)});
  EXPECT_EQ(t.graph().value(t.node().outputs[1]).shape, (Shape{3, 2}));
}

std::vector<double> CumSumValues(const HostTensor& x, int64_t axis, int64_t exclusive, int64_t reverse) {
  OpTest t("CumSum");
  t.Input("x", x.dtype, x.shape);
  t.Constant("axis", MakeTensor(DType::kInt32, {}, {static_cast<double>(axis)}));
  t.Output("y");
  t.Attr("exclusive", exclusive);
  t.Attr("reverse", reverse);
  ExpectGeneratedMatches(t, {x});
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

TEST(CumSum, DocumentationExamples) {
  const HostTensor x = MakeTensor(DType::kFloat64, {5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(CumSumValues(x, 0, 0, 0), (std::vector<double>{1, 3, 6, 10, 15}));
  EXPECT_EQ(CumSumValues(x, 0, 1, 0), (std::vector<double>{0, 1, 3, 6, 10}));
  EXPECT_EQ(CumSumValues(x, 0, 0, 1), (std::vector<double>{15, 14, 12, 9, 5}));
  EXPECT_EQ(CumSumValues(x, 0, 1, 1), (std::vector<double>{14, 12, 9, 5, 0}));
  const HostTensor m = MakeTensor(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(CumSumValues(m, 0, 0, 0), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(CumSumValues(m, 1, 0, 0), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(CumSumValues(m, -1, 0, 0), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  // Integers wrap.
  EXPECT_EQ(CumSumValues(MakeTensor(DType::kInt8, {3}, {100, 100, -128}), 0, 0, 0), (std::vector<double>{100, -56, 72}));
}

TEST(CumSum, GeneratedMatchesReference) {
  struct Case {
    DType dtype;
    Shape shape;
    int64_t axis, exclusive, reverse;
  };
  const Case cases[] = {{DType::kFloat32, {4, 5, 6}, 1, 0, 0}, {DType::kFloat32, {4, 5, 6}, 2, 1, 1},
                        {DType::kFloat64, {7, 3}, 0, 0, 1},    {DType::kInt32, {9, 4}, -2, 1, 0},
                        {DType::kUInt64, {3, 3}, 1, 0, 0},     {DType::kInt64, {0, 4}, 1, 0, 0},
                        {DType::kUInt8, {200}, 0, 1, 1}};
  uint64_t seed = 80;
  for (const Case& c : cases) {
    OpTest t("CumSum");
    t.Input("x", c.dtype, c.shape);
    t.Constant("axis", Int64s({c.axis}));
    t.Output("y");
    t.Attr("exclusive", c.exclusive);
    t.Attr("reverse", c.reverse);
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.dtype, c.shape, seed++)}, 0, seed % 2 == 0);
  }
}

TEST(CumSum, Errors) {
  OpTest runtime("CumSum", "c");
  runtime.Input("x", DType::kFloat32, {3});
  runtime.Input("axis", DType::kInt64, {});
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'c' (CumSum): input 1 (axis) must be a constant");
  OpTest two("CumSum", "c");
  two.Input("x", DType::kFloat32, {3});
  two.Constant("axis", Int64s({0, 0}));
  two.Output("y");
  EXPECT_EQ(InferError(two), "node 'c' (CumSum): input 1 (axis) must hold one value, got shape [2]");
  OpTest axis("CumSum", "c");
  axis.Input("x", DType::kFloat32, {3});
  axis.Constant("axis", Int64s({1}));
  axis.Output("y");
  EXPECT_EQ(InferError(axis), "node 'c' (CumSum): axis 1 is out of range for rank 1 (expected -1 to 0)");
  OpTest dtype("CumSum", "c");
  dtype.Input("x", DType::kBool, {3});
  dtype.Constant("axis", Int64s({0}));
  dtype.Output("y");
  EXPECT_EQ(InferError(dtype),
            "node 'c' (CumSum): input x has dtype bool; supported: int8, int16, int32, int64, uint8, uint16, uint32, "
            "uint64, float32, float64");
}

}  // namespace
}  // namespace mlf::ops::testing
