// Cast and CastLike: shapes, errors, reference values, generated C.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "artifact/format/tensor_values.h"
#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using ir::HostTensor;

int64_t OnnxCode(DType d) {
  switch (d) {
    case DType::kFloat32: return 1;
    case DType::kUInt8: return 2;
    case DType::kInt8: return 3;
    case DType::kUInt16: return 4;
    case DType::kInt16: return 5;
    case DType::kInt32: return 6;
    case DType::kInt64: return 7;
    case DType::kBool: return 9;
    case DType::kFloat16: return 10;
    case DType::kFloat64: return 11;
    case DType::kUInt32: return 12;
    case DType::kUInt64: return 13;
    case DType::kBFloat16: return 16;
  }
  return 0;
}

HostTensor CastTo(const HostTensor& x, DType to) {
  OpTest t("Cast");
  t.Input("x", x.dtype, x.shape);
  t.Output("y");
  t.Attr("to", OnnxCode(to));
  EXPECT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? (*y)[0] : HostTensor{};
}

std::vector<uint16_t> Bits16(const HostTensor& t) {
  std::vector<uint16_t> v(t.element_count());
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

TEST(Cast, ReferenceValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const HostTensor f = MakeTensor(DType::kFloat32, {8}, {-1.7, 2.9, 3e9, -3e9, nan, inf, -0.5, 255.9});
  EXPECT_EQ(Values(CastTo(f, DType::kInt32)),
            (std::vector<double>{-1, 2, 2147483647, -2147483648.0, 0, 2147483647, 0, 255}));
  EXPECT_EQ(Values(CastTo(f, DType::kUInt8)), (std::vector<double>{0, 2, 255, 0, 0, 255, 0, 255}));
  EXPECT_EQ(Values(CastTo(f, DType::kBool)), (std::vector<double>{1, 1, 1, 1, 1, 1, 1, 1}));
  // Integers wrap like C.
  EXPECT_EQ(Values(CastTo(MakeTensor(DType::kInt32, {3}, {300, -1, 65537}), DType::kUInt8)),
            (std::vector<double>{44, 255, 1}));
  EXPECT_EQ(Values(CastTo(MakeTensor(DType::kInt32, {2}, {-1, 70000}), DType::kUInt16)),
            (std::vector<double>{65535, 4464}));
  // test_cast_FLOAT_to_FLOAT16 (first values); bfloat16 rounds to nearest even.
  const HostTensor h = CastTo(MakeTensor(DType::kFloat32, {3}, {0.54881352186203, 0.7151893377304077, 0.6027633547782898}),
                              DType::kFloat16);
  EXPECT_EQ(Values(h), (std::vector<double>{0.548828125, 0.71533203125, 0.6025390625}));
  const HostTensor b = CastTo(
      MakeTensor(DType::kFloat32, {6}, {0.4789254665374756, 0.48033666610717773, 0.4996848702430725, 1.00390625, 1.01171875, nan}),
      DType::kBFloat16);
  EXPECT_EQ(Bits16(b), (std::vector<uint16_t>{16117, 16118, 16128, 16256, 16258, 0x7fc0}));
  EXPECT_EQ(Values(CastTo(MakeTensor(DType::kFloat32, {3}, {65520, 1e-8, 3e-8}), DType::kFloat16)),
            (std::vector<double>{inf, 0, std::ldexp(1.0, -24)}));
}

// Every source value of interest for `from`, bit patterns included.
HostTensor Interesting(DType from) {
  std::vector<double> v = {0, 1, -1, 2.5, -2.5, 0.5, 127, 128, 255, 256, -129, 65535, 65536, 1e5, -7};
  if (from == DType::kFloat32 || from == DType::kFloat64 || from == DType::kFloat16 || from == DType::kBFloat16) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (double x : {nan, inf, -inf, -0.0, 3e9, -3e9, 1e20, -1e20, 65504.0, 65519.0, 65520.0, 1e-6, 6e-8, 2.9802322387695312e-08,
                     8.940696716308594e-08, 1e-40, 0.1, 1.00048828125, 2147483520.0, 9.3e18, 1.9e19, -0.999}) {
      v.push_back(x);
    }
  }
  HostTensor t = HostTensor::Zeros(from, {static_cast<int64_t>(v.size()) + 24});
  for (size_t i = 0; i < v.size(); ++i) t.SetDouble(i, v[i]);
  const HostTensor r = RandomTensor(from, {24}, 90 + static_cast<uint64_t>(from));
  std::memcpy(&t.bytes[v.size() * DTypeSize(from)], r.bytes.data(), r.bytes.size());
  if (from == DType::kInt64) {
    t.data<int64_t>()[0] = std::numeric_limits<int64_t>::min();
    t.data<int64_t>()[1] = std::numeric_limits<int64_t>::max();
    t.data<int64_t>()[2] = (int64_t{1} << 40) + 1;
  }
  if (from == DType::kUInt64) t.data<uint64_t>()[0] = std::numeric_limits<uint64_t>::max();
  return t;
}

