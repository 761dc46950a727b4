// Conv through the kernel layer (conv_kernel.h): which nodes take it, the
// packed weight, the direct path of small unpadded ones, and the generated
// C (host, every variant the CPU has, and arm-none-eabi-gcc) against the
// naive reference on the unpacked graph.
#include "codegen/ops/conv_kernel.h"

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

using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;
using Ints = std::vector<int64_t>;

struct Case {
  Ints x, w;
  bool bias = false;
  Attrs attrs = {};
};

OpTest Build(const Case& c) {
  OpTest t("Conv");
  t.Input("x", DType::kFloat32, c.x);
  t.Constant("w", RandomTensor(DType::kFloat32, c.w, 21));
  if (c.bias) t.Constant("b", RandomTensor(DType::kFloat32, {c.w[0]}, 22));
  t.Output("y");
  for (const auto& [k, v] : c.attrs) t.Attr(k, v);
  return t;
}

bool Suits(const Case& c) {
  OpTest t = Build(c);
  EXPECT_TRUE(t.Infer().ok());
  return ConvSuitsKernel(t.node(), t.graph());
}

TEST(ConvKernelTest, TakesLargeFloat2DConvolutionsOfOneGroupWithAConstantWeight) {
  // 64 x 64 x 9 x 16 x 16 = 9.4M MACs.
  EXPECT_TRUE(Suits({{1, 64, 16, 16}, {64, 64, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}}}));
  // Just above and below kConvKernelMinMacs (2^20): 16 x 64 x 32 x 32 = 2^20.
  EXPECT_TRUE(Suits({{1, 64, 32, 32}, {16, 64, 1, 1}}));
  EXPECT_FALSE(Suits({{1, 64, 32, 31}, {16, 64, 1, 1}}));
  // Groups (depthwise), 1-D and 3-D stay on the direct code.
  EXPECT_FALSE(Suits({{1, 64, 64, 64}, {64, 1, 3, 3}, false, {{"group", int64_t{64}}}}));
  EXPECT_FALSE(Suits({{1, 64, 4096}, {64, 64, 3}}));
  EXPECT_FALSE(Suits({{1, 16, 16, 16, 16}, {32, 16, 3, 3, 3}}));
}

TEST(ConvKernelTest, LeavesRuntimeAndSharedWeights) {
  OpTest runtime("Conv");
  runtime.Input("x", DType::kFloat32, {1, 64, 16, 16});
  runtime.Input("w", DType::kFloat32, {64, 64, 3, 3});
  runtime.Output("y");
  ASSERT_TRUE(runtime.Infer().ok());
  EXPECT_FALSE(ConvSuitsKernel(runtime.node(), runtime.graph()));

  OpTest shared = Build({{1, 64, 16, 16}, {64, 64, 3, 3}});
  ASSERT_TRUE(shared.Infer().ok());
  shared.graph().outputs.push_back(shared.node().inputs[1]);  // W is also a graph output
  EXPECT_FALSE(ConvSuitsKernel(shared.node(), shared.graph()));
  auto packed = passes::PackWeights(shared.graph());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 0);
}

