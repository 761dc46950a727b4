#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/test_batch.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

HostTensor Axes(const std::vector<double>& axes) {
  return MakeTensor(DType::kInt64, {static_cast<int64_t>(axes.size())}, axes);
}

struct Options {
  bool has_axes = true;
  std::vector<double> axes;
  int64_t keepdims = -1;  // -1: attribute absent (default 1)
  int64_t noop = -1;      // -1: attribute absent (default 0)
};

// A reduction node over an input of `dtype` and `shape`.
void Build(OpTest& t, DType dtype, const Shape& shape, const Options& o) {
  t.Input("data", dtype, shape);
  if (o.has_axes) t.Constant("axes", Axes(o.axes));
  t.Output("reduced");
  if (o.keepdims >= 0) t.Attr("keepdims", o.keepdims);
  if (o.noop >= 0) t.Attr("noop_with_empty_axes", o.noop);
}

Shape InferShape(const std::string& op, const Shape& shape, const Options& o) {
  OpTest t(op);
  Build(t, DType::kFloat32, shape, o);
  Status st = t.Infer();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return t.graph().value(t.node().outputs[0]).shape;
}

Status InferError(const std::string& op, const Shape& shape, const Options& o, DType dtype = DType::kFloat32) {
  OpTest t(op);
  Build(t, dtype, shape, o);
  return t.Infer();
}

std::vector<double> Eval(const std::string& op, const HostTensor& x, const Options& o, Shape* shape = nullptr) {
  OpTest t(op);
  Build(t, x.dtype, x.shape, o);
  Status st = t.Infer();
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto out = t.Evaluate({x});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].shape, t.graph().value(t.node().outputs[0]).shape);
  if (shape) *shape = (*out)[0].shape;
  return Values((*out)[0]);
}

// Floats: the generated code accumulates in the element type, evaluate() in double.
void AddGenerated(Batch& batch, const std::string& op, DType dtype, const Shape& shape, const Options& o,
                  uint64_t seed) {
  OpTest t(op);
  Build(t, dtype, shape, o);
  batch.Add(t, {RandomTensor(dtype, shape, seed)}, op + " " + DTypeName(dtype) + FormatShape(shape), 1e-5, 1e-5);
}

// ---------------------------------------------------------------------------
// Infer

TEST(ReduceInfer, Shapes) {
  EXPECT_EQ(InferShape("ReduceSum", {2, 3, 4}, {true, {1}}), Shape({2, 1, 4}));
  EXPECT_EQ(InferShape("ReduceSum", {2, 3, 4}, {true, {1}, 0}), Shape({2, 4}));
  EXPECT_EQ(InferShape("ReduceMean", {2, 3, 4}, {true, {-1, 0}}), Shape({1, 3, 1}));
  EXPECT_EQ(InferShape("ReduceMean", {2, 3, 4}, {true, {-1, 0}, 0}), Shape({3}));
  // Empty or absent axes: all axes, or nothing with noop_with_empty_axes.
  EXPECT_EQ(InferShape("ReduceMax", {2, 3, 4}, {false, {}}), Shape({1, 1, 1}));
  EXPECT_EQ(InferShape("ReduceMax", {2, 3, 4}, {true, {}, 0}), Shape({}));
  EXPECT_EQ(InferShape("ReduceMax", {2, 3, 4}, {true, {}, 0, 1}), Shape({2, 3, 4}));
  EXPECT_EQ(InferShape("ReduceSum", {2, 3}, {false, {}, 1, 1}), Shape({2, 3}));
  // Rank 0 and zero-sized axes.
  EXPECT_EQ(InferShape("ReduceSum", {}, {false, {}}), Shape({}));
  EXPECT_EQ(InferShape("ReduceSum", {2, 0, 3}, {true, {1}}), Shape({2, 1, 3}));
}

