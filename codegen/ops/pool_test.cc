#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "codegen/ops/op.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;
using Ints = std::vector<int64_t>;

struct Pool {
  std::string op;
  Ints x;
  Attrs attrs = {};
  DType dtype = DType::kFloat32;
};

OpTest Build(const Pool& p, int* y) {
  OpTest t(p.op);
  t.Input("x", p.dtype, p.x);
  *y = t.Output("y");
  for (const auto& [k, v] : p.attrs) t.Attr(k, v);
  return t;
}

Result<Ints> Shape(const Pool& p) {
  int y = 0;
  OpTest t = Build(p, &y);
  MLF_RETURN_IF_ERROR(t.Infer());
  return t.graph().value(y).shape;
}

std::string Error(const Pool& p) {
  auto r = Shape(p);
  return r.ok() ? "ok " + FormatShape(*r) : r.status().message();
}

Result<std::vector<ir::HostTensor>> Evaluate(const Pool& p, const ir::HostTensor& x) {
  int y = 0;
  OpTest t = Build(p, &y);
  MLF_RETURN_IF_ERROR(t.Infer());
  return t.Evaluate({x});
}

std::vector<double> Ramp(int n, double start = 1) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = start + i;
  return v;
}

const std::string kSameUpper = "SAME_UPPER", kSameLower = "SAME_LOWER", kValid = "VALID";

// ---------------------------------------------------------------- infer

TEST(PoolTest, InfersOutputShapes) {
  for (const char* op : {"MaxPool", "AveragePool"}) {
    SCOPED_TRACE(op);
    const std::string o = op;
    EXPECT_EQ(*Shape({o, {1, 3, 32, 32}, {{"kernel_shape", Ints{2, 2}}}}), (Ints{1, 3, 31, 31}));
    EXPECT_EQ(*Shape({o, {1, 1, 5, 5}, {{"kernel_shape", Ints{5, 5}}, {"pads", Ints{2, 2, 2, 2}}}}),
              (Ints{1, 1, 5, 5}));
    EXPECT_EQ(*Shape({o, {1, 3, 32, 32}, {{"kernel_shape", Ints{5, 5}}, {"strides", Ints{3, 3}}}}),
              (Ints{1, 3, 10, 10}));
    EXPECT_EQ(*Shape({o, {1, 1, 4, 4}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}}}),
              (Ints{1, 1, 1, 1}));
    EXPECT_EQ(*Shape({o, {1, 1, 4, 4},
                      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}}),
              (Ints{1, 1, 2, 2}));
    // ceil_mode drops a last window that would start in the end padding.
    EXPECT_EQ(*Shape({o, {1, 1, 5},
                      {{"kernel_shape", Ints{2}}, {"strides", Ints{2}}, {"pads", Ints{1, 1}},
                       {"ceil_mode", int64_t{1}}}}),
              (Ints{1, 1, 3}));
    EXPECT_EQ(*Shape({o, {1, 1, 6},
                      {{"kernel_shape", Ints{3}}, {"strides", Ints{2}}, {"ceil_mode", int64_t{1}}}}),
              (Ints{1, 1, 3}));
    EXPECT_EQ(*Shape({o, {1, 3, 32, 32}, {{"kernel_shape", Ints{2, 2}}, {"auto_pad", kSameUpper}}}),
              (Ints{1, 3, 32, 32}));
    EXPECT_EQ(*Shape({o, {1, 1, 5, 6},
                      {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"auto_pad", kSameLower}}}),
              (Ints{1, 1, 3, 3}));
    EXPECT_EQ(*Shape({o, {1, 1, 5, 6},
                      {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"auto_pad", kValid}}}),
              (Ints{1, 1, 2, 3}));
    EXPECT_EQ(*Shape({o, {1, 1, 4, 4}, {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}}),
              (Ints{1, 1, 2, 2}));
    EXPECT_EQ(*Shape({o, {1, 3, 32}, {{"kernel_shape", Ints{2}}}}), (Ints{1, 3, 31}));
    EXPECT_EQ(*Shape({o, {1, 3, 8, 8, 8}, {{"kernel_shape", Ints{2, 2, 2}}, {"strides", Ints{2, 2, 2}}}}),
              (Ints{1, 3, 4, 4, 4}));
  }
  EXPECT_EQ(*Shape({"GlobalAveragePool", {2, 3, 4, 5}}), (Ints{2, 3, 1, 1}));
  EXPECT_EQ(*Shape({"GlobalMaxPool", {1, 2, 7}}), (Ints{1, 2, 1}));
  EXPECT_EQ(*Shape({"GlobalMaxPool", {1, 2, 3, 4, 5}}), (Ints{1, 2, 1, 1, 1}));
  EXPECT_EQ(*Shape({"MaxPool", {1, 1, 4, 4}, {{"kernel_shape", Ints{2, 2}}}, DType::kUInt8}),
            (Ints{1, 1, 3, 3}));
}

