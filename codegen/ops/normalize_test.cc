// InstanceNormalization, MeanVarianceNormalization, LpNormalization, LRN:
// hand-computed values (the ONNX documentation's where they are fixed),
// generated C against the reference (within a tolerance: the C computes in
// the element type, evaluate in double), and errors.
#include <gtest/gtest.h>

#include <cmath>
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

std::vector<double> Evaluated(OpTest& t, const std::vector<HostTensor>& in) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tolerance) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tolerance) << i;
}

TEST(InstanceNormalization, DocumentationExample) {
  OpTest t("InstanceNormalization");
  t.Input("x", DType::kFloat32, {1, 2, 1, 3});
  t.Input("s", DType::kFloat32, {2});
  t.Input("bias", DType::kFloat32, {2});
  t.Output("y");
  const double r = std::sqrt(1.5);  // per channel: deviations -1, 0, 1 over variance 2/3
  ExpectNear(Evaluated(t, {MakeTensor(DType::kFloat32, {1, 2, 1, 3}, {-1, 0, 1, 2, 3, 4}),
                           MakeTensor(DType::kFloat32, {2}, {1, 1.5}), MakeTensor(DType::kFloat32, {2}, {0, 1})}),
             {-r, 0, r, -1.5 * r + 1, 1, 1.5 * r + 1}, 1e-4);
}

TEST(MeanVarianceNormalization, HandComputed) {
  OpTest t("MeanVarianceNormalization");
  t.Input("x", DType::kFloat32, {1, 2, 1, 2});
  t.Output("y");
  ExpectNear(Evaluated(t, {MakeTensor(DType::kFloat32, {1, 2, 1, 2}, {1, 3, 10, 30})}), {-1, 1, -1, 1}, 1e-6);
  OpTest a("MeanVarianceNormalization");
  a.Input("x", DType::kFloat64, {2, 2});
  a.Output("y");
  a.Attr("axes", std::vector<int64_t>{0});
  ExpectNear(Evaluated(a, {MakeTensor(DType::kFloat64, {2, 2}, {1, 5, 3, 5})}), {-1, 0, 1, 0}, 1e-8);
}

TEST(LpNormalization, HandComputed) {
  OpTest t("LpNormalization");
  t.Input("x", DType::kFloat32, {2, 2});
  t.Output("y");
  ExpectNear(Evaluated(t, {MakeTensor(DType::kFloat32, {2, 2}, {3, 4, -6, 8})}), {0.6, 0.8, -0.6, 0.8}, 1e-6);
  OpTest p1("LpNormalization");
  p1.Input("x", DType::kFloat32, {2, 2});
  p1.Output("y");
  p1.Attr("p", int64_t{1});
  p1.Attr("axis", int64_t{0});
  ExpectNear(Evaluated(p1, {MakeTensor(DType::kFloat32, {2, 2}, {3, 4, -1, 4})}), {0.75, 0.5, -0.25, 0.5}, 1e-6);
}

TEST(LRN, HandComputed) {
  // alpha / size = 1, beta 1, bias 1: y = x / (1 + window sum of squares).
  OpTest t("LRN");
  t.Input("x", DType::kFloat32, {1, 3, 1, 1});
  t.Output("y");
  t.Attr("size", int64_t{3});
  t.Attr("alpha", 3.0);
  t.Attr("beta", 1.0);
  ExpectNear(Evaluated(t, {MakeTensor(DType::kFloat32, {1, 3, 1, 1}, {1, 2, 3})}), {1.0 / 6, 2.0 / 15, 3.0 / 14}, 1e-6);
  // An even size reaches one channel further up than down: channels c..c+1.
  OpTest e("LRN");
  e.Input("x", DType::kFloat32, {1, 3, 1, 1});
  e.Output("y");
  e.Attr("size", int64_t{2});
  e.Attr("alpha", 2.0);
  e.Attr("beta", 1.0);
  ExpectNear(Evaluated(e, {MakeTensor(DType::kFloat32, {1, 3, 1, 1}, {1, 2, 3})}), {1.0 / 6, 2.0 / 14, 3.0 / 10}, 1e-6);
}

