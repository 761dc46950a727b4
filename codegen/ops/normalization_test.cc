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

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

std::vector<double> EvalSoftmax(const std::string& op, const HostTensor& x, int64_t axis, bool set_axis = true) {
  OpTest t(op);
  t.Input("x", x.dtype, x.shape);
  t.Output("y");
  if (set_axis) t.Attr("axis", axis);
  Status st = t.Infer();
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto out = t.Evaluate({x});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  return Values((*out)[0]);
}

// ---------------------------------------------------------------------------
// Softmax, LogSoftmax

TEST(SoftmaxInfer, ShapesAndErrors) {
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    OpTest t(op);
    t.Input("x", DType::kFloat32, {2, 3, 4});
    t.Output("y");
    t.Attr("axis", int64_t{-2});
    ASSERT_TRUE(t.Infer().ok());
    EXPECT_EQ(t.graph().values[1].shape, Shape({2, 3, 4}));
    EXPECT_EQ(t.graph().values[1].dtype, DType::kFloat32);
  }
  OpTest axis("Softmax", "sm");
  axis.Input("x", DType::kFloat32, {2, 3});
  axis.Output("y");
  axis.Attr("axis", int64_t{2});
  Status st = axis.Infer();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'sm' (Softmax): axis 2 is out of range for rank 2 (expected -2 to 1)");

  OpTest scalar("LogSoftmax");
  scalar.Input("x", DType::kFloat32, {});
  scalar.Output("y");
  EXPECT_EQ(scalar.Infer().message(), "node 'n0' (LogSoftmax): axis -1 is out of range for a rank-0 input");

  OpTest ints("Softmax");
  ints.Input("x", DType::kInt32, {3});
  ints.Output("y");
  st = ints.Infer();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(), "node 'n0' (Softmax): input has dtype int32; supported: float32, float64");

  OpTest arity("Softmax");
  arity.Input("x", DType::kFloat32, {3});
  arity.Output("y");
  arity.Output("z");
  EXPECT_EQ(arity.Infer().message(), "node 'n0' (Softmax): expects 1 output, got 2");
}

TEST(SoftmaxEvaluate, HandComputedValues) {
  // softmax([0, ln 3]) = [1/4, 3/4]; the default axis is the last one.
  auto x = MakeTensor(DType::kFloat64, {2, 2}, {0, std::log(3.0), 5, 5});
  ExpectNear(EvalSoftmax("Softmax", x, 0, false), {0.25, 0.75, 0.5, 0.5}, 1e-15);
  ExpectNear(EvalSoftmax("LogSoftmax", x, -1), {std::log(0.25), std::log(0.75), std::log(0.5), std::log(0.5)},
             1e-15);
  // Over axis 0: columns [0, 5] and [ln 3, 5].
  const double e5 = std::exp(5.0), e3 = std::exp(5.0 - std::log(3.0));
  ExpectNear(EvalSoftmax("Softmax", x, 0), {1 / (1 + e5), 1 / (1 + e3), e5 / (1 + e5), e3 / (1 + e3)}, 1e-15);
  // Numerically stable: large inputs do not overflow.
  auto big = MakeTensor(DType::kFloat32, {3}, {10000, 10001, 10002});
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  ExpectNear(EvalSoftmax("Softmax", big, -1), {std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z}, 1e-7);
  ExpectNear(EvalSoftmax("LogSoftmax", big, -1), {-2 - std::log(z), -1 - std::log(z), -std::log(z)}, 1e-6);
  // A single element along the axis.
  EXPECT_EQ(EvalSoftmax("Softmax", MakeTensor(DType::kFloat32, {2, 1}, {7, -3}), 1), std::vector<double>({1, 1}));
}

TEST(SoftmaxGenerated, AxesShapesAndDTypes) {
  struct Case {
    Shape shape;
    int64_t axis;
  } cases[] = {
      {{7}, -1}, {{3, 5}, 1}, {{3, 5}, 0}, {{2, 3, 4}, 1}, {{2, 3, 4}, -3}, {{2, 3, 4, 5}, 2}, {{4, 1}, 1}, {{2, 0, 3}, 1},
  };
  Batch batch;
  uint64_t seed = 1;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (const Case& c : cases) {
      for (DType d : {DType::kFloat32, DType::kFloat64}) {
        OpTest t(op);
        t.Input("x", d, c.shape);
        t.Output("y");
        t.Attr("axis", c.axis);
        HostTensor x = RandomTensor(d, c.shape, seed++);
        for (uint64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, x.GetDouble(i) * 20);
        batch.Add(t, {x},
                  std::string(op) + " " + DTypeName(d) + FormatShape(c.shape) + " axis " + std::to_string(c.axis),
                  d == DType::kFloat32 ? 1e-5 : 1e-12, d == DType::kFloat32 ? 1e-6 : 1e-14);
      }
    }
  }
  batch.Run();
}

// ---------------------------------------------------------------------------
// BatchNormalization

// A BatchNormalization node over X of `shape` with per-channel parameters.
void BuildBn(OpTest& t, DType dtype, const Shape& shape, DType param_dtype, bool constants, uint64_t seed) {
  t.Input("X", dtype, shape);
  const Shape c = {shape.size() > 1 ? shape[1] : 1};
  const char* names[] = {"scale", "B", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    if (constants) {
      HostTensor p = RandomTensor(param_dtype, c, seed + i);
      if (i == 3) {
        for (uint64_t k = 0; k < p.element_count(); ++k) p.SetDouble(k, std::fabs(p.GetDouble(k)));
      }
      t.Constant(names[i], p);
    } else {
      t.Input(names[i], param_dtype, c);
    }
  }
  t.Output("Y");
}

