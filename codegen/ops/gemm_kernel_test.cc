// Gemm through the packed GEMV (gemm_kernel.h): which nodes take it, the
// packed weight, and the generated C (host, best variant, and
// arm-none-eabi-gcc) against the generated loops on the unpacked weight, bit
// for bit, and against the reference evaluator.
#include "codegen/ops/gemm_kernel.h"

#include <gtest/gtest.h>

#include <utility>

#include "codegen/emit/node_function.h"
#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"
#include "codegen/passes/pack_weights.h"

namespace mlf::ops {
namespace {

using testing::AllClose;
using testing::OpTest;
using testing::RandomTensor;

struct Case {
  int64_t m, n, k;
  bool c = true;
  std::string activation = "";
  bool trans_b = true;
  double alpha = 1.0;
};

OpTest Build(const Case& g) {
  OpTest t("Gemm");
  t.Input("a", DType::kFloat32, {g.m, g.k});
  t.Constant("b", RandomTensor(DType::kFloat32, g.trans_b ? std::vector<int64_t>{g.n, g.k}
                                                          : std::vector<int64_t>{g.k, g.n}, 31));
  if (g.c) t.Constant("c", RandomTensor(DType::kFloat32, {g.n}, 32));
  t.Output("y");
  if (g.trans_b) t.Attr("transB", int64_t{1});
  if (g.alpha != 1.0) t.Attr("alpha", g.alpha);
  if (!g.activation.empty()) t.Attr("mlf.activation", g.activation);
  if (g.activation == "Clip") {
    t.Attr("mlf.activation.min", -0.25);
    t.Attr("mlf.activation.max", 0.5);
  }
  return t;
}

bool Suits(const Case& c) {
  OpTest t = Build(c);
  EXPECT_TRUE(t.Infer().ok());
  return GemmSuitsGemvKernel(t.node(), t.graph());
}

TEST(GemmKernelTest, TakesFloatGemvsWithAConstantWeightOfAnySize) {
  EXPECT_TRUE(Suits({1, 256, 784, true, "Relu"}));  // the MLP's first layer
  EXPECT_TRUE(Suits({1, 10, 84}));                  // LeNet-5's last
  EXPECT_TRUE(Suits({1, 1000, 512}));               // ResNet18's classifier
  EXPECT_TRUE(Suits({8, 3, 5, false, "Clip"}));
  EXPECT_TRUE(Suits({1, 1, 1}));
  // Not a GEMV the kernel computes.
  EXPECT_FALSE(Suits({9, 16, 16}));
  EXPECT_FALSE(Suits({1, 16, 16, true, "", false}));
  EXPECT_FALSE(Suits({1, 16, 16, true, "", true, 0.5}));
  EXPECT_FALSE(Suits({1, 16, 16, true, "Sigmoid"}));
}

TEST(GemmKernelTest, LeavesRuntimeSharedAndOtherTypedWeights) {
  OpTest runtime("Gemm");
  runtime.Input("a", DType::kFloat32, {1, 32});
  runtime.Input("b", DType::kFloat32, {16, 32});
  runtime.Output("y");
  runtime.Attr("transB", int64_t{1});
  ASSERT_TRUE(runtime.Infer().ok());
  EXPECT_FALSE(GemmSuitsGemvKernel(runtime.node(), runtime.graph()));

  OpTest shared = Build({1, 16, 32});
  ASSERT_TRUE(shared.Infer().ok());
  shared.graph().outputs.push_back(shared.node().inputs[1]);  // B is also a graph output
  EXPECT_FALSE(GemmSuitsGemvKernel(shared.node(), shared.graph()));
  auto packed = passes::PackWeights(shared.graph());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 0);

  OpTest f64("Gemm");
  f64.Input("a", DType::kFloat64, {1, 32});
  f64.Constant("b", RandomTensor(DType::kFloat64, {16, 32}, 31));
  f64.Output("y");
  f64.Attr("transB", int64_t{1});
  ASSERT_TRUE(f64.Infer().ok());
  EXPECT_FALSE(GemmSuitsGemvKernel(f64.node(), f64.graph()));

