// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear: the ONNX
// documentation values through evaluate, rounding and saturation, the
// generated C against evaluate bit for bit, and every infer error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

HostTensor Floats(Shape shape, const std::vector<double>& v) { return MakeTensor(DType::kFloat32, shape, v); }

// One node with x as a graph input and scale/zero point as constants (or
// omitted when `zp` is null); returns its outputs through evaluate.
std::vector<HostTensor> EvaluateLinear(const std::string& op, const HostTensor& x, const HostTensor& scale,
                                       const HostTensor* zp, int64_t axis = 1) {
  OpTest t(op);
  t.Input("x", x.dtype, x.shape);
  t.Constant("scale", scale);
  if (zp != nullptr) t.Constant("zp", *zp);
  t.Output("y");
  t.Attr("axis", axis);
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  EXPECT_EQ((*y)[0].shape, t.graph().value(t.node().outputs[0]).shape);
  EXPECT_EQ((*y)[0].dtype, t.graph().value(t.node().outputs[0]).dtype);
  return *y;
}

// The [1, 3, 3, 2] tensors of test_quantizelinear_axis / test_dequantizelinear_axis.
const std::vector<double> kAxisReal = {-162, 10, -100, 232, -20, -50, -76, 0,    0,
                                       252,  32, -44,  245, -485, -960, -270, -375, -470};
const std::vector<double> kAxisQuantized = {3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102};

TEST(QuantizeLinear, DocumentationExamples) {
  const HostTensor zp = MakeTensor(DType::kUInt8, {}, {128});
  std::vector<HostTensor> y =
      EvaluateLinear("QuantizeLinear", Floats({6}, {0, 2, 3, 1000, -254, -1000}), Floats({}, {2}), &zp);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].dtype, DType::kUInt8);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{128, 129, 130, 255, 1, 0}));

  const HostTensor zps = MakeTensor(DType::kUInt8, {3}, {84, 24, 196});
  y = EvaluateLinear("QuantizeLinear", Floats({1, 3, 3, 2}, kAxisReal), Floats({3}, {2, 4, 5}), &zps);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(Values(y[0]), kAxisQuantized);
  EXPECT_EQ(y[0].shape, (Shape{1, 3, 3, 2}));
}

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  const double inf = std::numeric_limits<double>::infinity();
  const HostTensor x = Floats({12}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999, std::nan(""), inf, -inf, 300, -300});
  const HostTensor zp8 = MakeTensor(DType::kInt8, {}, {0});
  std::vector<HostTensor> y = EvaluateLinear("QuantizeLinear", x, Floats({}, {1}), &zp8);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].dtype, DType::kInt8);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{0, 2, 2, -0, -2, -2, 2, 0, 127, -128, 127, -128}));
  // Without a zero point: uint8 with zero point 0; NaN gives the zero point.
  y = EvaluateLinear("QuantizeLinear", x, Floats({}, {0.5}), nullptr);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].dtype, DType::kUInt8);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{1, 3, 5, 0, 0, 0, 5, 0, 255, 0, 255, 0}));
  // The rounding is of x / scale in float32: 0.35f / 0.1f is 3.5f (a tie, to 4), in double
  // 3.49999988 (to 3).
  const HostTensor zp_u8 = MakeTensor(DType::kUInt8, {}, {10});
  y = EvaluateLinear("QuantizeLinear", Floats({2}, {0.25, 0.35}), Floats({}, {0.1}), &zp_u8);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{12, 14}));
}

TEST(DequantizeLinear, DocumentationExamples) {
  const HostTensor zp = MakeTensor(DType::kUInt8, {}, {128});
  std::vector<HostTensor> y =
      EvaluateLinear("DequantizeLinear", MakeTensor(DType::kUInt8, {4}, {0, 3, 128, 255}), Floats({}, {2}), &zp);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].dtype, DType::kFloat32);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{-256, -250, 0, 254}));

  const HostTensor zps = MakeTensor(DType::kUInt8, {3}, {84, 24, 196});
  y = EvaluateLinear("DequantizeLinear", MakeTensor(DType::kUInt8, {1, 3, 3, 2}, kAxisQuantized),
                     Floats({3}, {2, 4, 5}), &zps);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(Values(y[0]), kAxisReal);

  // int32 (a bias) without a zero point.
  y = EvaluateLinear("DequantizeLinear", MakeTensor(DType::kInt32, {3}, {-2000000, 7, 2147483647}),
                     Floats({}, {0.5}), nullptr);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(Values(y[0]), (std::vector<double>{-1000000, 3.5, 1073741824}));
}

std::vector<HostTensor> EvaluateDynamic(const HostTensor& x) {
  OpTest t("DynamicQuantizeLinear");
  t.Input("x", x.dtype, x.shape);
  t.Output("y");
  t.Output("y_scale");
  t.Output("y_zero_point");
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? *y : std::vector<HostTensor>{};
}

