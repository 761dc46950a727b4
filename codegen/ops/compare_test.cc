// Comparison, logic and Where (compare.cc): ONNX documentation values through
// evaluate, the generated C against evaluate over dtypes, broadcast shapes
// and special values (NaN, signed zeros, infinities, integer extremes),
// errors.
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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* const kComparisons[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"};
const char* const kLogic[] = {"And", "Or", "Xor"};

OpTest Node(const std::string& op, const std::vector<HostTensor>& inputs) {
  OpTest t(op, "c");
  for (size_t i = 0; i < inputs.size(); ++i) t.Input("x" + std::to_string(i), inputs[i].dtype, inputs[i].shape);
  t.Output("y");
  return t;
}

// Evaluates op on `inputs`; checks infer() against the result.
HostTensor Eval(const std::string& op, const std::vector<HostTensor>& inputs) {
  OpTest t = Node(op, inputs);
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

HostTensor Bools(Shape shape, const std::vector<double>& v) { return MakeTensor(DType::kBool, std::move(shape), v); }

TEST(Compare, DocumentationExamples) {
  const HostTensor a = MakeTensor(DType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const HostTensor b = MakeTensor(DType::kInt32, {3}, {1, 5, 6});
  EXPECT_EQ(Values(Eval("Equal", {a, b})), (std::vector<double>{1, 0, 0, 0, 1, 1}));
  EXPECT_EQ(Values(Eval("Less", {a, b})), (std::vector<double>{0, 1, 1, 0, 0, 0}));
  EXPECT_EQ(Values(Eval("Greater", {a, b})), (std::vector<double>{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(Values(Eval("LessOrEqual", {a, b})), (std::vector<double>{1, 1, 1, 0, 1, 1}));
  EXPECT_EQ(Values(Eval("GreaterOrEqual", {a, b})), (std::vector<double>{1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(Eval("Equal", {a, b}).dtype, DType::kBool);
  // The truth tables.
  const HostTensor p = Bools({4}, {0, 0, 1, 1}), q = Bools({4}, {0, 1, 0, 1});
  EXPECT_EQ(Values(Eval("And", {p, q})), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(Values(Eval("Or", {p, q})), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(Values(Eval("Xor", {p, q})), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(Values(Eval("Equal", {p, q})), (std::vector<double>{1, 0, 0, 1}));
  // test_where_example and test_where_long_example.
  const HostTensor cond = Bools({2, 2}, {1, 0, 1, 1});
  for (DType d : {DType::kFloat32, DType::kInt64}) {
    const HostTensor x = MakeTensor(d, {2, 2}, {1, 2, 3, 4}), y = MakeTensor(d, {2, 2}, {9, 8, 7, 6});
    const HostTensor w = Eval("Where", {cond, x, y});
    EXPECT_EQ(Values(w), (std::vector<double>{1, 8, 3, 4}));
    EXPECT_EQ(w.dtype, d);
  }
  // Three-way broadcast: [2, 1] x [3] x [] -> [2, 3].
  const HostTensor w = Eval("Where", {Bools({2, 1}, {1, 0}), MakeTensor(DType::kInt8, {3}, {1, 2, 3}),
                                      MakeTensor(DType::kInt8, {}, {-1})});
  EXPECT_EQ(w.shape, (Shape{2, 3}));
  EXPECT_EQ(Values(w), (std::vector<double>{1, 2, 3, -1, -1, -1}));
}

TEST(Compare, SpecialValues) {
  const HostTensor a = MakeTensor(DType::kFloat32, {6}, {kNaN, kNaN, 0.0, -0.0, kInf, -kInf});
  const HostTensor b = MakeTensor(DType::kFloat32, {6}, {kNaN, 1.0, -0.0, 0.0, kInf, 3e38});
  EXPECT_EQ(Values(Eval("Equal", {a, b})), (std::vector<double>{0, 0, 1, 1, 1, 0}));
  EXPECT_EQ(Values(Eval("Less", {a, b})), (std::vector<double>{0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(Values(Eval("GreaterOrEqual", {a, b})), (std::vector<double>{0, 0, 1, 1, 1, 0}));
  for (const char* op : kComparisons) {
    SCOPED_TRACE(op);
    OpTest t = Node(op, {a, b});
    ExpectGeneratedMatches(t, {a, b});
  }
  // Integer extremes compare exactly.
  HostTensor big = HostTensor::Zeros(DType::kInt64, {3}), small = HostTensor::Zeros(DType::kInt64, {3});
  big.data<int64_t>()[0] = std::numeric_limits<int64_t>::max();
  small.data<int64_t>()[0] = std::numeric_limits<int64_t>::max() - 1;
  big.data<int64_t>()[1] = std::numeric_limits<int64_t>::min();
  small.data<int64_t>()[1] = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Values(Eval("Greater", {big, small})), (std::vector<double>{1, 0, 0}));
  // Bool bytes other than 0 and 1 are true; outputs are 0 or 1.
  HostTensor odd = Bools({3}, {0, 0, 0});
  odd.data<uint8_t>()[0] = 2;
  odd.data<uint8_t>()[1] = 255;
  const HostTensor one = Bools({3}, {1, 1, 0});
  EXPECT_EQ(Values(Eval("Equal", {odd, one})), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(Values(Eval("Xor", {odd, one})), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(Values(Eval("And", {odd, one})), (std::vector<double>{1, 1, 0}));
  for (const char* op : {"Equal", "And", "Or", "Xor"}) {
    SCOPED_TRACE(op);
    OpTest t = Node(op, {odd, one});
    ExpectGeneratedMatches(t, {odd, one});
  }
  HostTensor cond = Bools({2}, {0, 0});
  cond.data<uint8_t>()[1] = 7;
  const HostTensor x = MakeTensor(DType::kFloat32, {2}, {1, 2}), y = MakeTensor(DType::kFloat32, {2}, {-1, -2});
  EXPECT_EQ(Values(Eval("Where", {cond, x, y})), (std::vector<double>{-1, 2}));
}

// Every operator over dtypes and broadcast shapes, in one compiler run.
TEST(Compare, GeneratedMatchesOverDTypesAndBroadcasts) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 3}, {2, 3}}, {{3, 4, 5}, {5}}, {{4, 1}, {1, 3}}, {{}, {2, 2}}, {{2, 1, 3}, {4, 1}}};
  Batch batch;
  uint64_t seed = 5;
  for (const char* op : kComparisons) {
    for (DType d : {DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt16,
                    DType::kUInt32, DType::kUInt64, DType::kFloat32, DType::kFloat64}) {
      const auto& [sa, sb] = shapes[seed % shapes.size()];
      // Small integers, so that equal elements occur.
      HostTensor a = RandomTensor(d, sa, seed), b = RandomTensor(d, sb, seed + 1);
      for (HostTensor* t : {&a, &b}) {
        for (uint64_t i = 0; i < t->element_count(); ++i) t->SetDouble(i, std::round(std::fmod(t->GetDouble(i) * 4, 3)));
      }
      OpTest t = Node(op, {a, b});
      batch.Add(t, {a, b}, std::string(op) + " " + DTypeName(d) + FormatShape(sa) + FormatShape(sb), 0, 0);
      ++seed;
    }
  }
  for (const char* op : {"Equal", "And", "Or", "Xor"}) {
    for (const auto& [sa, sb] : shapes) {
      const HostTensor a = RandomTensor(DType::kBool, sa, seed++), b = RandomTensor(DType::kBool, sb, seed++);
      OpTest t = Node(op, {a, b});
      batch.Add(t, {a, b}, std::string(op) + " bool" + FormatShape(sa) + FormatShape(sb), 0, 0);
    }
  }
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kUInt8, DType::kBool, DType::kFloat16,
                  DType::kInt64}) {
    const Shape sc = seed % 2 ? Shape{2, 1, 4} : Shape{4}, sx = seed % 3 ? Shape{3, 1} : Shape{}, sy = {2, 3, 4};
    const HostTensor c = RandomTensor(DType::kBool, sc, seed++), x = RandomTensor(d, sx, seed++),
                     y = RandomTensor(d, sy, seed++);
    OpTest t = Node("Where", {c, x, y});
    batch.Add(t, {c, x, y}, std::string("Where ") + DTypeName(d), 0, 0);
  }
  batch.Run();
  EXPECT_GT(batch.size(), 60u);
  // Empty output: the function compiles without warnings.
  const HostTensor e = HostTensor::Zeros(DType::kFloat32, {0, 3});
  OpTest empty = Node("Less", {e, e});
  ExpectGeneratedMatches(empty, {e, e}, 0, true);
  const HostTensor c = Bools({2, 3}, {1, 0, 1, 0, 1, 1});
  const HostTensor x = RandomTensor(DType::kFloat64, {3}, 9), y = RandomTensor(DType::kFloat64, {2, 1}, 10);
  OpTest where = Node("Where", {c, x, y});
  ExpectGeneratedMatches(where, {c, x, y}, 0, true);
}

TEST(Compare, Errors) {
  const HostTensor f = HostTensor::Zeros(DType::kFloat32, {2, 3});
  const HostTensor i = HostTensor::Zeros(DType::kInt32, {2, 3});
  const HostTensor b = HostTensor::Zeros(DType::kBool, {2, 3});

  OpTest mixed = Node("Equal", {f, i});
  EXPECT_EQ(InferError(mixed), "node 'c' (Equal): inputs A and B have different dtypes (float32 and int32)");

  OpTest less_bool = Node("Less", {b, b});
  EXPECT_EQ(InferError(less_bool),
            "node 'c' (Less): input A has dtype bool; supported: int8, int16, int32, int64, uint8, uint16, uint32, "
            "uint64, float32, float64");

  OpTest and_int = Node("And", {i, i});
  EXPECT_EQ(InferError(and_int), "node 'c' (And): input A has dtype int32; supported: bool");

  OpTest shapes = Node("Greater", {f, HostTensor::Zeros(DType::kFloat32, {4})});
  EXPECT_EQ(InferError(shapes),
            "node 'c' (Greater): shapes [2, 3] and [4] are not broadcastable (3 vs 4 at output axis 1)");

  OpTest arity = Node("Or", {b});
  EXPECT_EQ(InferError(arity), "node 'c' (Or): expects 2 inputs, got 1");

  OpTest where_arity = Node("Where", {b, f});
  EXPECT_EQ(InferError(where_arity), "node 'c' (Where): expects 3 inputs, got 2");

  OpTest where_cond = Node("Where", {i, f, f});
  EXPECT_EQ(InferError(where_cond), "node 'c' (Where): input 0 (condition) must be bool, got int32");

  OpTest where_types = Node("Where", {b, f, HostTensor::Zeros(DType::kFloat64, {2, 3})});
  EXPECT_EQ(InferError(where_types), "node 'c' (Where): inputs X and Y have different dtypes (float32 and float64)");

  OpTest where_shapes = Node("Where", {b, f, HostTensor::Zeros(DType::kFloat32, {3, 3})});
  EXPECT_EQ(InferError(where_shapes),
            "node 'c' (Where): shapes [2, 3] and [3, 3] are not broadcastable (2 vs 3 at output axis 0)");
}

}  // namespace
}  // namespace mlf::ops::testing