TEST(PoolTest, RefusesBadNodes) {
  const Ints x = {1, 1, 4, 4};
  EXPECT_EQ(Error({"MaxPool", x}), "node 'n0' (MaxPool): attribute 'kernel_shape' is required");
  EXPECT_EQ(Error({"MaxPool", x, {{"kernel_shape", Ints{2, 2}}, {"ceil_mode", int64_t{2}}}}),
            "node 'n0' (MaxPool): attribute 'ceil_mode' must be 0 or 1, got 2");
  EXPECT_EQ(Error({"MaxPool", x, {{"kernel_shape", Ints{2, 2}}, {"storage_order", int64_t{3}}}}),
            "node 'n0' (MaxPool): attribute 'storage_order' must be 0 or 1, got 3");
  EXPECT_EQ(Error({"AveragePool", x, {{"kernel_shape", Ints{2, 2}}, {"count_include_pad", int64_t{5}}}}),
            "node 'n0' (AveragePool): attribute 'count_include_pad' must be 0 or 1, got 5");
  EXPECT_EQ(Error({"AveragePool", x, {{"kernel_shape", Ints{2}}}}),
            "node 'n0' (AveragePool): attribute 'kernel_shape' has 1 values, expected 2 (one per "
            "spatial axis)");
  EXPECT_EQ(Error({"MaxPool", x, {{"kernel_shape", Ints{2, 0}}}}),
            "node 'n0' (MaxPool): attribute 'kernel_shape' must be positive, got [2, 0]");
  EXPECT_EQ(Error({"MaxPool", x, {{"kernel_shape", Ints{5, 2}}}}),
            "node 'n0' (MaxPool): spatial axis 0 would have output size 0 (input 4, kernel extent "
            "5, stride 1, pads 0+0)");
  EXPECT_EQ(Error({"MaxPool", {4, 4}, {{"kernel_shape", Ints{2, 2}}}}),
            "node 'n0' (MaxPool): input X [4, 4] must have rank >= 3 (N, C and at least one "
            "spatial axis)");
  EXPECT_EQ(Error({"AveragePool", x, {{"kernel_shape", Ints{2, 2}}}, DType::kUInt8}),
            "node 'n0' (AveragePool): X has dtype uint8; supported: float32, float64");
  EXPECT_EQ(Error({"MaxPool", x, {{"kernel_shape", Ints{2, 2}}}, DType::kInt32}),
            "node 'n0' (MaxPool): X has dtype int32; supported: float32, float64, int8, uint8");
  EXPECT_EQ(Error({"GlobalMaxPool", {1, 3}}),
            "node 'n0' (GlobalMaxPool): input X [1, 3] must have rank >= 3 (N, C and at least one "
            "spatial axis)");
  EXPECT_EQ(Error({"GlobalAveragePool", x, {}, DType::kInt8}),
            "node 'n0' (GlobalAveragePool): X has dtype int8; supported: float32, float64");

  // The Indices output: max_pool_indices_test.cc.
  OpTest t("MaxPool");
  t.Input("x", DType::kFloat32, x);
  t.Output("y");
  const int indices = t.Output("indices");
  t.Attr("kernel_shape", Ints{2, 2});
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(t.graph().value(indices).dtype, DType::kInt64);
}

// ---------------------------------------------------------------- evaluate