TEST(ConvKernelTest, PackingReordersTheWeightInPlaceAndMarksTheNode) {
  OpTest t = Build({{1, 64, 16, 16}, {20, 64, 3, 3}});
  ASSERT_TRUE(t.Infer().ok());
  const ir::HostTensor before = *t.graph().value(t.node().inputs[1]).constant;
  auto packed = passes::PackWeights(t.graph());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 1);
  const ir::HostTensor& after = *t.graph().value(t.node().inputs[1]).constant;
  EXPECT_EQ(after.shape, before.shape);
  ASSERT_EQ(after.bytes.size(), before.bytes.size());
  const float* a = before.data<float>();
  const float* p = after.data<float>();
  const int64_t k = 64 * 9;
  EXPECT_EQ(p[0], a[0]);              // row 0, column 0
  EXPECT_EQ(p[1], a[k]);              // row 1, column 0
  EXPECT_EQ(p[8], a[1]);              // row 0, column 1
  EXPECT_EQ(p[8 * k + 9], a[9 * k + 1]);  // panel 1: row 9, column 1
  EXPECT_EQ(p[16 * k + 5], a[16 * k + 5]);  // rows 16-19 stay row-major
  EXPECT_EQ(std::get<std::string>(t.node().attrs.at(kWeightLayoutAttr)), kGemmPanelsLayout);
  // A second run finds nothing left to pack.
  auto again = passes::PackWeights(t.graph());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST(ConvKernelTest, PackedNodesRefuseEvaluationAndUnknownLayouts) {
  OpTest t = Build({{1, 64, 16, 16}, {64, 64, 3, 3}});
  ASSERT_TRUE(t.Infer().ok());
  ASSERT_TRUE(passes::PackWeights(t.graph()).ok());
  auto evaluated = t.Evaluate({RandomTensor(DType::kFloat32, {1, 64, 16, 16}, 1)});
  ASSERT_FALSE(evaluated.ok());
  EXPECT_EQ(evaluated.status().message(),
            "node 'n0' (Conv): weight W is packed for the kernel layer and cannot be evaluated");
  t.node().attrs[kWeightLayoutAttr] = std::string("nchw16c");
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "node 'n0' (Conv): unknown weight layout in attribute 'mlf.weight_layout'");
}

TEST(ConvKernelTest, ScratchIsOneIm2colChunkAndNoneFor1x1) {
  OpTest t3 = Build({{1, 64, 32, 32}, {64, 64, 3, 3}, false, {{"pads", Ints{1, 1, 1, 1}}}});
  ASSERT_TRUE(t3.Infer().ok());
  ASSERT_TRUE(passes::PackWeights(t3.graph()).ok());
  auto f3 = emit::EmitNodeFunction(t3.graph(), 0);
  ASSERT_TRUE(f3.ok());
  EXPECT_EQ(f3->scratch_bytes, 64u * 9 * kConvKernelChunk * sizeof(float));
  EXPECT_EQ(f3->kernels, (std::set<std::string>{"conv_f32"}));

  OpTest t1 = Build({{1, 64, 32, 32}, {64, 64, 1, 1}});
  ASSERT_TRUE(t1.Infer().ok());
  ASSERT_TRUE(passes::PackWeights(t1.graph()).ok());
  auto f1 = emit::EmitNodeFunction(t1.graph(), 0);
  ASSERT_TRUE(f1.ok());
  EXPECT_EQ(f1->scratch_bytes, 0u);
  EXPECT_FALSE(f1->needs_scratch);
}

TEST(ConvKernelTest, UnpackedPaddedNodesCallNoKernel) {
  OpTest t = Build({{1, 64, 16, 16}, {64, 64, 3, 3}, false, {{"pads", Ints{1, 1, 1, 1}}}});
  ASSERT_TRUE(t.Infer().ok());
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->kernels.empty());
  EXPECT_EQ(f->definition.find("mlfk_"), std::string::npos);
}

