// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Shape,
// ConstantOfShape: shapes, errors, reference values, generated C.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

constexpr DType kSomeDTypes[] = {DType::kFloat32, DType::kInt8, DType::kUInt16, DType::kInt64,
                                 DType::kFloat64, DType::kBool, DType::kFloat16};

Shape OutShape(OpTest& t, size_t j = 0) { return t.graph().value(t.node().outputs[j]).shape; }

// ---- Reshape ---------------------------------------------------------------

Shape ReshapeTo(const Shape& in, const Shape& target, int64_t allowzero = 0, std::string* error = nullptr) {
  OpTest t("Reshape", "r");
  t.Input("x", DType::kFloat32, in);
  t.Constant("shape", Int64s(target));
  t.Output("y");
  if (allowzero) t.Attr("allowzero", allowzero);
  const Status s = t.Infer();
  if (error) *error = s.ok() ? "" : s.message();
  return s.ok() ? OutShape(t) : Shape{-99};
}

TEST(Reshape, InfersShapes) {
  EXPECT_EQ(ReshapeTo({2, 3, 4}, {2, 0, 1, -1}), (Shape{2, 3, 1, 4}));
  EXPECT_EQ(ReshapeTo({2, 3, 4}, {-1}), (Shape{24}));
  EXPECT_EQ(ReshapeTo({2, 3, 4}, {4, -1, 2}), (Shape{4, 3, 2}));
  EXPECT_EQ(ReshapeTo({2, 3, 4}, {0, 0, 4}), (Shape{2, 3, 4}));
  EXPECT_EQ(ReshapeTo({0, 3, 4}, {3, 4, 0}, 1), (Shape{3, 4, 0}));
  EXPECT_EQ(ReshapeTo({1}, {}), (Shape{}));
  EXPECT_EQ(ReshapeTo({}, {1, 1, -1}), (Shape{1, 1, 1}));
}

TEST(Reshape, Errors) {
  std::string e;
  ReshapeTo({2, 3}, {-1, -1}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): shape [-1, -1] has more than one -1");
  ReshapeTo({2, 3}, {4, 2}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): cannot reshape [2, 3] (6 elements) to [4, 2] (8 elements)");
  ReshapeTo({2, 3}, {4, -1}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): cannot reshape [2, 3] to [4, -1]: the -1 dimension cannot be inferred");
  ReshapeTo({6}, {2, 0, 3}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): shape [2, 0, 3]: 0 at index 1 copies an input dimension, but the input [6] has rank 1");
  ReshapeTo({0, 3}, {0, -1}, 1, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): shape [0, -1] has both -1 and 0 with allowzero=1");
  ReshapeTo({6}, {-2, -3}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): shape [-2, -3] has a negative dimension other than -1");
  // Found by the onnx fuzzer: the product of the target overflowed int64.
  ReshapeTo({4}, {5, 3689348814741910324}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): shape [5, 3689348814741910324] has more elements than a 64-bit count holds");
  ReshapeTo({4}, {4294967296, 4294967296, -1}, 0, &e);
  EXPECT_EQ(e, "node 'r' (Reshape): shape [4294967296, 4294967296, -1] has more elements than a 64-bit count holds");

  OpTest t("Reshape", "r");
  t.Input("x", DType::kFloat32, {2, 3});
  t.Input("shape", DType::kInt64, {2});
  t.Output("y");
  EXPECT_EQ(InferError(t), "node 'r' (Reshape): input 1 (shape) must be a constant");

  OpTest f("Reshape", "r");
  f.Input("x", DType::kFloat32, {2, 3});
  f.Constant("shape", MakeTensor(DType::kFloat32, {2}, {3, 2}));
  f.Output("y");
  EXPECT_EQ(InferError(f), "node 'r' (Reshape): input 1 (shape) must be int64 or int32, got float32");

  OpTest a("Reshape", "r");
  a.Input("x", DType::kFloat32, {2, 3});
  a.Output("y");
  EXPECT_EQ(InferError(a), "node 'r' (Reshape): expects 2 inputs, got 1");
}

TEST(Reshape, GeneratedCopiesEveryDType) {
  for (DType d : kAllDTypes) {
    OpTest t("Reshape");
    t.Input("x", d, {2, 3, 4});
    t.Constant("shape", Int64s({4, 0, -1}));
    t.Output("y");
    SCOPED_TRACE(DTypeName(d));
    ExpectGeneratedMatches(t, {RandomTensor(d, {2, 3, 4}, 1)}, 0, d == DType::kFloat32);
    EXPECT_EQ(OutShape(t), (Shape{4, 3, 2}));
  }
}

