#include <gtest/gtest.h>

#include <utility>

#include "codegen/ops/op.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using Attrs = std::vector<std::pair<std::string, ir::AttrValue>>;
using Ints = std::vector<int64_t>;

struct Node {
  std::string op;
  Ints x, w;
  bool bias = false;
  Attrs attrs = {};
  DType dtype = DType::kFloat32;
};

// A one-node graph with X as input, W (and B) as constants.
OpTest Build(const Node& c, int* y) {
  OpTest t(c.op);
  t.Input("x", c.dtype, c.x);
  t.Constant("w", RandomTensor(c.dtype, c.w, 11));
  if (c.bias) {
    const int64_t m = c.op == "Conv" ? c.w[0] : c.w[1] * 1;
    int64_t group = 1;
    for (const auto& [k, v] : c.attrs) {
      if (k == "group") group = std::get<int64_t>(v);
    }
    t.Constant("b", RandomTensor(c.dtype, {c.op == "Conv" ? m : m * group}, 12));
  }
  *y = t.Output("y");
  for (const auto& [k, v] : c.attrs) t.Attr(k, v);
  return t;
}

Result<Ints> Shape(const Node& c) {
  int y = 0;
  OpTest t = Build(c, &y);
  MLF_RETURN_IF_ERROR(t.Infer());
  return t.graph().value(y).shape;
}

std::string Error(const Node& c) {
  auto r = Shape(c);
  return r.ok() ? "ok " + FormatShape(*r) : r.status().message();
}

// ---------------------------------------------------------------- Conv infer

TEST(ConvTest, InfersOutputShapes) {
  const Ints x = {1, 3, 7, 7}, w = {8, 3, 3, 3};
  EXPECT_EQ(*Shape({"Conv", x, w}), (Ints{1, 8, 5, 5}));
  EXPECT_EQ(*Shape({"Conv", x, w, true, {{"pads", Ints{1, 1, 1, 1}}}}), (Ints{1, 8, 7, 7}));
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}}),
            (Ints{1, 8, 4, 4}));
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"dilations", Ints{2, 2}}}}), (Ints{1, 8, 3, 3}));
  // Asymmetric pads: H 7 + 0 + 2 - 3 + 1 = 7, W 7 + 1 + 0 - 3 + 1 = 6; stride 2 -> 4, 3.
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"pads", Ints{0, 1, 2, 0}}, {"strides", Ints{2, 2}}}}),
            (Ints{1, 8, 4, 3}));
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"auto_pad", std::string("SAME_UPPER")}, {"strides", Ints{2, 2}}}}),
            (Ints{1, 8, 4, 4}));
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"auto_pad", std::string("SAME_LOWER")}}}),
            (Ints{1, 8, 7, 7}));
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"auto_pad", std::string("VALID")}, {"strides", Ints{2, 2}}}}),
            (Ints{1, 8, 3, 3}));
  EXPECT_EQ(*Shape({"Conv", {1, 4, 5, 5}, {6, 2, 3, 3}, true, {{"group", int64_t{2}}}}),
            (Ints{1, 6, 3, 3}));
  EXPECT_EQ(*Shape({"Conv", {2, 4, 5, 5}, {8, 1, 3, 3}, false, {{"group", int64_t{4}}}}),
            (Ints{2, 8, 3, 3}));
  EXPECT_EQ(*Shape({"Conv", {1, 2, 10}, {4, 2, 3}, false, {{"strides", Ints{3}}}}), (Ints{1, 4, 3}));
  EXPECT_EQ(*Shape({"Conv", {1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, false,
                    {{"pads", Ints{1, 1, 1, 1, 1, 1}}}}),
            (Ints{1, 3, 5, 6, 7}));
  EXPECT_EQ(*Shape({"Conv", x, w, false, {{"kernel_shape", Ints{3, 3}}}}), (Ints{1, 8, 5, 5}));
}