// Unpacked (small, or a runtime weight) stride-1 convolutions without
// padding and with a clamp or no activation: conv_f32's direct path ahead
// of the loops (which run when it declines), no scratch; strided ones and
// other activations keep the loops alone.
TEST(ConvKernelTest, UnpaddedStrideOneNodesTryTheDirectPathFirst) {
  OpTest t = Build({{1, 6, 14, 14}, {16, 6, 5, 5}, true, {{"mlf.activation", std::string("Relu")}}});
  ASSERT_TRUE(t.Infer().ok());
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kernels, (std::set<std::string>{"conv_f32"}));
  EXPECT_NE(f->definition.find("static const mlfk_conv2d_f32_valid_shape shape = {1, 6, 14, 14, 16, 5, 5};"),
            std::string::npos)
      << f->definition;
  const size_t call = f->definition.find(
      "if (mlfk_conv2d_f32_valid_exec(ex, &shape, in0, in1, in2, out0, 0.0f, HUGE_VALF)) return;");
  ASSERT_NE(call, std::string::npos);
  EXPECT_NE(f->definition.find("for (int n = 0; n < 1; ++n) {", call), std::string::npos) << f->definition;
  EXPECT_FALSE(f->needs_scratch);
  for (const Attrs& attrs : {Attrs{{"strides", Ints{2, 2}}},
                             Attrs{{"mlf.activation", std::string("LeakyRelu")}, {"mlf.activation.alpha", 0.1}}}) {
    OpTest other = Build({{1, 6, 14, 14}, {16, 6, 5, 5}, true, attrs});
    ASSERT_TRUE(other.Infer().ok());
    auto g = emit::EmitNodeFunction(other.graph(), 0);
    ASSERT_TRUE(g.ok());
    EXPECT_TRUE(g->kernels.empty());
  }
}

class ConvKernelGeneratedTest : public ::testing::TestWithParam<Case> {};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "X" << FormatShape(c.x) << " W" << FormatShape(c.w) << (c.bias ? " +B" : "");
  for (const auto& [k, v] : c.attrs) *os << " " << k;
}

// The reference runs on the graph before packing, the generated C after.
// The reference sums in float in another order: with K up to 2304 random
// terms, an absolute 1e-4 covers both roundings.
TEST_P(ConvKernelGeneratedTest, MatchesEvaluate) {
  OpTest t = Build(GetParam());
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, GetParam().x, 23)};
  auto want = t.Evaluate(in);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto packed = passes::PackWeights(t.graph());
  ASSERT_TRUE(packed.ok());
  ASSERT_EQ(*packed, 1);
  auto got = t.RunGenerated(in);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  Status close = AllClose(*got, *want, 1e-4, 1e-4);
  EXPECT_TRUE(close.ok()) << close.ToString();
  const Status cross = CrossCompile(t);
  EXPECT_TRUE(cross.ok()) << cross.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Conv, ConvKernelGeneratedTest,
    ::testing::Values(
        // 3x3 pad 1 + bias + Relu (the clamp in the kernel); 900 pixels: 4 chunks.
        Case{{1, 32, 30, 30}, {40, 32, 3, 3}, true,
             {{"pads", Ints{1, 1, 1, 1}}, {"mlf.activation", std::string("Relu")}}},
        // 1x1 direct, batch 2, output channels not a multiple of 8, Clip.
        Case{{2, 64, 20, 20}, {30, 64, 1, 1}, true,
             {{"mlf.activation", std::string("Clip")}, {"mlf.activation.min", 0.0},
              {"mlf.activation.max", 0.5}}},
        // 7x7 stride 2 pad 3 (ResNet's stem), no bias.
        Case{{1, 3, 64, 64}, {16, 3, 7, 7}, false, {{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}},
        // 1x1 stride 2 (im2col), HardSwish after the kernel.
        Case{{1, 64, 40, 40}, {64, 64, 1, 1}, true,
             {{"strides", Ints{2, 2}}, {"mlf.activation", std::string("HardSwish")}}},
        // Asymmetric padding, dilation, rectangular kernel; K = 640 spans K blocks.
        Case{{1, 64, 17, 19}, {24, 64, 2, 5}, true,
             {{"pads", Ints{0, 2, 1, 1}}, {"dilations", Ints{2, 1}}}},
        // 3x3 on 7x7 with many channels (ResNet's last stage, smaller).
        Case{{1, 256, 7, 7}, {128, 256, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}}}));

