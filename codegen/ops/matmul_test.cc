#include <gtest/gtest.h>

#include <set>
#include <string>

#include "codegen/ops/op.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

// ---------------------------------------------------------------- MatMul

Result<std::vector<int64_t>> MatMulShape(std::vector<int64_t> a, std::vector<int64_t> b,
                                         DType dtype = DType::kFloat32) {
  OpTest t("MatMul");
  t.Input("a", dtype, a);
  t.Input("b", dtype, b);
  int y = t.Output("y");
  MLF_RETURN_IF_ERROR(t.Infer());
  return t.graph().value(y).shape;
}

TEST(MatMulTest, InfersNumpyShapes) {
  EXPECT_EQ(*MatMulShape({3, 4}, {4, 5}), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(*MatMulShape({4}, {4, 5}), (std::vector<int64_t>{5}));
  EXPECT_EQ(*MatMulShape({3, 4}, {4}), (std::vector<int64_t>{3}));
  EXPECT_EQ(*MatMulShape({4}, {4}), (std::vector<int64_t>{}));
  EXPECT_EQ(*MatMulShape({2, 1, 3, 4}, {5, 4, 6}), (std::vector<int64_t>{2, 5, 3, 6}));
  EXPECT_EQ(*MatMulShape({4}, {2, 4, 6}), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(*MatMulShape({2, 3, 4}, {4}), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(*MatMulShape({2, 3, 4}, {4, 5}, DType::kInt64), (std::vector<int64_t>{2, 3, 5}));
}

TEST(MatMulTest, RefusesBadInputs) {
  EXPECT_EQ(MatMulShape({3, 4}, {5, 6}).status().message(),
            "node 'n0' (MatMul): inner dimensions do not match: A [3, 4] has K=4, B [5, 6] has K=5");
  EXPECT_EQ(MatMulShape({2, 3, 4}, {3, 4, 5}).status().message(),
            "node 'n0' (MatMul): batch dimensions of A [2, 3, 4] and B [3, 4, 5] do not broadcast");
  EXPECT_EQ(MatMulShape({}, {4}).status().message(),
            "node 'n0' (MatMul): MatMul inputs must have rank >= 1, got A [] and B [4]");
  auto bad = MatMulShape({2, 2}, {2, 2}, DType::kInt8);
  EXPECT_EQ(bad.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(bad.status().message(),
            "node 'n0' (MatMul): A has dtype int8; supported: float32, float64, int32, int64, "
            "uint32, uint64");
  OpTest t("MatMul");
  t.Input("a", DType::kFloat32, {2, 2});
  t.Input("b", DType::kFloat64, {2, 2});
  t.Output("y");
  EXPECT_EQ(t.Infer().message(), "node 'n0' (MatMul): A is float32 but B is float64");
}

TEST(MatMulTest, EvaluatesByHand) {
  OpTest t("MatMul");
  t.Input("a", DType::kFloat32, {2, 2});
  t.Input("b", DType::kFloat32, {2, 2});
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {2, 2}, {1, 2, 3, 4}),
                       MakeTensor(DType::kFloat32, {2, 2}, {5, 6, 7, 8})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kFloat32, {2, 2}, {19, 22, 43, 50})}, 0, 0).ok());
}

TEST(MatMulTest, EvaluatesBroadcastBatchByHand) {
  // A [2, 1, 2] (two row vectors) x B [2, 1] -> [2, 1, 1].
  OpTest t("MatMul");
  t.Input("a", DType::kInt32, {2, 1, 2});
  t.Input("b", DType::kInt32, {2, 1});
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kInt32, {2, 1, 2}, {1, 2, 3, 4}),
                       MakeTensor(DType::kInt32, {2, 1}, {10, 100})});
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kInt32, {2, 1, 1}, {210, 430})}, 0, 0).ok());
}

struct MatMulCase {
  std::vector<int64_t> a, b;
  DType dtype;
  bool constant_b;
};

void PrintTo(const MatMulCase& c, std::ostream* os) {
  *os << FormatShape(c.a) << " x " << FormatShape(c.b) << " " << DTypeName(c.dtype)
      << (c.constant_b ? " constant B" : "");
}

class MatMulGeneratedTest : public ::testing::TestWithParam<MatMulCase> {};