TEST(Reshape, EmptyTensorGeneratesNoCopy) {
  OpTest t("Reshape");
  t.Input("x", DType::kFloat32, {0, 3});
  t.Constant("shape", Int64s({3, 0}));
  t.Output("y");
  t.Attr("allowzero", int64_t{1});
  ExpectGeneratedMatches(t, {HostTensor::Zeros(DType::kFloat32, {0, 3})}, 0, true);
}

// ---- Flatten ---------------------------------------------------------------

TEST(Flatten, Axes) {
  const Shape in = {2, 3, 4, 5};
  const std::vector<std::pair<int64_t, Shape>> cases = {
      {0, {1, 120}}, {1, {2, 60}}, {2, {6, 20}}, {4, {120, 1}}, {-1, {24, 5}}, {-4, {1, 120}}};
  for (const auto& [axis, want] : cases) {
    OpTest t("Flatten");
    t.Input("x", DType::kFloat32, in);
    t.Output("y");
    t.Attr("axis", axis);
    SCOPED_TRACE(axis);
    ASSERT_TRUE(t.Infer().ok());
    EXPECT_EQ(OutShape(t), want);
  }
  OpTest t("Flatten", "f");
  t.Input("x", DType::kFloat32, in);
  t.Output("y");
  t.Attr("axis", int64_t{5});
  EXPECT_EQ(InferError(t), "node 'f' (Flatten): axis 5 is out of range for rank 4 (expected -4 to 4)");
}

TEST(Flatten, Generated) {
  OpTest t("Flatten");
  t.Input("x", DType::kInt16, {2, 3, 4});
  t.Output("y");
  ExpectGeneratedMatches(t, {RandomTensor(DType::kInt16, {2, 3, 4}, 2)});
  EXPECT_EQ(OutShape(t), (Shape{2, 12}));
}

// ---- Squeeze / Unsqueeze ---------------------------------------------------

TEST(Squeeze, Shapes) {
  OpTest all("Squeeze");
  all.Input("x", DType::kFloat32, {1, 3, 1, 5});
  all.Output("y");
  ASSERT_TRUE(all.Infer().ok());
  EXPECT_EQ(OutShape(all), (Shape{3, 5}));

  OpTest neg("Squeeze");
  neg.Input("x", DType::kFloat32, {1, 3, 1, 5});
  neg.Constant("axes", Int64s({-2}));
  neg.Output("y");
  ExpectGeneratedMatches(neg, {RandomTensor(DType::kFloat32, {1, 3, 1, 5}, 3)}, 0, true);
  EXPECT_EQ(OutShape(neg), (Shape{1, 3, 5}));

  OpTest attr("Squeeze");  // opset < 13 form
  attr.Input("x", DType::kFloat32, {1, 3, 1, 5});
  attr.Output("y");
  attr.Attr("axes", Shape{0});
  ASSERT_TRUE(attr.Infer().ok());
  EXPECT_EQ(OutShape(attr), (Shape{3, 1, 5}));
}

TEST(Squeeze, Errors) {
  OpTest t("Squeeze", "s");
  t.Input("x", DType::kFloat32, {1, 3});
  t.Constant("axes", Int64s({1}));
  t.Output("y");
  EXPECT_EQ(InferError(t), "node 's' (Squeeze): cannot squeeze axis 1 of size 3 (input shape [1, 3])");

  OpTest dup("Squeeze", "s");
  dup.Input("x", DType::kFloat32, {1, 3});
  dup.Constant("axes", Int64s({0, -2}));
  dup.Output("y");
  EXPECT_EQ(InferError(dup), "node 's' (Squeeze): axes [0, -2] name axis 0 twice");

  OpTest rt("Squeeze", "s");
  rt.Input("x", DType::kFloat32, {1, 3});
  rt.Input("axes", DType::kInt64, {1});
  rt.Output("y");
  EXPECT_EQ(InferError(rt), "node 's' (Squeeze): input 1 (axes) must be a constant");
}

TEST(Unsqueeze, Shapes) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{5, 4, 2}, {3, 4, 1, 5, 1, 1}}, {{0}, {1, 3, 4, 5}}, {{-1}, {3, 4, 5, 1}}, {{-2, 0}, {1, 3, 4, 1, 5}}};
  for (const auto& [axes, want] : cases) {
    OpTest t("Unsqueeze");
    t.Input("x", DType::kFloat32, {3, 4, 5});
    t.Constant("axes", Int64s(axes));
    t.Output("y");
    SCOPED_TRACE(FormatShape(axes));
    ASSERT_TRUE(t.Infer().ok());
    EXPECT_EQ(OutShape(t), want);
  }
  OpTest t("Unsqueeze");
  t.Input("x", DType::kUInt8, {3, 4});
  t.Constant("axes", Int64s({1}));
  t.Output("y");
  ExpectGeneratedMatches(t, {RandomTensor(DType::kUInt8, {3, 4}, 4)});
}

