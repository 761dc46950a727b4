// Slice and Pad: shapes, errors, the ONNX documentation examples, generated C.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
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

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ---- Slice -----------------------------------------------------------------

struct SliceArgs {
  Shape starts, ends, axes, steps;  // axes/steps empty: omitted
};

void AddSlice(OpTest& t, DType d, const Shape& shape, const SliceArgs& a) {
  t.Input("x", d, shape);
  t.Constant("starts", Int64s(a.starts));
  t.Constant("ends", Int64s(a.ends));
  if (!a.axes.empty() || !a.steps.empty()) {
    if (a.axes.empty()) t.OmittedInput();
    else t.Constant("axes", Int64s(a.axes));
  }
  if (!a.steps.empty()) t.Constant("steps", Int64s(a.steps));
  t.Output("y");
}

// The reference output of `t` (one input, `x`) and, in `shape`, its shape,
// which must be the one infer() gives.
std::vector<double> ReferenceValues(OpTest& t, const HostTensor& x, Shape* shape) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = (*y)[0].shape;
  EXPECT_EQ(*shape, t.graph().value(t.node().outputs[0]).shape);
  return Values((*y)[0]);
}

std::vector<double> SliceValues(const HostTensor& x, const SliceArgs& a, Shape* shape) {
  OpTest t("Slice");
  AddSlice(t, x.dtype, x.shape, a);
  return ReferenceValues(t, x, shape);
}