// The direct path for small unpadded stride-1 convolutions (LeNet-5's two,
// batch 2 with Clip, no bias): nothing packed, no scratch. Its sums are the
// direct loops' in their order (bit for bit in conv_f32_test.c); here
// against the reference evaluator.
class ValidConvGeneratedTest : public ::testing::TestWithParam<Case> {};

TEST_P(ValidConvGeneratedTest, MatchesEvaluate) {
  OpTest t = Build(GetParam());
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, GetParam().x, 26)};
  auto want = t.Evaluate(in);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto packed = passes::PackWeights(t.graph());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 0);
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kernels, (std::set<std::string>{"conv_f32"}));
  EXPECT_FALSE(f->needs_scratch);
  auto got = t.RunGenerated(in);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  Status close = AllClose(*got, *want, 1e-5, 1e-5);
  EXPECT_TRUE(close.ok()) << close.ToString();
  const Status cross = CrossCompile(t);
  EXPECT_TRUE(cross.ok()) << cross.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Valid, ValidConvGeneratedTest,
    ::testing::Values(
        Case{{1, 1, 32, 32}, {6, 1, 5, 5}, true, {{"mlf.activation", std::string("Relu")}}},
        Case{{1, 6, 14, 14}, {16, 6, 5, 5}, true, {{"mlf.activation", std::string("Relu")}}},
        Case{{2, 3, 9, 40}, {11, 3, 2, 3}, true,
             {{"mlf.activation", std::string("Clip")}, {"mlf.activation.min", 0.0},
              {"mlf.activation.max", 0.5}}},
        Case{{1, 4, 7, 7}, {9, 4, 3, 3}}));

// Depthwise convolutions call depthwise_f32 with the weight as exported
// (constant or not, any size): nothing is packed.
class DepthwiseKernelGeneratedTest : public ::testing::TestWithParam<Case> {};

TEST_P(DepthwiseKernelGeneratedTest, MatchesEvaluate) {
  OpTest t = Build(GetParam());
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, GetParam().x, 24)};
  auto want = t.Evaluate(in);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  auto packed = passes::PackWeights(t.graph());
  ASSERT_TRUE(packed.ok());
  EXPECT_EQ(*packed, 0);
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kernels, (std::set<std::string>{"depthwise_f32"}));
  EXPECT_FALSE(f->needs_scratch);
  auto got = t.RunGenerated(in);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  Status close = AllClose(*got, *want, 1e-5, 1e-5);
  EXPECT_TRUE(close.ok()) << close.ToString();
  const Status cross = CrossCompile(t);
  EXPECT_TRUE(cross.ok()) << cross.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Depthwise, DepthwiseKernelGeneratedTest,
    ::testing::Values(
        // MobileNetV2's: 3x3 pad 1 + ReLU6 (Clip 0..6), stride 1 and 2.
        Case{{1, 24, 19, 21}, {24, 1, 3, 3}, true,
             {{"group", int64_t{24}}, {"pads", Ints{1, 1, 1, 1}}, {"mlf.activation", std::string("Clip")},
              {"mlf.activation.min", 0.0}, {"mlf.activation.max", 6.0}}},
        Case{{2, 8, 16, 17}, {8, 1, 3, 3}, false,
             {{"group", int64_t{8}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}},
        // 5x5 dilated, asymmetric padding, LeakyRelu after the kernel.
        Case{{1, 4, 12, 13}, {4, 1, 5, 5}, true,
             {{"group", int64_t{4}}, {"pads", Ints{2, 0, 1, 3}}, {"dilations", Ints{2, 2}},
              {"mlf.activation", std::string("LeakyRelu")}, {"mlf.activation.alpha", 0.1}}}));