TEST(Unsqueeze, Errors) {
  OpTest none("Unsqueeze", "u");
  none.Input("x", DType::kFloat32, {3});
  none.Output("y");
  EXPECT_EQ(InferError(none), "node 'u' (Unsqueeze): input 1 (axes) is required");

  OpTest range("Unsqueeze", "u");
  range.Input("x", DType::kFloat32, {3});
  range.Constant("axes", Int64s({2}));
  range.Output("y");
  EXPECT_EQ(InferError(range), "node 'u' (Unsqueeze): axis 2 is out of range for rank 2 (expected -2 to 1)");
}

// ---- Transpose -------------------------------------------------------------

void CheckTranspose(DType d, const Shape& shape, const Shape& perm, bool cross = false) {
  OpTest t("Transpose");
  t.Input("x", d, shape);
  t.Output("y");
  if (!perm.empty()) t.Attr("perm", perm);
  SCOPED_TRACE(std::string(DTypeName(d)) + FormatShape(shape) + " perm " + FormatShape(perm));
  ExpectGeneratedMatches(t, {RandomTensor(d, shape, 5)}, 0, cross);
}

TEST(Transpose, ReferenceValues) {
  OpTest t("Transpose");
  t.Input("x", DType::kFloat32, {2, 3});
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(OutShape(t), (Shape{3, 2}));
  auto y = t.Evaluate({Iota(DType::kFloat32, {2, 3})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Transpose, AllPermutationsOf3D) {
  Shape perm = {0, 1, 2};
  do {
    CheckTranspose(DType::kFloat32, {2, 3, 4}, perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(Transpose, BlockedAndBatched) {
  CheckTranspose(DType::kFloat32, {19, 21}, {1, 0}, true);  // 8x8 blocks and both tails
  CheckTranspose(DType::kFloat32, {16, 8}, {}, true);       // whole blocks only
  CheckTranspose(DType::kInt8, {3, 17, 9}, {0, 2, 1}, true);
  CheckTranspose(DType::kFloat16, {2, 3, 10, 12}, {0, 2, 3, 1}, true);  // NCHW -> NHWC
  CheckTranspose(DType::kInt64, {2, 10, 12, 3}, {0, 3, 1, 2});          // NHWC -> NCHW
  CheckTranspose(DType::kUInt8, {2, 1, 3, 1, 4}, {4, 3, 2, 1, 0});
  CheckTranspose(DType::kFloat64, {4, 5, 6}, {1, 0, 2}, true);  // contiguous rows: memcpy
  CheckTranspose(DType::kBool, {5}, {});
  CheckTranspose(DType::kFloat32, {3, 0, 2}, {2, 1, 0}, true);
}

TEST(Transpose, BadPerm) {
  OpTest t("Transpose", "t");
  t.Input("x", DType::kFloat32, {2, 3});
  t.Output("y");
  t.Attr("perm", Shape{0, 0});
  EXPECT_EQ(InferError(t), "node 't' (Transpose): perm [0, 0] is not a permutation of the 2 axes of the input [2, 3]");
}

// ---- Concat ----------------------------------------------------------------

TEST(Concat, ReferenceValues) {
  OpTest t("Concat");
  t.Input("a", DType::kFloat32, {2, 2});
  t.Input("b", DType::kFloat32, {2, 1});
  t.Output("y");
  t.Attr("axis", int64_t{-1});
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(OutShape(t), (Shape{2, 3}));
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {2, 2}, {1, 2, 3, 4}), MakeTensor(DType::kFloat32, {2, 1}, {5, 6})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{1, 2, 5, 3, 4, 6}));
}

TEST(Concat, Generated) {
  struct Case {
    DType d;
    std::vector<Shape> inputs;
    int64_t axis;
  };
  const Case cases[] = {
      {DType::kFloat32, {{2, 3}, {4, 3}}, 0},
      {DType::kFloat32, {{2, 3, 4}, {2, 1, 4}, {2, 5, 4}}, 1},
      {DType::kInt32, {{2, 3, 4}, {2, 3, 1}, {2, 3, 2}}, -1},
      {DType::kUInt64, {{3}, {0}, {2}}, 0},
      {DType::kFloat16, {{2, 0, 3}, {2, 2, 3}}, 1},
      {DType::kInt8, {{1, 2, 2}, {1, 2, 2}, {1, 2, 2}, {1, 2, 2}}, 0},
  };
  for (const Case& c : cases) {
    OpTest t("Concat");
    std::vector<HostTensor> in;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      t.Input("x" + std::to_string(i), c.d, c.inputs[i]);
      in.push_back(RandomTensor(c.d, c.inputs[i], 10 + i));
    }
    t.Output("y");
    t.Attr("axis", c.axis);
    SCOPED_TRACE(std::string(DTypeName(c.d)) + " axis " + std::to_string(c.axis));
    ExpectGeneratedMatches(t, in, 0, true);
  }
}

TEST(Concat, Errors) {
  OpTest t("Concat", "c");
  t.Input("a", DType::kFloat32, {2, 3});
  t.Input("b", DType::kFloat32, {3, 3});
  t.Output("y");
  t.Attr("axis", int64_t{1});
  EXPECT_EQ(InferError(t), "node 'c' (Concat): input 1 has shape [3, 3], which does not match input 0 [2, 3] outside axis 1");

  OpTest d("Concat", "c");
  d.Input("a", DType::kFloat32, {2});
  d.Input("b", DType::kInt32, {2});
  d.Output("y");
  d.Attr("axis", int64_t{0});
  EXPECT_EQ(InferError(d), "node 'c' (Concat): input 1 is int32, input 0 is float32");

  OpTest a("Concat", "c");
  a.Input("a", DType::kFloat32, {2});
  a.Output("y");
  EXPECT_EQ(InferError(a), "node 'c' (Concat): attribute 'axis' is required");
}

// ---- Split -----------------------------------------------------------------

std::vector<Shape> SplitShapes(const Shape& in, int64_t axis, size_t outputs, const Shape* split,
                               std::string* error = nullptr) {
  OpTest t("Split", "s");
  t.Input("x", DType::kFloat32, in);
  if (split) t.Constant("split", Int64s(*split));
  for (size_t j = 0; j < outputs; ++j) t.Output("y" + std::to_string(j));
  t.Attr("axis", axis);
  const Status s = t.Infer();
  if (error) *error = s.ok() ? "" : s.message();
  std::vector<Shape> shapes;
  for (size_t j = 0; s.ok() && j < outputs; ++j) shapes.push_back(OutShape(t, j));
  return shapes;
}

TEST(Split, Shapes) {
  const Shape two_four = {2, 4};
  EXPECT_EQ(SplitShapes({6}, 0, 3, nullptr), (std::vector<Shape>{{2}, {2}, {2}}));
  EXPECT_EQ(SplitShapes({2, 6}, 1, 2, &two_four), (std::vector<Shape>{{2, 2}, {2, 4}}));
  EXPECT_EQ(SplitShapes({2, 7}, -1, 3, nullptr), (std::vector<Shape>{{2, 3}, {2, 3}, {2, 1}}));
  EXPECT_EQ(SplitShapes({9}, 0, 4, nullptr), (std::vector<Shape>{{3}, {3}, {3}, {0}}));
  const Shape zeros = {0, 0, 0};
  EXPECT_EQ(SplitShapes({0}, 0, 3, &zeros), (std::vector<Shape>{{0}, {0}, {0}}));
}

TEST(Split, Errors) {
  std::string e;
  const Shape bad_sum = {2, 3};
  SplitShapes({6}, 0, 2, &bad_sum, &e);
  EXPECT_EQ(e, "node 's' (Split): split [2, 3] sums to 5, but axis 0 has size 6");
  const Shape three = {2, 2, 2};
  SplitShapes({6}, 0, 2, &three, &e);
  EXPECT_EQ(e, "node 's' (Split): split [2, 2, 2] has 3 sizes for 2 outputs");
  SplitShapes({5}, 0, 4, nullptr, &e);
  EXPECT_EQ(e, "node 's' (Split): cannot split axis 0 of size 5 into 4 parts");
  SplitShapes({5}, 1, 2, nullptr, &e);
  EXPECT_EQ(e, "node 's' (Split): axis 1 is out of range for rank 1 (expected -1 to 0)");
}

TEST(Split, Generated) {
  struct Case {
    DType d;
    Shape in;
    int64_t axis;
    size_t outputs;
    Shape split;  // empty: equal parts
  };
  const Case cases[] = {
      {DType::kFloat32, {6}, 0, 3, {}},
      {DType::kFloat32, {2, 6}, 1, 2, {2, 4}},
      {DType::kInt16, {3, 7, 2}, 1, 3, {}},
      {DType::kFloat64, {4, 5}, 0, 3, {1, 0, 3}},
      {DType::kBool, {2, 3, 4}, -1, 2, {}},
  };
  for (const Case& c : cases) {
    OpTest t("Split");
    t.Input("x", c.d, c.in);
    if (!c.split.empty()) t.Constant("split", Int64s(c.split));
    for (size_t j = 0; j < c.outputs; ++j) t.Output("y" + std::to_string(j));
    t.Attr("axis", c.axis);
    SCOPED_TRACE(std::string(DTypeName(c.d)) + FormatShape(c.in));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.in, 20)}, 0, true);
  }
}

