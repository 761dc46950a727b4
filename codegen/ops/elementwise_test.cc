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

constexpr DType kAllNumeric[] = {DType::kInt8,   DType::kInt16,  DType::kInt32,   DType::kInt64,
                                 DType::kUInt8,  DType::kUInt16, DType::kUInt32,  DType::kUInt64,
                                 DType::kFloat32, DType::kFloat64};

bool IsFloatForScale(DType d) { return d == DType::kFloat32 || d == DType::kFloat64; }

std::string Describe(DType a, const Shape& sa, DType b, const Shape& sb) {
  return std::string(DTypeName(a)) + FormatShape(sa) + " , " + DTypeName(b) + FormatShape(sb);
}

// Evaluates a one-input, one-output node on `x`; checks infer() first.
std::vector<double> EvalUnary(const std::string& op, const HostTensor& x,
                              const std::vector<std::pair<std::string, ir::AttrValue>>& attrs = {}) {
  OpTest t(op);
  t.Input("x", x.dtype, x.shape);
  t.Output("y");
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  Status st = t.Infer();
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto out = t.Evaluate({x});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].dtype, x.dtype);
  EXPECT_EQ((*out)[0].shape, x.shape);
  return Values((*out)[0]);
}

std::vector<double> EvalBinary(const std::string& op, const HostTensor& a, const HostTensor& b,
                               Shape expect_shape) {
  OpTest t(op);
  t.Input("a", a.dtype, a.shape);
  t.Input("b", b.dtype, b.shape);
  t.Output("y");
  Status st = t.Infer();
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(t.graph().values[2].shape, expect_shape);
  auto out = t.Evaluate({a, b});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return {};
  EXPECT_EQ((*out)[0].shape, expect_shape);
  return Values((*out)[0]);
}

void CheckBinaryGenerated(Batch& batch, const std::string& op, DType da, const Shape& sa, DType db,
                          const Shape& sb, uint64_t seed, double rtol = 1e-6) {
  OpTest t(op);
  t.Input("a", da, sa);
  t.Input("b", db, sb);
  t.Output("y");
  batch.Add(t, {RandomTensor(da, sa, seed), RandomTensor(db, sb, seed + 7)}, op + " " + Describe(da, sa, db, sb),
            rtol, rtol * 0.1);
}

HostTensor Positive(HostTensor t) {
  for (uint64_t i = 0; i < t.element_count(); ++i) t.SetDouble(i, std::fabs(t.GetDouble(i)) + 0.01);
  return t;
}

void CheckUnaryGenerated(Batch& batch, const std::string& op, DType d, const Shape& s, uint64_t seed, double rtol = 1e-6,
                         const std::vector<std::pair<std::string, ir::AttrValue>>& attrs = {},
                         double scale = 1.0) {
  OpTest t(op);
  t.Input("x", d, s);
  t.Output("y");
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  HostTensor x = RandomTensor(d, s, seed);
  if (op == "Log" || op == "Sqrt") x = Positive(x);
  for (uint64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, x.GetDouble(i) * scale);
  batch.Add(t, {x}, op + " " + DTypeName(d) + FormatShape(s), rtol, rtol * 0.1);
}

// ---------------------------------------------------------------------------
// Infer: shapes and errors

TEST(BinaryInfer, BroadcastsShapes) {
  struct Case {
    Shape a, b, want;
  } cases[] = {
      {{2, 3, 4}, {3, 1}, {2, 3, 4}}, {{}, {5}, {5}},         {{5}, {}, {5}},
      {{}, {}, {}},                   {{1, 4}, {3, 1}, {3, 4}}, {{0, 3}, {1, 3}, {0, 3}},
      {{2, 1, 3}, {4, 1}, {2, 4, 3}}, {{1}, {0}, {0}},
  };
  for (const Case& c : cases) {
    OpTest t("Mul");
    t.Input("a", DType::kFloat32, c.a);
    t.Input("b", DType::kFloat32, c.b);
    t.Output("y");
    ASSERT_TRUE(t.Infer().ok()) << FormatShape(c.a) << FormatShape(c.b);
    EXPECT_EQ(t.graph().values[2].shape, c.want);
    EXPECT_EQ(t.graph().values[2].dtype, DType::kFloat32);
  }
}