TEST_P(MatMulGeneratedTest, MatchesEvaluate) {
  const MatMulCase& c = GetParam();
  OpTest t("MatMul");
  t.Input("a", c.dtype, c.a);
  std::vector<ir::HostTensor> inputs = {RandomTensor(c.dtype, c.a, 1)};
  if (c.constant_b) {
    t.Constant("b", RandomTensor(c.dtype, c.b, 2));
  } else {
    t.Input("b", c.dtype, c.b);
    inputs.push_back(RandomTensor(c.dtype, c.b, 2));
  }
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  Status match = GeneratedMatchesReference(t, inputs, 1e-5, 1e-5);
  EXPECT_TRUE(match.ok()) << match.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MatMulGeneratedTest,
    ::testing::Values(
        MatMulCase{{1, 1}, {1, 1}, DType::kFloat32, true},
        MatMulCase{{3, 5}, {5, 7}, DType::kFloat32, true},
        MatMulCase{{8, 16}, {16, 32}, DType::kFloat32, false},  // whole tiles only
        MatMulCase{{9, 21}, {21, 35}, DType::kFloat32, true},   // row and column remainders
        MatMulCase{{6, 600}, {600, 19}, DType::kFloat32, true}, // K blocks + K remainder
        MatMulCase{{3, 512}, {512, 5}, DType::kFloat32, true},  // K a multiple of the block
        MatMulCase{{2, 7}, {7, 1100}, DType::kFloat32, true},   // N blocks + N remainder
        MatMulCase{{5}, {5, 9}, DType::kFloat32, true},         // 1-D A
        MatMulCase{{9, 5}, {5}, DType::kFloat32, false},        // 1-D B
        MatMulCase{{7}, {7}, DType::kFloat32, false},           // dot product
        MatMulCase{{2, 3, 4, 5}, {5, 6}, DType::kFloat32, true},      // batch folded into M
        MatMulCase{{3, 1, 4, 5}, {2, 5, 6}, DType::kFloat32, false},  // batch broadcast both ways
        MatMulCase{{4, 5}, {3, 5, 6}, DType::kFloat32, true},         // B batched only
        MatMulCase{{2, 1, 3}, {3, 4}, DType::kFloat64, true},
        MatMulCase{{2, 4, 3}, {2, 3, 5}, DType::kInt32, false},
        MatMulCase{{5, 3}, {3, 9}, DType::kInt64, true},
        MatMulCase{{3, 6}, {6, 2}, DType::kUInt32, false},
        MatMulCase{{0, 4}, {4, 5}, DType::kFloat32, false},   // empty output
        MatMulCase{{3, 0}, {0, 4}, DType::kFloat32, true}));  // K = 0: zeros

// ---------------------------------------------------------------- Gemm

TEST(GemmTest, InfersShapes) {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      OpTest t("Gemm");
      t.Input("a", DType::kFloat32, ta ? std::vector<int64_t>{4, 3} : std::vector<int64_t>{3, 4});
      t.Input("b", DType::kFloat32, tb ? std::vector<int64_t>{5, 4} : std::vector<int64_t>{4, 5});
      t.Input("c", DType::kFloat32, {5});
      int y = t.Output("y");
      t.Attr("transA", int64_t{ta});
      t.Attr("transB", int64_t{tb});
      ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
      EXPECT_EQ(t.graph().value(y).shape, (std::vector<int64_t>{3, 5}));
    }
  }
}

Status GemmInfer(std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> c,
                 int64_t trans_b = 0, DType dtype = DType::kFloat32) {
  OpTest t("Gemm");
  t.Input("a", dtype, a);
  t.Input("b", dtype, b);
  t.Input("c", dtype, c);
  t.Output("y");
  t.Attr("transB", trans_b);
  return t.Infer();
}

TEST(GemmTest, RefusesBadInputs) {
  EXPECT_EQ(GemmInfer({3, 4}, {4, 5}, {3, 4}).message(),
            "node 'n0' (Gemm): C [3, 4] does not broadcast to [3, 5]");
  EXPECT_EQ(GemmInfer({3, 4}, {4, 5}, {1, 3, 5}).message(),
            "node 'n0' (Gemm): C [1, 3, 5] must have rank <= 2 to broadcast to [3, 5]");
  EXPECT_EQ(GemmInfer({3, 4}, {4, 5}, {5}, 1).message(),
            "node 'n0' (Gemm): inner dimensions do not match: A [3, 4] has K=4, B [4, 5] "
            "(transposed) has K=5");
  EXPECT_EQ(GemmInfer({2, 3, 4}, {4, 5}, {5}).message(),
            "node 'n0' (Gemm): Gemm inputs A and B must be 2-D, got [2, 3, 4] and [4, 5]");
  EXPECT_EQ(GemmInfer({3, 4}, {4, 5}, {5}, 0, DType::kInt32).message(),
            "node 'n0' (Gemm): A has dtype int32; supported: float32, float64");
  OpTest t("Gemm");
  t.Input("a", DType::kFloat64, {2, 2});
  t.Input("b", DType::kFloat64, {2, 2});
  t.Output("y");
  t.Attr("mlf.activation", std::string("Relu"));
  EXPECT_EQ(t.Infer().message(),
            "node 'n0' (Gemm): fused activation 'Relu' needs a float32 output, got float64");
}