TEST(PoolTest, EvaluatesPaddedWindowsByHand) {
  const ir::HostTensor x = MakeTensor(DType::kFloat32, {1, 1, 5, 5}, Ramp(25));
  const Attrs attrs = {{"kernel_shape", Ints{5, 5}}, {"pads", Ints{2, 2, 2, 2}}};
  auto max = Evaluate({"MaxPool", {1, 1, 5, 5}, attrs}, x);
  ASSERT_TRUE(max.ok());
  EXPECT_TRUE(AllClose(*max, {MakeTensor(DType::kFloat32, {1, 1, 5, 5},
                                         {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25,
                                          25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25})},
                       0, 0)
                  .ok());
  auto avg = Evaluate({"AveragePool", {1, 1, 5, 5}, attrs}, x);
  ASSERT_TRUE(avg.ok());
  EXPECT_TRUE(AllClose(*avg, {MakeTensor(DType::kFloat32, {1, 1, 5, 5},
                                         {7, 7.5, 8, 8.5, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5, 13,
                                          13.5, 14, 14.5, 15, 15.5, 16, 16.5, 17, 17.5, 18, 18.5, 19})},
                       1e-6, 0)
                  .ok());
  Attrs include = attrs;
  include.push_back({"count_include_pad", int64_t{1}});
  auto inc = Evaluate({"AveragePool", {1, 1, 5, 5}, include}, x);
  ASSERT_TRUE(inc.ok());
  // Corner: 1+2+3+6+7+8+11+12+13 = 63 over 25 taps; centre: 325 / 25.
  EXPECT_FLOAT_EQ((*inc)[0].data<float>()[0], 63.0f / 25);
  EXPECT_FLOAT_EQ((*inc)[0].data<float>()[12], 13.0f);
}

TEST(PoolTest, EvaluatesCeilModeByHand) {
  const ir::HostTensor x = MakeTensor(DType::kFloat32, {1, 1, 4, 4}, Ramp(16));
  const Attrs attrs = {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}};
  auto avg = Evaluate({"AveragePool", {1, 1, 4, 4}, attrs}, x);
  ASSERT_TRUE(avg.ok());
  EXPECT_TRUE(AllClose(*avg, {MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {6, 7.5, 12, 13.5})}, 0, 0).ok());
  auto max = Evaluate({"MaxPool", {1, 1, 4, 4}, attrs}, x);
  ASSERT_TRUE(max.ok());
  EXPECT_TRUE(AllClose(*max, {MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {11, 12, 15, 16})}, 0, 0).ok());
  // With count_include_pad, taps beyond the (zero) end padding do not count: 45 / 6.
  Attrs include = attrs;
  include.push_back({"count_include_pad", int64_t{1}});
  auto inc = Evaluate({"AveragePool", {1, 1, 4, 4}, include}, x);
  ASSERT_TRUE(inc.ok());
  EXPECT_TRUE(AllClose(*inc, {MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {6, 7.5, 12, 13.5})}, 0, 0).ok());
}

TEST(PoolTest, EvaluatesDilationsAndIntegersByHand) {
  auto y = Evaluate({"MaxPool", {1, 1, 4, 4}, {{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}}},
                    MakeTensor(DType::kFloat32, {1, 1, 4, 4}, Ramp(16)));
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {11, 12, 15, 16})}, 0, 0).ok());
  auto u = Evaluate({"MaxPool", {1, 1, 2, 3}, {{"kernel_shape", Ints{2, 2}}}, DType::kUInt8},
                    MakeTensor(DType::kUInt8, {1, 1, 2, 3}, {200, 3, 7, 1, 255, 0}));
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(AllClose(*u, {MakeTensor(DType::kUInt8, {1, 1, 1, 2}, {255, 255})}, 0, 0).ok());
  auto s = Evaluate({"MaxPool", {1, 1, 3}, {{"kernel_shape", Ints{2}}, {"pads", Ints{1, 1}}}, DType::kInt8},
                    MakeTensor(DType::kInt8, {1, 1, 3}, {-128, -5, -100}));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(AllClose(*s, {MakeTensor(DType::kInt8, {1, 1, 4}, {-128, -5, -5, -100})}, 0, 0).ok());
}

TEST(PoolTest, EvaluatesGlobalPoolsByHand) {
  const ir::HostTensor x = MakeTensor(DType::kFloat32, {1, 2, 2, 2}, {1, 2, 3, 4, -1, -8, -3, -4});
  auto avg = Evaluate({"GlobalAveragePool", {1, 2, 2, 2}}, x);
  ASSERT_TRUE(avg.ok());
  EXPECT_TRUE(AllClose(*avg, {MakeTensor(DType::kFloat32, {1, 2, 1, 1}, {2.5, -4})}, 0, 0).ok());
  auto max = Evaluate({"GlobalMaxPool", {1, 2, 2, 2}}, x);
  ASSERT_TRUE(max.ok());
  EXPECT_TRUE(AllClose(*max, {MakeTensor(DType::kFloat32, {1, 2, 1, 1}, {4, -1})}, 0, 0).ok());
}