TEST(ConvTest, RefusesBadNodes) {
  const Ints x = {1, 3, 7, 7}, w = {8, 3, 3, 3};
  EXPECT_EQ(Error({"Conv", x, {8, 2, 3, 3}}),
            "node 'n0' (Conv): weight W [8, 2, 3, 3] must have 3 input channels per group (X has 3 "
            "channels, group 1)");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"group", int64_t{2}}}}),
            "node 'n0' (Conv): input channels 3 are not divisible by group 2");
  EXPECT_EQ(Error({"Conv", {1, 4, 7, 7}, {6, 1, 3, 3}, false, {{"group", int64_t{4}}}}),
            "node 'n0' (Conv): output channels 6 are not a positive multiple of group 4");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"kernel_shape", Ints{2, 2}}}}),
            "node 'n0' (Conv): kernel_shape [2, 2] does not match the weight's spatial shape [3, 3]");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"strides", Ints{1}}}}),
            "node 'n0' (Conv): attribute 'strides' has 1 values, expected 2 (one per spatial axis)");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"strides", Ints{1, 0}}}}),
            "node 'n0' (Conv): attribute 'strides' must be positive, got [1, 0]");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"pads", Ints{1, 1}}}}),
            "node 'n0' (Conv): attribute 'pads' has 2 values, expected 4 (begin and end per "
            "spatial axis)");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"pads", Ints{1, -1, 0, 0}}}}),
            "node 'n0' (Conv): attribute 'pads' must be non-negative, got [1, -1, 0, 0]");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"auto_pad", std::string("SAME")}}}),
            "node 'n0' (Conv): auto_pad 'SAME' is not supported (expected NOTSET, SAME_UPPER, "
            "SAME_LOWER or VALID)");
  EXPECT_EQ(Error({"Conv", {1, 3, 2, 7}, w}),
            "node 'n0' (Conv): spatial axis 0 would have output size 0 (input 2, kernel extent 3, "
            "stride 1, pads 0+0)");
  EXPECT_EQ(Error({"Conv", {1, 3}, {8, 3}}),
            "node 'n0' (Conv): input X [1, 3] must have rank >= 3 (N, C and at least one spatial axis)");
  EXPECT_EQ(Error({"Conv", x, {8, 3, 3}}),
            "node 'n0' (Conv): weight W [8, 3, 3] must have the rank of X [1, 3, 7, 7]");
  EXPECT_EQ(Error({"Conv", x, w, false, {}, DType::kInt32}),
            "node 'n0' (Conv): X has dtype int32; supported: float32, float64");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"mlf.activation", std::string("Relu")}}, DType::kFloat64}),
            "node 'n0' (Conv): fused activation 'Relu' needs a float32 output, got float64");
  EXPECT_EQ(Error({"Conv", x, w, false, {{"mlf.activation", std::string("Gelu")}}}),
            "node 'n0' (Conv): fused activation 'Gelu' is not supported");

  OpTest t("Conv");
  t.Input("x", DType::kFloat32, x);
  t.Input("w", DType::kFloat32, w);
  t.Input("b", DType::kFloat32, {4});
  t.Output("y");
  EXPECT_EQ(t.Infer().message(), "node 'n0' (Conv): bias B [4] must have shape [8]");
  OpTest u("Conv");
  u.Input("x", DType::kFloat32, x);
  u.Output("y");
  EXPECT_EQ(u.Infer().message(), "node 'n0' (Conv): expects 2 to 3 inputs, got 1");
}

// ---------------------------------------------------------------- Conv evaluate

TEST(ConvTest, EvaluatesByHand) {
  // ONNX's basic example: 5x5 ramp, 3x3 ones, with and without padding.
  std::vector<double> ramp(25);
  for (int i = 0; i < 25; ++i) ramp[i] = i;
  for (int pad = 0; pad < 2; ++pad) {
    OpTest t("Conv");
    t.Input("x", DType::kFloat32, {1, 1, 5, 5});
    t.Constant("w", MakeTensor(DType::kFloat32, {1, 1, 3, 3}, std::vector<double>(9, 1.0)));
    t.Output("y");
    t.Attr("pads", Ints(4, pad));
    ASSERT_TRUE(t.Infer().ok());
    auto y = t.Evaluate({MakeTensor(DType::kFloat32, {1, 1, 5, 5}, ramp)});
    ASSERT_TRUE(y.ok());
    const ir::HostTensor want =
        pad ? MakeTensor(DType::kFloat32, {1, 1, 5, 5},
                         {12, 21, 27, 33, 24, 33, 54, 63, 72, 51, 63, 99, 108, 117, 81,
                          93, 144, 153, 162, 111, 72, 111, 117, 123, 84})
            : MakeTensor(DType::kFloat32, {1, 1, 3, 3}, {54, 63, 72, 99, 108, 117, 144, 153, 162});
    EXPECT_TRUE(AllClose(*y, {want}, 0, 0).ok());
  }
}