TEST(ReduceInfer, Errors) {
  Status st = InferError("ReduceSum", {2, 3, 4}, {true, {3}});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'n0' (ReduceSum): axis 3 is out of range for rank 3 (expected -3 to 2)");
  EXPECT_EQ(InferError("ReduceMean", {2, 3, 4}, {true, {-4}}).message(),
            "node 'n0' (ReduceMean): axis -4 is out of range for rank 3 (expected -3 to 2)");
  EXPECT_EQ(InferError("ReduceMax", {2, 3, 4}, {true, {1, -2}}).message(),
            "node 'n0' (ReduceMax): axis 1 appears more than once in axes");
  EXPECT_EQ(InferError("ReduceSum", {}, {true, {0}}).message(),
            "node 'n0' (ReduceSum): axis 0 is out of range for a rank-0 input");
  st = InferError("ReduceSum", {2}, {true, {0}}, DType::kBool);
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(),
            "node 'n0' (ReduceSum): input data has dtype bool; supported: int8, int16, int32, int64, uint8, "
            "uint16, uint32, uint64, float32, float64");

  OpTest dynamic("ReduceMean", "rm");
  dynamic.Input("data", DType::kFloat32, {2, 3});
  dynamic.Input("axes", DType::kInt64, {1});
  dynamic.Output("y");
  st = dynamic.Infer();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'rm' (ReduceMean): axes (input 1) must be a constant");

  OpTest attr("ReduceMean");
  attr.Input("data", DType::kFloat32, {2, 3});
  attr.Output("y");
  attr.Attr("axes", std::vector<int64_t>{1});
  EXPECT_EQ(attr.Infer().message(),
            "node 'n0' (ReduceMean): attribute 'axes' is not the canonical form; pass axes as constant input 1");

  OpTest float_axes("ReduceSum");
  float_axes.Input("data", DType::kFloat32, {2, 3});
  float_axes.Constant("axes", MakeTensor(DType::kFloat32, {1}, {1}));
  float_axes.Output("y");
  EXPECT_EQ(float_axes.Infer().message(), "node 'n0' (ReduceSum): axes (input 1) has dtype float32, expected int64");

  OpTest matrix_axes("ReduceSum");
  matrix_axes.Input("data", DType::kFloat32, {2, 3});
  matrix_axes.Constant("axes", MakeTensor(DType::kInt64, {1, 1}, {1}));
  matrix_axes.Output("y");
  EXPECT_EQ(matrix_axes.Infer().message(), "node 'n0' (ReduceSum): axes (input 1) must be 1-D, got shape [1, 1]");

  OpTest bad_keep("ReduceSum");
  bad_keep.Input("data", DType::kFloat32, {2, 3});
  bad_keep.Output("y");
  bad_keep.Attr("keepdims", std::string("yes"));
  EXPECT_EQ(bad_keep.Infer().message(), "node 'n0' (ReduceSum): attribute 'keepdims' is not an integer");

  OpTest arity("ReduceSum");
  arity.Output("y");
  EXPECT_EQ(arity.Infer().message(), "node 'n0' (ReduceSum): expects 1 to 2 inputs, got 0");
}

// ---------------------------------------------------------------------------
// Evaluate: hand-computed values