TEST(BinaryInfer, RefusesIncompatibleShapesNamingBoth) {
  OpTest t("Add", "add1");
  t.Input("a", DType::kFloat32, {2, 3});
  t.Input("b", DType::kFloat32, {4});
  t.Output("y");
  Status st = t.Infer();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'add1' (Add): shapes [2, 3] and [4] are not broadcastable (3 vs 4 at output axis 1)");

  OpTest z("Sub");
  z.Input("a", DType::kFloat32, {0, 2});
  z.Input("b", DType::kFloat32, {3, 2});
  z.Output("y");
  EXPECT_EQ(z.Infer().message(), "node 'n0' (Sub): shapes [0, 2] and [3, 2] are not broadcastable (0 vs 3 at output axis 0)");
}

TEST(BinaryInfer, RefusesMixedAndUnsupportedDTypes) {
  OpTest t("Add");
  t.Input("a", DType::kFloat32, {2});
  t.Input("b", DType::kInt32, {2});
  t.Output("y");
  Status st = t.Infer();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'n0' (Add): inputs A and B have different dtypes (float32 and int32)");

  OpTest b("Div");
  b.Input("a", DType::kBool, {2});
  b.Input("b", DType::kBool, {2});
  b.Output("y");
  st = b.Infer();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(),
            "node 'n0' (Div): input A has dtype bool; supported: int8, int16, int32, int64, uint8, uint16, "
            "uint32, uint64, float32, float64");

  OpTest h("Mul");
  h.Input("a", DType::kFloat16, {2});
  h.Input("b", DType::kFloat16, {2});
  h.Output("y");
  EXPECT_EQ(h.Infer().code(), StatusCode::kUnimplemented);

  OpTest p("Pow");
  p.Input("a", DType::kFloat32, {2});
  p.Input("b", DType::kBFloat16, {2});
  p.Output("y");
  EXPECT_EQ(p.Infer().message(),
            "node 'n0' (Pow): exponent (input 1) has dtype bfloat16; supported: int8, int16, int32, int64, "
            "uint8, uint16, uint32, uint64, float32, float64");
}

TEST(BinaryInfer, RefusesWrongArity) {
  OpTest t("Add");
  t.Input("a", DType::kFloat32, {2});
  t.Output("y");
  EXPECT_EQ(t.Infer().message(), "node 'n0' (Add): expects 2 inputs, got 1");

  OpTest o("Add");
  o.Input("a", DType::kFloat32, {2});
  o.Input("b", DType::kFloat32, {2});
  o.Output("y");
  o.Output("z");
  EXPECT_EQ(o.Infer().message(), "node 'n0' (Add): expects 1 output, got 2");

  OpTest m("Mul");
  m.Input("a", DType::kFloat32, {2});
  m.OmittedInput();
  m.Output("y");
  EXPECT_EQ(m.Infer().message(), "node 'n0' (Mul): input 1 (B) is required");
}

TEST(BinaryInfer, PowOutputHasTheBaseDType) {
  OpTest t("Pow");
  t.Input("a", DType::kInt32, {3});
  t.Input("b", DType::kFloat32, {});
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(t.graph().values[2].dtype, DType::kInt32);
  EXPECT_EQ(t.graph().values[2].shape, Shape({3}));
}

TEST(BinaryInfer, FusedActivationNeedsFloat32) {
  OpTest t("Add");
  t.Input("a", DType::kInt32, {2});
  t.Input("b", DType::kInt32, {2});
  t.Output("y");
  t.Attr("mlf.activation", std::string("Relu"));
  Status st = t.Infer();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(), "node 'n0' (Add): a fused activation needs a float32 Add, Sub, Mul or Div, got int32");

  OpTest u("Mul");
  u.Input("a", DType::kFloat32, {2});
  u.Input("b", DType::kFloat32, {2});
  u.Output("y");
  u.Attr("mlf.activation", std::string("Gelu"));
  EXPECT_EQ(u.Infer().message(), "node 'n0' (Mul): fused activation 'Gelu' is not supported");
}

TEST(BinaryInfer, FusingOpsAreMarked) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) EXPECT_TRUE(FindOp(op)->fuses_activation) << op;
  for (const char* op : {"Pow", "Relu", "Clip", "Identity"}) EXPECT_FALSE(FindOp(op)->fuses_activation) << op;
}

TEST(UnaryInfer, KeepsShapeAndDType) {
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Neg", "Erf", "Clip",
                         "LeakyRelu", "HardSigmoid", "HardSwish", "Identity", "Dropout"}) {
    OpTest t(op);
    t.Input("x", DType::kFloat64, {2, 0, 3});
    t.Output("y");
    ASSERT_TRUE(t.Infer().ok()) << op;
    EXPECT_EQ(t.graph().values[1].shape, Shape({2, 0, 3})) << op;
    EXPECT_EQ(t.graph().values[1].dtype, DType::kFloat64) << op;
  }
}

