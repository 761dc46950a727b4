// MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv: the ONNX
// documentation values through evaluate, the generated C against evaluate
// bit for bit (dtypes, per-row/column/channel parameters, batches, groups,
// pads, strides, dilations, bias, runtime scales), and the infer errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

HostTensor U8(Shape shape, const std::vector<double>& v) { return MakeTensor(DType::kUInt8, std::move(shape), v); }
HostTensor F32(Shape shape, const std::vector<double>& v) { return MakeTensor(DType::kFloat32, std::move(shape), v); }

// Runs `t` (inputs declared, output added here) through infer and evaluate.
std::vector<double> EvaluateOne(OpTest& t, const std::vector<HostTensor>& inputs, Shape* shape, DType* dtype) {
  t.Output("y");
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(inputs);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = (*y)[0].shape;
  *dtype = (*y)[0].dtype;
  EXPECT_EQ(*shape, t.graph().value(t.node().outputs[0]).shape);
  return Values((*y)[0]);
}

TEST(QLinearMatMul, DocumentationExample) {
  OpTest t("QLinearMatMul");
  const HostTensor a = U8({2, 4}, {208, 236, 0, 238, 3, 214, 255, 29});
  t.Input("a", DType::kUInt8, {2, 4});
  t.Constant("a_scale", F32({}, {0.0066}));
  t.Constant("a_zero_point", U8({}, {113}));
  t.Constant("b", U8({4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}));
  t.Constant("b_scale", F32({}, {0.00705}));
  t.Constant("b_zero_point", U8({}, {114}));
  t.Constant("y_scale", F32({}, {0.0107}));
  t.Constant("y_zero_point", U8({}, {118}));
  Shape shape;
  DType dtype;
  EXPECT_EQ(EvaluateOne(t, {a}, &shape, &dtype), (std::vector<double>{168, 115, 255, 1, 66, 151}));
  EXPECT_EQ(shape, (Shape{2, 3}));
  EXPECT_EQ(dtype, DType::kUInt8);
}

TEST(MatMulInteger, DocumentationExample) {
  OpTest t("MatMulInteger");
  const HostTensor a = U8({4, 3}, {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0});
  t.Input("A", DType::kUInt8, {4, 3});
  t.Constant("B", U8({3, 2}, {1, 4, 2, 5, 3, 6}));
  t.Constant("a_zero_point", U8({}, {12}));
  t.Constant("b_zero_point", U8({}, {0}));
  Shape shape;
  DType dtype;
  EXPECT_EQ(EvaluateOne(t, {a}, &shape, &dtype),
            (std::vector<double>{-38, -83, -44, -98, -50, -113, -56, -128}));
  EXPECT_EQ(shape, (Shape{4, 2}));
  EXPECT_EQ(dtype, DType::kInt32);
}

TEST(ConvInteger, DocumentationExamples) {
  const HostTensor x = U8({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10});
  for (bool padded : {false, true}) {
    OpTest t("ConvInteger");
    t.Input("x", DType::kUInt8, {1, 1, 3, 3});
    t.Constant("w", U8({1, 1, 2, 2}, {1, 1, 1, 1}));
    t.Constant("x_zero_point", U8({}, {1}));
    if (padded) t.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
    Shape shape;
    DType dtype;
    const std::vector<double> y = EvaluateOne(t, {x}, &shape, &dtype);
    EXPECT_EQ(dtype, DType::kInt32);
    if (padded) {
      EXPECT_EQ(shape, (Shape{1, 1, 4, 4}));
      EXPECT_EQ(y, (std::vector<double>{1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9}));
    } else {
      EXPECT_EQ(shape, (Shape{1, 1, 2, 2}));
      EXPECT_EQ(y, (std::vector<double>{12, 16, 24, 28}));
    }
  }
}