TEST(DynamicQuantizeLinear, DocumentationExamples) {
  struct Case {
    std::vector<double> x;
    double scale;
    double zero_point;
    std::vector<double> y;
  };
  const Case cases[] = {
      {{0, 2, -3, -2.5, 1.34, 0.5}, 5.0 / 255, 153, {153, 255, 0, 26, 221, 179}},
      {{-1.0, -2.1, -1.3, -2.5, -3.34, -4.0}, 4.0 / 255, 255, {191, 121, 172, 96, 42, 0}},  // max adjusted
      {{1, 2.1, 1.3, 2.5, 3.34, 4.0, 1.5, 2.6, 3.9, 4.0, 3.0, 2.345},  // min adjusted
       4.0 / 255,
       0,
       {64, 134, 83, 159, 213, 255, 96, 166, 249, 255, 191, 149}},
      {{0, 0}, 0, 0, {0, 0}},  // no range: scale 0, everything the zero point
  };
  for (const Case& c : cases) {
    std::vector<HostTensor> out = EvaluateDynamic(Floats({static_cast<int64_t>(c.x.size())}, c.x));
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].dtype, DType::kUInt8);
    EXPECT_EQ(Values(out[0]), c.y);
    EXPECT_EQ(out[1].shape, Shape{});
    EXPECT_EQ(out[1].data<float>()[0], static_cast<float>(c.scale));
    EXPECT_EQ(Values(out[2]), std::vector<double>{c.zero_point});
  }
}

// Random floats spread over [-span, span] with a few exact ties and specials.
HostTensor SpreadFloats(Shape shape, uint64_t seed, double span) {
  HostTensor x = RandomTensor(DType::kFloat32, shape, seed);
  for (uint64_t i = 0; i < x.element_count(); ++i) {
    double v = x.GetDouble(i) * span;
    if (i % 7 == 3) v = std::round(v) + 0.5;  // ties
    x.SetDouble(i, v);
  }
  if (x.element_count() > 2) {
    x.SetDouble(0, std::nan(""));
    x.SetDouble(1, std::numeric_limits<double>::infinity());
  }
  return x;
}

TEST(QuantizeLinear, GeneratedMatchesEvaluate) {
  struct Case {
    DType zp;  // kFloat32: no zero point
    Shape shape;
    Shape scale_shape;
    int64_t axis;
    bool runtime_scale;
  };
  const Case cases[] = {
      {DType::kUInt8, {6}, {}, 1, false},
      {DType::kInt8, {2, 3, 4}, {}, 1, false},
      {DType::kInt8, {2, 3, 4}, {3}, 1, false},
      {DType::kUInt8, {2, 3, 4}, {4}, -1, true},
      {DType::kInt8, {5, 3}, {5}, 0, true},
      {DType::kFloat32, {4, 4}, {1}, 0, false},
      {DType::kUInt8, {0, 3}, {3}, 1, false},
  };
  uint64_t seed = 140;
  for (const Case& c : cases) {
    OpTest t("QuantizeLinear");
    const HostTensor x = SpreadFloats(c.shape, seed++, 200);
    HostTensor scale = RandomTensor(DType::kFloat32, c.scale_shape, seed++);
    for (uint64_t i = 0; i < scale.element_count(); ++i) scale.SetDouble(i, 0.25 + std::fabs(scale.GetDouble(i)));
    HostTensor zp = RandomTensor(c.zp == DType::kFloat32 ? DType::kUInt8 : c.zp, c.scale_shape, seed++);
    t.Input("x", DType::kFloat32, c.shape);
    std::vector<HostTensor> inputs = {x};
    if (c.runtime_scale) {
      t.Input("scale", DType::kFloat32, c.scale_shape);
      inputs.push_back(scale);
    } else {
      t.Constant("scale", scale);
    }
    if (c.zp != DType::kFloat32) {
      if (c.runtime_scale) {
        t.Input("zp", c.zp, c.scale_shape);
        inputs.push_back(zp);
      } else {
        t.Constant("zp", zp);
      }
    }
    t.Output("y");
    t.Attr("axis", c.axis);
    SCOPED_TRACE(FormatShape(c.shape) + " scale " + FormatShape(c.scale_shape) + " axis " + std::to_string(c.axis));
    ExpectGeneratedMatches(t, inputs, 0, seed % 2 == 0);
  }
}