TEST(UnaryInfer, RefusesUnsupportedDTypes) {
  struct Case {
    const char* op;
    DType dtype;
    const char* message;
  } cases[] = {
      {"Exp", DType::kInt32, "node 'n0' (Exp): input X has dtype int32; supported: float32, float64"},
      {"Sigmoid", DType::kFloat16, "node 'n0' (Sigmoid): input X has dtype float16; supported: float32, float64"},
      {"Relu", DType::kUInt8,
       "node 'n0' (Relu): input X has dtype uint8; supported: int8, int16, int32, int64, float32, float64"},
      {"Neg", DType::kUInt32,
       "node 'n0' (Neg): input X has dtype uint32; supported: int8, int16, int32, int64, float32, float64"},
      {"Abs", DType::kBool,
       "node 'n0' (Abs): input X has dtype bool; supported: int8, int16, int32, int64, uint8, uint16, uint32, "
       "uint64, float32, float64"},
  };
  for (const Case& c : cases) {
    OpTest t(c.op);
    t.Input("x", c.dtype, {2});
    t.Output("y");
    Status st = t.Infer();
    EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
    EXPECT_EQ(st.message(), c.message);
  }
}

TEST(UnaryInfer, RefusesBadAttributesAndArity) {
  OpTest t("LeakyRelu");
  t.Input("x", DType::kFloat32, {2});
  t.Output("y");
  t.Attr("alpha", std::string("big"));
  EXPECT_EQ(t.Infer().message(), "node 'n0' (LeakyRelu): attribute 'alpha' is not a float");

  OpTest r("Relu");
  r.Input("x", DType::kFloat32, {2});
  r.Input("z", DType::kFloat32, {2});
  r.Output("y");
  EXPECT_EQ(r.Infer().message(), "node 'n0' (Relu): expects 1 input, got 2");
}

TEST(ClipInfer, ChecksMinAndMax) {
  OpTest t("Clip");
  t.Input("x", DType::kFloat32, {3});
  t.Constant("lo", MakeTensor(DType::kFloat32, {2}, {0, 0}));
  t.Output("y");
  Status st = t.Infer();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "node 'n0' (Clip): min (input 1) must be a scalar, got shape [2]");

  OpTest d("Clip");
  d.Input("x", DType::kInt8, {3});
  d.OmittedInput();
  d.Constant("hi", MakeTensor(DType::kInt32, {}, {5}));
  d.Output("y");
  EXPECT_EQ(d.Infer().message(),
            "node 'n0' (Clip): max (input 2) has dtype int32, expected int8 like the input");

  // Opset 6's attributes would be ignored: refused (the ONNX front end turns
  // them into inputs; a YAML model must give inputs).
  OpTest attrs("Clip");
  attrs.Input("x", DType::kFloat32, {3});
  attrs.Output("y");
  attrs.Attr("max", 6.0);
  EXPECT_EQ(attrs.Infer().message(),
            "node 'n0' (Clip): attribute 'max' is not supported; give min and max as inputs 1 and 2");

  OpTest ok("Clip");
  ok.Input("x", DType::kInt8, {3});
  ok.OmittedInput();
  ok.Input("hi", DType::kInt8, {1});
  ok.Output("y");
  EXPECT_TRUE(ok.Infer().ok());
}

TEST(DropoutInfer, MaskIsBoolAndTrainingIsRefused) {
  OpTest t("Dropout");
  t.Input("x", DType::kFloat32, {2, 3});
  t.Constant("ratio", MakeTensor(DType::kFloat32, {}, {0.5}));
  t.Constant("training_mode", MakeTensor(DType::kBool, {}, {0}));
  t.Output("y");
  t.Output("mask");
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(t.graph().values[4].dtype, DType::kBool);
  EXPECT_EQ(t.graph().values[4].shape, Shape({2, 3}));

  OpTest tr("Dropout", "drop");
  tr.Input("x", DType::kFloat32, {2});
  tr.OmittedInput();
  tr.Constant("training_mode", MakeTensor(DType::kBool, {}, {1}));
  tr.Output("y");
  Status st = tr.Infer();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(st.message(), "node 'drop' (Dropout): training_mode (input 2) is true; mlfkit compiles inference only");

  // A training_mode fed at run time could be true: refused.
  OpTest rt("Dropout");
  rt.Input("x", DType::kFloat32, {2});
  rt.OmittedInput();
  rt.Input("training_mode", DType::kBool, {});
  rt.Output("y");
  EXPECT_EQ(rt.Infer().message(),
            "node 'n0' (Dropout): training_mode (input 2) must be a constant false; mlfkit "
            "compiles inference only");
}