TEST(QLinearConv, DocumentationExample) {
  const HostTensor x = U8({1, 1, 7, 7}, {255, 174, 162, 25,  203, 168, 58,  15,  59,  237, 95,  129, 0,
                                         64,  56,  242, 153, 221, 168, 12,  166, 232, 178, 186, 195, 237,
                                         162, 237, 188, 39,  124, 77,  80,  102, 43,  127, 230, 21,  83,
                                         41,  40,  134, 255, 154, 92,  141, 42,  148, 247});
  OpTest t("QLinearConv");
  t.Input("x", DType::kUInt8, {1, 1, 7, 7});
  t.Constant("x_scale", F32({}, {0.00369204697}));
  t.Constant("x_zero_point", U8({}, {132}));
  t.Constant("w", U8({1, 1, 1, 1}, {0}));
  t.Constant("w_scale", F32({1}, {0.00172794575}));
  t.Constant("w_zero_point", U8({1}, {255}));
  t.Constant("y_scale", F32({}, {0.00162681262}));
  t.Constant("y_zero_point", U8({}, {123}));
  Shape shape;
  DType dtype;
  EXPECT_EQ(EvaluateOne(t, {x}, &shape, &dtype),
            (std::vector<double>{0,   81,  93,  230, 52,  87,  197, 240, 196, 18,  160, 126, 255, 191, 199, 13,  102,
                                 34,  87,  243, 89,  23,  77,  69,  60,  18,  93,  18,  67,  216, 131, 178, 175, 153,
                                 212, 128, 25,  234, 172, 214, 215, 121, 0,   101, 163, 114, 213, 107, 8}));
  EXPECT_EQ(shape, (Shape{1, 1, 7, 7}));
}

// Positive scales around `base`.
HostTensor Scales(Shape shape, uint64_t seed, double base) {
  HostTensor s = RandomTensor(DType::kFloat32, std::move(shape), seed);
  for (uint64_t i = 0; i < s.element_count(); ++i) s.SetDouble(i, base * (1.5 + s.GetDouble(i)));
  return s;
}

// Adds input `name` as a constant, or as a graph input whose value goes to
// `inputs` when `runtime`.
void Add(OpTest& t, const std::string& name, const HostTensor& v, bool runtime, std::vector<HostTensor>* inputs) {
  if (runtime) {
    t.Input(name, v.dtype, v.shape);
    inputs->push_back(v);
  } else {
    t.Constant(name, v);
  }
}

TEST(QLinearMatMul, GeneratedMatchesEvaluate) {
  struct Case {
    DType a, b, y;
    Shape a_shape, b_shape;
    Shape a_param, b_param;  // scale and zero point shapes
    bool runtime;
  };
  const Case cases[] = {
      {DType::kUInt8, DType::kUInt8, DType::kUInt8, {2, 4}, {4, 3}, {}, {}, false},
      {DType::kInt8, DType::kInt8, DType::kInt8, {3, 5}, {5, 4}, {3}, {4}, false},
      {DType::kUInt8, DType::kInt8, DType::kInt8, {2, 3, 4}, {4, 6}, {}, {1, 6}, true},
      {DType::kInt8, DType::kUInt8, DType::kUInt8, {2, 1, 3, 4}, {3, 4, 2}, {3, 1}, {}, false},
      {DType::kInt8, DType::kInt8, DType::kUInt8, {7}, {7, 5}, {}, {5}, true},
      {DType::kUInt8, DType::kUInt8, DType::kInt8, {2, 7}, {7}, {2}, {}, false},
      {DType::kInt8, DType::kInt8, DType::kInt8, {2, 0}, {0, 3}, {}, {}, false},
  };
  uint64_t seed = 500;
  for (const Case& c : cases) {
    OpTest t("QLinearMatMul");
    std::vector<HostTensor> inputs;
    t.Input("a", c.a, c.a_shape);
    inputs.push_back(RandomTensor(c.a, c.a_shape, seed++));
    Add(t, "a_scale", Scales(c.a_param, seed++, 0.02), c.runtime, &inputs);
    Add(t, "a_zero_point", RandomTensor(c.a, c.a_param, seed++), c.runtime, &inputs);
    t.Input("b", c.b, c.b_shape);
    inputs.push_back(RandomTensor(c.b, c.b_shape, seed++));
    Add(t, "b_scale", Scales(c.b_param, seed++, 0.01), c.runtime, &inputs);
    Add(t, "b_zero_point", RandomTensor(c.b, c.b_param, seed++), false, &inputs);
    Add(t, "y_scale", Scales({}, seed++, 0.05), c.runtime, &inputs);
    Add(t, "y_zero_point", RandomTensor(c.y, {}, seed++), false, &inputs);
    t.Output("y");
    SCOPED_TRACE(FormatShape(c.a_shape) + " x " + FormatShape(c.b_shape));
    ExpectGeneratedMatches(t, inputs, 0, seed % 2 == 0);
  }
}