// The generated QuantizeLinear computes in float32 and int32 only (firmware
// on a single-precision FPU): no double, floor or fmod in its code, and the
// same bits as Quantize's double rounding at the edges of that arithmetic:
// ties of either sign, values in (-1, 0) whose v - floor(v) rounds, the
// clamp at +-1024 and what lies just inside it, the largest floats.
TEST(QuantizeLinear, GeneratedInFloat32MatchesEvaluate) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> edges = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 126.5, -127.5, 127.5, -128.5, 254.5, 255.5,
                                     -0.5 + std::ldexp(1.0, -26), -0.5 - std::ldexp(1.0, -25), -std::ldexp(1.0, -30),
                                     std::ldexp(1.0, -30), -0.99999994, 0.99999994, -1e-8, 1023.5, -1023.5, 1024.5,
                                     -1024.5, 1e30, -1e30, 3.4e38, -3.4e38, inf, -inf, std::nan(""), 0.0, -0.0};
  for (DType dtype : {DType::kInt8, DType::kUInt8}) {
    for (int64_t zero_point : {0, dtype == DType::kInt8 ? -128 : 255, dtype == DType::kInt8 ? 127 : 1}) {
      for (double scale : {1.0, 0.5, 3.0}) {
        OpTest t("QuantizeLinear");
        t.Input("x", DType::kFloat32, {static_cast<int64_t>(edges.size())});
        t.Constant("scale", Floats({}, {scale}));
        t.Constant("zp", MakeTensor(dtype, {}, {static_cast<double>(zero_point)}));
        t.Output("y");
        SCOPED_TRACE(std::string(DTypeName(dtype)) + " zero point " + std::to_string(zero_point) + " scale " +
                     std::to_string(scale));
        ExpectGeneratedMatches(t, {Floats({static_cast<int64_t>(edges.size())}, edges)});
        ASSERT_TRUE(t.Infer().ok());
        Result<emit::NodeFunction> f = emit::EmitNodeFunction(t.graph(), 0);
        ASSERT_TRUE(f.ok()) << f.status().ToString();
        EXPECT_EQ(f->definition.find("double"), std::string::npos) << f->definition;
        EXPECT_EQ(f->definition.find("floor("), std::string::npos) << f->definition;
        EXPECT_EQ(f->definition.find("fmod("), std::string::npos) << f->definition;
      }
    }
  }
}

TEST(DequantizeLinear, GeneratedMatchesEvaluate) {
  struct Case {
    DType x;
    Shape shape;
    Shape scale_shape;
    int64_t axis;
    bool zero_point;
    bool runtime;
  };
  const Case cases[] = {
      {DType::kUInt8, {4}, {}, 1, true, false},
      {DType::kInt8, {2, 3, 4}, {3}, 1, true, false},
      {DType::kInt8, {2, 3, 4}, {2}, 0, true, true},
      {DType::kUInt8, {3, 5}, {5}, -1, false, true},
      {DType::kInt32, {7}, {}, 0, false, false},
      {DType::kInt32, {4, 2}, {4}, 0, true, false},
      {DType::kInt8, {0}, {}, 0, true, false},
  };
  uint64_t seed = 240;
  for (const Case& c : cases) {
    OpTest t("DequantizeLinear");
    HostTensor scale = RandomTensor(DType::kFloat32, c.scale_shape, seed++);
    HostTensor zp = c.x == DType::kInt32 ? HostTensor::Zeros(DType::kInt32, c.scale_shape)
                                         : RandomTensor(c.x, c.scale_shape, seed++);
    t.Input("x", c.x, c.shape);
    std::vector<HostTensor> inputs = {RandomTensor(c.x, c.shape, seed++)};
    if (c.runtime) {
      t.Input("scale", DType::kFloat32, c.scale_shape);
      inputs.push_back(scale);
    } else {
      t.Constant("scale", scale);
    }
    if (c.zero_point) {
      if (c.runtime) {
        t.Input("zp", c.x, c.scale_shape);
        inputs.push_back(zp);
      } else {
        t.Constant("zp", zp);
      }
    }
    t.Output("y");
    t.Attr("axis", c.axis);
    SCOPED_TRACE(std::string(DTypeName(c.x)) + FormatShape(c.shape) + " axis " + std::to_string(c.axis));
    ExpectGeneratedMatches(t, inputs, 0, seed % 2 == 0);
  }
}

TEST(DynamicQuantizeLinear, GeneratedMatchesEvaluate) {
  uint64_t seed = 340;
  for (const Shape& shape : {Shape{6}, Shape{2, 3, 5}, Shape{0}, Shape{3, 1}}) {
    OpTest t("DynamicQuantizeLinear");
    t.Input("x", DType::kFloat32, shape);
    t.Output("y");
    t.Output("y_scale");
    t.Output("y_zero_point");
    HostTensor x = SpreadFloats(shape, seed++, 3);
    if (shape == Shape{3, 1}) x = Floats(shape, {0, 0, 0});
    SCOPED_TRACE(FormatShape(shape));
    ExpectGeneratedMatches(t, {x}, 0, seed % 2 == 0);
  }
}