TEST(ConvTest, EvaluatesGroupsBiasAndActivationByHand) {
  // Two groups of one channel: y0 = 2 * x0 + 1, y1 = -x1 - 1, then Relu.
  OpTest t("Conv");
  t.Input("x", DType::kFloat32, {1, 2, 1, 2});
  t.Constant("w", MakeTensor(DType::kFloat32, {2, 1, 1, 1}, {2, -1}));
  t.Constant("b", MakeTensor(DType::kFloat32, {2}, {1, -1}));
  t.Output("y");
  t.Attr("group", int64_t{2});
  t.Attr("mlf.activation", std::string("Relu"));
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {1, 2, 1, 2}, {1, -3, -2, 4})});
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kFloat32, {1, 2, 1, 2}, {3, 0, 1, 0})}, 0, 0).ok());
}

// ---------------------------------------------------------------- ConvTranspose

TEST(ConvTransposeTest, InfersOutputShapes) {
  const Ints x = {1, 1, 3, 3}, w = {1, 2, 3, 3};
  EXPECT_EQ(*Shape({"ConvTranspose", x, w}), (Ints{1, 2, 5, 5}));
  EXPECT_EQ(*Shape({"ConvTranspose", x, w, false,
                    {{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}}}),
            (Ints{1, 2, 10, 8}));
  EXPECT_EQ(*Shape({"ConvTranspose", x, w, false,
                    {{"strides", Ints{3, 2}}, {"output_shape", Ints{10, 8}}}}),
            (Ints{1, 2, 10, 8}));
  EXPECT_EQ(*Shape({"ConvTranspose", x, w, false,
                    {{"strides", Ints{3, 2}}, {"output_shape", Ints{1, 2, 10, 8}}}}),
            (Ints{1, 2, 10, 8}));
  EXPECT_EQ(*Shape({"ConvTranspose", x, w, false,
                    {{"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}}}),
            (Ints{1, 2, 6, 6}));
  EXPECT_EQ(*Shape({"ConvTranspose", x, w, false,
                    {{"strides", Ints{3, 2}}, {"pads", Ints{1, 2, 1, 2}}}}),
            (Ints{1, 2, 7, 3}));
  EXPECT_EQ(*Shape({"ConvTranspose", x, {1, 1, 2, 2}, false, {{"dilations", Ints{2, 2}}}}),
            (Ints{1, 1, 5, 5}));
  EXPECT_EQ(*Shape({"ConvTranspose", {1, 4, 3, 3}, {4, 3, 3, 3}, true, {{"group", int64_t{2}}}}),
            (Ints{1, 6, 5, 5}));
  EXPECT_EQ(*Shape({"ConvTranspose", {1, 2, 3}, {2, 2, 2}, false,
                    {{"strides", Ints{2}}, {"auto_pad", std::string("VALID")}}}),
            (Ints{1, 2, 6}));
}

TEST(ConvTransposeTest, RefusesBadNodes) {
  const Ints x = {1, 1, 3, 3}, w = {1, 2, 3, 3};
  EXPECT_EQ(Error({"ConvTranspose", x, {2, 2, 3, 3}}),
            "node 'n0' (ConvTranspose): weight W [2, 2, 3, 3] must have 1 input channels (X has 1)");
  EXPECT_EQ(Error({"ConvTranspose", x, w, false, {{"output_shape", Ints{10}}}}),
            "node 'n0' (ConvTranspose): attribute 'output_shape' has 1 values, expected 2 (one "
            "per spatial axis) or 4 (the full output shape)");
  EXPECT_EQ(Error({"ConvTranspose", x, w, false, {{"output_padding", Ints{-1, 0}}}}),
            "node 'n0' (ConvTranspose): attribute 'output_padding' must be non-negative, got [-1, 0]");
  EXPECT_EQ(Error({"ConvTranspose", x, w, false, {{"pads", Ints{3, 0, 3, 0}}}}),
            "node 'n0' (ConvTranspose): spatial axis 0 would have output size -1 (input 3, kernel "
            "extent 3, stride 1, pads 3+3)");
  EXPECT_EQ(Error({"ConvTranspose", x, w, false, {{"mlf.activation", std::string("Relu")}}}),
            "node 'n0' (ConvTranspose): ConvTranspose does not fuse activations");
}

TEST(ConvTransposeTest, EvaluatesByHand) {
  // ONNX's example: 3x3 ramp, two 3x3 kernels of ones.
  OpTest t("ConvTranspose");
  t.Input("x", DType::kFloat32, {1, 1, 3, 3});
  t.Constant("w", MakeTensor(DType::kFloat32, {1, 2, 3, 3}, std::vector<double>(18, 1.0)));
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_TRUE(y.ok());
  std::vector<double> plane = {0, 1, 3, 3, 2, 3, 8, 15, 12, 7, 9, 21, 36, 27, 15,
                               9, 20, 33, 24, 13, 6, 13, 21, 15, 8};
  std::vector<double> both = plane;
  both.insert(both.end(), plane.begin(), plane.end());
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kFloat32, {1, 2, 5, 5}, both)}, 0, 0).ok());
}