TEST(MatMulInteger, GeneratedMatchesEvaluate) {
  struct Case {
    DType a, b;
    Shape a_shape, b_shape;
    int zero_points;  // 0: none, 1: a's only, 2: both
    Shape a_zp, b_zp;
  };
  const Case cases[] = {
      {DType::kUInt8, DType::kUInt8, {4, 3}, {3, 2}, 2, {}, {}},
      {DType::kInt8, DType::kUInt8, {2, 5, 6}, {2, 6, 3}, 2, {5}, {3}},
      {DType::kUInt8, DType::kInt8, {3, 8}, {8, 9}, 1, {3, 1}, {}},
      {DType::kInt8, DType::kInt8, {33, 17}, {17, 20}, 0, {}, {}},
      {DType::kUInt8, DType::kUInt8, {3, 0}, {0, 2}, 0, {}, {}},
  };
  uint64_t seed = 600;
  for (const Case& c : cases) {
    OpTest t("MatMulInteger");
    std::vector<HostTensor> inputs;
    t.Input("A", c.a, c.a_shape);
    inputs.push_back(RandomTensor(c.a, c.a_shape, seed++));
    t.Input("B", c.b, c.b_shape);
    inputs.push_back(RandomTensor(c.b, c.b_shape, seed++));
    const bool runtime = seed % 2 == 0;
    if (c.zero_points >= 1) Add(t, "a_zero_point", RandomTensor(c.a, c.a_zp, seed++), runtime, &inputs);
    if (c.zero_points >= 2) Add(t, "b_zero_point", RandomTensor(c.b, c.b_zp, seed++), false, &inputs);
    t.Output("y");
    SCOPED_TRACE(FormatShape(c.a_shape) + " x " + FormatShape(c.b_shape));
    ExpectGeneratedMatches(t, inputs, 0, seed % 2 == 0);
  }
}

struct ConvCase {
  DType x, w, y;
  Shape x_shape, w_shape;
  int64_t group;
  Shape pads, strides, dilations;
  bool per_channel, bias, runtime;
};

// QLinearConv (y kUInt8/kInt8) or ConvInteger (y kInt32) of one case.
void ExpectConvMatches(const ConvCase& c, uint64_t seed) {
  const bool q = c.y != DType::kInt32;
  OpTest t(q ? "QLinearConv" : "ConvInteger");
  std::vector<HostTensor> inputs;
  const Shape per = c.per_channel ? Shape{c.w_shape[0]} : Shape{};
  t.Input("x", c.x, c.x_shape);
  inputs.push_back(RandomTensor(c.x, c.x_shape, seed++));
  if (q) Add(t, "x_scale", Scales({}, seed++, 0.02), c.runtime, &inputs);
  if (!q) {
    Add(t, "w", RandomTensor(c.w, c.w_shape, seed++), false, &inputs);
    Add(t, "x_zero_point", RandomTensor(c.x, {}, seed++), c.runtime, &inputs);
    Add(t, "w_zero_point", RandomTensor(c.w, per, seed++), false, &inputs);
  } else {
    Add(t, "x_zero_point", RandomTensor(c.x, {}, seed++), c.runtime, &inputs);
    Add(t, "w", RandomTensor(c.w, c.w_shape, seed++), false, &inputs);
    Add(t, "w_scale", Scales(per, seed++, 0.01), c.runtime, &inputs);
    Add(t, "w_zero_point", RandomTensor(c.w, per, seed++), false, &inputs);
    Add(t, "y_scale", Scales({}, seed++, 0.1), false, &inputs);
    Add(t, "y_zero_point", RandomTensor(c.y, {}, seed++), false, &inputs);
    if (c.bias) {
      HostTensor b = RandomTensor(DType::kInt32, {c.w_shape[0]}, seed++);
      for (uint64_t i = 0; i < b.element_count(); ++i) b.data<int32_t>()[i] %= 5000;
      Add(t, "B", b, c.runtime, &inputs);
    }
  }
  t.Output("y");
  t.Attr("group", c.group);
  if (!c.pads.empty()) t.Attr("pads", c.pads);
  if (!c.strides.empty()) t.Attr("strides", c.strides);
  if (!c.dilations.empty()) t.Attr("dilations", c.dilations);
  SCOPED_TRACE(t.node().op + " " + FormatShape(c.x_shape) + " w " + FormatShape(c.w_shape));
  ExpectGeneratedMatches(t, inputs, 0, seed % 2 == 0);
}