  // C of two rows is not one bias per column.
  OpTest rows("Gemm");
  rows.Input("a", DType::kFloat32, {2, 32});
  rows.Constant("b", RandomTensor(DType::kFloat32, {16, 32}, 31));
  rows.Constant("c", RandomTensor(DType::kFloat32, {2, 16}, 32));
  rows.Output("y");
  rows.Attr("transB", int64_t{1});
  ASSERT_TRUE(rows.Infer().ok());
  EXPECT_FALSE(GemmSuitsGemvKernel(rows.node(), rows.graph()));
}

TEST(GemmKernelTest, PackingReordersTheWeightInPlaceAndMarksTheNode) {
  OpTest t = Build({1, 20, 40});
  ASSERT_TRUE(t.Infer().ok());
  const ir::HostTensor before = *t.graph().value(t.node().inputs[1]).constant;
  auto packed = passes::PackWeights(t.graph());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 1);
  const ir::HostTensor& after = *t.graph().value(t.node().inputs[1]).constant;
  EXPECT_EQ(after.shape, before.shape);
  ASSERT_EQ(after.bytes.size(), before.bytes.size());
  const float* b = before.data<float>();
  const float* p = after.data<float>();
  EXPECT_EQ(p[0], b[0]);                   // row 0, element 0
  EXPECT_EQ(p[16], b[40]);                 // row 1, element 0
  EXPECT_EQ(p[256], b[16]);                // step 1: row 0, element 16
  EXPECT_EQ(p[512 + 8 + 1], b[40 + 33]);   // the tails (8 each): row 1, element 33
  EXPECT_EQ(p[16 * 40 + 16 + 2], b[17 * 40 + 2]);  // block 1 (4 rows): row 17, element 2
  EXPECT_EQ(p[16 * 40 + 4 * 16 + 3 * 16], b[19 * 40 + 16]);  // its step 1: row 19, element 16
  EXPECT_EQ(std::get<std::string>(t.node().attrs.at(kWeightLayoutAttr)), kGemvBlocksLayout);
  auto again = passes::PackWeights(t.graph());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST(GemmKernelTest, PackedNodesRefuseEvaluationAndUnknownLayouts) {
  OpTest t = Build({1, 16, 32});
  ASSERT_TRUE(t.Infer().ok());
  ASSERT_TRUE(passes::PackWeights(t.graph()).ok());
  auto evaluated = t.Evaluate({RandomTensor(DType::kFloat32, {1, 32}, 1)});
  ASSERT_FALSE(evaluated.ok());
  EXPECT_EQ(evaluated.status().message(),
            "node 'n0' (Gemm): weight B is packed for the kernel layer and cannot be evaluated");
  t.node().attrs[kWeightLayoutAttr] = std::string("gemm_f32_panels8");
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "node 'n0' (Gemm): unknown weight layout in attribute 'mlf.weight_layout'");
}

TEST(GemmKernelTest, PackedGemmCallsThePackedKernelAndUnpackedSmallOnesTheLoops) {
  OpTest t = Build({1, 120, 400, true, "Relu"});
  ASSERT_TRUE(t.Infer().ok());
  auto loops = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(loops.ok());
  EXPECT_TRUE(loops->kernels.empty());
  EXPECT_EQ(loops->definition.find("mlfk_"), std::string::npos);
  ASSERT_EQ(*passes::PackWeights(t.graph()), 1);
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kernels, (std::set<std::string>{"gemm_f32"}));
  EXPECT_NE(f->definition.find("mlfk_gemv_f32_packed_exec(ex, 1, 120, 400, in0, in1, in2, out0, 0.0f, HUGE_VALF);"),
            std::string::npos)
      << f->definition;
  EXPECT_FALSE(f->needs_scratch);
}

class GemmKernelGeneratedTest : public ::testing::TestWithParam<Case> {};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.m << "x" << c.n << "x" << c.k << (c.c ? " +C" : "") << " " << c.activation;
}

// The generated loops on the weight as exported, then the packed kernel on
// the packed weight: the same bits (both sum 16 lanes, the K % 16 tail, the
// lanes in order, then C), and close to the reference evaluator.
TEST_P(GemmKernelGeneratedTest, MatchesTheLoopsBitForBit) {
  OpTest t = Build(GetParam());
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, {GetParam().m, GetParam().k}, 33)};
  auto want = t.Evaluate(in);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto loops = t.RunGenerated(in);
  ASSERT_TRUE(loops.ok()) << loops.status().ToString();
  auto packed = passes::PackWeights(t.graph());
  ASSERT_TRUE(packed.ok());
  ASSERT_EQ(*packed, 1);
  auto got = t.RunGenerated(in);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)[0].bytes, (*loops)[0].bytes);
  Status close = AllClose(*got, *want, 1e-5, 1e-5);
  EXPECT_TRUE(close.ok()) << close.ToString();
  const Status cross = testing::CrossCompile(t);
  EXPECT_TRUE(cross.ok()) << cross.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Gemv, GemmKernelGeneratedTest,
    ::testing::Values(Case{1, 256, 784, true, "Relu"},  // the MLP's layers
                      Case{1, 128, 256, true, "Relu"}, Case{1, 10, 128},
                      Case{1, 120, 400, true, "Relu"},  // LeNet-5's
                      Case{1, 84, 120, true, "Relu"}, Case{1, 10, 84},
                      Case{3, 37, 45, false, "Clip"},   // rows, tails, no C
                      Case{8, 16, 16}, Case{2, 5, 7, true, "Relu"}));

}  // namespace
}  // namespace mlf::ops