TEST(ConvTransposeTest, EvaluatesStridesAndOutputShapeByHand) {
  // 1-D, stride 2: every input spreads over two output columns.
  OpTest t("ConvTranspose");
  t.Input("x", DType::kFloat32, {1, 1, 3});
  t.Constant("w", MakeTensor(DType::kFloat32, {1, 1, 2}, {1, 10}));
  t.Constant("b", MakeTensor(DType::kFloat32, {1}, {0.5}));
  t.Output("y");
  t.Attr("strides", Ints{2});
  // output_shape one longer than natural: total padding -1 goes to the end.
  t.Attr("output_shape", Ints{7});
  ASSERT_TRUE(t.Infer().ok());
  auto y = t.Evaluate({MakeTensor(DType::kFloat32, {1, 1, 3}, {1, 2, 3})});
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(AllClose(*y, {MakeTensor(DType::kFloat32, {1, 1, 7},
                                       {1.5, 10.5, 2.5, 20.5, 3.5, 30.5, 0.5})},
                       0, 0)
                  .ok());
}

// ---------------------------------------------------------------- generated C

class ConvGeneratedTest : public ::testing::TestWithParam<Node> {};

void PrintTo(const Node& c, std::ostream* os) {
  *os << c.op << " X" << FormatShape(c.x) << " W" << FormatShape(c.w) << (c.bias ? " +B" : "");
  for (const auto& [k, v] : c.attrs) {
    *os << " " << k << "=";
    if (auto* i = std::get_if<int64_t>(&v)) *os << *i;
    if (auto* s = std::get_if<std::string>(&v)) *os << *s;
    if (auto* l = std::get_if<Ints>(&v)) *os << FormatShape(*l);
    if (auto* d = std::get_if<double>(&v)) *os << *d;
  }
  *os << " " << DTypeName(c.dtype);
}

TEST_P(ConvGeneratedTest, MatchesEvaluate) {
  int y = 0;
  OpTest t = Build(GetParam(), &y);
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  std::vector<ir::HostTensor> in = {RandomTensor(GetParam().dtype, GetParam().x, 13)};
  Status match = GeneratedMatchesReference(t, in, 1e-5, 1e-5);
  EXPECT_TRUE(match.ok()) << match.ToString();
}

const std::string kSameUpper = "SAME_UPPER", kSameLower = "SAME_LOWER", kValid = "VALID";

INSTANTIATE_TEST_SUITE_P(
    Conv, ConvGeneratedTest,
    ::testing::Values(
        Node{"Conv", {2, 3, 10}, {4, 3, 3}, true, {{"pads", Ints{1, 2}}}},
        Node{"Conv", {1, 2, 17}, {3, 2, 3}, false,
             {{"strides", Ints{2}}, {"dilations", Ints{2}}, {"auto_pad", kSameUpper}}},
        Node{"Conv", {1, 3, 7, 7}, {8, 3, 3, 3}, true,
             {{"pads", Ints{1, 1, 1, 1}}, {"mlf.activation", std::string("Relu")}}},
        Node{"Conv", {1, 3, 9, 10}, {5, 3, 3, 3}, false,
             {{"pads", Ints{0, 1, 2, 0}}, {"strides", Ints{2, 2}}}},
        Node{"Conv", {1, 2, 9, 11}, {5, 2, 3, 3}, true,
             {{"pads", Ints{2, 2, 2, 2}}, {"dilations", Ints{2, 2}}}},
        Node{"Conv", {1, 2, 9, 8}, {3, 2, 4, 2}, false,
             {{"strides", Ints{2, 2}}, {"auto_pad", kSameLower}}},
        Node{"Conv", {1, 2, 9, 8}, {3, 2, 4, 2}, false,
             {{"strides", Ints{2, 3}}, {"auto_pad", kSameUpper}}},
        Node{"Conv", {1, 3, 9, 8}, {2, 3, 5, 5}, false, {{"auto_pad", kValid}}},
        Node{"Conv", {1, 4, 6, 6}, {6, 2, 3, 3}, true,
             {{"group", int64_t{2}}, {"pads", Ints{1, 1, 1, 1}}}},
        Node{"Conv", {1, 8, 10, 10}, {8, 1, 3, 3}, true,
             {{"group", int64_t{8}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}},
        Node{"Conv", {1, 3, 8, 8}, {6, 1, 3, 3}, false, {{"group", int64_t{3}}}},
        Node{"Conv", {2, 16, 5, 7}, {20, 16, 1, 1}, true,
             {{"mlf.activation", std::string("Clip")}, {"mlf.activation.min", 0.0},
              {"mlf.activation.max", 0.5}}},
        Node{"Conv", {1, 4, 7, 7}, {5, 4, 1, 1}, false, {{"strides", Ints{2, 2}}}},
        Node{"Conv", {1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1, 1, 1}}}},
        Node{"Conv", {1, 2, 6, 7, 5}, {2, 2, 2, 3, 2}, false,
             {{"strides", Ints{2, 1, 2}}, {"dilations", Ints{1, 2, 1}}, {"auto_pad", kSameUpper}}},
        Node{"Conv", {1, 1, 3, 3}, {2, 1, 5, 5}, false, {{"pads", Ints{2, 2, 2, 2}}}},
        Node{"Conv", {1, 2, 3, 40}, {5, 2, 3, 3}, true,
             {{"pads", Ints{1, 1, 1, 1}}, {"mlf.activation", std::string("HardSwish")}}},
        Node{"Conv", {1, 2, 9, 9}, {3, 2, 2, 2}, false,
             {{"strides", Ints{3, 3}}, {"mlf.activation", std::string("LeakyRelu")},
              {"mlf.activation.alpha", 0.1}}},
        Node{"Conv", {2, 3, 6, 5}, {4, 3, 3, 2}, true, {{"pads", Ints{1, 0, 1, 1}}}, DType::kFloat64}));

