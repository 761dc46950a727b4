// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: hand-computed
// values through evaluate, the generated C against evaluate (NLL bit for
// bit, the log-softmax within a tolerance), run-time targets out of range
// (clamped), empty inputs, and every error of infer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

// A loss node with inputs x, target (and weight when `weight_shape` is not
// empty), graph inputs all.
OpTest Loss(const std::string& op, DType dtype, const Shape& x_shape, DType target_dtype, const Shape& target_shape,
            const std::string& reduction, const Shape& weight_shape = {}, size_t outputs = 1) {
  OpTest t(op, "loss");
  t.Input("x", dtype, x_shape);
  t.Input("target", target_dtype, target_shape);
  if (!weight_shape.empty()) t.Input("weight", dtype, weight_shape);
  t.Output("y");
  if (outputs > 1) t.Output("log_prob");
  t.Attr("reduction", reduction);
  return t;
}

std::vector<double> Evaluated(OpTest& t, const std::vector<HostTensor>& in, size_t output = 0) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[output]) : std::vector<double>{};
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

const HostTensor kLogProbs = MakeTensor(DType::kFloat32, {2, 3}, {-1, -2, -3, -0.5, -1.5, -2.5});
const HostTensor kTargets = Int64s({2, 0});

TEST(NegativeLogLikelihoodLoss, HandComputedValues) {
  OpTest none = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "none");
  ExpectNear(Evaluated(none, {kLogProbs, kTargets}), {3, 0.5});
  EXPECT_EQ(none.graph().value(none.node().outputs[0]).shape, (Shape{2}));
  OpTest sum = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "sum");
  ExpectNear(Evaluated(sum, {kLogProbs, kTargets}), {3.5});
  EXPECT_EQ(sum.graph().value(sum.node().outputs[0]).shape, (Shape{}));
  OpTest mean = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "mean");
  ExpectNear(Evaluated(mean, {kLogProbs, kTargets}), {1.75});

  // Weights: the mean divides by the weights of the targets.
  const HostTensor w = MakeTensor(DType::kFloat32, {3}, {0.1, 0.2, 0.3});
  OpTest wnone = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "none", {3});
  ExpectNear(Evaluated(wnone, {kLogProbs, kTargets, w}), {0.9, 0.05});
  OpTest wmean = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "mean", {3});
  ExpectNear(Evaluated(wmean, {kLogProbs, kTargets, w}), {(0.9 + 0.05) / (0.3 + 0.1)});

  // ignore_index: the element counts nothing, in the loss or the mean's divisor.
  OpTest ii = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "mean");
  ii.Attr("ignore_index", int64_t{2});
  ExpectNear(Evaluated(ii, {kLogProbs, kTargets}), {0.5});
  OpTest ii_none = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "none");
  ii_none.Attr("ignore_index", int64_t{2});
  ExpectNear(Evaluated(ii_none, {kLogProbs, kTargets}), {0, 0.5});
  // Every element ignored: the mean is 0/0.
  OpTest all = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "mean");
  all.Attr("ignore_index", int64_t{-1});
  const std::vector<double> nan = Evaluated(all, {kLogProbs, Int64s({-1, -1})});
  ASSERT_EQ(nan.size(), 1u);
  EXPECT_TRUE(std::isnan(nan[0]));

  // (N, C, d1): the classes are axis 1.
  OpTest d1 = Loss("NegativeLogLikelihoodLoss", DType::kFloat64, {1, 2, 3}, DType::kInt32, {1, 3}, "none");
  ExpectNear(Evaluated(d1, {MakeTensor(DType::kFloat64, {1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                            MakeTensor(DType::kInt32, {1, 3}, {1, 0, 1})}),
             {-4, -2, -6});
}

TEST(SoftmaxCrossEntropyLoss, HandComputedValues) {
  // log_softmax([1, 2, 3]) = x - (3 + log(1 + e^-1 + e^-2)).
  const double lse = 3 + std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  OpTest t = Loss("SoftmaxCrossEntropyLoss", DType::kFloat32, {1, 3}, DType::kInt64, {1}, "mean", {}, 2);
  const std::vector<HostTensor> in = {MakeTensor(DType::kFloat32, {1, 3}, {1, 2, 3}), Int64s({2})};
  ExpectNear(Evaluated(t, in, 0), {lse - 3});
  ExpectNear(Evaluated(t, in, 1), {1 - lse, 2 - lse, 3 - lse});
  EXPECT_EQ(t.graph().value(t.node().outputs[1]).shape, (Shape{1, 3}));

  OpTest w = Loss("SoftmaxCrossEntropyLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "sum", {3});
  ExpectNear(Evaluated(w, {MakeTensor(DType::kFloat32, {2, 3}, {1, 2, 3, 0, 0, 0}), Int64s({2, 1}),
                           MakeTensor(DType::kFloat32, {3}, {0, 2, 0.5})}),
             {(lse - 3) * 0.5 + std::log(3.0) * 2});
}

// Targets in range, equal to ignore_index and (at run time) out of range.
HostTensor Targets(DType dtype, const Shape& shape, int64_t classes, int64_t ignore, uint64_t seed) {
  HostTensor t = HostTensor::Zeros(dtype, shape);
  for (uint64_t i = 0; i < t.element_count(); ++i) {
    const uint64_t r = (i * 7 + seed) % static_cast<uint64_t>(classes + 3);
    t.SetDouble(i, r < static_cast<uint64_t>(classes) ? static_cast<double>(r)
                   : r == static_cast<uint64_t>(classes) ? static_cast<double>(ignore)
                   : r == static_cast<uint64_t>(classes) + 1 ? static_cast<double>(classes + 2) : -3.0);
  }
  return t;
}

TEST(Losses, GeneratedMatchesReference) {
  struct Case {
    const char* op;
    DType dtype, target;
    Shape x;
    const char* reduction;
    bool weighted;
    bool ignore;
    size_t outputs;
  };
  const Case cases[] = {
      {"NegativeLogLikelihoodLoss", DType::kFloat32, DType::kInt64, {3, 5}, "none", false, false, 1},
      {"NegativeLogLikelihoodLoss", DType::kFloat32, DType::kInt64, {3, 5}, "sum", true, true, 1},
      {"NegativeLogLikelihoodLoss", DType::kFloat32, DType::kInt32, {3, 5, 2}, "mean", true, false, 1},
      {"NegativeLogLikelihoodLoss", DType::kFloat64, DType::kInt32, {2, 3, 4, 5}, "mean", false, true, 1},
      {"NegativeLogLikelihoodLoss", DType::kFloat64, DType::kInt64, {2, 3, 2, 1, 2}, "none", true, true, 1},
      {"SoftmaxCrossEntropyLoss", DType::kFloat32, DType::kInt64, {3, 5}, "mean", false, false, 1},
      {"SoftmaxCrossEntropyLoss", DType::kFloat32, DType::kInt64, {3, 5, 2}, "mean", true, true, 2},
      {"SoftmaxCrossEntropyLoss", DType::kFloat32, DType::kInt32, {2, 4, 3, 2}, "none", false, true, 2},
      {"SoftmaxCrossEntropyLoss", DType::kFloat64, DType::kInt64, {4, 3}, "sum", true, false, 2},
  };
  uint64_t seed = 11;
  for (const Case& c : cases) {
    Shape target_shape = {c.x[0]};
    target_shape.insert(target_shape.end(), c.x.begin() + 2, c.x.end());
    OpTest t = Loss(c.op, c.dtype, c.x, c.target, target_shape, c.reduction, c.weighted ? Shape{c.x[1]} : Shape{},
                    c.outputs);
    const int64_t ignore = c.ignore ? -1 - static_cast<int64_t>(seed % 3) : 0;
    if (c.ignore) t.Attr("ignore_index", ignore);
    std::vector<HostTensor> in = {RandomTensor(c.dtype, c.x, seed), Targets(c.target, target_shape, c.x[1], ignore, seed)};
    if (c.weighted) in.push_back(RandomTensor(c.dtype, {c.x[1]}, seed + 1));
    SCOPED_TRACE(std::string(c.op) + " " + DTypeName(c.dtype) + FormatShape(c.x) + " " + c.reduction);
    // NLL: the same operations in the same order; SCE: expf/logf against double.
    const double tolerance = std::string(c.op) == "SoftmaxCrossEntropyLoss" ? 1e-5 : 0;
    ExpectGeneratedMatches(t, in, tolerance, seed % 2 == 1);
    ++seed;
  }
}

TEST(Losses, RunTimeTargetsOutOfRangeAreClamped) {
  OpTest t = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {3, 3}, DType::kInt64, {3}, "none");
  t.Attr("ignore_index", int64_t{-1});
  ASSERT_TRUE(t.Infer().ok());
  const std::vector<HostTensor> in = {MakeTensor(DType::kFloat32, {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                                      Int64s({7, -5, -1})};
  auto gen = t.RunGenerated(in);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(Values((*gen)[0]), (std::vector<double>{-3, -4, 0}));
  auto ref = t.Evaluate(in);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(Values((*ref)[0]), (std::vector<double>{-3, -4, 0}));
}

TEST(Losses, EmptyInputs) {
  // No element: sum 0, mean 0/0.
  OpTest sum = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {0, 3}, DType::kInt64, {0}, "sum", {3});
  ExpectGeneratedMatches(sum, {HostTensor::Zeros(DType::kFloat32, {0, 3}), Int64s({}),
                               RandomTensor(DType::kFloat32, {3}, 3)});
  auto s = sum.Evaluate({HostTensor::Zeros(DType::kFloat32, {0, 3}), Int64s({}), RandomTensor(DType::kFloat32, {3}, 3)});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(Values((*s)[0]), (std::vector<double>{0}));

  OpTest mean = Loss("SoftmaxCrossEntropyLoss", DType::kFloat64, {2, 0, 0}, DType::kInt64, {2, 0}, "mean", {}, 2);
  ExpectGeneratedMatches(mean, {HostTensor::Zeros(DType::kFloat64, {2, 0, 0}), HostTensor::Zeros(DType::kInt64, {2, 0})});
  auto m = mean.Evaluate({HostTensor::Zeros(DType::kFloat64, {2, 0, 0}), HostTensor::Zeros(DType::kInt64, {2, 0})});
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(std::isnan(Values((*m)[0])[0]));

  OpTest none = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {0, 2, 3}, DType::kInt32, {0, 3}, "none");
  ExpectGeneratedMatches(none, {HostTensor::Zeros(DType::kFloat32, {0, 2, 3}), HostTensor::Zeros(DType::kInt32, {0, 3})});
  EXPECT_EQ(none.graph().value(none.node().outputs[0]).shape, (Shape{0, 3}));
}

// ignore_index at the edges of the target's dtype: beyond int32 an int32
// target never equals it; INT64_MIN is written so that C accepts it.
TEST(Losses, IgnoreIndexAtTheLimits) {
  OpTest wide = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 2}, DType::kInt32, {2}, "sum");
  wide.Attr("ignore_index", int64_t{1} << 40);
  ExpectGeneratedMatches(wide, {RandomTensor(DType::kFloat32, {2, 2}, 5), MakeTensor(DType::kInt32, {2}, {1, 0})});
  OpTest min = Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 2}, DType::kInt64, {2}, "sum");
  min.Attr("ignore_index", std::numeric_limits<int64_t>::min());
  HostTensor targets = Int64s({1, std::numeric_limits<int64_t>::min()});
  ExpectGeneratedMatches(min, {RandomTensor(DType::kFloat32, {2, 2}, 6), targets});
  auto y = min.Evaluate({MakeTensor(DType::kFloat32, {2, 2}, {1, 2, 3, 4}), targets});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{-2}));
}