TEST(Slice, DocumentationExamples) {
  const HostTensor data = MakeTensor(DType::kFloat32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Shape shape;
  EXPECT_EQ(SliceValues(data, {{1, 0}, {2, 3}, {0, 1}, {1, 2}}, &shape), (std::vector<double>{5, 7}));
  EXPECT_EQ(shape, (Shape{1, 2}));
  EXPECT_EQ(SliceValues(data, {{0, 1}, {-1, 1000}, {}, {}}, &shape), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(shape, (Shape{1, 3}));
}

TEST(Slice, NegativeStepsAndClamping) {
  const HostTensor x = Iota(DType::kInt32, {5});
  Shape shape;
  EXPECT_EQ(SliceValues(x, {{-1}, {kMin}, {0}, {-1}}, &shape), (std::vector<double>{4, 3, 2, 1, 0}));
  EXPECT_EQ(SliceValues(x, {{-1}, {-6}, {0}, {-2}}, &shape), (std::vector<double>{4, 2, 0}));
  EXPECT_EQ(SliceValues(x, {{10}, {1}, {0}, {-3}}, &shape), (std::vector<double>{4}));
  EXPECT_EQ(SliceValues(x, {{-100}, {kMax}, {0}, {2}}, &shape), (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(SliceValues(x, {{3}, {1}, {}, {}}, &shape), (std::vector<double>{}));
  EXPECT_EQ(shape, (Shape{0}));
  EXPECT_EQ(SliceValues(x, {{1}, {3}, {}, {}}, &shape), (std::vector<double>{1, 2}));
}

TEST(Slice, OnnxTestShapes) {
  const Shape x = {20, 10, 5};
  const std::vector<std::pair<SliceArgs, Shape>> cases = {
      {{{0, 0}, {3, 10}, {0, 1}, {1, 1}}, {3, 10, 5}},                 // test_slice
      {{{0, 0, 3}, {20, 10, 4}, {}, {}}, {20, 10, 1}},                // test_slice_default_axes
      {{{1}, {1000}, {1}, {1}}, {20, 9, 5}},                          // test_slice_end_out_of_bounds
      {{{0}, {-1}, {1}, {1}}, {20, 9, 5}},                            // test_slice_neg
      {{{20, 10, 4}, {0, 0, 1}, {0, 1, 2}, {-1, -3, -2}}, {19, 3, 2}},  // test_slice_neg_steps
      {{{0, 0, 3}, {20, 10, 4}, {0, -2, -1}, {}}, {20, 10, 1}},       // test_slice_negative_axes
      {{{1000}, {1000}, {1}, {1}}, {20, 0, 5}},                       // test_slice_start_out_of_bounds
  };
  for (const auto& [args, want] : cases) {
    OpTest t("Slice");
    AddSlice(t, DType::kFloat32, x, args);
    SCOPED_TRACE(FormatShape(want));
    ExpectGeneratedMatches(t, {RandomTensor(DType::kFloat32, x, 30)}, 0, true);
    EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, want);
  }
}

TEST(Slice, GeneratedForDTypes) {
  const std::vector<std::pair<Shape, SliceArgs>> cases = {
      {{6, 7}, {{1, -2}, {5, 0}, {0, 1}, {2, -1}}},
      {{4, 5, 6}, {{-1}, {kMin}, {0}, {-1}}},
      {{4, 5, 6}, {{1, 2}, {3, 6}, {1, 2}, {}}},
      {{3, 8, 8}, {{0, 0}, {8, 8}, {1, 2}, {2, 2}}},
      {{2, 3, 4, 5}, {{0}, {1}, {3}, {}}},
      {{9}, {{2}, {kMax}, {}, {}}},
  };
  const DType dtypes[] = {DType::kFloat32, DType::kInt8, DType::kUInt64, DType::kBFloat16, DType::kBool};
  for (size_t c = 0; c < cases.size(); ++c) {
    const DType d = dtypes[c % 5];
    OpTest t("Slice");
    AddSlice(t, d, cases[c].first, cases[c].second);
    SCOPED_TRACE(std::string(DTypeName(d)) + FormatShape(cases[c].first));
    ExpectGeneratedMatches(t, {RandomTensor(d, cases[c].first, 31 + c)}, 0, c < 3);
  }
}

TEST(Slice, Errors) {
  OpTest step("Slice", "s");
  AddSlice(step, DType::kFloat32, {4}, {{0}, {4}, {0}, {0}});
  EXPECT_EQ(InferError(step), "node 's' (Slice): steps[0] is 0");

  OpTest len("Slice", "s");
  AddSlice(len, DType::kFloat32, {4, 4}, {{0, 0}, {4}, {}, {}});
  EXPECT_EQ(InferError(len), "node 's' (Slice): starts, ends, axes and steps have different lengths (2, 1, 2, 2)");

  OpTest dup("Slice", "s");
  AddSlice(dup, DType::kFloat32, {4, 4}, {{0, 0}, {4, 4}, {1, -1}, {}});
  EXPECT_EQ(InferError(dup), "node 's' (Slice): axes [1, -1] name axis 1 twice");

  OpTest axis("Slice", "s");
  AddSlice(axis, DType::kFloat32, {4, 4}, {{0}, {4}, {2}, {}});
  EXPECT_EQ(InferError(axis), "node 's' (Slice): axis 2 is out of range for rank 2 (expected -2 to 1)");

  OpTest rt("Slice", "s");
  rt.Input("x", DType::kFloat32, {4});
  rt.Input("starts", DType::kInt64, {1});
  rt.Constant("ends", Int64s({3}));
  rt.Output("y");
  EXPECT_EQ(InferError(rt), "node 's' (Slice): input 1 (starts) must be a constant");
}

// ---- Pad -------------------------------------------------------------------

// Pad with constant pads; `value` (when given) as constant input 2.
void AddPad(OpTest& t, DType d, const Shape& shape, const Shape& pads, const std::string& mode,
            const HostTensor* value = nullptr) {
  t.Input("x", d, shape);
  t.Constant("pads", Int64s(pads));
  if (value) t.Constant("value", *value);
  t.Output("y");
  t.Attr("mode", mode);
}

std::vector<double> PadValues(const HostTensor& x, const Shape& pads, const std::string& mode, Shape* shape,
                              const HostTensor* value = nullptr) {
  OpTest t("Pad");
  AddPad(t, x.dtype, x.shape, pads, mode, value);
  return ReferenceValues(t, x, shape);
}

TEST(Pad, DocumentationExamples) {
  const HostTensor x = MakeTensor(DType::kFloat64, {3, 2}, {1.0, 1.2, 2.3, 3.4, 4.5, 5.7});
  const Shape pads = {0, 2, 0, 0};
  Shape shape;
  const HostTensor zero = MakeTensor(DType::kFloat64, {}, {0});
  EXPECT_EQ(PadValues(x, pads, "constant", &shape, &zero),
            (std::vector<double>{0, 0, 1.0, 1.2, 0, 0, 2.3, 3.4, 0, 0, 4.5, 5.7}));
  EXPECT_EQ(shape, (Shape{3, 4}));
  EXPECT_EQ(PadValues(x, pads, "reflect", &shape),
            (std::vector<double>{1.0, 1.2, 1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7, 4.5, 5.7}));
  EXPECT_EQ(PadValues(x, pads, "edge", &shape),
            (std::vector<double>{1.0, 1.0, 1.0, 1.2, 2.3, 2.3, 2.3, 3.4, 4.5, 4.5, 4.5, 5.7}));
}

TEST(Pad, ReflectBeyondTheEdgeAndCropping) {
  const HostTensor x = MakeTensor(DType::kInt32, {3}, {1, 2, 3});
  Shape shape;
  EXPECT_EQ(PadValues(x, {4, 3}, "reflect", &shape), (std::vector<double>{1, 2, 3, 2, 1, 2, 3, 2, 1, 2}));
  EXPECT_EQ(PadValues(x, {2, 2}, "edge", &shape), (std::vector<double>{1, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(PadValues(x, {-1, 2}, "constant", &shape), (std::vector<double>{2, 3, 0, 0}));
  EXPECT_EQ(PadValues(x, {-1, 2}, "reflect", &shape), (std::vector<double>{2, 3, 2, 3}));
  EXPECT_EQ(PadValues(x, {2, -2}, "edge", &shape), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(PadValues(MakeTensor(DType::kInt32, {1}, {7}), {2, 1}, "reflect", &shape),
            (std::vector<double>{7, 7, 7, 7}));
  EXPECT_EQ(PadValues(x, {-3, 0}, "constant", &shape), (std::vector<double>{}));
  const HostTensor nine = MakeTensor(DType::kInt32, {}, {9});
  EXPECT_EQ(PadValues(x, {1, 1}, "constant", &shape, &nine), (std::vector<double>{9, 1, 2, 3, 9}));
}

TEST(Pad, OnnxTestShapes) {
  // test_constant_pad, test_edge_pad, test_reflect_pad.
  const HostTensor value = MakeTensor(DType::kFloat32, {}, {1.2});
  OpTest c("Pad");
  AddPad(c, DType::kFloat32, {1, 3, 4, 5}, {0, 0, 1, 3, 0, 0, 2, 4}, "constant", &value);
  ExpectGeneratedMatches(c, {RandomTensor(DType::kFloat32, {1, 3, 4, 5}, 40)}, 0, true);
  EXPECT_EQ(c.graph().value(c.node().outputs[0]).shape, (Shape{1, 3, 7, 12}));
  for (const char* mode : {"edge", "reflect"}) {
    OpTest t("Pad");
    AddPad(t, DType::kInt32, {1, 3, 4, 5}, {0, 0, 1, 1, 0, 0, 1, 1}, mode);
    SCOPED_TRACE(mode);
    ExpectGeneratedMatches(t, {RandomTensor(DType::kInt32, {1, 3, 4, 5}, 41)}, 0, true);
    EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, (Shape{1, 3, 6, 7}));
  }
}

TEST(Pad, GeneratedConfigurations) {
  struct Case {
    Shape shape, pads;
  };
  const Case cases[] = {
      {{2, 3, 4}, {0, 1, 2, 0, 2, 1}},
      {{2, 3, 4}, {1, 0, 0, 1, 0, 0}},    // outer axis only: whole-row runs
      {{5, 6}, {-1, 2, 1, -3}},           // crop and pad
      {{4, 5}, {3, 5, 4, 6}},             // reflect beyond the edge
      {{2, 1, 3}, {0, 2, 0, 0, 1, 0}},    // pads on a size-1 axis
      {{3, 4, 5, 2}, {0, 1, 1, 0, 0, 2, 1, 0}},
      {{7}, {0, 0}},                       // no padding at all
  };
  const DType dtypes[] = {DType::kFloat32, DType::kUInt8, DType::kInt64, DType::kFloat16};
  int seed = 50;
  for (const Case& c : cases) {
    for (const char* mode : {"constant", "edge", "reflect"}) {
      const DType d = dtypes[seed % 4];
      OpTest t("Pad");
      AddPad(t, d, c.shape, c.pads, mode);
      SCOPED_TRACE(std::string(mode) + " " + DTypeName(d) + FormatShape(c.shape) + " pads " + FormatShape(c.pads));
      ExpectGeneratedMatches(t, {RandomTensor(d, c.shape, seed++)}, 0, seed % 3 == 0);
    }
  }
}

TEST(Pad, ConstantValueVariants) {
  // Non-zero constant, a runtime constant_value, and the opset-2 attributes.
  const HostTensor v = MakeTensor(DType::kInt16, {}, {-3});
  const HostTensor v2 = MakeTensor(DType::kFloat32, {}, {0.25});
  OpTest k("Pad");
  AddPad(k, DType::kInt16, {2, 3}, {1, 1, 1, 1}, "constant", &v);
  ExpectGeneratedMatches(k, {RandomTensor(DType::kInt16, {2, 3}, 60)}, 0, true);

  OpTest rt("Pad");
  rt.Input("x", DType::kFloat32, {2, 3});
  rt.Constant("pads", Int64s({0, 2, 1, 0}));
  rt.Input("value", DType::kFloat32, {});
  rt.Output("y");
  ExpectGeneratedMatches(rt, {RandomTensor(DType::kFloat32, {2, 3}, 61), MakeTensor(DType::kFloat32, {}, {2.5})}, 0,
                         true);
  auto y = rt.Evaluate({Iota(DType::kFloat32, {2, 3}), MakeTensor(DType::kFloat32, {}, {2.5})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{2.5, 2.5, 0, 1, 2, 2.5, 2.5, 3, 4, 5, 2.5, 2.5, 2.5, 2.5, 2.5}));

  OpTest attr("Pad");
  attr.Input("x", DType::kFloat32, {2});
  attr.Output("y");
  attr.Attr("pads", Shape{1, 0});
  attr.Attr("value", 4.0);
  ASSERT_TRUE(attr.Infer().ok());
  auto a = attr.Evaluate({Iota(DType::kFloat32, {2})});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Values((*a)[0]), (std::vector<double>{4, 0, 1}));

  OpTest empty("Pad");  // an empty input padded with the constant only
  AddPad(empty, DType::kFloat32, {0, 3}, {2, 0, 1, 1}, "constant", &v2);
  ExpectGeneratedMatches(empty, {HostTensor::Zeros(DType::kFloat32, {0, 3})}, 0, true);
  EXPECT_EQ(empty.graph().value(empty.node().outputs[0]).shape, (Shape{3, 4}));

  OpTest axes("Pad");  // opset 18: pads for the listed axes only
  axes.Input("x", DType::kFloat32, {2, 3});
  axes.Constant("pads", Int64s({1, 2}));
  axes.OmittedInput();
  axes.Constant("axes", Int64s({-1}));
  axes.Output("y");
  ExpectGeneratedMatches(axes, {RandomTensor(DType::kFloat32, {2, 3}, 62)});
  EXPECT_EQ(axes.graph().value(axes.node().outputs[0]).shape, (Shape{2, 6}));
}

TEST(Pad, Errors) {
  OpTest wrap("Pad", "p");
  AddPad(wrap, DType::kFloat32, {4}, {1, 1}, "wrap");
  EXPECT_EQ(InferError(wrap), "node 'p' (Pad): mode 'wrap' is not supported (constant, reflect, edge are)");
  EXPECT_EQ(wrap.Infer().code(), StatusCode::kUnimplemented);

  OpTest mode("Pad", "p");
  AddPad(mode, DType::kFloat32, {4}, {1, 1}, "mirror");
  EXPECT_EQ(InferError(mode), "node 'p' (Pad): unknown mode 'mirror' (expected constant, reflect, edge)");

  OpTest len("Pad", "p");
  AddPad(len, DType::kFloat32, {4, 4}, {1, 1}, "constant");
  EXPECT_EQ(InferError(len), "node 'p' (Pad): pads [1, 1] has 2 values, expected 4 (begin and end for 2 axes)");

  OpTest crop("Pad", "p");
  AddPad(crop, DType::kFloat32, {4}, {-3, -2}, "constant");
  EXPECT_EQ(InferError(crop), "node 'p' (Pad): pads [-3, -2] crop axis 0 of size 4 below zero");

  OpTest empty("Pad", "p");
  AddPad(empty, DType::kFloat32, {0, 2}, {1, 0, 0, 0}, "edge");
  EXPECT_EQ(InferError(empty), "node 'p' (Pad): mode 'edge' cannot pad axis 0: it has no elements to repeat");

  const HostTensor wrong = MakeTensor(DType::kInt32, {}, {1});
  OpTest dtype("Pad", "p");
  AddPad(dtype, DType::kFloat32, {4}, {1, 1}, "constant", &wrong);
  EXPECT_EQ(InferError(dtype), "node 'p' (Pad): input 2 (constant_value) is int32, the data is float32");

  OpTest rt("Pad", "p");
  rt.Input("x", DType::kFloat32, {4});
  rt.Input("pads", DType::kInt64, {2});
  rt.Output("y");
  EXPECT_EQ(InferError(rt), "node 'p' (Pad): input 1 (pads) must be a constant");
}

}  // namespace
}  // namespace mlf::ops::testing