// ---- Shape -----------------------------------------------------------------

TEST(ShapeOp, StartEnd) {
  const std::vector<std::tuple<int64_t, std::optional<int64_t>, std::vector<double>>> cases = {
      {0, {}, {3, 4, 5}}, {1, {}, {4, 5}}, {-1, {}, {5}}, {1, -1, {4}}, {0, 10, {3, 4, 5}},
      {-10, 1, {3}},     {2, 1, {}},      {0, 2, {3, 4}}};
  for (const auto& [start, end, want] : cases) {
    OpTest t("Shape");
    t.Input("x", DType::kFloat32, {3, 4, 5});
    t.Output("y");
    t.Attr("start", start);
    if (end) t.Attr("end", *end);
    SCOPED_TRACE(std::to_string(start));
    ExpectGeneratedMatches(t, {RandomTensor(DType::kFloat32, {3, 4, 5}, 1)}, 0, want.empty());
    auto y = t.Evaluate({RandomTensor(DType::kFloat32, {3, 4, 5}, 1)});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ((*y)[0].dtype, DType::kInt64);
    EXPECT_EQ(Values((*y)[0]), want);
  }
}

// ---- ConstantOfShape -------------------------------------------------------

TEST(ConstantOfShape, ValuesAndDTypes) {
  OpTest zero("ConstantOfShape");
  zero.Constant("shape", Int64s({2, 3}));
  zero.Output("y");
  ExpectGeneratedMatches(zero, {}, 0, true);
  EXPECT_EQ(zero.graph().value(zero.node().outputs[0]).dtype, DType::kFloat32);
  auto y = zero.Evaluate({});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), std::vector<double>(6, 0.0));

  for (DType d : {DType::kInt32, DType::kFloat16, DType::kFloat32, DType::kInt64, DType::kUInt64}) {
    OpTest t("ConstantOfShape");
    t.Constant("shape", Int64s({4, 3, 2}));
    t.Output("y");
    t.Attr("value", MakeTensor(d, {1}, {-7.5}));
    SCOPED_TRACE(DTypeName(d));
    ExpectGeneratedMatches(t, {}, 0, true);
    auto v = t.Evaluate({});
    ASSERT_TRUE(v.ok());
    EXPECT_EQ((*v)[0].dtype, d);
    EXPECT_EQ(Values((*v)[0]), std::vector<double>(24, MakeTensor(d, {1}, {-7.5}).GetDouble(0)));
  }

  OpTest empty("ConstantOfShape");
  empty.Constant("shape", Int64s({0}));
  empty.Output("y");
  empty.Attr("value", MakeTensor(DType::kInt32, {1}, {0}));
  ExpectGeneratedMatches(empty, {}, 0, true);
  EXPECT_EQ(OutShape(empty), (Shape{0}));
}

TEST(ConstantOfShape, Errors) {
  OpTest t("ConstantOfShape", "c");
  t.Input("shape", DType::kInt64, {2});
  t.Output("y");
  EXPECT_EQ(InferError(t), "node 'c' (ConstantOfShape): input 0 (shape) must be a constant");

  OpTest neg("ConstantOfShape", "c");
  neg.Constant("shape", Int64s({2, -1}));
  neg.Output("y");
  EXPECT_EQ(InferError(neg), "node 'c' (ConstantOfShape): shape [2, -1] has a negative dimension");

  OpTest two("ConstantOfShape", "c");
  two.Constant("shape", Int64s({2}));
  two.Output("y");
  two.Attr("value", MakeTensor(DType::kFloat32, {2}, {1, 2}));
  EXPECT_EQ(InferError(two), "node 'c' (ConstantOfShape): attribute 'value' must be a tensor of one element");
}

}  // namespace
}  // namespace mlf::ops::testing
