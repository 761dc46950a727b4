#include "codegen/ops/refusal_reasons.h"

#include <gtest/gtest.h>

#include "codegen/ir/graph.h"
#include "codegen/ops/op.h"

namespace mlf::ops {
namespace {

// The refusal of an operator with a reason says it after the usual words.
Status InferOne(const std::string& op) {
  ir::Graph graph;
  ir::Value x;
  x.name = "x";
  x.dtype = DType::kFloat32;
  x.shape = {2};
  graph.values.push_back(x);
  graph.inputs.push_back(0);
  ir::Value y;
  y.name = "y";
  graph.values.push_back(y);
  ir::Node node;
  node.name = "n";
  node.op = op;
  node.inputs = {0};
  node.outputs = {1};
  return InferNode(node, graph);
}

TEST(RefusalReasons, EachKindSaysWhy) {
  EXPECT_EQ(InferOne("RandomUniformLike").message(),
            "node 'n' (RandomUniformLike): operator RandomUniformLike is not supported: it draws "
            "random numbers, and a compiled model gives the same outputs for the same inputs");
  EXPECT_EQ(InferOne("NonZero").message(),
            "node 'n' (NonZero): operator NonZero is not supported: its output shape depends on "
            "the input values, and compiled models have static shapes");
  EXPECT_EQ(InferOne("SequenceConstruct").message(),
            "node 'n' (SequenceConstruct): operator SequenceConstruct is not supported: it works "
            "on sequences or optionals (sequences, maps and optionals are not supported)");
  EXPECT_EQ(InferOne("StringNormalizer").message(),
            "node 'n' (StringNormalizer): operator StringNormalizer is not supported: it works on "
            "strings (dtype STRING is not supported)");
  EXPECT_EQ(InferOne("StringNormalizer").code(), StatusCode::kUnimplemented);
}

TEST(RefusalReasons, OtherOperatorsAreJustNotSupported) {
  EXPECT_EQ(WhyNotSupported("Conv"), "");
  EXPECT_EQ(InferOne("NoSuchOp").message(), "node 'n' (NoSuchOp): operator NoSuchOp is not supported");
}

}  // namespace
}  // namespace mlf::ops
