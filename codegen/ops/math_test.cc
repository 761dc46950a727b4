// Unary math and activations (math.cc): ONNX documentation values through
// evaluate, the generated C against evaluate bit for bit over dtypes and the
// special values (NaN, infinities, signed zeros, ties, extremes), errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/test_batch.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;
using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* const kFloatOps[] = {"Reciprocal", "Sign",     "Floor",    "Ceil",     "Round",           "Sin",
                                 "Cos",        "Tan",      "Asin",     "Acos",     "Atan",            "Sinh",
                                 "Cosh",       "Asinh",    "Acosh",    "Atanh",    "IsNaN",           "IsInf",
                                 "Elu",        "Selu",     "Celu",     "Softplus", "Softsign",        "ThresholdedRelu",
                                 "Shrink",     "Mish"};

OpTest Unary(const std::string& op, DType dtype, const Shape& shape, const Attrs& attrs = {}) {
  OpTest t(op, "m");
  t.Input("x", dtype, shape);
  t.Output("y");
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  return t;
}

// Evaluates op on `x`, checking infer()'s dtype and shape against the result.
HostTensor Eval(const std::string& op, const HostTensor& x, const Attrs& attrs = {}) {
  OpTest t = Unary(op, x.dtype, x.shape, attrs);
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return HostTensor();
  const ir::Value& v = t.graph().value(t.node().outputs[0]);
  EXPECT_EQ((*y)[0].shape, v.shape);
  EXPECT_EQ((*y)[0].dtype, v.dtype);
  return (*y)[0];
}

HostTensor F32(const std::vector<double>& v) { return MakeTensor(DType::kFloat32, {static_cast<int64_t>(v.size())}, v); }

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// The special values every float operator is run on.
std::vector<double> Specials() {
  return {kNaN,  kInf, -kInf, 0.0,   -0.0, 0.5,  -0.5,  1.5,   2.5,  -2.5, 3.5,  1e-30, -1e-30, 100,
          -100,  3e38, -3e38, 0.999, -0.999, 1.0, -1.0, 7.25, -7.25, 0.49999997, 90, -90, 1e6, -1e6};
}