INSTANTIATE_TEST_SUITE_P(
    ConvTranspose, ConvGeneratedTest,
    ::testing::Values(
        Node{"ConvTranspose", {1, 1, 3, 3}, {1, 2, 3, 3}},
        Node{"ConvTranspose", {1, 2, 3, 4}, {2, 2, 3, 3}, true,
             {{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}}},
        Node{"ConvTranspose", {1, 1, 3, 3}, {1, 2, 3, 3}, false,
             {{"strides", Ints{3, 2}}, {"output_shape", Ints{10, 8}}}},
        Node{"ConvTranspose", {1, 2, 3, 3}, {2, 1, 3, 3}, false,
             {{"strides", Ints{2, 2}}, {"auto_pad", kSameUpper}}},
        Node{"ConvTranspose", {1, 2, 3, 4}, {2, 1, 4, 3}, false,
             {{"strides", Ints{2, 2}}, {"auto_pad", kSameLower}}},
        Node{"ConvTranspose", {1, 2, 4, 4}, {2, 3, 3, 3}, true,
             {{"strides", Ints{2, 2}}, {"pads", Ints{1, 2, 0, 1}}}},
        Node{"ConvTranspose", {1, 2, 4, 3}, {2, 2, 2, 3}, false, {{"dilations", Ints{2, 3}}}},
        Node{"ConvTranspose", {1, 4, 3, 3}, {4, 3, 3, 3}, true, {{"group", int64_t{2}}}},
        Node{"ConvTranspose", {2, 3, 5}, {3, 2, 4}, true, {{"strides", Ints{3}}}},
        Node{"ConvTranspose", {1, 2, 3, 4, 3}, {2, 2, 3, 2, 3}, false,
             {{"strides", Ints{2, 1, 2}}, {"pads", Ints{1, 0, 1, 0, 1, 1}}}},
        Node{"ConvTranspose", {1, 1, 4, 4}, {1, 1, 2, 2}, false, {{"strides", Ints{3, 3}}}},
        Node{"ConvTranspose", {1, 2, 3, 3}, {2, 2, 3, 3}, true,
             {{"strides", Ints{2, 2}}, {"output_padding", Ints{1, 0}}}, DType::kFloat64}));

TEST(ConvTest, ReportsMacs) {
  int y = 0;
  OpTest t = Build({"Conv", {1, 4, 6, 6}, {6, 2, 3, 3}, false, {{"group", int64_t{2}}}}, &y);
  ASSERT_TRUE(t.Infer().ok());
  EXPECT_EQ(FindOp("Conv")->macs(t.node(), t.graph()), 6u * 4 * 4 * 2 * 9);
  EXPECT_TRUE(FindOp("Conv")->fuses_activation);
  OpTest u = Build({"ConvTranspose", {1, 1, 3, 3}, {1, 2, 3, 3}}, &y);
  ASSERT_TRUE(u.Infer().ok());
  EXPECT_EQ(FindOp("ConvTranspose")->macs(u.node(), u.graph()), 9u * 2 * 9);
}

}  // namespace
}  // namespace mlf::ops::testing