TEST(QLinearConv, GeneratedMatchesEvaluate) {
  const ConvCase cases[] = {
      {DType::kUInt8, DType::kUInt8, DType::kUInt8, {1, 3, 6, 6}, {4, 3, 3, 3}, 1, {1, 1, 1, 1}, {}, {}, false, true, false},
      {DType::kInt8, DType::kInt8, DType::kInt8, {2, 4, 7, 5}, {6, 2, 3, 2}, 2, {0, 1, 2, 0}, {2, 1}, {1, 2}, true, true, true},
      {DType::kUInt8, DType::kInt8, DType::kUInt8, {1, 4, 5, 5}, {4, 1, 3, 3}, 4, {1, 1, 1, 1}, {}, {}, true, false, false},
      {DType::kInt8, DType::kUInt8, DType::kInt8, {1, 2, 9}, {3, 2, 3}, 1, {1, 1}, {2}, {}, false, true, false},
      {DType::kUInt8, DType::kUInt8, DType::kInt8, {1, 2, 3, 3, 3}, {2, 2, 2, 2, 2}, 1, {}, {}, {}, true, true, false},
  };
  uint64_t seed = 700;
  for (const ConvCase& c : cases) ExpectConvMatches(c, seed += 20);
}

TEST(ConvInteger, GeneratedMatchesEvaluate) {
  const ConvCase cases[] = {
      {DType::kUInt8, DType::kUInt8, DType::kInt32, {1, 1, 3, 3}, {1, 1, 2, 2}, 1, {1, 1, 1, 1}, {}, {}, false, false, false},
      {DType::kInt8, DType::kUInt8, DType::kInt32, {2, 6, 5, 4}, {3, 2, 3, 3}, 3, {2, 1, 0, 1}, {1, 2}, {2, 1}, true, false, true},
      {DType::kUInt8, DType::kInt8, DType::kInt32, {1, 3, 8}, {4, 3, 1}, 1, {}, {3}, {}, true, false, false},
  };
  uint64_t seed = 800;
  for (const ConvCase& c : cases) ExpectConvMatches(c, seed += 20);
}

// ---- The lowered forms (issue 14 step 2): fixed-point requantization,
// the folded clamp, and the gemm_s8 kernel path ----

// acc = (0 - 3) * 1 = -3, multiplier 0.5: the double rule rounds -1.5 to
// even (-2); the fixed-point rule of the kernels rounds the high multiply's
// tie up (-1). The clamp [0, 127] of a folded Relu then gives 0.
TEST(QLinearConv, FixedPointRuleAndClamp) {
  auto run = [](bool fixed, bool clamp) {
    OpTest t("QLinearConv");
    t.Input("x", DType::kUInt8, {1, 1, 1, 1});
    t.Constant("x_scale", F32({}, {1}));
    t.Constant("x_zero_point", U8({}, {3}));
    t.Constant("w", MakeTensor(DType::kInt8, {1, 1, 1, 1}, {1}));
    t.Constant("w_scale", F32({}, {0.5}));
    t.Constant("w_zero_point", MakeTensor(DType::kInt8, {}, {0}));
    t.Constant("y_scale", F32({}, {1}));
    t.Constant("y_zero_point", MakeTensor(DType::kInt8, {}, {0}));
    if (fixed) t.Attr("mlf.fixed_point", int64_t{1});
    if (clamp) t.Attr("mlf.clamp", std::vector<int64_t>{0, 127});
    Shape shape;
    DType dtype;
    return EvaluateOne(t, {U8({1, 1, 1, 1}, {0})}, &shape, &dtype);
  };
  EXPECT_EQ(run(false, false), (std::vector<double>{-2}));
  EXPECT_EQ(run(true, false), (std::vector<double>{-1}));
  EXPECT_EQ(run(true, true), (std::vector<double>{0}));
  EXPECT_EQ(run(false, true), (std::vector<double>{0}));
}