TEST(GemmTest, EvaluatesByHand) {
  // alpha * A^T B + beta * C with C a row broadcast.
  OpTest t("Gemm");
  t.Input("a", DType::kFloat32, {2, 2});  // A^T = [[1, 3], [2, 4]]
  t.Input("b", DType::kFloat32, {2, 2});
  t.Input("c", DType::kFloat32, {2});
  t.Output("y");
  t.Attr("transA", int64_t{1});
  t.Attr("alpha", 2.0);
  t.Attr("beta", 0.5);
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {2, 2}, {1, 2, 3, 4}),
                       MakeTensor(DType::kFloat32, {2, 2}, {1, 0, 0, 1}),
                       MakeTensor(DType::kFloat32, {2}, {10, 20})});
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kFloat32, {2, 2}, {7, 16, 9, 18})}, 0, 0).ok());
}

TEST(GemmTest, GeneratedMatchesEvaluateForAllAttributeCombinations) {
  // Sizes that exercise column remainders, K blocks and dot-product tails.
  const int64_t m = 5, n = 37, k = 300;
  const std::vector<std::vector<int64_t>> c_shapes = {
      {}, {n}, {1, n}, {m, 1}, {m, n}, {1}, {1, 1}};
  int seed = 0;
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (size_t ci = 0; ci <= c_shapes.size(); ++ci) {
        const bool has_c = ci < c_shapes.size();
        SCOPED_TRACE("transA=" + std::to_string(ta) + " transB=" + std::to_string(tb) +
                     " C=" + (has_c ? FormatShape(c_shapes[ci]) : "none"));
        OpTest t("Gemm");
        std::vector<int64_t> as = ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
        std::vector<int64_t> bs = tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
        t.Input("a", DType::kFloat32, as);
        t.Constant("b", RandomTensor(DType::kFloat32, bs, ++seed));
        if (has_c) t.Constant("c", RandomTensor(DType::kFloat32, c_shapes[ci], ++seed));
        t.Output("y");
        t.Attr("transA", int64_t{ta});
        t.Attr("transB", int64_t{tb});
        if (ci % 2 == 0) t.Attr("alpha", 0.75);
        if (ci % 3 == 0) t.Attr("beta", -1.5);
        ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
        std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, as, ++seed)};
        Status match = GeneratedMatchesReference(t, in, 1e-5, 1e-5);
        EXPECT_TRUE(match.ok()) << match.ToString();
      }
    }
  }
}

struct GemmCase {
  int64_t m, n, k;
  bool trans_b;
  std::string activation;
  DType dtype;
};

void PrintTo(const GemmCase& c, std::ostream* os) {
  *os << c.m << "x" << c.n << "x" << c.k << (c.trans_b ? " transB" : "") << " " << c.activation
      << " " << DTypeName(c.dtype);
}

class GemmGeneratedTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmGeneratedTest, MatchesEvaluate) {
  const GemmCase& c = GetParam();
  OpTest t("Gemm");
  std::vector<int64_t> bs = c.trans_b ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n};
  t.Input("a", c.dtype, {c.m, c.k});
  t.Constant("b", RandomTensor(c.dtype, bs, 7));
  t.Constant("c", RandomTensor(c.dtype, {c.n}, 8));
  t.Output("y");
  t.Attr("transB", int64_t{c.trans_b});
  t.Attr("alpha", 0.5);
  if (!c.activation.empty()) {
    t.Attr("mlf.activation", c.activation);
    if (c.activation == "Clip") {
      t.Attr("mlf.activation.min", -0.25);
      t.Attr("mlf.activation.max", 0.5);
    }
  }
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  std::vector<ir::HostTensor> in = {RandomTensor(c.dtype, {c.m, c.k}, 9)};
  Status match = GeneratedMatchesReference(t, in, 1e-5, 1e-5);
  EXPECT_TRUE(match.ok()) << match.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmGeneratedTest,
    ::testing::Values(GemmCase{1, 10, 64, true, "Relu", DType::kFloat32},  // batch-1 linear layer
                      GemmCase{3, 33, 300, true, "Clip", DType::kFloat32},
                      GemmCase{6, 9, 700, false, "Relu", DType::kFloat32},  // K blocks + epilogue pass
                      GemmCase{4, 5, 6, false, "Sigmoid", DType::kFloat32},
                      GemmCase{3, 4, 5, true, "", DType::kFloat64},
                      GemmCase{3, 4, 5, false, "", DType::kFloat64}));

