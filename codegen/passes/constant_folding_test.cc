#include "codegen/passes/constant_folding.h"

#include <gtest/gtest.h>

#include "codegen/ops/op.h"

namespace mlf::passes {
namespace {

ir::HostTensor Floats(std::vector<int64_t> shape, std::vector<float> v) {
  ir::HostTensor t = ir::HostTensor::Zeros(DType::kFloat32, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

int AddInput(ir::Graph& g, const std::string& name, std::vector<int64_t> shape) {
  ir::Value v;
  v.name = name;
  v.shape = std::move(shape);
  const int id = g.AddValue(v);
  g.inputs.push_back(id);
  return id;
}

int AddNode(ir::Graph& g, const std::string& op, std::vector<int> inputs, const std::string& out,
            std::map<std::string, ir::AttrValue> attrs = {}) {
  ir::Node n;
  n.name = op + "_" + std::to_string(g.nodes.size());
  n.op = op;
  n.inputs = std::move(inputs);
  ir::Value v;
  v.name = out;
  n.outputs = {g.AddValue(v)};
  n.attrs = std::move(attrs);
  g.nodes.push_back(n);
  return n.outputs[0];
}

TEST(ConstantFolding, ShapeAndSizeFoldFromStaticShapes) {
  ir::Graph g;
  const int x = AddInput(g, "x", {2, 3, 4});
  const int s = AddNode(g, "Shape", {x}, "s", {{"start", int64_t{-2}}});
  const int n = AddNode(g, "Size", {x}, "n");
  g.outputs = {s, n};
  ASSERT_TRUE(FoldConstants(g).ok());
  EXPECT_TRUE(g.nodes.empty());
  ASSERT_EQ(g.outputs.size(), 2u);
  const ir::Value& sv = g.value(g.outputs[0]);
  EXPECT_EQ(sv.name, "s");
  EXPECT_EQ(sv.dtype, DType::kInt64);
  EXPECT_EQ(sv.constant->ToInts(), (std::vector<int64_t>{3, 4}));
  EXPECT_TRUE(g.value(g.outputs[1]).shape.empty());
  EXPECT_EQ(g.value(g.outputs[1]).constant->ToInts(), (std::vector<int64_t>{24}));
  EXPECT_EQ(g.inputs.size(), 1u);  // the interface stays
  EXPECT_TRUE(g.Validate().ok());
}

TEST(ConstantFolding, ShapeNeedsOneInput) {
  ir::Graph g;
  ir::Node n;
  n.name = "s";
  n.op = "Shape";
  Result<bool> r = TryFoldNode(g, n);
  EXPECT_EQ(r.status().ToString(),
            "invalid_argument: node 's' (Shape): takes exactly one input and one output");
}

TEST(ConstantFolding, FoldsChainsAndPrunes) {
  ir::Graph g;
  const int x = AddInput(g, "x", {3});
  const int a = g.AddConstant("a", Floats({3}, {1, 2, 3}));
  const int b = g.AddConstant("b", Floats({3}, {10, 20, 30}));
  g.AddConstant("unused", Floats({1}, {0}));
  const int ab = AddNode(g, "Add", {a, b}, "ab");    // folds
  const int ab2 = AddNode(g, "Add", {ab, ab}, "ab2");  // folds, as a chain
  const int y = AddNode(g, "Add", {x, ab2}, "y");    // stays
  AddNode(g, "Relu", {x}, "dead");                     // nobody reads it
  g.outputs = {y, ab};
  for (const ir::Node& n : g.nodes) ASSERT_TRUE(ops::InferNode(n, g).ok());
  ASSERT_TRUE(FoldConstants(g).ok());
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].name, "Add_2");
  const ir::Value& folded = g.value(g.nodes[0].inputs[1]);
  EXPECT_EQ(folded.name, "ab2");
  EXPECT_EQ(folded.constant->GetDouble(2), 66.0);
  // ab is a graph output: it stays, as a constant.
  EXPECT_EQ(g.value(g.outputs[1]).name, "ab");
  EXPECT_EQ(g.value(g.outputs[1]).constant->GetDouble(0), 11.0);
  std::vector<std::string> names;
  for (const ir::Value& v : g.values) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "ab", "ab2", "y"}));
  EXPECT_TRUE(g.Validate().ok());
}

TEST(ConstantFolding, RespectsTheSizeBound) {
  ir::Graph g;
  const int a = g.AddConstant("a", Floats({2}, {1, 2}));
  const int y = AddNode(g, "Add", {a, a}, "y");
  g.outputs = {y};
  ASSERT_TRUE(ops::InferNode(g.nodes[0], g).ok());
  FoldOptions tiny;
  tiny.max_output_bytes = 4;
  Result<bool> r = TryFoldNode(g, g.nodes[0], tiny);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_FALSE(g.value(y).is_constant());
  r = TryFoldNode(g, g.nodes[0]);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);
  EXPECT_EQ(g.value(y).constant->GetDouble(1), 4.0);
}

TEST(ConstantFolding, NonConstantAndRandomNodesStay) {
  ir::Graph g;
  const int x = AddInput(g, "x", {2});
  const int c = g.AddConstant("c", Floats({2}, {1, 2}));
  AddNode(g, "Relu", {x}, "r");
  AddNode(g, "RandomUniformLike", {c}, "u");
  for (const ir::Node& n : g.nodes) {
    Result<bool> r = TryFoldNode(g, n);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(*r) << n.op;
  }
}

TEST(ConstantFolding, PruneRenumbers) {
  ir::Graph g;
  g.AddConstant("junk", Floats({1}, {0}));
  const int x = AddInput(g, "x", {1});
  const int y = AddNode(g, "Relu", {x}, "y");
  g.outputs = {y};
  PruneGraph(g);
  ASSERT_EQ(g.values.size(), 2u);
  EXPECT_EQ(g.inputs, (std::vector<int>{0}));
  EXPECT_EQ(g.outputs, (std::vector<int>{1}));
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{0}));
  EXPECT_EQ(g.nodes[0].outputs, (std::vector<int>{1}));
}

}  // namespace
}  // namespace mlf::passes