// One graph casting `from` to every dtype: the generated C must match
// evaluate() bit for bit.
TEST(Cast, GeneratedMatchesEvaluateForEveryPair) {
  for (DType from : kAllDTypes) {
    const HostTensor x = Interesting(from);
    OpTest t("Cast");
    const int in = t.Input("x", from, x.shape);
    t.Output("y0");
    t.Attr("to", OnnxCode(kAllDTypes[0]));
    for (size_t k = 1; k < std::size(kAllDTypes); ++k) {
      ir::Node n;
      n.op = "Cast";
      n.name = "c" + std::to_string(k);
      n.inputs = {in};
      ir::Value v;
      v.name = "y" + std::to_string(k);
      n.outputs = {t.graph().AddValue(v)};
      n.attrs["to"] = OnnxCode(kAllDTypes[k]);
      t.graph().outputs.push_back(n.outputs[0]);
      t.graph().nodes.push_back(n);
    }
    for (const ir::Node& n : t.graph().nodes) {
      const Status s = InferNode(n, t.graph());
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    SCOPED_TRACE(DTypeName(from));
    auto want = t.Evaluate({x});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = t.RunGenerated({x});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (size_t k = 0; k < got->size(); ++k) {
      EXPECT_EQ((*want)[k].dtype, kAllDTypes[k]);
      const size_t es = DTypeSize(kAllDTypes[k]);
      for (uint64_t i = 0; i < x.element_count(); ++i) {
        EXPECT_EQ(0, std::memcmp(&(*got)[k].bytes[i * es], &(*want)[k].bytes[i * es], es))
            << DTypeName(from) << " -> " << DTypeName(kAllDTypes[k]) << ": element " << i << " ("
            << x.GetDouble(i) << "): got " << (*got)[k].GetDouble(i) << ", want " << (*want)[k].GetDouble(i);
      }
    }
    if (from == DType::kFloat16 || from == DType::kFloat32 || from == DType::kInt64) {
      const Status compiled = CrossCompile(t);
      EXPECT_TRUE(compiled.ok()) << compiled.ToString();
    }
  }
}

TEST(Cast, FloatToHalfMatchesTensorValuesExhaustively) {
  // Every float16 bit pattern (finite ones round-trip) plus the midpoints
  // between neighbours, which exercise rounding to nearest even.
  std::vector<float> v;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float a = HalfToFloat(static_cast<uint16_t>(h)), b = HalfToFloat(static_cast<uint16_t>(h + 1));
    for (float s : {1.0f, -1.0f}) {
      v.push_back(s * a);
      v.push_back(s * (a + (b - a) / 2));
      v.push_back(s * std::nextafter(a + (b - a) / 2, b));
    }
  }
  HostTensor x = HostTensor::Zeros(DType::kFloat32, {static_cast<int64_t>(v.size())});
  std::memcpy(x.bytes.data(), v.data(), v.size() * 4);
  OpTest t("Cast");
  t.Input("x", DType::kFloat32, x.shape);
  t.Output("y");
  t.Attr("to", int64_t{10});
  ASSERT_TRUE(t.Infer().ok());
  auto got = t.RunGenerated({x});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const std::vector<uint16_t> bits = Bits16((*got)[0]);
  int mismatches = 0;
  for (size_t i = 0; i < v.size() && mismatches < 5; ++i) {
    if (bits[i] != FloatToHalf(v[i])) {
      ++mismatches;
      ADD_FAILURE() << v[i] << ": got " << bits[i] << ", want " << FloatToHalf(v[i]);
    }
  }
}

TEST(Cast, CastLikeAndErrors) {
  OpTest like("CastLike");
  like.Input("x", DType::kFloat32, {2, 3});
  like.Constant("target", MakeTensor(DType::kInt16, {1}, {0}));
  like.Output("y");
  ExpectGeneratedMatches(like, {RandomTensor(DType::kFloat32, {2, 3}, 5)});
  EXPECT_EQ(like.graph().value(like.node().outputs[0]).dtype, DType::kInt16);

  OpTest s("Cast", "c");
  s.Input("x", DType::kFloat32, {2});
  s.Output("y");
  s.Attr("to", int64_t{8});
  EXPECT_EQ(InferError(s), "node 'c' (Cast): Cast to string is not supported");
  EXPECT_EQ(s.Infer().code(), StatusCode::kUnimplemented);

  OpTest f8("Cast", "c");
  f8.Input("x", DType::kFloat32, {2});
  f8.Output("y");
  f8.Attr("to", int64_t{17});
  EXPECT_EQ(InferError(f8), "node 'c' (Cast): Cast to ONNX data type 17 is not supported (float8, int4 and unknown types)");

  OpTest none("Cast", "c");
  none.Input("x", DType::kFloat32, {2});
  none.Output("y");
  EXPECT_EQ(InferError(none), "node 'c' (Cast): attribute 'to' is required");
}

}  // namespace
}  // namespace mlf::ops::testing