TEST(Math, DocumentationExamples) {
  ExpectNear(Values(Eval("Reciprocal", F32({-4, 2}))), {-0.25, 0.5});
  ExpectNear(Values(Eval("Floor", F32({-1.5, 1.2, 2}))), {-2, 1, 2});
  ExpectNear(Values(Eval("Ceil", F32({-1.5, 1.2}))), {-1, 2});
  // test_round: ties go to the even neighbour.
  ExpectNear(Values(Eval("Round", F32({0.1, 0.5, 0.9, 1.2, 1.5, 1.8, 2.3, 2.5, 2.7, -1.1, -1.5, -1.9, -2.2, -2.5,
                                       -2.8}))),
             {0, 0, 1, 1, 2, 2, 2, 2, 3, -1, -2, -2, -2, -2, -3});
  ExpectNear(Values(Eval("Sign", MakeTensor(DType::kFloat32, {11}, {-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5}))),
             {-1, -1, -1, -1, -1, 0, 1, 1, 1, 1, 1});
  ExpectNear(Values(Eval("Sin", F32({-1, 0, 1}))), {-0.84147098, 0, 0.84147098});
  ExpectNear(Values(Eval("Cos", F32({-1, 0, 1}))), {0.54030231, 1, 0.54030231});
  ExpectNear(Values(Eval("Tan", F32({-1, 0, 1}))), {-1.5574077, 0, 1.5574077});
  ExpectNear(Values(Eval("Asin", F32({-0.5, 0, 0.5}))), {-0.52359878, 0, 0.52359878});
  ExpectNear(Values(Eval("Acos", F32({-0.5, 0, 0.5}))), {2.0943951, 1.5707963, 1.0471976});
  ExpectNear(Values(Eval("Atan", F32({-1, 0, 1}))), {-0.78539816, 0, 0.78539816});
  ExpectNear(Values(Eval("Sinh", F32({-1, 0, 1}))), {-1.1752012, 0, 1.1752012});
  ExpectNear(Values(Eval("Cosh", F32({-1, 0, 1}))), {1.5430806, 1, 1.5430806});
  ExpectNear(Values(Eval("Asinh", F32({-1, 0, 1}))), {-0.88137359, 0, 0.88137359});
  ExpectNear(Values(Eval("Acosh", F32({10, 1, 30}))), {2.9932228, 0, 4.0940666});
  ExpectNear(Values(Eval("Atanh", F32({-0.5, 0, 0.5}))), {-0.54930614, 0, 0.54930614});
  EXPECT_EQ(Values(Eval("IsNaN", F32({3, kNaN, 4, kNaN}))), (std::vector<double>{0, 1, 0, 1}));
  const HostTensor inf = F32({-1.2, kNaN, kInf, 2.8, -kInf, kInf});
  EXPECT_EQ(Values(Eval("IsInf", inf)), (std::vector<double>{0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(Values(Eval("IsInf", inf, {{"detect_negative", int64_t{0}}})), (std::vector<double>{0, 0, 1, 0, 0, 1}));
  EXPECT_EQ(Values(Eval("IsInf", inf, {{"detect_positive", int64_t{0}}})), (std::vector<double>{0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(Eval("IsInf", inf).dtype, DType::kBool);
  EXPECT_EQ(Values(Eval("Not", MakeTensor(DType::kBool, {2, 2}, {1, 0, 0, 1}))), (std::vector<double>{0, 1, 1, 0}));
  ExpectNear(Values(Eval("Elu", F32({-1, 0, 1}), {{"alpha", 2.0}})), {-1.2642411, 0, 1});
  ExpectNear(Values(Eval("Elu", F32({-1, 0, 1}))), {-0.63212056, 0, 1});
  ExpectNear(Values(Eval("Selu", F32({-1, 0, 1}), {{"alpha", 2.0}, {"gamma", 3.0}})), {-3.7927232, 0, 3});
  ExpectNear(Values(Eval("Selu", F32({-1, 0, 1}))), {-1.1113307, 0, 1.050701});
  ExpectNear(Values(Eval("Celu", F32({-1, 0, 1}), {{"alpha", 2.0}})), {-0.78693868, 0, 1});
  ExpectNear(Values(Eval("Softplus", F32({-1, 0, 1, 100}))), {0.31326166, 0.69314718, 1.3132616, 100});
  ExpectNear(Values(Eval("Softsign", F32({-1, 0, 1}))), {-0.5, 0, 0.5});
  ExpectNear(Values(Eval("ThresholdedRelu", F32({-1.5, 0, 1.2, 2.0, 2.2}), {{"alpha", 2.0}})), {0, 0, 0, 0, 2.2});
  ExpectNear(Values(Eval("Shrink", F32({-2, -1, 0, 1, 2}), {{"lambd", 1.5}})), {-2, 0, 0, 0, 2});
  ExpectNear(Values(Eval("Shrink", F32({-2, -1, 0, 1, 2}), {{"lambd", 1.5}, {"bias", 1.5}})), {-0.5, 0, 0, 0, 0.5});
  ExpectNear(Values(Eval("Mish", F32({-1, 0, 1}))), {-0.30340147, 0, 0.86509839});
}

TEST(Math, SpecialValues) {
  const HostTensor s = F32(Specials());
  // Sign keeps zeros (with their sign) and NaN; Round keeps -0.
  const HostTensor sign = Eval("Sign", F32({-0.0, 0.0, kNaN, -kInf}));
  EXPECT_TRUE(std::signbit(sign.data<float>()[0]));
  EXPECT_FALSE(std::signbit(sign.data<float>()[1]));
  EXPECT_TRUE(std::isnan(sign.data<float>()[2]));
  EXPECT_EQ(sign.data<float>()[3], -1.0f);
  EXPECT_TRUE(std::signbit(Eval("Round", F32({-0.4})).data<float>()[0]));
  EXPECT_EQ(Values(Eval("Reciprocal", F32({0.0, -0.0}))), (std::vector<double>{kInf, -kInf}));
  // NaN: Shrink gives 0 (ONNX's reference), ThresholdedRelu and Softplus NaN.
  EXPECT_EQ(Values(Eval("Shrink", F32({kNaN})))[0], 0.0);
  EXPECT_TRUE(std::isnan(Values(Eval("ThresholdedRelu", F32({kNaN})))[0]));
  EXPECT_TRUE(std::isnan(Values(Eval("Softplus", F32({kNaN})))[0]));
  // Softplus does not overflow where log(exp(x) + 1) would.
  EXPECT_EQ(Values(Eval("Softplus", F32({1000, -1000}))), (std::vector<double>{1000, 0}));
  EXPECT_EQ(Values(Eval("Not", MakeTensor(DType::kBool, {1}, {1}))), (std::vector<double>{0}));
  for (const char* op : kFloatOps) {
    SCOPED_TRACE(op);
    OpTest t = Unary(op, DType::kFloat32, {static_cast<int64_t>(Specials().size())});
    ExpectGeneratedMatches(t, {s});
  }
}

// Every operator over both float dtypes, shapes and attribute values, in one
// compiler run; exact (rtol = atol = 0, NaN matching NaN).
TEST(Math, GeneratedMatchesOverDTypesAndShapes) {
  Batch batch;
  uint64_t seed = 3;
  const Attrs attrs[] = {{}, {{"alpha", 0.5}, {"gamma", 2.0}, {"lambd", 0.25}, {"bias", 0.125}}};
  std::vector<OpTest> tests;
  for (const char* op : kFloatOps) {
    for (DType d : {DType::kFloat32, DType::kFloat64}) {
      for (const Shape& shape : {Shape{}, Shape{2, 3, 4}}) {
        const Attrs& a = attrs[seed % 2];
        OpTest t = Unary(op, d, shape, std::string(op) == "IsInf" ? Attrs{} : a);
        HostTensor x = RandomTensor(d, shape, seed++);
        for (uint64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, x.GetDouble(i) * 3);
        batch.Add(t, {x}, std::string(op) + " " + DTypeName(d) + FormatShape(shape), 0, 0);
      }
    }
  }
  batch.Run();
  // Empty: nothing to compute, and the function still compiles cleanly.
  OpTest empty = Unary("Mish", DType::kFloat32, {0, 3});
  ExpectGeneratedMatches(empty, {HostTensor::Zeros(DType::kFloat32, {0, 3})}, 0, true);
}

TEST(Math, IntegerSignAndBoolNot) {
  uint64_t seed = 11;
  for (DType d : {DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt16,
                  DType::kUInt32, DType::kUInt64}) {
    SCOPED_TRACE(DTypeName(d));
    OpTest t = Unary("Sign", d, {6, 5});
    ExpectGeneratedMatches(t, {RandomTensor(d, {6, 5}, seed++)}, 0, d == DType::kInt8);
  }
  HostTensor extremes = HostTensor::Zeros(DType::kInt64, {4});
  extremes.data<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  extremes.data<int64_t>()[1] = std::numeric_limits<int64_t>::max();
  extremes.data<int64_t>()[2] = 0;
  extremes.data<int64_t>()[3] = -1;
  EXPECT_EQ(Values(Eval("Sign", extremes)), (std::vector<double>{-1, 1, 0, -1}));
  OpTest sign = Unary("Sign", DType::kInt64, {4});
  ExpectGeneratedMatches(sign, {extremes});
  // Any non-zero byte is true; the output is 0 or 1.
  HostTensor bytes = HostTensor::Zeros(DType::kBool, {4});
  bytes.data<uint8_t>()[0] = 2;
  bytes.data<uint8_t>()[1] = 255;
  bytes.data<uint8_t>()[3] = 1;
  EXPECT_EQ(Values(Eval("Not", bytes)), (std::vector<double>{0, 0, 1, 0}));
  OpTest n = Unary("Not", DType::kBool, {4});
  ExpectGeneratedMatches(n, {bytes}, 0, true);
  // Neither infinity detected: all false, and the C still compiles cleanly.
  OpTest none = Unary("IsInf", DType::kFloat64, {3}, {{"detect_positive", int64_t{0}}, {"detect_negative", int64_t{0}}});
  ExpectGeneratedMatches(none, {MakeTensor(DType::kFloat64, {3}, {kInf, -kInf, 1})}, 0, true);
  EXPECT_EQ(Values(none.Evaluate({MakeTensor(DType::kFloat64, {3}, {kInf, -kInf, 1})}).value()[0]),
            (std::vector<double>{0, 0, 0}));
}

TEST(Math, Errors) {
  OpTest arity("Sin", "m");
  arity.Input("x", DType::kFloat32, {2});
  arity.Input("z", DType::kFloat32, {2});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), "node 'm' (Sin): expects 1 input, got 2");

  OpTest ints = Unary("Floor", DType::kInt32, {2});
  EXPECT_EQ(InferError(ints), "node 'm' (Floor): input X has dtype int32; supported: float32, float64");
  EXPECT_EQ(ints.Infer().code(), StatusCode::kUnimplemented);

  OpTest not_float = Unary("Not", DType::kFloat32, {2});
  EXPECT_EQ(InferError(not_float), "node 'm' (Not): input X has dtype float32; supported: bool");

  OpTest isnan_int = Unary("IsNaN", DType::kInt8, {2});
  EXPECT_EQ(InferError(isnan_int), "node 'm' (IsNaN): input X has dtype int8; supported: float32, float64");

  OpTest sign_bool = Unary("Sign", DType::kBool, {2});
  EXPECT_EQ(InferError(sign_bool),
            "node 'm' (Sign): input X has dtype bool; supported: int8, int16, int32, int64, uint8, uint16, uint32, "
            "uint64, float32, float64");

  OpTest celu = Unary("Celu", DType::kFloat32, {2}, {{"alpha", -1.0}});
  EXPECT_EQ(InferError(celu), "node 'm' (Celu): alpha -1 is not supported (it must be positive)");
}

}  // namespace
}  // namespace mlf::ops::testing