// ---------------------------------------------------------------- generated C

void PrintTo(const Pool& p, std::ostream* os) {
  *os << p.op << " X" << FormatShape(p.x);
  for (const auto& [k, v] : p.attrs) {
    *os << " " << k << "=";
    if (auto* i = std::get_if<int64_t>(&v)) *os << *i;
    if (auto* s = std::get_if<std::string>(&v)) *os << *s;
    if (auto* l = std::get_if<Ints>(&v)) *os << FormatShape(*l);
  }
  *os << " " << DTypeName(p.dtype);
}

class PoolGeneratedTest : public ::testing::TestWithParam<Pool> {};

TEST_P(PoolGeneratedTest, MatchesEvaluate) {
  const Pool& p = GetParam();
  std::vector<Pool> variants = {p};
  if (p.op == "AveragePool") {  // both divisor rules
    variants.push_back(p);
    variants.back().attrs.push_back({"count_include_pad", int64_t{1}});
  }
  for (const Pool& v : variants) {
    int y = 0;
    OpTest t = Build(v, &y);
    ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
    std::vector<ir::HostTensor> in = {RandomTensor(v.dtype, v.x, 21)};
    Status match = GeneratedMatchesReference(t, in, 1e-5, 1e-5);
    EXPECT_TRUE(match.ok()) << match.ToString();
  }
}

std::vector<Pool> WindowCases(const std::string& op) {
  return {
      {op, {2, 3, 11}, {{"kernel_shape", Ints{3}}, {"strides", Ints{2}}, {"pads", Ints{1, 1}}}},
      {op, {1, 4, 17, 17}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}},
      {op, {1, 3, 16, 40}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}},
      {op, {1, 3, 9, 9},
       {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t{1}}}},
      {op, {1, 2, 10, 10}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{3, 3}}, {"ceil_mode", int64_t{1}}}},
      {op, {1, 2, 12, 12}, {{"kernel_shape", Ints{3, 3}}, {"dilations", Ints{2, 2}}, {"pads", Ints{2, 1, 2, 1}}}},
      {op, {1, 2, 9, 10}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"auto_pad", kSameUpper}}},
      {op, {1, 2, 9, 10}, {{"kernel_shape", Ints{4, 2}}, {"strides", Ints{1, 2}}, {"auto_pad", kSameLower}}},
      {op, {1, 2, 9, 10}, {{"kernel_shape", Ints{3, 2}}, {"strides", Ints{2, 3}}, {"auto_pad", kValid}}},
      {op, {1, 2, 7, 8}, {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{0, 1, 2, 0}}}},
      {op, {1, 2, 6, 7, 8}, {{"kernel_shape", Ints{2, 2, 2}}, {"strides", Ints{2, 2, 2}}}},
      {op, {1, 2, 5, 6, 7}, {{"kernel_shape", Ints{3, 3, 3}}, {"pads", Ints{1, 1, 1, 1, 1, 1}}}},
      {op, {1, 1, 3, 3}, {{"kernel_shape", Ints{5, 5}}, {"pads", Ints{2, 2, 2, 2}}}},
      {op, {1, 2, 6, 5}, {{"kernel_shape", Ints{2, 3}}, {"pads", Ints{1, 1, 0, 1}}}, DType::kFloat64},
      // Above kPoolKernelMinTaps: through the kernel layer (pool_f32).
      {op, {1, 16, 33, 35}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}},
      {op, {2, 8, 27, 27}, {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}},
      {op, {1, 8, 23, 29},
       {{"kernel_shape", Ints{4, 3}}, {"strides", Ints{3, 1}}, {"dilations", Ints{1, 2}}, {"pads", Ints{2, 0, 1, 3}}}},
  };
}

INSTANTIATE_TEST_SUITE_P(MaxPool, PoolGeneratedTest, ::testing::ValuesIn(WindowCases("MaxPool")));
INSTANTIATE_TEST_SUITE_P(AveragePool, PoolGeneratedTest,
                         ::testing::ValuesIn(WindowCases("AveragePool")));
INSTANTIATE_TEST_SUITE_P(
    Integers, PoolGeneratedTest,
    ::testing::Values(
        Pool{"MaxPool", {1, 3, 7, 9}, {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}}, DType::kInt8},
        Pool{"MaxPool", {2, 2, 8, 20}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}, DType::kUInt8}));