// The fixed-point multiplier is the float32 requantization scale, (w_scale
// * x_scale) * (1 / y_scale): with the scales of torchvision's int8
// MobileNetV2's second depthwise layer, an accumulator of 7642 = 60 * 127 +
// 22 * 1 is 91.4999971 steps exactly, but 91.5000014 with that float32
// scale (0.011973306), which PyTorch's kernels use: 92, as PyTorch's output.
TEST(QLinearConv, FixedPointMultiplierIsTheFloat32Scale) {
  auto run = [](bool fixed) {
    OpTest t("QLinearConv");
    t.Input("x", DType::kUInt8, {1, 2, 1, 1});
    t.Constant("x_scale", F32({}, {0.019575479f}));
    t.Constant("x_zero_point", U8({}, {0}));
    t.Constant("w", MakeTensor(DType::kInt8, {1, 2, 1, 1}, {127, 1}));
    t.Constant("w_scale", F32({}, {0.012432769f}));
    t.Constant("w_zero_point", MakeTensor(DType::kInt8, {}, {0}));
    t.Constant("y_scale", F32({}, {0.020326668f}));
    t.Constant("y_zero_point", U8({}, {0}));
    if (fixed) t.Attr("mlf.fixed_point", int64_t{1});
    Shape shape;
    DType dtype;
    return EvaluateOne(t, {U8({1, 2, 1, 1}, {60, 22})}, &shape, &dtype);
  };
  EXPECT_EQ(run(true), (std::vector<double>{92}));
  EXPECT_EQ(run(false), (std::vector<double>{91}));  // the double rule: the exact ratio
}

TEST(QLinearConv, FixedPointNeedsConstantScales) {
  OpTest t("QLinearConv");
  t.Input("x", DType::kUInt8, {1, 1, 2, 2});
  t.Input("x_scale", DType::kFloat32, {});
  t.Constant("x_zero_point", U8({}, {3}));
  t.Constant("w", MakeTensor(DType::kInt8, {1, 1, 1, 1}, {1}));
  t.Constant("w_scale", F32({}, {0.5}));
  t.Constant("w_zero_point", MakeTensor(DType::kInt8, {}, {0}));
  t.Constant("y_scale", F32({}, {1}));
  t.Constant("y_zero_point", MakeTensor(DType::kInt8, {}, {0}));
  t.Output("y");
  t.Attr("mlf.fixed_point", int64_t{1});
  EXPECT_EQ(t.Infer().ToString(),
            "invalid_argument: node 'n0' (QLinearConv): mlf.fixed_point needs constant scales, x's per tensor");
}

struct KernelCase {
  DType x, y;  // y kInt32: ConvInteger
  Shape x_shape, w_shape, pads, strides, dilations;
  bool per_channel, bias, w_zero_point;
  std::vector<int64_t> clamp;
  int64_t group = 1;  // > 1: depthwise
};