// ---------------------------------------------------------------------------
// Evaluate: hand-computed values

TEST(BinaryEvaluate, BroadcastsAcrossAxes) {
  auto a = MakeTensor(DType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto row = MakeTensor(DType::kFloat32, {3}, {10, 20, 30});
  auto col = MakeTensor(DType::kFloat32, {2, 1}, {100, 200});
  auto s = MakeTensor(DType::kFloat32, {}, {2});
  EXPECT_EQ(EvalBinary("Add", a, row, {2, 3}), std::vector<double>({11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(EvalBinary("Sub", a, col, {2, 3}), std::vector<double>({-99, -98, -97, -196, -195, -194}));
  EXPECT_EQ(EvalBinary("Mul", s, a, {2, 3}), std::vector<double>({2, 4, 6, 8, 10, 12}));
  EXPECT_EQ(EvalBinary("Div", a, s, {2, 3}), std::vector<double>({0.5, 1, 1.5, 2, 2.5, 3}));
  // Both operands broadcast: [2, 1] x [3] -> [2, 3].
  EXPECT_EQ(EvalBinary("Mul", col, row, {2, 3}), std::vector<double>({1000, 2000, 3000, 2000, 4000, 6000}));
}

TEST(BinaryEvaluate, IntegerSemantics) {
  // Division truncates toward zero; x / 0 is 0; INT32_MIN / -1 wraps.
  auto a = MakeTensor(DType::kInt32, {6}, {7, -7, 7, -7, 5, -2147483648.0});
  auto b = MakeTensor(DType::kInt32, {6}, {2, 2, -2, -2, 0, -1});
  EXPECT_EQ(EvalBinary("Div", a, b, {6}), std::vector<double>({3, -3, -3, 3, 0, -2147483648.0}));
  auto u = MakeTensor(DType::kUInt8, {2}, {200, 7});
  auto v = MakeTensor(DType::kUInt8, {2}, {3, 0});
  EXPECT_EQ(EvalBinary("Div", u, v, {2}), std::vector<double>({66, 0}));
  // Add, Sub and Mul wrap.
  auto i8 = MakeTensor(DType::kInt8, {2}, {100, -100});
  EXPECT_EQ(EvalBinary("Add", i8, i8, {2}), std::vector<double>({-56, 56}));
  auto u8a = MakeTensor(DType::kUInt8, {2}, {3, 200});
  auto u8b = MakeTensor(DType::kUInt8, {2}, {5, 2});
  EXPECT_EQ(EvalBinary("Sub", u8a, u8b, {2}), std::vector<double>({254, 198}));
  auto u16 = MakeTensor(DType::kUInt16, {1}, {65535});
  EXPECT_EQ(EvalBinary("Mul", u16, u16, {1}), std::vector<double>({1}));
  auto big = MakeTensor(DType::kInt64, {1}, {4611686018427387904.0});  // 2^62
  auto two = MakeTensor(DType::kInt64, {1}, {2});
  EXPECT_EQ(EvalBinary("Mul", big, two, {1}), std::vector<double>({-9223372036854775808.0}));
}

TEST(BinaryEvaluate, Pow) {
  EXPECT_EQ(EvalBinary("Pow", MakeTensor(DType::kFloat32, {3}, {2, 4, -2}),
                       MakeTensor(DType::kFloat32, {3}, {3, 0.5, 2}), {3}),
            std::vector<double>({8, 2, 4}));
  // ONNX test_pow_types_int32_float32.
  EXPECT_EQ(EvalBinary("Pow", MakeTensor(DType::kInt32, {3}, {1, 2, 3}),
                       MakeTensor(DType::kFloat32, {3}, {4, 5, 6}), {3}),
            std::vector<double>({1, 32, 729}));
  // Integer exponents: exact, negative exponents truncate.
  EXPECT_EQ(EvalBinary("Pow", MakeTensor(DType::kInt32, {6}, {2, -2, 1, -1, 3, 0}),
                       MakeTensor(DType::kInt64, {6}, {10, 3, -5, -3, -1, 0}), {6}),
            std::vector<double>({1024, -8, 1, -1, 0, 1}));
  EXPECT_EQ(EvalBinary("Pow", MakeTensor(DType::kInt64, {1}, {3}), MakeTensor(DType::kInt64, {1}, {39}), {1}),
            std::vector<double>({4052555153018976267.0}));
  EXPECT_EQ(EvalBinary("Pow", MakeTensor(DType::kFloat64, {2}, {2, 2}), MakeTensor(DType::kUInt64, {2}, {3, 0}), {2}),
            std::vector<double>({8, 1}));
  // Int base, float exponent: truncated and saturated.
  EXPECT_EQ(EvalBinary("Pow", MakeTensor(DType::kInt8, {3}, {2, 4, -4}),
                       MakeTensor(DType::kFloat32, {3}, {10, 0.5, 0.5}), {3}),
            std::vector<double>({127, 2, 0}));
}

TEST(UnaryEvaluate, HandComputedValues) {
  auto f = MakeTensor(DType::kFloat32, {4}, {-2, -0.5, 0, 3});
  EXPECT_EQ(EvalUnary("Relu", f), std::vector<double>({0, 0, 0, 3}));
  EXPECT_EQ(EvalUnary("Abs", f), std::vector<double>({2, 0.5, 0, 3}));
  EXPECT_EQ(EvalUnary("Neg", f), std::vector<double>({2, 0.5, 0, -3}));
  EXPECT_EQ(EvalUnary("LeakyRelu", f), std::vector<double>({-0.02f, -0.005f, 0, 3}));
  EXPECT_EQ(EvalUnary("LeakyRelu", f, {{"alpha", 0.5}}), std::vector<double>({-1, -0.25, 0, 3}));
  EXPECT_EQ(EvalUnary("HardSigmoid", f), std::vector<double>({-2.0f * 0.2f + 0.5f, -0.5f * 0.2f + 0.5f, 0.5, 1}));
  EXPECT_EQ(EvalUnary("HardSigmoid", f, {{"alpha", 0.5}, {"beta", 0.25}}), std::vector<double>({0, 0, 0.25, 1}));
  auto hs = MakeTensor(DType::kFloat32, {4}, {-4, 0, 1.5, 4});
  EXPECT_EQ(EvalUnary("HardSwish", hs), std::vector<double>({0, 0, 1.5 * 0.75, 4}));

  auto e = MakeTensor(DType::kFloat64, {3}, {0, 1, 100});
  const std::vector<double> exp = EvalUnary("Exp", e);
  EXPECT_EQ(exp[0], 1);
  EXPECT_DOUBLE_EQ(exp[1], std::exp(1.0));
  EXPECT_EQ(EvalUnary("Sqrt", MakeTensor(DType::kFloat64, {3}, {0, 4, 2.25})), std::vector<double>({0, 2, 1.5}));
  EXPECT_EQ(EvalUnary("Log", MakeTensor(DType::kFloat64, {2}, {1, 0}))[0], 0);
  EXPECT_EQ(EvalUnary("Log", MakeTensor(DType::kFloat64, {2}, {1, 0}))[1], -INFINITY);
  EXPECT_EQ(EvalUnary("Sigmoid", MakeTensor(DType::kFloat32, {3}, {0, -200, 200})),
            std::vector<double>({0.5, 0, 1}));
  EXPECT_EQ(EvalUnary("Tanh", MakeTensor(DType::kFloat32, {3}, {0, -50, 50})), std::vector<double>({0, -1, 1}));
  const std::vector<double> erf = EvalUnary("Erf", MakeTensor(DType::kFloat64, {3}, {0, 1, -10}));
  EXPECT_EQ(erf[0], 0);
  EXPECT_DOUBLE_EQ(erf[1], 0.8427007929497149);
  EXPECT_EQ(erf[2], -1);

  // Integers: Abs and Neg wrap like two's complement (numpy).
  auto i8 = MakeTensor(DType::kInt8, {4}, {-128, -5, 0, 127});
  EXPECT_EQ(EvalUnary("Abs", i8), std::vector<double>({-128, 5, 0, 127}));
  EXPECT_EQ(EvalUnary("Neg", i8), std::vector<double>({-128, 5, 0, -127}));
  EXPECT_EQ(EvalUnary("Relu", i8), std::vector<double>({0, 0, 0, 127}));
  EXPECT_EQ(EvalUnary("Abs", MakeTensor(DType::kUInt16, {2}, {0, 65535})), std::vector<double>({0, 65535}));

  // NaN propagates through Relu and HardSigmoid (numpy's maximum/minimum).
  EXPECT_TRUE(std::isnan(EvalUnary("Relu", MakeTensor(DType::kFloat32, {1}, {NAN}))[0]));
  EXPECT_TRUE(std::isnan(EvalUnary("HardSigmoid", MakeTensor(DType::kFloat32, {1}, {NAN}))[0]));
}

TEST(ClipEvaluate, OptionalBounds) {
  auto x = MakeTensor(DType::kFloat32, {5}, {-2, -1, 0.5, 1, 3});
  {
    OpTest t("Clip");
    t.Input("x", DType::kFloat32, {5});
    t.Constant("lo", MakeTensor(DType::kFloat32, {}, {-1}));
    t.Constant("hi", MakeTensor(DType::kFloat32, {}, {1}));
    t.Output("y");
    ASSERT_TRUE(t.Infer().ok());
    auto y = t.Evaluate({x});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(Values((*y)[0]), std::vector<double>({-1, -1, 0.5, 1, 1}));
  }
  {
    OpTest t("Clip");  // max only
    t.Input("x", DType::kFloat32, {5});
    t.OmittedInput();
    t.Constant("hi", MakeTensor(DType::kFloat32, {}, {0}));
    t.Output("y");
    ASSERT_TRUE(t.Infer().ok());
    auto y = t.Evaluate({x});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(Values((*y)[0]), std::vector<double>({-2, -1, 0, 0, 0}));
  }
  {
    OpTest t("Clip");  // no bounds: identity; min > max gives max (ONNX)
    t.Input("x", DType::kInt8, {3});
    t.Constant("lo", MakeTensor(DType::kInt8, {}, {5}));
    t.Constant("hi", MakeTensor(DType::kInt8, {}, {2}));
    t.Output("y");
    ASSERT_TRUE(t.Infer().ok());
    auto y = t.Evaluate({MakeTensor(DType::kInt8, {3}, {-100, 3, 100})});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(Values((*y)[0]), std::vector<double>({2, 2, 2}));
  }
  {
    OpTest t("Clip");
    t.Input("x", DType::kInt8, {3});
    t.Output("y");
    ASSERT_TRUE(t.Infer().ok());
    auto y = t.Evaluate({MakeTensor(DType::kInt8, {3}, {-100, 3, 100})});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(Values((*y)[0]), std::vector<double>({-100, 3, 100}));
  }
}

TEST(CopyEvaluate, IdentityAndDropout) {
  auto x = MakeTensor(DType::kFloat16, {2}, {1.5, -2});
  EXPECT_EQ(EvalUnary("Identity", x), std::vector<double>({1.5, -2}));
  OpTest t("Dropout");
  t.Input("x", DType::kFloat32, {3});
  t.Output("y");
  t.Output("mask");
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {3}, {1, 2, 3})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), std::vector<double>({1, 2, 3}));
  EXPECT_EQ((*y)[1].dtype, DType::kBool);
  EXPECT_EQ(Values((*y)[1]), std::vector<double>({1, 1, 1}));
}

TEST(BinaryEvaluate, AppliesFusedActivation) {
  OpTest t("Add");
  t.Input("a", DType::kFloat32, {4});
  t.Input("b", DType::kFloat32, {});
  t.Output("y");
  t.Attr("mlf.activation", std::string("Clip"));
  t.Attr("mlf.activation.min", 0.0);
  t.Attr("mlf.activation.max", 6.0);
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {4}, {-3, 0, 4, 9}), MakeTensor(DType::kFloat32, {}, {1})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), std::vector<double>({0, 1, 5, 6}));
}

