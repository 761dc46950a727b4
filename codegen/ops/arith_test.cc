// Min, Max, Mean, Sum, Mod, PRelu and BitShift (arith.cc): ONNX documentation
// values through evaluate, the generated C against evaluate over dtypes,
// broadcast shapes and edge cases (NaN, signed zeros, integer minimum, zero
// divisors, wide shifts), errors.
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

constexpr DType kIntegers[] = {DType::kInt8,  DType::kInt16,  DType::kInt32,  DType::kInt64,
                               DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64};

OpTest Node(const std::string& op, const std::vector<HostTensor>& inputs, const Attrs& attrs = {}) {
  OpTest t(op, "a");
  for (size_t i = 0; i < inputs.size(); ++i) t.Input("x" + std::to_string(i), inputs[i].dtype, inputs[i].shape);
  t.Output("y");
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  return t;
}

// Evaluates op on `inputs`; checks infer() against the result.
HostTensor Eval(const std::string& op, const std::vector<HostTensor>& inputs, const Attrs& attrs = {}) {
  OpTest t = Node(op, inputs, attrs);
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(inputs);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return HostTensor();
  const ir::Value& v = t.graph().value(t.node().outputs[0]);
  EXPECT_EQ((*y)[0].shape, v.shape);
  EXPECT_EQ((*y)[0].dtype, v.dtype);
  return (*y)[0];
}

HostTensor T(DType d, const std::vector<double>& v) { return MakeTensor(d, {static_cast<int64_t>(v.size())}, v); }