TEST(ReduceEvaluate, FloatExamples) {
  // ONNX's example data: shape [3, 2, 2].
  auto x = MakeTensor(DType::kFloat32, {3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
  Shape shape;
  EXPECT_EQ(Eval("ReduceMean", x, {true, {1}}, &shape), std::vector<double>({12.5, 1.5, 35, 1.5, 57.5, 1.5}));
  EXPECT_EQ(shape, Shape({3, 1, 2}));
  EXPECT_EQ(Eval("ReduceSum", x, {true, {1}, 0}, &shape), std::vector<double>({25, 3, 70, 3, 115, 3}));
  EXPECT_EQ(shape, Shape({3, 2}));
  EXPECT_EQ(Eval("ReduceMax", x, {true, {-2}}), std::vector<double>({20, 2, 40, 2, 60, 2}));
  EXPECT_EQ(Eval("ReduceSum", x, {false, {}}, &shape), std::vector<double>({219}));
  EXPECT_EQ(shape, Shape({1, 1, 1}));
  EXPECT_EQ(Eval("ReduceMean", x, {true, {0, 2}, 0}), std::vector<double>({(5 + 1 + 30 + 1 + 55 + 1) / 6.0f,
                                                                           (20 + 2 + 40 + 2 + 60 + 2) / 6.0f}));
  EXPECT_EQ(Eval("ReduceMax", x, {true, {}, 1, 1}), Values(x));  // no-op
}

TEST(ReduceEvaluate, EmptyReductionsAndNaN) {
  auto empty = MakeTensor(DType::kFloat32, {2, 0}, {});
  EXPECT_EQ(Eval("ReduceSum", empty, {true, {1}}), std::vector<double>({0, 0}));
  EXPECT_EQ(Eval("ReduceMax", empty, {true, {1}}), std::vector<double>({-INFINITY, -INFINITY}));
  const std::vector<double> mean = Eval("ReduceMean", empty, {true, {1}});
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_TRUE(std::isnan(mean[0]));
  auto iempty = MakeTensor(DType::kInt32, {2, 0}, {});
  EXPECT_EQ(Eval("ReduceMax", iempty, {true, {1}}), std::vector<double>({-2147483648.0, -2147483648.0}));
  EXPECT_EQ(Eval("ReduceMean", iempty, {true, {1}}), std::vector<double>({0, 0}));
  EXPECT_EQ(Eval("ReduceMax", MakeTensor(DType::kUInt8, {0}, {}), {false, {}}), std::vector<double>({0}));

  auto nan = MakeTensor(DType::kFloat64, {2, 2}, {1, NAN, 3, 2});
  const std::vector<double> m = Eval("ReduceMax", nan, {true, {1}});
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 3);
}

TEST(ReduceEvaluate, IntegerSemantics) {
  auto x = MakeTensor(DType::kInt8, {2, 3}, {100, 100, 100, -7, -8, 10});
  // The sum wraps in int8; the mean sums in 64 bits and truncates toward zero.
  EXPECT_EQ(Eval("ReduceSum", x, {true, {1}, 0}), std::vector<double>({44, -5}));
  EXPECT_EQ(Eval("ReduceMean", x, {true, {1}, 0}), std::vector<double>({100, -1}));
  EXPECT_EQ(Eval("ReduceMax", x, {true, {0}, 0}), std::vector<double>({100, 100, 100}));
  auto big = MakeTensor(DType::kInt64, {2}, {4611686018427387904.0, 4611686018427387904.0});
  EXPECT_EQ(Eval("ReduceSum", big, {false, {}}), std::vector<double>({-9223372036854775808.0}));
  auto u = MakeTensor(DType::kUInt32, {3}, {4000000000.0, 4000000000.0, 1});
  EXPECT_EQ(Eval("ReduceMean", u, {false, {}}), std::vector<double>({2666666667.0}));
}

// ---------------------------------------------------------------------------
// Generated C against evaluate

TEST(ReduceGenerated, ShapesAndAxes) {
  struct Case {
    Shape shape;
    Options o;
  } cases[] = {
      {{}, {false, {}}},
      {{7}, {true, {0}}},
      {{4, 5}, {true, {1}}},
      {{4, 5}, {true, {0}, 0}},
      {{2, 3, 4}, {true, {-1, 0}}},
      {{2, 3, 4}, {true, {1}, 0}},
      {{2, 3, 4, 5}, {true, {1, 3}}},
      {{2, 3, 4, 5}, {true, {0, 2}, 0}},
      {{2, 1, 4, 5}, {false, {}}},
      {{2, 3}, {true, {}, 1, 1}},
      {{3, 0, 2}, {true, {1}}},
  };
  Batch batch;
  uint64_t seed = 1;
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax"}) {
    for (const Case& c : cases) AddGenerated(batch, op, DType::kFloat32, c.shape, c.o, seed++);
  }
  batch.Run();
}