TEST(Losses, Errors) {
  auto error = [](OpTest t) { return InferError(t); };
  const std::string nll = "node 'loss' (NegativeLogLikelihoodLoss): ";
  const std::string sce = "node 'loss' (SoftmaxCrossEntropyLoss): ";

  OpTest arity("NegativeLogLikelihoodLoss", "loss");
  arity.Input("x", DType::kFloat32, {2, 3});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), nll + "expects 2 to 3 inputs, got 1");
  EXPECT_EQ(error(Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "mean", {}, 2)),
            nll + "expects 1 output, got 2");
  EXPECT_EQ(error(Loss("SoftmaxCrossEntropyLoss", DType::kInt32, {2, 3}, DType::kInt64, {2}, "mean")),
            sce + "input 0 (scores) has dtype int32; supported: float32, float64");
  EXPECT_EQ(error(Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {3}, DType::kInt64, {3}, "mean")),
            nll + "input 0 (input) must have rank 2 or more (N, C, ...), got rank 1");
  EXPECT_EQ(error(Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kFloat32, {2}, "mean")),
            nll + "input 1 (target) must be int32 or int64, got float32");
  EXPECT_EQ(error(Loss("SoftmaxCrossEntropyLoss", DType::kFloat32, {2, 3, 4}, DType::kInt64, {2, 3}, "mean")),
            sce + "input 1 (labels) has shape [2, 3], expected [2, 4] (scores's shape without axis 1)");
  EXPECT_EQ(error(Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 0}, DType::kInt64, {2}, "mean")),
            nll + "input 0 (input) has no classes (axis 1 of size 0)");
  EXPECT_EQ(error(Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "mean", {2})),
            nll + "input 2 (weight) has shape [2], expected [3] (one per class)");
  EXPECT_EQ(error(Loss("NegativeLogLikelihoodLoss", DType::kFloat32, {2, 3}, DType::kInt64, {2}, "average")),
            nll + "reduction 'average' is invalid (none, sum, mean)");

  OpTest wdtype("SoftmaxCrossEntropyLoss", "loss");
  wdtype.Input("x", DType::kFloat32, {2, 3});
  wdtype.Input("target", DType::kInt64, {2});
  wdtype.Input("weight", DType::kFloat64, {3});
  wdtype.Output("y");
  EXPECT_EQ(InferError(wdtype), sce + "input 2 (weights) has dtype float64, expected float32 as scores");

  OpTest constant("NegativeLogLikelihoodLoss", "loss");
  constant.Input("x", DType::kFloat32, {2, 3});
  constant.Constant("target", Int64s({1, 3}));
  constant.Output("y");
  EXPECT_EQ(InferError(constant), nll + "input 1 (target) holds class 3, out of range for 3 classes");
  OpTest ignored("NegativeLogLikelihoodLoss", "loss");
  ignored.Input("x", DType::kFloat32, {2, 3});
  ignored.Constant("target", Int64s({-1, -2}));
  ignored.Output("y");
  ignored.Attr("ignore_index", int64_t{-1});
  EXPECT_EQ(InferError(ignored), nll + "input 1 (target) holds class -2, out of range for 3 classes and not ignore_index");
}

}  // namespace
}  // namespace mlf::ops::testing