// ---------------------------------------------------------------------------
// Generated C against evaluate

const std::vector<std::pair<Shape, Shape>> kBroadcastCases = {
    {{}, {}},
    {{7}, {7}},
    {{2, 3, 4}, {2, 3, 4}},
    {{2, 3, 4}, {}},
    {{1}, {3, 5}},
    {{2, 3, 4}, {3, 1}},
    {{2, 1, 4, 1}, {3, 1, 5}},
    {{4, 1, 3, 2}, {1, 5, 1, 2}},
    {{0, 3}, {1, 3}},
};

TEST(BinaryGenerated, EveryBroadcastShapeFloat32) {
  Batch batch;
  uint64_t seed = 1;
  for (const auto& [sa, sb] : kBroadcastCases) {
    CheckBinaryGenerated(batch, "Add", DType::kFloat32, sa, DType::kFloat32, sb, seed++);
  }
  CheckBinaryGenerated(batch, "Sub", DType::kFloat32, {3, 1}, DType::kFloat32, {2, 3, 4}, seed++);
  CheckBinaryGenerated(batch, "Div", DType::kFloat32, {2, 1, 4, 1}, DType::kFloat32, {3, 1, 5}, seed++);
  batch.Run();
}

TEST(BinaryGenerated, EveryDType) {
  Batch batch;
  uint64_t seed = 100;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    size_t k = 0;
    for (DType d : kAllNumeric) {
      const auto& [sa, sb] = kBroadcastCases[1 + (k++ * 3 + std::string(op).size()) % (kBroadcastCases.size() - 1)];
      CheckBinaryGenerated(batch, op, d, sa, d, sb, seed++);
    }
  }
  // Division by zero, INT_MIN / -1 and wrapping.
  OpTest t("Div");
  t.Input("a", DType::kInt32, {6});
  t.Input("b", DType::kInt32, {6});
  t.Output("y");
  batch.Add(t,
            {MakeTensor(DType::kInt32, {6}, {7, -7, 7, -7, 5, -2147483648.0}),
             MakeTensor(DType::kInt32, {6}, {2, 2, -2, -2, 0, -1})},
            "Div int32 edge cases", 0, 0);
  OpTest m("Mul");
  m.Input("a", DType::kInt64, {2});
  m.Input("b", DType::kInt64, {});
  m.Output("y");
  batch.Add(m, {MakeTensor(DType::kInt64, {2}, {4611686018427387904.0, -3}), MakeTensor(DType::kInt64, {}, {2})},
            "Mul int64 wrap", 0, 0);
  batch.Run();
}