TEST(ReduceGenerated, EveryDType) {
  const DType dtypes[] = {DType::kInt8,   DType::kInt16,  DType::kInt32,   DType::kInt64,  DType::kUInt8,
                          DType::kUInt16, DType::kUInt32, DType::kUInt64,  DType::kFloat64};
  const std::pair<Shape, Options> layouts[] = {
      {{3, 4, 5}, {true, {0, 2}, 0}}, {{3, 4, 5}, {true, {-1}}}, {{3, 4, 5}, {true, {0}}},
      {{2, 3, 2, 4}, {false, {}}},        {{}, {false, {}}},
  };
  Batch batch;
  uint64_t seed = 100;
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax"}) {
    for (DType d : dtypes) {
      for (const auto& [shape, o] : layouts) AddGenerated(batch, op, d, shape, o, seed++);
    }
  }
  // Empty reductions; int8 sums that wrap.
  for (DType d : {DType::kInt32, DType::kUInt16, DType::kFloat32}) {
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax"}) {
      AddGenerated(batch, op, d, {3, 0}, {true, {1}}, seed++);
    }
  }
  AddGenerated(batch, "ReduceSum", DType::kInt8, {64, 3}, {true, {0}}, seed++);
  batch.Run();
}

// ---------------------------------------------------------------------------
// ReduceMin, ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp

std::vector<double> Rounded(std::vector<double> v, double unit) {
  for (double& x : v) x = std::round(x / unit) * unit;
  return v;
}

