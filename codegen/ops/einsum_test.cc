// Einsum: the ONNX backend cases' equations with hand-computed values through
// evaluate, the generated C against evaluate over equations (ellipsis,
// broadcasting, diagonals, implicit outputs, empty sums), and errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

OpTest Einsum(const std::string& equation, DType d, const std::vector<Shape>& shapes) {
  OpTest t("Einsum", "e");
  for (size_t i = 0; i < shapes.size(); ++i) t.Input("x" + std::to_string(i), d, shapes[i]);
  t.Output("y");
  t.Attr("equation", equation);
  return t;
}

std::vector<double> Evaluated(OpTest& t, const std::vector<HostTensor>& in, Shape* shape) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  *shape = t.graph().value(t.node().outputs[0]).shape;
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

TEST(Einsum, HandComputedValues) {
  Shape shape;
  const HostTensor a = MakeTensor(DType::kFloat64, {2, 3}, {1, 2, 3, 4, 5, 6});
  OpTest sum = Einsum("ij->i", DType::kFloat64, {{2, 3}});
  EXPECT_EQ(Evaluated(sum, {a}, &shape), (std::vector<double>{6, 15}));
  OpTest transpose = Einsum("ij->ji", DType::kFloat64, {{2, 3}});
  EXPECT_EQ(Evaluated(transpose, {a}, &shape), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(shape, (Shape{3, 2}));
  OpTest inner = Einsum("i,i", DType::kFloat64, {{3}, {3}});
  EXPECT_EQ(Evaluated(inner, {MakeTensor(DType::kFloat64, {3}, {1, 2, 3}), MakeTensor(DType::kFloat64, {3}, {4, 5, 6})}, &shape),
            (std::vector<double>{32}));
  EXPECT_EQ(shape, (Shape{}));
  // batch matmul: [1, 2, 3] x [1, 3, 1].
  OpTest mm = Einsum("bij, bjk -> bik", DType::kFloat64, {{1, 2, 3}, {1, 3, 1}});
  EXPECT_EQ(Evaluated(mm, {MakeTensor(DType::kFloat64, {1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                           MakeTensor(DType::kFloat64, {1, 3, 1}, {1, 0, 2})}, &shape),
            (std::vector<double>{7, 16}));
  EXPECT_EQ(shape, (Shape{1, 2, 1}));
  // batch diagonal with "...".
  OpTest diag = Einsum("...ii ->...i", DType::kFloat64, {{2, 2, 2}});
  EXPECT_EQ(Evaluated(diag, {MakeTensor(DType::kFloat64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}, &shape),
            (std::vector<double>{1, 4, 5, 8}));
  EXPECT_EQ(shape, (Shape{2, 2}));
  // Implicit output: the letters used once, alphabetically ("ba" -> "ab").
  OpTest implicit = Einsum("ba", DType::kFloat64, {{2, 3}});
  EXPECT_EQ(Evaluated(implicit, {a}, &shape), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

TEST(Einsum, GeneratedMatchesReference) {
  struct Case {
    const char* equation;
    std::vector<Shape> shapes;
  };
  const Case cases[] = {
      {"bij,bjk->bik", {{3, 2, 5}, {3, 5, 4}}},
      {"ij->", {{3, 4}}},
      {"...ii->...i", {{2, 3, 3, 3}}},
      {"...j,j->...", {{2, 1, 4}, {4}}},
      {"...ij,...jk->...ik", {{2, 1, 2, 3}, {3, 3, 2}}},  // broadcast "..." dims
      {"i,j", {{3}, {2}}},                                // outer product, implicit
      {"ij,jk,kl->il", {{2, 3}, {3, 2}, {2, 2}}},
      {"ij->j", {{0, 3}}},                                // empty sum: zeros
      {"iij->j", {{2, 2, 0}}},                            // empty output
  };
  uint64_t seed = 80;
  for (DType d : {DType::kFloat32, DType::kFloat64}) {
    for (const Case& c : cases) {
      OpTest t = Einsum(c.equation, d, c.shapes);
      std::vector<HostTensor> in;
      for (const Shape& s : c.shapes) in.push_back(RandomTensor(d, s, seed++));
      SCOPED_TRACE(std::string(c.equation) + " " + DTypeName(d));
      ExpectGeneratedMatches(t, in, 1e-5, seed % 3 == 0);
    }
  }
}

TEST(Einsum, Errors) {
  OpTest count = Einsum("ij,jk->ik", DType::kFloat32, {{2, 3}});
  EXPECT_EQ(InferError(count), "node 'e' (Einsum): equation 'ij,jk->ik' has 2 input terms for 1 inputs");
  OpTest fit = Einsum("ijk->i", DType::kFloat32, {{2, 3}});
  EXPECT_EQ(InferError(fit), "node 'e' (Einsum): equation term 'ijk' does not fit input 0 of shape [2, 3]");
  OpTest sizes = Einsum("ij,ij->i", DType::kFloat32, {{2, 3}, {2, 4}});
  EXPECT_EQ(InferError(sizes), "node 'e' (Einsum): label 'j' has sizes 3 and 4");
  OpTest out = Einsum("ij->k", DType::kFloat32, {{2, 3}});
  EXPECT_EQ(InferError(out), "node 'e' (Einsum): output label 'k' is in no input");
  OpTest twice = Einsum("ij->ii", DType::kFloat32, {{2, 3}});
  EXPECT_EQ(InferError(twice), "node 'e' (Einsum): output label 'i' appears twice");
  OpTest chars = Einsum("i2->i", DType::kFloat32, {{2}});
  EXPECT_EQ(InferError(chars), "node 'e' (Einsum): equation term 'i2' has '2' (letters and \"...\" only)");
  OpTest ints = Einsum("ij->i", DType::kInt32, {{2, 3}});
  EXPECT_EQ(InferError(ints), "node 'e' (Einsum): input 0 has dtype int32; supported: float32, float64");
  OpTest dots = Einsum("...i...->i", DType::kFloat32, {{2, 3}});
  EXPECT_EQ(InferError(dots), "node 'e' (Einsum): equation term '...i...' has \"...\" twice");
}

}  // namespace
}  // namespace mlf::ops::testing