TEST(BinaryGenerated, PowDTypeCombinations) {
  const std::pair<DType, DType> combos[] = {
      {DType::kFloat32, DType::kFloat32}, {DType::kFloat32, DType::kInt32},  {DType::kFloat32, DType::kInt64},
      {DType::kFloat32, DType::kUInt32},  {DType::kFloat32, DType::kFloat64}, {DType::kFloat64, DType::kFloat64},
      {DType::kFloat64, DType::kUInt64},  {DType::kInt32, DType::kFloat32},  {DType::kInt64, DType::kFloat32},
      {DType::kInt32, DType::kInt32},     {DType::kInt64, DType::kInt64},    {DType::kUInt8, DType::kInt8},
      {DType::kInt16, DType::kUInt16},    {DType::kUInt64, DType::kFloat64}, {DType::kInt8, DType::kFloat64},
  };
  Batch batch;
  uint64_t seed = 300;
  for (const auto& [b, e] : combos) {
    CheckBinaryGenerated(batch, "Pow", b, {2, 3, 4}, e, {3, 1}, seed++, 1e-6);
  }
  CheckBinaryGenerated(batch, "Pow", DType::kFloat32, {5}, DType::kFloat32, {}, seed++, 1e-6);
  // Saturation and NaN of int base ^ float exponent.
  OpTest t("Pow");
  t.Input("a", DType::kInt8, {4});
  t.Input("b", DType::kFloat32, {4});
  t.Output("y");
  batch.Add(t, {MakeTensor(DType::kInt8, {4}, {2, -2, -4, 3}), MakeTensor(DType::kFloat32, {4}, {10, 9, 0.5, NAN})},
            "Pow int8 ^ float32 saturation", 0, 0);
  batch.Run();
}