// Gemms with transB = 1, few rows, alpha 1 and a per-column C (or none),
// at least 2^18 products, their weight as exported: gemm_f32's GEMV kernel
// (mlfk_gemv_f32_exec). Packed weights: gemm_kernel_test.cc.
struct Gemv {
  int64_t m, n, k;
  bool c = true;
  std::string activation = "";
  double alpha = 1.0;
};

OpTest BuildGemv(const Gemv& g) {
  OpTest t("Gemm");
  t.Input("a", DType::kFloat32, {g.m, g.k});
  t.Constant("b", RandomTensor(DType::kFloat32, {g.n, g.k}, 7));
  if (g.c) t.Constant("c", RandomTensor(DType::kFloat32, {1, g.n}, 8));
  t.Output("y");
  t.Attr("transB", int64_t{1});
  if (g.alpha != 1.0) t.Attr("alpha", g.alpha);
  if (!g.activation.empty()) t.Attr("mlf.activation", g.activation);
  if (g.activation == "Clip") t.Attr("mlf.activation.max", 0.5);
  return t;
}

std::string GemvBody(const Gemv& g, std::set<std::string>* kernels) {
  OpTest t = BuildGemv(g);
  EXPECT_TRUE(t.Infer().ok());
  std::string body;
  const EmitContext ctx{t.node(), t.graph(), kernels};
  EXPECT_TRUE(FindOp("Gemm")->emit(ctx, &body).ok());
  return body;
}

TEST(GemmTest, ClassifiersCallTheGemvKernel) {
  std::set<std::string> kernels;
  EXPECT_NE(GemvBody({1, 1000, 512}, &kernels)
                .find("mlfk_gemv_f32_exec(ex, 1, 1000, 512, in0, in1, in2, out0, -HUGE_VALF, HUGE_VALF);"),
            std::string::npos);
  EXPECT_EQ(kernels, (std::set<std::string>{"gemm_f32"}));
  EXPECT_NE(GemvBody({2, 300, 500, false, "Clip"}, &kernels)
                .find("mlfk_gemv_f32_exec(ex, 2, 300, 500, in0, in1, NULL, out0, -HUGE_VALF, 0.5f);"),
            std::string::npos);
  EXPECT_NE(GemvBody({1, 1000, 1280, true, "Relu"}, &kernels).find(", out0, 0.0f, HUGE_VALF);"),
            std::string::npos);
}

TEST(GemmTest, OtherGemmsKeepTheLoops) {
  // Unpacked (PackWeights not run: as for a runtime or shared weight),
  // LeNet-5's and the MLP's layers (below 2^18 products); an alpha, an
  // activation the kernel has no clamp for, too many rows.
  for (const Gemv& g : {Gemv{1, 120, 400}, Gemv{1, 256, 784}, Gemv{1, 1000, 512, true, "", 0.5},
                        Gemv{1, 1000, 512, true, "Sigmoid"}, Gemv{9, 1000, 512}}) {
    std::set<std::string> kernels;
    const std::string body = GemvBody(g, &kernels);
    EXPECT_TRUE(kernels.empty()) << g.m << "x" << g.n << "x" << g.k;
    EXPECT_EQ(body.find("mlfk_"), std::string::npos);
  }
}

TEST(GemmTest, GemvKernelMatchesEvaluate) {
  for (const Gemv& g : {Gemv{1, 1000, 512}, Gemv{3, 301, 877, false, "Relu"}, Gemv{1, 517, 513, true, "Clip"}}) {
    OpTest t = BuildGemv(g);
    ASSERT_TRUE(t.Infer().ok());
    std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, {g.m, g.k}, 9)};
    Status match = GeneratedMatchesReference(t, in, 1e-5, 1e-5);
    EXPECT_TRUE(match.ok()) << match.ToString();
  }
}

TEST(GemmTest, ReportsMacs) {
  OpTest t("Gemm");
  t.Input("a", DType::kFloat32, {3, 4});
  t.Input("b", DType::kFloat32, {4, 5});
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(FindOp("Gemm")->macs(t.node(), t.graph()), 60u);
  EXPECT_TRUE(FindOp("Gemm")->fuses_activation);
  OpTest u("MatMul");
  u.Input("a", DType::kFloat32, {2, 3, 4});
  u.Input("b", DType::kFloat32, {4, 5});
  u.Output("y");
  ASSERT_TRUE(u.Infer().ok());
  EXPECT_EQ(FindOp("MatMul")->macs(u.node(), u.graph()), 120u);
}

}  // namespace
}  // namespace mlf::ops::testing