INSTANTIATE_TEST_SUITE_P(
    Global, PoolGeneratedTest,
    ::testing::Values(Pool{"GlobalAveragePool", {2, 3, 5, 7}}, Pool{"GlobalMaxPool", {2, 3, 5, 7}},
                      Pool{"GlobalAveragePool", {1, 4, 3}}, Pool{"GlobalMaxPool", {1, 4, 3}},
                      Pool{"GlobalMaxPool", {1, 2, 4, 4, 4}},
                      Pool{"GlobalAveragePool", {1, 2, 4, 4, 4}, {}, DType::kFloat64},
                      // Above kPoolKernelMinTaps elements: pool_f32.
                      Pool{"GlobalAveragePool", {2, 40, 13, 13}}, Pool{"GlobalMaxPool", {1, 170, 7, 7}}));

// The emitted body of `p`'s node and the kernel families it calls.
std::pair<std::string, std::set<std::string>> Body(const Pool& p) {
  int y = 0;
  OpTest t = Build(p, &y);
  EXPECT_TRUE(t.Infer().ok());
  std::set<std::string> kernels;
  std::string body;
  const EmitContext ctx{t.node(), t.graph(), &kernels};
  EXPECT_TRUE(FindOp(p.op)->emit(ctx, &body).ok());
  return {body, kernels};
}

TEST(PoolTest, LargeFloatPoolsCallTheKernelLayer) {
  // 64 x 56 x 56 outputs x 9 taps (ResNet18's stem pool).
  auto [body, kernels] = Body({"MaxPool", {1, 64, 112, 112},
                               {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}});
  EXPECT_EQ(kernels, (std::set<std::string>{"pool_f32"}));
  EXPECT_NE(body.find("static const mlfk_pool2d_f32_shape shape = {1, 64, 112, 112, 56, 56, 3, 3, 2, 2, 1, "
                      "1, 1, 1, 1, 1, 0, 0};"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("mlfk_pool2d_f32_exec(ex, &shape, in0, out0);"), std::string::npos) << body;
  // SqueezeNet's: ceil_mode, no padding; AveragePool with count_include_pad.
  auto avg = Body({"AveragePool", {1, 256, 27, 27},
                   {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}},
                    {"count_include_pad", int64_t{1}}}});
  EXPECT_NE(avg.first.find("{1, 256, 27, 27, 13, 13, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1};"), std::string::npos)
      << avg.first;
  auto global = Body({"GlobalAveragePool", {1, 1280, 7, 7}});
  EXPECT_EQ(global.second, (std::set<std::string>{"pool_f32"}));
  EXPECT_NE(global.first.find("mlfk_global_pool_f32_exec(ex, 1, 1280, 49, in0, out0);"), std::string::npos)
      << global.first;
}

TEST(PoolTest, SmallIntegerAnd3DPoolsKeepTheLoops) {
  // LeNet-5's first pool: 6 x 14 x 14 outputs x 4 taps = 4704, below 2^13.
  for (const Pool& p : {Pool{"MaxPool", {1, 6, 28, 28}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}},
                        Pool{"MaxPool", {1, 64, 112, 112}, {{"kernel_shape", Ints{3, 3}}}, DType::kUInt8},
                        Pool{"MaxPool", {1, 16, 32, 32, 32}, {{"kernel_shape", Ints{2, 2, 2}}}},
                        Pool{"GlobalAveragePool", {1, 1280, 7, 7}, {}, DType::kFloat64},
                        Pool{"GlobalAveragePool", {1, 8, 31, 33}}}) {
    SCOPED_TRACE(p.op + " " + FormatShape(p.x));
    auto [body, kernels] = Body(p);
    EXPECT_TRUE(kernels.empty());
    EXPECT_EQ(body.find("mlfk_"), std::string::npos) << body;
  }
}

TEST(PoolTest, ReportsMacs) {
  int y = 0;
  OpTest t = Build({"AveragePool", {1, 2, 4, 4}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}}, &y);
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(FindOp("AveragePool")->macs(t.node(), t.graph()), 2u * 4 * 4);
  OpTest u = Build({"GlobalAveragePool", {1, 2, 4, 4}}, &y);
  ASSERT_TRUE(u.Infer().ok());
  EXPECT_EQ(FindOp("GlobalAveragePool")->macs(u.node(), u.graph()), 32u);
}

}  // namespace
}  // namespace mlf::ops::testing