TEST(BinaryGenerated, FusedActivations) {
  const std::vector<std::vector<std::pair<std::string, ir::AttrValue>>> acts = {
      {{"mlf.activation", std::string("Relu")}},
      {{"mlf.activation", std::string("Clip")}, {"mlf.activation.min", 0.0}, {"mlf.activation.max", 0.5}},
      {{"mlf.activation", std::string("LeakyRelu")}, {"mlf.activation.alpha", 0.1}},
      {{"mlf.activation", std::string("Sigmoid")}},
      {{"mlf.activation", std::string("Tanh")}},
      {{"mlf.activation", std::string("HardSigmoid")}},
      {{"mlf.activation", std::string("HardSwish")}},
  };
  Batch batch;
  uint64_t seed = 400;
  const char* ops[] = {"Add", "Sub", "Mul", "Div"};
  for (size_t i = 0; i < acts.size(); ++i) {
    OpTest t(ops[i % 4]);
    t.Input("a", DType::kFloat32, {2, 3, 4});
    t.Input("b", DType::kFloat32, {4});
    t.Output("y");
    for (const auto& [k, v] : acts[i]) t.Attr(k, v);
    batch.Add(t, {RandomTensor(DType::kFloat32, {2, 3, 4}, seed), RandomTensor(DType::kFloat32, {4}, seed + 1)},
              std::string(ops[i % 4]) + " + " + std::get<std::string>(acts[i][0].second), 1e-6, 1e-7);
    seed += 2;
  }
  batch.Run();
}