TEST(ReduceEvaluate, DocumentationExamplesOfTheOtherReductions) {
  const HostTensor a = MakeTensor(DType::kFloat32, {3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
  const HostTensor b = MakeTensor(DType::kFloat32, {3, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Shape shape;
  EXPECT_EQ(Eval("ReduceMin", a, {true, {1}, 1}, &shape), (std::vector<double>{5, 1, 30, 1, 55, 1}));
  EXPECT_EQ(shape, (Shape{3, 1, 2}));
  EXPECT_EQ(Eval("ReduceProd", b, {true, {1}, 1}), (std::vector<double>{3, 8, 35, 48, 99, 120}));
  EXPECT_EQ(Eval("ReduceSumSquare", b, {true, {1}, 1}), (std::vector<double>{10, 20, 74, 100, 202, 244}));
  EXPECT_EQ(Eval("ReduceL1", b, {true, {2}, 1}, &shape), (std::vector<double>{3, 7, 11, 15, 19, 23}));
  EXPECT_EQ(shape, (Shape{3, 2, 1}));
  EXPECT_EQ(Rounded(Eval("ReduceL2", b, {true, {2}, 0}, &shape), 1e-3),
            Rounded({2.2360679, 5, 7.8102497, 10.630146, 13.453624, 16.278820}, 1e-3));
  EXPECT_EQ(shape, (Shape{3, 2}));
  EXPECT_EQ(Rounded(Eval("ReduceLogSum", b, {false, {}}), 1e-4), Rounded({std::log(78.0)}, 1e-4));
  const HostTensor a64 = MakeTensor(DType::kFloat64, {3, 2, 2}, {5, 1, 20, 2, 30, 1, 40, 2, 55, 1, 60, 2});
  EXPECT_EQ(Rounded(Eval("ReduceLogSumExp", a64, {true, {1}, 1}), 1e-6),
            Rounded({20., 2.31326169, 40.00004539, 2.31326169, 60.00671535, 2.31326169}, 1e-6));
  // No overflow where exp(x) alone would.
  EXPECT_EQ(Rounded(Eval("ReduceLogSumExp", MakeTensor(DType::kFloat32, {2}, {1000, 1000}), {false, {}}), 1e-3),
            Rounded({1000 + std::log(2.0)}, 1e-3));
}

TEST(ReduceEvaluate, EmptyAndSpecialValuesOfTheOtherReductions) {
  const HostTensor empty = HostTensor::Zeros(DType::kFloat32, {2, 0});
  const double inf = INFINITY;
  EXPECT_EQ(Eval("ReduceMin", empty, {true, {1}, 0}), (std::vector<double>{inf, inf}));
  EXPECT_EQ(Eval("ReduceProd", empty, {true, {1}, 0}), (std::vector<double>{1, 1}));
  EXPECT_EQ(Eval("ReduceL2", empty, {true, {1}, 0}), (std::vector<double>{0, 0}));
  EXPECT_EQ(Eval("ReduceLogSum", empty, {true, {1}, 0}), (std::vector<double>{-inf, -inf}));
  EXPECT_EQ(Eval("ReduceLogSumExp", empty, {true, {1}, 0}), (std::vector<double>{-inf, -inf}));
  EXPECT_EQ(Eval("ReduceMin", HostTensor::Zeros(DType::kInt16, {0}), {true, {0}, 0}), (std::vector<double>{32767}));
  const std::vector<double> lse =
      Eval("ReduceLogSumExp", MakeTensor(DType::kFloat32, {3, 2}, {inf, 1, -inf, -inf, NAN, 0}), {true, {1}, 0});
  ASSERT_EQ(lse.size(), 3u);
  EXPECT_EQ(lse[0], inf);
  EXPECT_EQ(lse[1], -inf);
  EXPECT_TRUE(std::isnan(lse[2]));
  EXPECT_TRUE(std::isnan(Eval("ReduceMin", MakeTensor(DType::kFloat32, {3}, {1, NAN, 0}), {false, {}})[0]));
  // Integers wrap: int8 100 * 3 = 300 = 44 (mod 256); |-128| is -128; 16 * 16 = 256 = 0.
  EXPECT_EQ(Eval("ReduceProd", MakeTensor(DType::kInt8, {2}, {100, 3}), {false, {}}), (std::vector<double>{44}));
  EXPECT_EQ(Eval("ReduceL1", MakeTensor(DType::kInt8, {2}, {-128, 0}), {false, {}}), (std::vector<double>{-128}));
  EXPECT_EQ(Eval("ReduceSumSquare", MakeTensor(DType::kUInt8, {1}, {16}), {false, {}}), (std::vector<double>{0}));
}

TEST(ReduceGenerated, TheOtherReductions) {
  const std::pair<Shape, Options> layouts[] = {
      {{3, 4, 5}, {true, {0, 2}, 0}}, {{3, 4, 5}, {true, {-1}}}, {{2, 3, 2, 4}, {false, {}}},
      {{}, {false, {}}},              {{3, 0}, {true, {1}}},      {{2, 3}, {true, {}, 1, 1}},
  };
  Batch batch;
  uint64_t seed = 300;
  for (const char* op : {"ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1"}) {
    for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt32, DType::kUInt16, DType::kInt64,
                    DType::kUInt64}) {
      for (const auto& [shape, o] : layouts) AddGenerated(batch, op, d, shape, o, seed++);
    }
  }
  for (const char* op : {"ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    for (DType d : {DType::kFloat32, DType::kFloat64}) {
      for (const auto& [shape, o] : layouts) AddGenerated(batch, op, d, shape, o, seed++);
    }
  }
  batch.Run();
}

TEST(ReduceInfer, TheFloatOnlyReductionsRefuseIntegers) {
  EXPECT_EQ(InferError("ReduceL2", {3}, {false, {}}, DType::kInt32).message(),
            "node 'n0' (ReduceL2): input data has dtype int32; supported: float32, float64");
  EXPECT_EQ(InferError("ReduceLogSumExp", {3}, {false, {}}, DType::kUInt8).message(),
            "node 'n0' (ReduceLogSumExp): input data has dtype uint8; supported: float32, float64");
  EXPECT_EQ(InferError("ReduceMin", {3}, {true, {1}}).message(),
            "node 'n0' (ReduceMin): axis 1 is out of range for rank 1 (expected -1 to 0)");
}

}  // namespace
}  // namespace mlf::ops::testing
