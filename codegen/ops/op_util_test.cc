// The shared operator helpers: exact error messages of the checks (every
// operator's errors are made of them), the InputInfo views and the C text
// pieces that many emitters build on.
#include "codegen/ops/op_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlf::ops {
namespace {

// A node "n" (Op) with `inputs` value ids (kNoValue = omitted) and `outputs`.
ir::Node MakeNode(std::vector<int> inputs, std::vector<int> outputs) {
  ir::Node node;
  node.name = "n";
  node.op = "Op";
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

TEST(OpUtil, NodeErrorsNameTheNodeAndCarryTheirCode) {
  const ir::Node node = MakeNode({0}, {1});
  const Status invalid = NodeError(node, "bad");
  EXPECT_EQ(invalid.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(invalid.message(), "node 'n' (Op): bad");
  const Status unsupported = NodeUnsupported(node, "not yet");
  EXPECT_EQ(unsupported.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(unsupported.message(), "node 'n' (Op): not yet");
}

TEST(OpUtil, CheckArity) {
  EXPECT_TRUE(CheckArity(MakeNode({0, 1}, {2}), 2, 2).ok());
  EXPECT_TRUE(CheckArity(MakeNode({0, ir::kNoValue, 1}, {2}), 1, 3).ok());  // omitted optional input
  EXPECT_TRUE(CheckArity(MakeNode({0, 1, 2, 3, 4}, {5}), 1, kNoMax).ok());
  EXPECT_TRUE(CheckArity(MakeNode({0}, {1, 2, 3}), 1, 1, 1, kNoMax).ok());

  EXPECT_EQ(CheckArity(MakeNode({0, 1}, {2}), 1, 1).message(), "node 'n' (Op): expects 1 input, got 2");
  EXPECT_EQ(CheckArity(MakeNode({0}, {1}), 2, 2).message(), "node 'n' (Op): expects 2 inputs, got 1");
  EXPECT_EQ(CheckArity(MakeNode({}, {1}), 1, 2).message(), "node 'n' (Op): expects 1 to 2 inputs, got 0");
  EXPECT_EQ(CheckArity(MakeNode({}, {1}), 1, kNoMax).message(),
            "node 'n' (Op): expects at least 1 input, got 0");
  EXPECT_EQ(CheckArity(MakeNode({0}, {1, 2}), 1, 1).message(), "node 'n' (Op): expects 1 output, got 2");
  EXPECT_EQ(CheckArity(MakeNode({0}, {}), 1, 1, 1, kNoMax).message(),
            "node 'n' (Op): expects at least 1 output, got 0");
  EXPECT_EQ(CheckArity(MakeNode({0}, {1, ir::kNoValue}), 1, 1, 1, 2).message(),
            "node 'n' (Op): output 1 is omitted");
  EXPECT_EQ(CheckArity(MakeNode({ir::kNoValue, 1}, {2}), 1, 2).message(), "node 'n' (Op): input 0 is required");
  EXPECT_EQ(CheckArity(MakeNode({0}, {1}), 1, 1).code(), StatusCode::kOk);
  EXPECT_EQ(CheckArity(MakeNode({0, 1}, {2}), 1, 1).code(), StatusCode::kInvalidArgument);
}

TEST(OpUtil, CheckPresentAndRequiredInput) {
  const ir::Node node = MakeNode({0, ir::kNoValue}, {1});
  EXPECT_TRUE(CheckPresent(node, 0, "X").ok());
  EXPECT_EQ(CheckPresent(node, 1, "B").message(), "node 'n' (Op): input 1 (B) is required");
  EXPECT_EQ(CheckPresent(node, 2, "C").message(), "node 'n' (Op): input 2 (C) is required");

  std::vector<InputInfo> in(2);
  in[0].present = true;
  EXPECT_TRUE(Has(in, 0));
  EXPECT_FALSE(Has(in, 1));
  EXPECT_FALSE(Has(in, 5));
  Result<const InputInfo*> first = RequiredInput(node, in, 0, "X");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, &in[0]);
  EXPECT_EQ(RequiredInput(node, in, 1, "B").status().message(), "node 'n' (Op): input 1 (B) is required");
}

TEST(OpUtil, ConstantInts) {
  const ir::Node node = MakeNode({0, 1}, {2});
  ir::HostTensor shape = ir::HostTensor::Zeros(DType::kInt32, {2});
  shape.data<int32_t>()[0] = 3;
  shape.data<int32_t>()[1] = -1;
  std::vector<InputInfo> in(2);
  in[1] = {true, DType::kInt32, {2}, &shape};
  Result<std::vector<int64_t>> ints = ConstantInts(node, in, 1, "shape");
  ASSERT_TRUE(ints.ok()) << ints.status().ToString();
  EXPECT_EQ(*ints, (std::vector<int64_t>{3, -1}));

  in[1].data = nullptr;
  EXPECT_EQ(ConstantInts(node, in, 1, "shape").status().message(),
            "node 'n' (Op): input 1 (shape) must be a constant");
  const ir::HostTensor floats = ir::HostTensor::Zeros(DType::kFloat32, {2});
  in[1] = {true, DType::kFloat32, {2}, &floats};
  EXPECT_EQ(ConstantInts(node, in, 1, "shape").status().message(),
            "node 'n' (Op): input 1 (shape) must be int64 or int32, got float32");
  const ir::HostTensor matrix = ir::HostTensor::Zeros(DType::kInt64, {1, 2});
  in[1] = {true, DType::kInt64, {1, 2}, &matrix};
  EXPECT_EQ(ConstantInts(node, in, 1, "shape").status().message(),
            "node 'n' (Op): input 1 (shape) must be 1-D, got shape [1, 2]");
  in[1].present = false;
  EXPECT_EQ(ConstantInts(node, in, 1, "shape").status().message(),
            "node 'n' (Op): input 1 (shape) is required");
}

TEST(OpUtil, CheckDType) {
  const ir::Node node = MakeNode({0}, {1});
  EXPECT_TRUE(CheckDType(node, DType::kFloat64, kFloatDTypes, "input X").ok());
  const Status s = CheckDType(node, DType::kInt8, kFloatDTypes, "input X");
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "node 'n' (Op): input X has dtype int8; supported: float32, float64");
}

TEST(OpUtil, NormalizeAxis) {
  const ir::Node node = MakeNode({0}, {1});
  // The normalised axis, or -1 when NormalizeAxis fails.
  auto axis = [&](int64_t a, size_t rank, bool inclusive) -> int64_t {
    Result<size_t> r = NormalizeAxis(node, a, rank, "axis", inclusive);
    return r.ok() ? static_cast<int64_t>(*r) : -1;
  };
  EXPECT_EQ(axis(-1, 3, false), 2);
  EXPECT_EQ(axis(0, 3, false), 0);
  EXPECT_EQ(axis(-3, 3, false), 0);
  EXPECT_EQ(axis(3, 3, true), 3);
  EXPECT_EQ(axis(-3, 3, true), 0);
  EXPECT_EQ(axis(0, 0, true), 0);
  EXPECT_EQ(NormalizeAxis(node, 3, 3, "axis").status().message(),
            "node 'n' (Op): axis 3 is out of range for rank 3 (expected -3 to 2)");
  EXPECT_EQ(NormalizeAxis(node, -4, 3, "perm entry").status().message(),
            "node 'n' (Op): perm entry -4 is out of range for rank 3 (expected -3 to 2)");
  EXPECT_EQ(NormalizeAxis(node, 4, 3, "axis", true).status().message(),
            "node 'n' (Op): axis 4 is out of range for rank 3 (expected -3 to 3)");
  EXPECT_EQ(NormalizeAxis(node, -4, 3, "axis", true).status().message(),
            "node 'n' (Op): axis -4 is out of range for rank 3 (expected -3 to 3)");
  EXPECT_EQ(NormalizeAxis(node, 0, 0, "axis").status().message(),
            "node 'n' (Op): axis 0 is out of range for a rank-0 input");
}

TEST(OpUtil, InputViewsAndSetOutput) {
  ir::Graph graph;
  const int x = graph.AddValue({"x", DType::kInt16, {2, 3}, std::nullopt});
  const int c = graph.AddConstant("c", ir::HostTensor::Zeros(DType::kInt64, {1}));
  const int y = graph.AddValue({"y", DType::kFloat32, {}, std::nullopt});
  const ir::Node node = MakeNode({x, ir::kNoValue, c}, {y});

  const std::vector<InputInfo> in = GraphInputs(node, graph);
  ASSERT_EQ(in.size(), 3u);
  EXPECT_TRUE(in[0].present);
  EXPECT_EQ(in[0].dtype, DType::kInt16);
  EXPECT_EQ(in[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(in[0].data, nullptr);
  EXPECT_FALSE(in[1].present);
  EXPECT_EQ(in[2].data, &*graph.value(c).constant);

  const ir::HostTensor t = ir::HostTensor::Zeros(DType::kUInt8, {4});
  const std::vector<InputInfo> tin = TensorInputs({&t, nullptr});
  ASSERT_EQ(tin.size(), 2u);
  EXPECT_TRUE(tin[0].present);
  EXPECT_EQ(tin[0].dtype, DType::kUInt8);
  EXPECT_EQ(tin[0].data, &t);
  EXPECT_FALSE(tin[1].present);

  SetOutput(node, graph, 0, DType::kBool, {5, 1});
  EXPECT_EQ(graph.value(y).dtype, DType::kBool);
  EXPECT_EQ(graph.value(y).shape, (std::vector<int64_t>{5, 1}));
}

TEST(OpUtil, ShapeArithmetic) {
  EXPECT_EQ(Elements({2, 3, 4}), 24u);
  EXPECT_EQ(Elements({}), 1u);
  EXPECT_EQ(Elements({2, 0}), 0u);
  EXPECT_EQ(Product({2, 3, 4}, 1, 3), 12);
  EXPECT_EQ(Product({2, 3, 4}, 1, 9), 12);
  EXPECT_EQ(Product({2, 3, 4}, 2, 2), 1);
  EXPECT_EQ(Strides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(Unravel(23, {2, 3, 4}), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Unravel(5, {2, 3, 4}), (std::vector<int64_t>{0, 1, 1}));
}

TEST(OpUtil, CText) {
  EXPECT_EQ(IndexExpr(0, {}), "0");
  EXPECT_EQ(IndexExpr(5, {{"i", 1}, {"j", -4}, {"k", 0}}), "5 + i - j * 4");
  EXPECT_EQ(IndexExpr(0, {{"j", -1}}), "0 - j");
  EXPECT_EQ(Times("i", 0), "0");
  EXPECT_EQ(Times("i", 1), "i");
  EXPECT_EQ(Times("i", 3), "i * 3");
  EXPECT_EQ(PlusConst("i * 3", 0), "i * 3");
  EXPECT_EQ(PlusConst("i * 3", 2), "i * 3 + 2");
  EXPECT_EQ(PlusConst("i * 3", -2), "i * 3 - 2");
  EXPECT_EQ(PlusConst("7", -2), "5");
  EXPECT_EQ(StaticTable("  ", "uint16_t", "t", {1, 2147483648}),
            "  static const uint16_t t[2] = {\n      1, 2147483648u\n  };\n");
  EXPECT_EQ(IndexType(65535), std::string("uint16_t"));
  EXPECT_EQ(IndexType(65536), std::string("uint32_t"));
  EXPECT_EQ(IndexType(int64_t{1} << 32), std::string("uint64_t"));
  EXPECT_EQ(WrapCType(DType::kInt16), std::string("uint32_t"));
  EXPECT_EQ(WrapCType(DType::kUInt64), std::string("uint64_t"));
  EXPECT_EQ(MathFn(DType::kFloat32, "exp"), "expf");
  EXPECT_EQ(MathFn(DType::kFloat64, "exp"), "exp");
  const int32_t int_min = INT32_MIN;
  EXPECT_EQ(ElementLiteral(DType::kInt32, &int_min), "(-2147483647 - 1)");
  const uint16_t half = 0x3c00;
  EXPECT_EQ(ElementLiteral(DType::kFloat16, &half), "0x3c00u");

  ir::Graph graph;
  const int a = graph.AddValue({"a", DType::kFloat32, {1}, std::nullopt});
  const int b = graph.AddValue({"b", DType::kFloat32, {1}, std::nullopt});
  const int y = graph.AddValue({"y", DType::kFloat32, {1}, std::nullopt});
  const ir::Node node = MakeNode({a, ir::kNoValue, b}, {y});
  EXPECT_EQ(UnusedParams(node, {1, 2}), "  (void)in2;\n");
  std::string body = "  out0[0] = in0[0];\n";
  VoidUnusedParams(EmitContext{node, graph}, &body);
  EXPECT_EQ(body, "  (void)in2;\n  out0[0] = in0[0];\n");
}

TEST(OpUtil, Copies) {
  std::string body;
  EmitStridedCopy({"out0", "in0", 0, 0, {{2, 3, 3}, {3, 1, 1}}}, "  ", &body);
  EXPECT_EQ(body, "  memcpy(out0, in0, 6 * sizeof(*out0));\n");

  body.clear();
  EmitStridedCopy({"out0", "in0", 1, 2, {{3, -1, 2}}}, "  ", &body);
  EXPECT_EQ(body,
            "  for (size_t i0 = 0; i0 < 3; ++i0) {\n"
            "    out0[1 + i0 * 2] = in0[2 - i0];\n"
            "  }\n");

  body.clear();
  EmitBlockCopies(2, {{"out0", "in0", 0, 5, 1, 4, 3}, {"out0", "in1", 3, 5, 0, 2, 0}}, "  ", &body);
  EXPECT_EQ(body,
            "  for (size_t o = 0; o < 2; ++o) {\n"
            "    memcpy(out0 + o * 5, in0 + 1 + o * 4, 3 * sizeof(*out0));\n"
            "  }\n");

  body.clear();
  EmitFill("out0", "4", 3, "0", true, "  ", &body);
  EmitFill("out0", "0", 1, "7", false, "  ", &body);
  EXPECT_EQ(body, "  memset(out0 + 4, 0, 3 * sizeof(*out0));\n  out0[0] = 7;\n");
}

}  // namespace
}  // namespace mlf::ops