TEST(UnaryGenerated, EveryOpAndDType) {
  struct Case {
    const char* op;
    std::vector<DType> dtypes;
    double rtol;
  } cases[] = {
      {"Relu", {DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64}, 1e-6},
      {"Sigmoid", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Tanh", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Exp", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Log", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Sqrt", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Erf", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Abs", std::vector<DType>(std::begin(kAllNumeric), std::end(kAllNumeric)), 0},
      {"Neg", {DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64}, 0},
      {"LeakyRelu", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"HardSigmoid", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"HardSwish", {DType::kFloat32, DType::kFloat64}, 1e-6},
      {"Identity", {DType::kFloat32, DType::kBool, DType::kFloat16, DType::kInt64}, 0},
  };
  const Shape shapes[] = {{}, {7}, {2, 3}, {2, 3, 4}, {1, 2, 3, 5}, {0, 4}};
  Batch batch;
  uint64_t seed = 500;
  size_t k = 0;
  for (const Case& c : cases) {
    for (DType d : c.dtypes) {
      // Scale float inputs so saturating regions (Sigmoid, Tanh, HardSigmoid) are covered too.
      CheckUnaryGenerated(batch, c.op, d, shapes[k++ % 6], seed++, c.rtol, {}, IsFloatForScale(d) ? 4.0 : 1.0);
    }
  }
  CheckUnaryGenerated(batch, "LeakyRelu", DType::kFloat32, {3, 4}, seed++, 1e-6, {{"alpha", 0.3}});
  CheckUnaryGenerated(batch, "HardSigmoid", DType::kFloat64, {3, 4}, seed++, 1e-6, {{"alpha", 0.7}, {"beta", 0.1}});
  batch.Run();
}

TEST(ClipGenerated, BoundsAndDTypes) {
  struct Case {
    DType dtype;
    bool lo, hi;
    bool runtime;  // bounds as graph inputs instead of constants
  } cases[] = {
      {DType::kFloat32, true, true, false}, {DType::kFloat32, true, false, false},
      {DType::kFloat32, false, true, true}, {DType::kFloat32, false, false, false},
      {DType::kFloat64, true, true, true},  {DType::kInt8, true, true, false},
      {DType::kInt32, false, true, false},  {DType::kUInt8, true, true, true},
      {DType::kInt64, true, false, false},  {DType::kUInt64, true, true, false},
  };
  Batch batch;
  uint64_t seed = 700;
  for (const Case& c : cases) {
    const double lo = IsFloatForScale(c.dtype)                                   ? -0.5
                      : (c.dtype == DType::kUInt8 || c.dtype == DType::kUInt64) ? 3
                                                                                : -4;
    const double hi = IsFloatForScale(c.dtype) ? 0.25 : 6;
    OpTest t("Clip");
    std::vector<HostTensor> inputs = {RandomTensor(c.dtype, {3, 5}, seed++)};
    t.Input("x", c.dtype, {3, 5});
    for (int b = 0; b < 2; ++b) {
      const bool present = b == 0 ? c.lo : c.hi;
      HostTensor v = MakeTensor(c.dtype, {}, {b == 0 ? lo : hi});
      if (!present) {
        t.OmittedInput();
      } else if (c.runtime) {
        t.Input(b == 0 ? "lo" : "hi", c.dtype, {});
        inputs.push_back(v);
      } else {
        t.Constant(b == 0 ? "lo" : "hi", v);
      }
    }
    t.Output("y");
    batch.Add(t, inputs, std::string("Clip ") + DTypeName(c.dtype), 0, 0);
  }
  OpTest d("Dropout");
  d.Input("x", DType::kFloat32, {2, 3});
  d.Constant("ratio", MakeTensor(DType::kFloat32, {}, {0.25}));
  d.Output("y");
  d.Output("mask");
  batch.Add(d, {RandomTensor(DType::kFloat32, {2, 3}, 9)}, "Dropout with mask", 0, 0);
  OpTest d1("Dropout");
  d1.Input("x", DType::kFloat64, {0, 3});
  d1.Output("y");
  batch.Add(d1, {RandomTensor(DType::kFloat64, {0, 3}, 9)}, "Dropout empty", 0, 0);
  batch.Run();
}

}  // namespace
}  // namespace mlf::ops::testing