TEST(BatchNormInfer, ShapesAndErrors) {
  OpTest t("BatchNormalization");
  BuildBn(t, DType::kFloat32, {2, 3, 4, 5}, DType::kFloat32, true, 1);
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, Shape({2, 3, 4, 5}));

  OpTest rank("BatchNormalization", "bn");
  BuildBn(rank, DType::kFloat32, {3}, DType::kFloat32, false, 1);
  Status st = rank.Infer();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'bn' (BatchNormalization): X must have rank 2 or more (N, C, ...), got shape [3]");

  OpTest channels("BatchNormalization");
  channels.Input("X", DType::kFloat32, {2, 3, 4});
  channels.Input("scale", DType::kFloat32, {3});
  channels.Input("B", DType::kFloat32, {4});
  channels.Input("mean", DType::kFloat32, {3});
  channels.Input("var", DType::kFloat32, {3});
  channels.Output("Y");
  EXPECT_EQ(channels.Infer().message(),
            "node 'n0' (BatchNormalization): B (input 2) has shape [4], expected [3] (the channels of X [2, 3, 4])");

  OpTest training("BatchNormalization");
  BuildBn(training, DType::kFloat32, {2, 3}, DType::kFloat32, true, 1);
  training.Attr("training_mode", int64_t{1});
  st = training.Infer();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(),
            "node 'n0' (BatchNormalization): training_mode=1 is not supported; mlfkit compiles inference only");

  OpTest outputs("BatchNormalization");
  BuildBn(outputs, DType::kFloat32, {2, 3}, DType::kFloat32, true, 1);
  outputs.Output("running_mean");
  outputs.Output("running_var");
  EXPECT_EQ(outputs.Infer().message(),
            "node 'n0' (BatchNormalization): has 3 outputs; only the inference form with one output (Y) is "
            "supported");

  OpTest ints("BatchNormalization");
  BuildBn(ints, DType::kFloat32, {2, 3}, DType::kInt32, false, 1);
  EXPECT_EQ(ints.Infer().message(),
            "node 'n0' (BatchNormalization): scale (input 1) has dtype int32; supported: float32, float64");

  OpTest half("BatchNormalization");
  BuildBn(half, DType::kFloat16, {2, 3}, DType::kFloat32, false, 1);
  EXPECT_EQ(half.Infer().code(), StatusCode::kUnimplemented);

  OpTest four("BatchNormalization");
  four.Input("X", DType::kFloat32, {2, 3});
  for (const char* n : {"scale", "B", "mean"}) four.Input(n, DType::kFloat32, {3});
  four.Output("Y");
  EXPECT_EQ(four.Infer().message(), "node 'n0' (BatchNormalization): expects 5 inputs, got 4");
}

TEST(BatchNormEvaluate, HandComputedValues) {
  // Channel 0: scale 2, B 1, mean 3, var 4-eps -> (x - 3) * 1 + 1;
  // channel 1: scale 1, B 0, mean 0, var 0.25-eps -> x * 2.
  OpTest t("BatchNormalization");
  t.Input("X", DType::kFloat64, {1, 2, 2});
  t.Constant("scale", MakeTensor(DType::kFloat64, {2}, {2, 1}));
  t.Constant("B", MakeTensor(DType::kFloat64, {2}, {1, 0}));
  t.Constant("mean", MakeTensor(DType::kFloat64, {2}, {3, 0}));
  t.Constant("var", MakeTensor(DType::kFloat64, {2}, {4 - 0.5, 0.25 - 0.5}));
  t.Attr("epsilon", 0.5);
  t.Output("Y");
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat64, {1, 2, 2}, {3, 5, -1, 4})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), std::vector<double>({1, 3, -2, 8}));
  EXPECT_EQ(FindOp("BatchNormalization")->macs(t.node(), t.graph()), 4u);
}

TEST(BatchNormGenerated, RanksAndDTypes) {
  struct Case {
    DType dtype, param;
    Shape shape;
    bool constants;
  } cases[] = {
      {DType::kFloat32, DType::kFloat32, {2, 3}, true},        {DType::kFloat32, DType::kFloat32, {2, 3, 5}, false},
      {DType::kFloat32, DType::kFloat32, {1, 4, 3, 3}, true},   {DType::kFloat32, DType::kFloat64, {2, 2, 2, 2, 2}, true},
      {DType::kFloat64, DType::kFloat64, {2, 3, 4}, false},     {DType::kFloat64, DType::kFloat32, {1, 3, 2, 2}, true},
      {DType::kFloat32, DType::kFloat32, {0, 3, 2}, true},
  };
  Batch batch;
  uint64_t seed = 10;
  for (const Case& c : cases) {
    OpTest t("BatchNormalization");
    BuildBn(t, c.dtype, c.shape, c.param, c.constants, seed);
    if (c.dtype == DType::kFloat64) t.Attr("epsilon", 1e-3);
    std::vector<HostTensor> inputs = {RandomTensor(c.dtype, c.shape, seed + 10)};
    if (!c.constants) {
      for (int i = 0; i < 4; ++i) {
        HostTensor p = RandomTensor(c.param, {c.shape[1]}, seed + 20 + i);
        if (i == 3) {
          for (uint64_t k = 0; k < p.element_count(); ++k) p.SetDouble(k, std::fabs(p.GetDouble(k)));
        }
        inputs.push_back(p);
      }
    }
    seed += 50;
    const bool f32 = c.dtype == DType::kFloat32;
    batch.Add(t, inputs, std::string("BatchNormalization ") + DTypeName(c.dtype) + FormatShape(c.shape),
              f32 ? 1e-5 : 1e-12, f32 ? 1e-5 : 1e-12);
  }
  batch.Run();
}

}  // namespace
}  // namespace mlf::ops::testing