TEST(QuantizeOps, Errors) {
  auto linear = [](const std::string& op, DType x, Shape x_shape, const HostTensor& scale, const HostTensor* zp,
                   int64_t axis = 1) {
    OpTest t(op, "q");
    t.Input("x", x, std::move(x_shape));
    t.Constant("scale", scale);
    if (zp != nullptr) t.Constant("zp", *zp);
    t.Output("y");
    t.Attr("axis", axis);
    return InferError(t);
  };
  const HostTensor u8 = MakeTensor(DType::kUInt8, {}, {1});
  EXPECT_EQ(linear("QuantizeLinear", DType::kFloat32, {4}, Floats({}, {0}), &u8),
            "node 'q' (QuantizeLinear): input 1 (y_scale) element 0 is 0; a scale must be finite and non-zero");
  EXPECT_EQ(linear("DequantizeLinear", DType::kUInt8, {2, 3}, Floats({3}, {1, std::nan(""), 2}), nullptr),
            "node 'q' (DequantizeLinear): input 1 (x_scale) element 1 is nan; a scale must be finite and non-zero");
  EXPECT_EQ(linear("QuantizeLinear", DType::kFloat32, {2, 3}, Floats({2}, {1, 2}), nullptr),
            "node 'q' (QuantizeLinear): input 1 (y_scale) has 2 elements, but axis 1 of input 0 (x) [2, 3] has 3");
  EXPECT_EQ(linear("DequantizeLinear", DType::kInt8, {2, 3}, Floats({3}, {1, 2, 3}), nullptr, 2),
            "node 'q' (DequantizeLinear): axis 2 is out of range for rank 2 (expected -2 to 1)");
  EXPECT_EQ(linear("QuantizeLinear", DType::kFloat32, {2, 2}, Floats({2, 2}, {1, 1, 1, 1}), nullptr),
            "node 'q' (QuantizeLinear): input 1 (y_scale) must be a scalar or 1-D, got shape [2, 2]");
  const HostTensor zp2 = MakeTensor(DType::kUInt8, {2}, {1, 2});
  EXPECT_EQ(linear("QuantizeLinear", DType::kFloat32, {2, 3}, Floats({3}, {1, 2, 3}), &zp2),
            "node 'q' (QuantizeLinear): input 2 (y_zero_point) has shape [2], but input 1 (y_scale) has shape [3]");
  const HostTensor i16 = MakeTensor(DType::kInt16, {}, {1});
  EXPECT_EQ(linear("QuantizeLinear", DType::kFloat32, {4}, Floats({}, {1}), &i16),
            "node 'q' (QuantizeLinear): input 2 (y_zero_point) has dtype int16; supported: int8, uint8");
  EXPECT_EQ(linear("QuantizeLinear", DType::kInt32, {4}, Floats({}, {1}), &u8),
            "node 'q' (QuantizeLinear): input 0 (x) has dtype int32; supported: float32");
  EXPECT_EQ(linear("QuantizeLinear", DType::kFloat32, {4}, MakeTensor(DType::kFloat64, {}, {1}), &u8),
            "node 'q' (QuantizeLinear): input 1 (y_scale) has dtype float64; supported: float32");
  EXPECT_EQ(linear("DequantizeLinear", DType::kInt16, {4}, Floats({}, {1}), nullptr),
            "node 'q' (DequantizeLinear): input 0 (x) has dtype int16; supported: int8, uint8, int32");
  EXPECT_EQ(linear("DequantizeLinear", DType::kInt8, {4}, Floats({}, {1}), &u8),
            "node 'q' (DequantizeLinear): input 2 (x_zero_point) has dtype uint8, but input 0 (x) is int8");
  const HostTensor i32 = MakeTensor(DType::kInt32, {2}, {0, 5});
  EXPECT_EQ(linear("DequantizeLinear", DType::kInt32, {2}, Floats({2}, {1, 1}), &i32, 0),
            "node 'q' (DequantizeLinear): input 2 (x_zero_point) element 1 is 5; the zero point of int32 input "
            "must be 0");

  OpTest arity("QuantizeLinear", "q");
  arity.Input("x", DType::kFloat32, {4});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), "node 'q' (QuantizeLinear): expects 2 to 3 inputs, got 1");

  OpTest dynamic("DynamicQuantizeLinear", "d");
  dynamic.Input("x", DType::kFloat64, {4});
  dynamic.Output("y");
  dynamic.Output("s");
  dynamic.Output("z");
  EXPECT_EQ(InferError(dynamic), "node 'd' (DynamicQuantizeLinear): input 0 (x) has dtype float64; supported: float32");
  OpTest outputs("DynamicQuantizeLinear", "d");
  outputs.Input("x", DType::kFloat32, {4});
  outputs.Output("y");
  EXPECT_EQ(InferError(outputs), "node 'd' (DynamicQuantizeLinear): expects 3 outputs, got 1");
}

}  // namespace
}  // namespace mlf::ops::testing