// A convolution the kernel layer takes: int8 weight with zero point 0,
// constant parameters, fixed-point requantization.
void ExpectKernelConvMatches(const KernelCase& c, uint64_t seed, bool cross) {
  const bool q = c.y != DType::kInt32;
  OpTest t(q ? "QLinearConv" : "ConvInteger");
  std::vector<HostTensor> inputs;
  const Shape per = c.per_channel ? Shape{c.w_shape[0]} : Shape{};
  t.Input("x", c.x, c.x_shape);
  inputs.push_back(RandomTensor(c.x, c.x_shape, seed++));
  const HostTensor w = RandomTensor(DType::kInt8, c.w_shape, seed++);
  const HostTensor x_zp = RandomTensor(c.x, {}, seed++);
  if (q) {
    t.Constant("x_scale", Scales({}, seed++, 0.02));
    t.Constant("x_zero_point", x_zp);
    t.Constant("w", w);
    t.Constant("w_scale", Scales(per, seed++, 0.01));
    if (c.w_zero_point) {
      t.Constant("w_zero_point", MakeTensor(DType::kInt8, per, std::vector<double>(per.empty() ? 1 : static_cast<size_t>(per[0]), 0)));
    } else {
      t.OmittedInput();
    }
    t.Constant("y_scale", Scales({}, seed++, 0.1));
    t.Constant("y_zero_point", RandomTensor(c.y, {}, seed++));
    if (c.bias) {
      HostTensor b = RandomTensor(DType::kInt32, {c.w_shape[0]}, seed++);
      for (uint64_t i = 0; i < b.element_count(); ++i) b.data<int32_t>()[i] %= 5000;
      t.Constant("B", b);
    }
    t.Attr("mlf.fixed_point", int64_t{1});
    if (!c.clamp.empty()) t.Attr("mlf.clamp", c.clamp);
  } else {
    t.Constant("w", w);
    t.Constant("x_zero_point", x_zp);
    if (c.w_zero_point) t.Constant("w_zero_point", MakeTensor(DType::kInt8, {}, {0}));
  }
  t.Output("y");
  if (!c.pads.empty()) t.Attr("pads", c.pads);
  if (!c.strides.empty()) t.Attr("strides", c.strides);
  if (!c.dilations.empty()) t.Attr("dilations", c.dilations);
  if (c.group > 1) t.Attr("group", c.group);
  SCOPED_TRACE(t.node().op + " " + FormatShape(c.x_shape) + " w " + FormatShape(c.w_shape));
  ASSERT_TRUE(t.Infer().ok());
  // The body calls the kernel.
  std::set<std::string> kernels;
  std::string body;
  const EmitContext ctx{t.node(), t.graph(), &kernels};
  ASSERT_TRUE(FindOp(t.node().op)->emit(ctx, &body).ok());
  EXPECT_EQ(kernels, (std::set<std::string>{c.group > 1 ? "depthwise_s8" : "gemm_s8"}));
  const bool one_pixel = c.x_shape[2] * c.x_shape[3] == 1 && c.w_shape[2] * c.w_shape[3] == 1;
  EXPECT_NE(body.find(c.group > 1 ? "mlfk_depthwise_s8_exec(ex, &g, &a, in0, "
                      : one_pixel ? "mlfk_gemm_s8_exec(ex, &a, in0, "
                                  : "mlfk_conv_s8_exec(ex, &g, &a, in0, "),
            std::string::npos)
      << body;
  ExpectGeneratedMatches(t, inputs, 0, cross);
}