// A 1-D tensor of exactly these values (MakeTensor goes through double).
template <typename X>
HostTensor Exact(DType dtype, const std::vector<X>& v) {
  HostTensor t = HostTensor::Zeros(dtype, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<X>()[i] = v[i];
  return t;
}

TEST(Arith, DocumentationExamples) {
  const HostTensor d0 = T(DType::kFloat32, {3, 2, 1}), d1 = T(DType::kFloat32, {1, 4, 4}),
                   d2 = T(DType::kFloat32, {2, 5, 3});
  EXPECT_EQ(Values(Eval("Max", {d0, d1, d2})), (std::vector<double>{3, 5, 4}));
  EXPECT_EQ(Values(Eval("Min", {d0, d1, d2})), (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(Values(Eval("Sum", {d0, d1, d2})), (std::vector<double>{6, 11, 8}));
  const std::vector<double> mean = Values(Eval("Mean", {d0, d1, d2}));
  EXPECT_EQ(mean[0], 2);
  EXPECT_NEAR(mean[1], 3.6666667, 1e-6);
  EXPECT_NEAR(mean[2], 2.6666667, 1e-6);
  for (const char* op : {"Max", "Min", "Sum", "Mean"}) EXPECT_EQ(Values(Eval(op, {d0})), Values(d0)) << op;
  EXPECT_EQ(Values(Eval("Max", {T(DType::kUInt8, {3, 2, 1}), T(DType::kUInt8, {1, 4, 4})})),
            (std::vector<double>{3, 4, 4}));

  // test_mod_mixed_sign_int32 (fmod=0: the divisor's sign), test_mod_int64_fmod
  // (the dividend's), test_mod_mixed_sign_float32.
  const std::vector<double> x = {-4, 7, 5, 4, -7, 8}, y = {2, -3, 8, -2, 3, 5};
  EXPECT_EQ(Values(Eval("Mod", {T(DType::kInt32, x), T(DType::kInt32, y)})),
            (std::vector<double>{0, -2, 5, 0, 2, 3}));
  EXPECT_EQ(Values(Eval("Mod", {T(DType::kInt64, x), T(DType::kInt64, y)}, {{"fmod", int64_t{1}}})),
            (std::vector<double>{0, 1, 5, 0, -1, 3}));
  const std::vector<double> fm = Values(Eval("Mod", {T(DType::kFloat32, {-4.3, 7.2, 5.0, 4.3, -7.2, 8.0}),
                                                     T(DType::kFloat32, {2.1, -3.4, 8.0, -2.1, 3.4, 5.0})},
                                             {{"fmod", int64_t{1}}}));
  const std::vector<double> want = {-0.1, 0.4, 5, 0.1, -0.4, 3};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(fm[i], want[i], 1e-5) << i;
  // test_mod_broadcast: [3, 2, 5] mod [7].
  HostTensor iota = HostTensor::Zeros(DType::kInt32, {3, 2, 5});
  for (int i = 0; i < 30; ++i) iota.data<int32_t>()[i] = i;
  const HostTensor m = Eval("Mod", {iota, T(DType::kInt32, {7})});
  EXPECT_EQ(m.shape, (Shape{3, 2, 5}));
  for (int i = 0; i < 30; ++i) EXPECT_EQ(m.data<int32_t>()[i], i % 7);

  // PRelu with a broadcast slope; BitShift both ways.
  EXPECT_EQ(Values(Eval("PRelu", {T(DType::kFloat32, {-2, -1, 0, 1, 2}), T(DType::kFloat32, {0.25})})),
            (std::vector<double>{-0.5, -0.25, 0, 1, 2}));
  const HostTensor px = MakeTensor(DType::kFloat32, {2, 3}, {-1, -1, -1, 1, -2, 3});
  EXPECT_EQ(Values(Eval("PRelu", {px, T(DType::kFloat32, {1, 2, 3})})), (std::vector<double>{-1, -2, -3, 1, -4, 3}));
  const HostTensor bx = T(DType::kUInt8, {16, 4, 1}), by = T(DType::kUInt8, {1, 2, 3});
  EXPECT_EQ(Values(Eval("BitShift", {bx, by}, {{"direction", std::string("RIGHT")}})), (std::vector<double>{8, 1, 0}));
  EXPECT_EQ(Values(Eval("BitShift", {bx, by}, {{"direction", std::string("LEFT")}})), (std::vector<double>{32, 16, 8}));
}

TEST(Arith, EdgeCases) {
  // Min/Max: NaN anywhere wins; ties keep the earlier input (-0 before +0).
  const HostTensor a = T(DType::kFloat32, {kNaN, 1, 1, -0.0, 0.0});
  const HostTensor b = T(DType::kFloat32, {1, kNaN, 1, 0.0, -0.0});
  const HostTensor c = T(DType::kFloat32, {0, 0, kNaN, 0.0, 0.0});
  for (const char* op : {"Min", "Max"}) {
    SCOPED_TRACE(op);
    const HostTensor r = Eval(op, {a, b, c});
    EXPECT_TRUE(std::isnan(r.data<float>()[0]));
    EXPECT_TRUE(std::isnan(r.data<float>()[1]));
    EXPECT_TRUE(std::isnan(r.data<float>()[2]));
    EXPECT_TRUE(std::signbit(r.data<float>()[3]));
    EXPECT_FALSE(std::signbit(r.data<float>()[4]));
    OpTest t = Node(op, {a, b, c});
    ExpectGeneratedMatches(t, {a, b, c});
  }
  // float16 Min/Max compare as float and keep the chosen input's bits: NaN
  // (0x7e00) wins, the zeros tie, infinities and subnormals order as floats.
  const HostTensor ha = Exact<uint16_t>(DType::kFloat16, {0x7e00, 0x3c00, 0x8000, 0x0000, 0xfc00, 0x0001, 0xc000, 0x3c00});
  const HostTensor hb = Exact<uint16_t>(DType::kFloat16, {0x3c00, 0x7e01, 0x0000, 0x8000, 0x7c00, 0x8001, 0xbc00, 0x4000});
  const HostTensor hmax = Eval("Max", {ha, hb}), hmin = Eval("Min", {ha, hb});
  const uint16_t want_max[] = {0x7e00, 0x7e01, 0x8000, 0x0000, 0x7c00, 0x0001, 0xbc00, 0x4000};
  const uint16_t want_min[] = {0x7e00, 0x7e01, 0x8000, 0x0000, 0xfc00, 0x8001, 0xc000, 0x3c00};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(hmax.data<uint16_t>()[i], want_max[i]) << i;
    EXPECT_EQ(hmin.data<uint16_t>()[i], want_min[i]) << i;
  }
  for (const char* op : {"Min", "Max"}) {
    OpTest t = Node(op, {ha, hb, hb});
    ExpectGeneratedMatches(t, {ha, hb, hb}, 0, true);
  }
  // Mod: the integer minimum, zero divisors, float fmod by 0 and of -0.
  const HostTensor mx = Exact<int8_t>(DType::kInt8, {-128, -128, -128, 5, -5, 0, 127, -1});
  const HostTensor my = Exact<int8_t>(DType::kInt8, {-1, 1, 0, 0, 3, -3, -128, 127});
  EXPECT_EQ(Values(Eval("Mod", {mx, my})), (std::vector<double>{0, 0, 0, 0, 1, 0, -1, 126}));
  EXPECT_EQ(Values(Eval("Mod", {mx, my}, {{"fmod", int64_t{1}}})), (std::vector<double>{0, 0, 0, 0, -2, 0, 127, -1}));
  const HostTensor lx = Exact<int64_t>(DType::kInt64, {std::numeric_limits<int64_t>::min(), 7, -7});
  const HostTensor ly = Exact<int64_t>(DType::kInt64, {-1, 0, std::numeric_limits<int64_t>::min()});
  EXPECT_EQ(Values(Eval("Mod", {lx, ly})), (std::vector<double>{0, 0, -7}));
  for (int64_t fmod : {0, 1}) {
    OpTest small = Node("Mod", {mx, my}, {{"fmod", fmod}});
    ExpectGeneratedMatches(small, {mx, my});
    OpTest large = Node("Mod", {lx, ly}, {{"fmod", fmod}});
    ExpectGeneratedMatches(large, {lx, ly});
  }
  const HostTensor fx = T(DType::kFloat64, {1, -0.0, kNaN, 5.5}), fy = T(DType::kFloat64, {0, 1, 1, -2});
  const HostTensor fr = Eval("Mod", {fx, fy}, {{"fmod", int64_t{1}}});
  EXPECT_TRUE(std::isnan(fr.data<double>()[0]));
  EXPECT_TRUE(std::signbit(fr.data<double>()[1]));
  EXPECT_TRUE(std::isnan(fr.data<double>()[2]));
  EXPECT_EQ(fr.data<double>()[3], 1.5);
  OpTest fmod = Node("Mod", {fx, fy}, {{"fmod", int64_t{1}}});
  ExpectGeneratedMatches(fmod, {fx, fy});
  // float16 Mod (fmod=1) in float32: test_mod_mixed_sign_float16's values,
  // its expected output's bits, and the edge cases (x mod 0, NaN, -0,
  // subnormals, infinities) through the generated C, on a broadcast shape.
  const HostTensor hx = MakeTensor(DType::kFloat16, {6}, {-4.3, 7.2, 5.0, 4.3, -7.2, 8.0});
  const HostTensor hy = MakeTensor(DType::kFloat16, {6}, {2.1, -3.4, 8.0, -2.1, 3.4, 5.0});
  const HostTensor hz = Eval("Mod", {hx, hy}, {{"fmod", int64_t{1}}});
  ASSERT_EQ(hz.dtype, DType::kFloat16);
  // numpy.fmod on the float16 values: -0.1016, 0.3984, 5, 0.1016, -0.3984, 3.
  const std::vector<uint16_t> want_mod = {0xae80, 0x3660, 0x4500, 0x2e80, 0xb660, 0x4200};
  for (size_t i = 0; i < want_mod.size(); ++i) EXPECT_EQ(hz.data<uint16_t>()[i], want_mod[i]) << i;
  OpTest half_mod = Node("Mod", {hx, hy}, {{"fmod", int64_t{1}}});
  ExpectGeneratedMatches(half_mod, {hx, hy}, 0, true);
  const HostTensor ex = Exact<uint16_t>(DType::kFloat16, {0x3c00, 0x7e00, 0x8000, 0x0001, 0x7c00, 0x7bff, 0xfbff, 0x03ff});
  const HostTensor ey = Exact<uint16_t>(DType::kFloat16, {0x0000, 0x3c00, 0x3c00, 0x0003, 0x3c00, 0x0001, 0x7c00, 0x0002});
  const HostTensor ez = Eval("Mod", {ex, ey}, {{"fmod", int64_t{1}}});
  EXPECT_EQ(ez.data<uint16_t>()[0] & 0x7e00, 0x7e00);  // fmod(1, 0): NaN
  EXPECT_EQ(ez.data<uint16_t>()[2], 0x8000);          // -0 keeps its sign
  EXPECT_EQ(ez.data<uint16_t>()[3], 0x0001);          // subnormals exactly
  EXPECT_EQ(ez.data<uint16_t>()[6], 0xfbff);          // fmod(x, inf) = x
  OpTest edges = Node("Mod", {ex, ey}, {{"fmod", int64_t{1}}});
  ExpectGeneratedMatches(edges, {ex, ey});
  const HostTensor bx = RandomTensor(DType::kFloat16, {3, 4}, 5), by = RandomTensor(DType::kFloat16, {4}, 6);
  OpTest broadcast = Node("Mod", {bx, by}, {{"fmod", int64_t{1}}});
  ExpectGeneratedMatches(broadcast, {bx, by});
  // PRelu on integers wraps like Mul; NaN stays NaN.
  const HostTensor px = Exact<int32_t>(DType::kInt32, {std::numeric_limits<int32_t>::min(), -3, 4});
  const HostTensor ps = Exact<int32_t>(DType::kInt32, {2, 3, 5});
  EXPECT_EQ(Values(Eval("PRelu", {px, ps})), (std::vector<double>{0, -9, 4}));
  OpTest prelu = Node("PRelu", {px, ps});
  ExpectGeneratedMatches(prelu, {px, ps});
  EXPECT_TRUE(std::isnan(Values(Eval("PRelu", {T(DType::kFloat32, {kNaN}), T(DType::kFloat32, {2})}))[0]));
  // BitShift by the bit width or more gives 0.
  const HostTensor sx = Exact<uint64_t>(DType::kUInt64, {1, 1, 1, ~uint64_t{0}}), sy = Exact<uint64_t>(DType::kUInt64, {63, 64, 1000, 4});
  EXPECT_EQ(Values(Eval("BitShift", {sx, sy}, {{"direction", std::string("LEFT")}})),
            (std::vector<double>{std::ldexp(1.0, 63), 0, 0, static_cast<double>(~uint64_t{0} << 4)}));
  for (const char* dir : {"LEFT", "RIGHT"}) {
    OpTest t = Node("BitShift", {sx, sy}, {{"direction", std::string(dir)}});
    ExpectGeneratedMatches(t, {sx, sy});
    const HostTensor ux = Exact<uint8_t>(DType::kUInt8, {255, 1, 128}), uy = Exact<uint8_t>(DType::kUInt8, {7, 8, 200});
    OpTest u = Node("BitShift", {ux, uy}, {{"direction", std::string(dir)}});
    ExpectGeneratedMatches(u, {ux, uy}, 0, true);
  }
}

// Every operator over dtypes and broadcast shapes, in one compiler run.
TEST(Arith, GeneratedMatchesOverDTypesAndBroadcasts) {
  const std::vector<std::vector<Shape>> shapes = {
      {{2, 3}}, {{2, 3}, {2, 3}}, {{3, 4, 5}, {5}, {4, 1}}, {{}, {2, 2}}, {{2, 1, 3}, {4, 1}, {}, {3}}};
  Batch batch;
  uint64_t seed = 21;
  std::vector<DType> numeric(std::begin(kIntegers), std::end(kIntegers));
  numeric.push_back(DType::kFloat32);
  numeric.push_back(DType::kFloat64);
  auto add = [&](const std::string& op, DType d, const std::vector<Shape>& in, const Attrs& attrs) {
    std::vector<HostTensor> inputs;
    std::string what = op + " " + DTypeName(d);
    for (const Shape& s : in) {
      inputs.push_back(RandomTensor(d, s, seed++));
      what += FormatShape(s);
    }
    OpTest t = Node(op, inputs, attrs);
    batch.Add(t, inputs, what, 0, 0);
  };
  for (const char* op : {"Min", "Max"}) {
    for (DType d : numeric) add(op, d, shapes[seed % shapes.size()], {});
    add(op, DType::kFloat16, shapes[seed % shapes.size()], {});
  }
  for (const char* op : {"Sum", "Mean"}) {
    for (DType d : {DType::kFloat32, DType::kFloat64}) {
      for (const std::vector<Shape>& s : shapes) add(op, d, s, {});
    }
  }
  for (DType d : numeric) {
    for (int64_t fmod : {0, 1}) {
      if (fmod == 0 && (d == DType::kFloat32 || d == DType::kFloat64)) continue;
      add("Mod", d, seed % 2 ? std::vector<Shape>{{3, 4}, {4}} : std::vector<Shape>{{2, 1, 3}, {2, 1}}, {{"fmod", fmod}});
    }
  }
  for (DType d : {DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
    add("PRelu", d, seed % 2 ? std::vector<Shape>{{2, 3, 4}, {3, 1}} : std::vector<Shape>{{2, 3}, {}}, {});
  }
  for (DType d : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    for (const char* dir : {"LEFT", "RIGHT"}) add("BitShift", d, {{3, 4}, {4}}, {{"direction", std::string(dir)}});
  }
  batch.Run();
  EXPECT_GT(batch.size(), 50u);
  const HostTensor e = HostTensor::Zeros(DType::kFloat32, {0, 3});
  OpTest empty = Node("Mean", {e, e, T(DType::kFloat32, {1, 2, 3})});
  ExpectGeneratedMatches(empty, {e, e, T(DType::kFloat32, {1, 2, 3})}, 0, true);
  const HostTensor many = RandomTensor(DType::kInt16, {4, 3}, 99);
  OpTest max = Node("Max", {many, RandomTensor(DType::kInt16, {3}, 98), RandomTensor(DType::kInt16, {4, 1}, 97)});
  ExpectGeneratedMatches(max, {many, RandomTensor(DType::kInt16, {3}, 98), RandomTensor(DType::kInt16, {4, 1}, 97)}, 0,
                         true);
}

TEST(Arith, Errors) {
  const HostTensor f = HostTensor::Zeros(DType::kFloat32, {2, 3});
  const HostTensor i = HostTensor::Zeros(DType::kInt32, {2, 3});
  const HostTensor u = HostTensor::Zeros(DType::kUInt8, {2, 3});

  OpTest none = Node("Min", {});
  EXPECT_EQ(InferError(none), "node 'a' (Min): expects at least 1 input, got 0");

  OpTest omitted("Max", "a");
  omitted.Input("x0", DType::kFloat32, {2});
  omitted.OmittedInput();
  omitted.Input("x2", DType::kFloat32, {2});
  omitted.Output("y");
  EXPECT_EQ(InferError(omitted), "node 'a' (Max): input 1 (data_1) is required");

  OpTest mixed = Node("Max", {f, i});
  EXPECT_EQ(InferError(mixed), "node 'a' (Max): input 1 has dtype int32, expected float32 like input 0");

  OpTest sum_int = Node("Sum", {i, i});
  EXPECT_EQ(InferError(sum_int), "node 'a' (Sum): input 0 has dtype int32; supported: float32, float64");

  OpTest shapes = Node("Mean", {f, f, HostTensor::Zeros(DType::kFloat32, {4})});
  EXPECT_EQ(InferError(shapes),
            "node 'a' (Mean): shapes [2, 3] and [4] are not broadcastable (3 vs 4 at output axis 1)");

  OpTest float_mod = Node("Mod", {f, f});
  EXPECT_EQ(InferError(float_mod), "node 'a' (Mod): fmod=0 is only defined for integers; set fmod=1 for float32 inputs");

  const HostTensor h = HostTensor::Zeros(DType::kFloat16, {2});
  OpTest half_mod = Node("Mod", {h, h});
  EXPECT_EQ(InferError(half_mod), "node 'a' (Mod): fmod=0 is only defined for integers; set fmod=1 for float16 inputs");
  OpTest bool_mod = Node("Mod", {HostTensor::Zeros(DType::kBool, {2}), HostTensor::Zeros(DType::kBool, {2})});
  EXPECT_EQ(InferError(bool_mod),
            "node 'a' (Mod): input A has dtype bool; supported: int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
            "float32, float64, float16");

  OpTest bad_fmod = Node("Mod", {i, i}, {{"fmod", int64_t{2}}});
  EXPECT_EQ(InferError(bad_fmod), "node 'a' (Mod): attribute 'fmod' must be 0 or 1, got 2");

  OpTest mod_arity = Node("Mod", {i});
  EXPECT_EQ(InferError(mod_arity), "node 'a' (Mod): expects 2 inputs, got 1");

  OpTest slope = Node("PRelu", {HostTensor::Zeros(DType::kFloat32, {2, 1}), HostTensor::Zeros(DType::kFloat32, {3})});
  EXPECT_EQ(InferError(slope), "node 'a' (PRelu): slope of shape [3] does not broadcast to input X's shape [2, 1]");

  OpTest prelu_u = Node("PRelu", {u, u});
  EXPECT_EQ(InferError(prelu_u),
            "node 'a' (PRelu): input X has dtype uint8; supported: int8, int16, int32, int64, float32, float64");

  OpTest shift_dir = Node("BitShift", {u, u});
  EXPECT_EQ(InferError(shift_dir), "node 'a' (BitShift): attribute 'direction' must be LEFT or RIGHT, got ''");

  OpTest shift_int = Node("BitShift", {i, i}, {{"direction", std::string("LEFT")}});
  EXPECT_EQ(InferError(shift_int),
            "node 'a' (BitShift): input X has dtype int32; supported: uint8, uint16, uint32, uint64");
}

}  // namespace
}  // namespace mlf::ops::testing