TEST(Normalize, GeneratedMatchesReference) {
  struct Case {
    const char* op;
    DType dtype;
    Shape x;
    std::vector<std::pair<std::string, ir::AttrValue>> attrs;
  };
  const Case cases[] = {
      {"InstanceNormalization", DType::kFloat32, {2, 3, 4, 5}, {}},
      {"InstanceNormalization", DType::kFloat64, {1, 4, 7}, {{"epsilon", 1e-2}}},
      {"InstanceNormalization", DType::kFloat32, {2, 3, 2, 2, 2}, {}},
      {"MeanVarianceNormalization", DType::kFloat32, {3, 5, 2, 4}, {}},
      {"MeanVarianceNormalization", DType::kFloat64, {3, 5, 6}, {{"axes", std::vector<int64_t>{-1}}}},
      {"MeanVarianceNormalization", DType::kFloat32, {4, 6}, {{"axes", std::vector<int64_t>{0, 1}}}},
      {"LpNormalization", DType::kFloat32, {3, 4, 5}, {{"axis", int64_t{1}}}},
      {"LpNormalization", DType::kFloat64, {6, 7}, {{"p", int64_t{1}}}},
      {"LRN", DType::kFloat32, {2, 7, 3, 3}, {{"size", int64_t{3}}}},
      {"LRN", DType::kFloat64, {1, 5, 4}, {{"size", int64_t{4}}, {"alpha", 0.01}, {"beta", 0.5}, {"bias", 2.0}}},
      {"LRN", DType::kFloat32, {2, 2, 0}, {{"size", int64_t{1}}}},
      {"LpNormalization", DType::kFloat32, {0, 3}, {}},
  };
  uint64_t seed = 200;
  for (const Case& c : cases) {
    OpTest t(c.op);
    t.Input("x", c.dtype, c.x);
    std::vector<HostTensor> in = {RandomTensor(c.dtype, c.x, seed++)};
    if (std::string(c.op) == "InstanceNormalization") {
      t.Input("s", c.dtype, {c.x[1]});
      t.Input("b", c.dtype, {c.x[1]});
      in.push_back(RandomTensor(c.dtype, {c.x[1]}, seed++));
      in.push_back(RandomTensor(c.dtype, {c.x[1]}, seed++));
    }
    t.Output("y");
    for (const auto& [k, v] : c.attrs) t.Attr(k, v);
    SCOPED_TRACE(std::string(c.op) + " " + DTypeName(c.dtype) + FormatShape(c.x));
    ExpectGeneratedMatches(t, in, 1e-4, seed % 2 == 0);
  }
}

TEST(Normalize, Errors) {
  OpTest rank("InstanceNormalization", "i");
  rank.Input("x", DType::kFloat32, {2, 3});
  rank.Input("s", DType::kFloat32, {3});
  rank.Input("b", DType::kFloat32, {3});
  rank.Output("y");
  EXPECT_EQ(InferError(rank),
            "node 'i' (InstanceNormalization): input 0 must have rank 3 or more (N, C, D1, ...), got shape [2, 3]");
  OpTest scale("InstanceNormalization", "i");
  scale.Input("x", DType::kFloat32, {2, 3, 4});
  scale.Input("s", DType::kFloat32, {4});
  scale.Input("b", DType::kFloat32, {3});
  scale.Output("y");
  EXPECT_EQ(InferError(scale), "node 'i' (InstanceNormalization): input 1 (scale) must be float32 of shape [3], got float32 [4]");
  OpTest p("LpNormalization", "l");
  p.Input("x", DType::kFloat32, {2, 3});
  p.Output("y");
  p.Attr("p", int64_t{3});
  EXPECT_EQ(InferError(p), "node 'l' (LpNormalization): p must be 1 or 2, got 3");
  OpTest size("LRN", "l");
  size.Input("x", DType::kFloat32, {2, 3});
  size.Output("y");
  EXPECT_EQ(InferError(size), "node 'l' (LRN): attribute 'size' is required");
  OpTest axes("MeanVarianceNormalization", "m");
  axes.Input("x", DType::kFloat32, {2, 3});
  axes.Output("y");
  EXPECT_EQ(InferError(axes), "node 'm' (MeanVarianceNormalization): axis 2 is out of range for rank 2 (expected -2 to 1)");
  OpTest dtype("LRN", "l");
  dtype.Input("x", DType::kInt32, {2, 3});
  dtype.Output("y");
  dtype.Attr("size", int64_t{1});
  EXPECT_EQ(InferError(dtype), "node 'l' (LRN): input 0 has dtype int32; supported: float32, float64");
}

}  // namespace
}  // namespace mlf::ops::testing