TEST(QLinearConv, KernelPathMatchesEvaluate) {
  const KernelCase cases[] = {
      {DType::kUInt8, DType::kUInt8, {1, 3, 9, 11}, {5, 3, 3, 3}, {1, 1, 1, 1}, {}, {}, false, true, true, {}},
      {DType::kInt8, DType::kInt8, {2, 4, 7, 5}, {6, 4, 3, 2}, {0, 1, 2, 0}, {2, 1}, {1, 2}, true, true, false, {-5, 127}},
      {DType::kUInt8, DType::kInt8, {1, 16, 17, 17}, {9, 16, 1, 1}, {}, {}, {}, true, false, true, {}},
      {DType::kInt8, DType::kUInt8, {1, 2, 20, 21}, {7, 2, 3, 3}, {1, 1, 1, 1}, {}, {}, false, true, false, {10, 200}},
      {DType::kUInt8, DType::kInt32, {1, 3, 6, 6}, {4, 3, 3, 3}, {1, 1, 1, 1}, {2, 2}, {}, false, false, true, {}},
      {DType::kInt8, DType::kInt32, {2, 2, 5, 5}, {3, 2, 2, 2}, {}, {}, {}, false, false, false, {}},
      // One pixel per image (a lowered Gemm): the GEMM over the images.
      {DType::kUInt8, DType::kInt8, {5, 37, 1, 1}, {10, 37, 1, 1}, {}, {}, {}, true, true, true, {-3, 100}},
      {DType::kInt8, DType::kInt32, {3, 9, 1, 1}, {6, 9, 1, 1}, {}, {}, {}, false, false, false, {}},
      // Depthwise (MobileNet's 3x3 blocks): depthwise_s8.
      {DType::kUInt8, DType::kUInt8, {1, 6, 9, 10}, {6, 1, 3, 3}, {1, 1, 1, 1}, {}, {}, true, true, true, {8, 255}, 6},
      {DType::kInt8, DType::kInt8, {2, 4, 8, 7}, {4, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {}, false, true, false, {}, 4},
      {DType::kUInt8, DType::kInt32, {1, 3, 7, 7}, {3, 1, 5, 5}, {2, 2, 2, 2}, {}, {}, false, false, true, {}, 3},
  };
  uint64_t seed = 900;
  bool cross = true;
  for (const KernelCase& c : cases) {
    ExpectKernelConvMatches(c, seed += 20, cross);
    cross = false;
  }
}

// The reference loops requantize with the fixed-point rule too (a grouped
// convolution stays on them).
TEST(QLinearConv, ReferencePathFixedPointMatchesEvaluate) {
  OpTest t("QLinearConv");
  std::vector<HostTensor> inputs;
  t.Input("x", DType::kUInt8, {1, 4, 5, 5});
  inputs.push_back(RandomTensor(DType::kUInt8, {1, 4, 5, 5}, 1));
  t.Constant("x_scale", Scales({}, 2, 0.02));
  t.Constant("x_zero_point", RandomTensor(DType::kUInt8, {}, 3));
  t.Constant("w", RandomTensor(DType::kInt8, {4, 2, 3, 3}, 4));
  t.Constant("w_scale", Scales({4}, 5, 0.01));
  t.Constant("w_zero_point", MakeTensor(DType::kInt8, {4}, {0, 0, 0, 0}));
  t.Constant("y_scale", Scales({}, 6, 0.1));
  t.Constant("y_zero_point", RandomTensor(DType::kUInt8, {}, 7));
  t.Output("y");
  t.Attr("group", int64_t{2});
  t.Attr("pads", std::vector<int64_t>{1, 1, 1, 1});
  t.Attr("mlf.fixed_point", int64_t{1});
  t.Attr("mlf.clamp", std::vector<int64_t>{30, 255});
  ExpectGeneratedMatches(t, inputs, 0, true);
}

TEST(QLinearOps, Errors) {
  auto matmul = [](const HostTensor& a_scale, const HostTensor& b_zp, DType b, Shape b_shape = {4, 3}) {
    OpTest t("QLinearMatMul", "mm");
    t.Input("a", DType::kUInt8, {2, 4});
    t.Constant("a_scale", a_scale);
    t.Constant("a_zero_point", U8({}, {1}));
    t.Input("b", b, std::move(b_shape));
    t.Constant("b_scale", F32({}, {1}));
    t.Constant("b_zero_point", b_zp);
    t.Constant("y_scale", F32({}, {1}));
    t.Constant("y_zero_point", U8({}, {1}));
    t.Output("y");
    return InferError(t);
  };
  const HostTensor one = F32({}, {1});
  const HostTensor u8 = U8({}, {3});
  EXPECT_EQ(matmul(F32({}, {0}), u8, DType::kUInt8),
            "node 'mm' (QLinearMatMul): input 1 (a_scale) element 0 is 0; a scale must be finite and non-zero");
  EXPECT_EQ(matmul(one, MakeTensor(DType::kInt8, {}, {3}), DType::kUInt8),
            "node 'mm' (QLinearMatMul): input 5 (b_zero_point) has dtype int8, but input 3 (b) is uint8");
  EXPECT_EQ(matmul(one, U8({4}, {1, 2, 3, 4}), DType::kUInt8),
            "node 'mm' (QLinearMatMul): input 5 (b_zero_point) of shape [4] is not supported: give one value or one "
            "per column of b (3)");
  EXPECT_EQ(matmul(F32({2, 1}, {1, 2}), u8, DType::kUInt8), "");  // per row of a
  EXPECT_EQ(matmul(F32({1, 2}, {1, 2}), u8, DType::kUInt8),
            "node 'mm' (QLinearMatMul): input 1 (a_scale) of shape [1, 2] is not supported: give one value or one "
            "per row of a (2)");
  EXPECT_EQ(matmul(one, MakeTensor(DType::kInt16, {}, {3}), DType::kInt16),
            "node 'mm' (QLinearMatMul): input 3 (b) has dtype int16; supported: int8, uint8");
  EXPECT_EQ(matmul(one, u8, DType::kUInt8, {5, 3}),
            "node 'mm' (QLinearMatMul): inner dimensions of a [2, 4] and b [5, 3] differ");

  OpTest arity("QLinearMatMul", "mm");
  arity.Input("a", DType::kUInt8, {2, 4});
  arity.Input("b", DType::kUInt8, {4, 2});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), "node 'mm' (QLinearMatMul): expects 8 inputs, got 2");

  OpTest batch("MatMulInteger", "mi");
  batch.Input("A", DType::kInt8, {2, 3, 4});
  batch.Input("B", DType::kInt8, {3, 4, 2});
  batch.Output("y");
  EXPECT_EQ(InferError(batch), "node 'mi' (MatMulInteger): batch dimensions of a [2, 3, 4] and b [3, 4, 2] do not broadcast");

  auto conv = [](Shape w_shape, const HostTensor& w_scale, const HostTensor& bias, int64_t group = 1,
                 double y_scale = 1) {
    OpTest t("QLinearConv", "qc");
    t.Input("x", DType::kUInt8, {1, 4, 5, 5});
    t.Constant("x_scale", F32({}, {1}));
    t.Constant("x_zero_point", U8({}, {1}));
    t.Input("w", DType::kInt8, std::move(w_shape));
    t.Constant("w_scale", w_scale);
    t.Constant("w_zero_point", MakeTensor(DType::kInt8, {}, {0}));
    t.Constant("y_scale", F32({}, {y_scale}));
    t.Constant("y_zero_point", U8({}, {1}));
    t.Constant("B", bias);
    t.Output("y");
    t.Attr("group", group);
    return InferError(t);
  };
  const HostTensor bias2 = MakeTensor(DType::kInt32, {2}, {0, 0});
  EXPECT_EQ(conv({2, 4, 3, 3}, one, bias2, 1, std::numeric_limits<double>::infinity()),
            "node 'qc' (QLinearConv): input 6 (y_scale) element 0 is inf; a scale must be finite and non-zero");
  EXPECT_EQ(conv({2, 4, 3, 3}, F32({3}, {1, 1, 1}), bias2),
            "node 'qc' (QLinearConv): input 4 (w_scale) of shape [3] is not supported: give one value or one per "
            "output channel (2)");
  EXPECT_EQ(conv({2, 4, 3, 3}, one, MakeTensor(DType::kInt32, {3}, {0, 0, 0})),
            "node 'qc' (QLinearConv): input 8 (B) [3] must have shape [2]");
  EXPECT_EQ(conv({2, 4, 3, 3}, one, MakeTensor(DType::kFloat32, {2}, {0, 0})),
            "node 'qc' (QLinearConv): input 8 (B) has dtype float32; supported: int32");
  EXPECT_EQ(conv({2, 3, 3, 3}, one, bias2),
            "node 'qc' (QLinearConv): input 3 (w) [2, 3, 3, 3] must have 4 input channels per group (x has 4, "
            "group 1)");
  EXPECT_EQ(conv({3, 2, 3, 3}, one, MakeTensor(DType::kInt32, {3}, {0, 0, 0}), 2),
            "node 'qc' (QLinearConv): group 2 must divide the input channels (4) and the output channels (3, at "
            "least 1)");
  EXPECT_EQ(conv({2, 4, 3}, one, bias2),
            "node 'qc' (QLinearConv): input 3 (w) [2, 4, 3] must have the rank of input 0 (x) [1, 4, 5, 5]");

  OpTest x_zp("ConvInteger", "ci");
  x_zp.Input("x", DType::kUInt8, {1, 2, 3, 3});
  x_zp.Input("w", DType::kUInt8, {1, 2, 1, 1});
  x_zp.Constant("x_zero_point", U8({2}, {1, 2}));
  x_zp.Output("y");
  EXPECT_EQ(InferError(x_zp), "node 'ci' (ConvInteger): input 2 (x_zero_point) of shape [2] is not supported: give one value");
  OpTest rank("ConvInteger", "ci");
  rank.Input("x", DType::kUInt8, {2, 3});
  rank.Input("w", DType::kUInt8, {1, 2, 1, 1});
  rank.Output("y");
  EXPECT_EQ(InferError(rank), "node 'ci' (ConvInteger): input 0 (x) [2, 3] must have rank >= 3 (N, C and at least one spatial axis)");
}

}  // namespace
}  // namespace mlf::ops::testing