// A Conv with a fused residual Add (kResidualAttr, input 3): the kernel adds
// the residual to the finished sum and then clamps, as Add then Relu did.
OpTest BuildResidual(const Ints& x, const Ints& w, bool bias, const Ints& r, Attrs attrs) {
  OpTest t("Conv");
  t.Input("x", DType::kFloat32, x);
  t.Constant("w", RandomTensor(DType::kFloat32, w, 21));
  if (bias) {
    t.Constant("b", RandomTensor(DType::kFloat32, {w[0]}, 22));
  } else {
    t.OmittedInput();
  }
  t.Input("r", DType::kFloat32, r);
  t.Output("y");
  t.Attr(kResidualAttr, int64_t{1});
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  return t;
}

TEST(ConvKernelTest, ResidualIsAddedBeforeTheClampInEvaluateAndGeneratedCode) {
  // 3x3 pad 1 with bias and Relu (pixels cut into chunks), and 1x1 direct
  // without bias or activation.
  for (bool three : {true, false}) {
    const Ints x = three ? Ints{1, 32, 30, 30} : Ints{2, 64, 20, 20};
    const Ints w = three ? Ints{40, 32, 3, 3} : Ints{30, 64, 1, 1};
    const Ints y = three ? Ints{1, 40, 30, 30} : Ints{2, 30, 20, 20};
    Attrs attrs;
    if (three) attrs = {{"pads", Ints{1, 1, 1, 1}}, {"mlf.activation", std::string("Relu")}};
    OpTest t = BuildResidual(x, w, three, y, attrs);
    ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
    const std::vector<ir::HostTensor> in = {RandomTensor(DType::kFloat32, x, 23),
                                            RandomTensor(DType::kFloat32, y, 25)};
    auto want = t.Evaluate(in);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    // The reference itself: the plain Conv (no activation), plus r, then Relu.
    Attrs plain_attrs;
    if (three) plain_attrs = {{"pads", Ints{1, 1, 1, 1}}};
    OpTest plain = Build({x, w, three, plain_attrs});
    ASSERT_TRUE(plain.Infer().ok());
    auto conv = plain.Evaluate({in[0]});
    ASSERT_TRUE(conv.ok());
    for (uint64_t i = 0; i < (*want)[0].element_count(); ++i) {
      const float sum = (*conv)[0].data<float>()[i] + in[1].data<float>()[i];
      ASSERT_EQ((*want)[0].data<float>()[i], three ? (sum > 0.0f ? sum : 0.0f) : sum) << i;
    }
    ASSERT_EQ(*passes::PackWeights(t.graph()), 1);
    auto got = t.RunGenerated(in);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    Status close = AllClose(*got, *want, 1e-4, 1e-4);
    EXPECT_TRUE(close.ok()) << close.ToString();
    const Status cross = CrossCompile(t);
    EXPECT_TRUE(cross.ok()) << cross.ToString();
  }
}

TEST(ConvKernelTest, ResidualOfAnotherShapeOrTypeIsRefused) {
  OpTest t = BuildResidual({1, 8, 8, 8}, {4, 8, 3, 3}, false, {1, 4, 7, 7}, {});
  EXPECT_EQ(t.Infer().message(),
            "node 'n0' (Conv): the fused Add's residual is float32 [1, 4, 7, 7], expected float32 "
            "[1, 4, 6, 6] like Y");
  OpTest missing("Conv");
  missing.Input("x", DType::kFloat32, {1, 8, 8, 8});
  missing.Constant("w", RandomTensor(DType::kFloat32, {4, 8, 3, 3}, 21));
  missing.Output("y");
  missing.Attr(kResidualAttr, int64_t{1});
  EXPECT_EQ(missing.Infer().message(), "node 'n0' (Conv): the fused Add's residual input is missing");
}

TEST(ConvKernelTest, GroupedButNotDepthwiseStaysDirect) {
  OpTest t = Build({{1, 8, 10, 10}, {8, 2, 3, 3}, false, {{"group", int64_t{4}}}});
  ASSERT_TRUE(t.Infer().ok());
  auto f = emit::EmitNodeFunction(t.graph(), 0);
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->kernels.empty());
}

}  // namespace
}  // namespace mlf::ops
