// HannWindow, HammingWindow, BlackmanWindow: values against the formulas
// written out here (and ONNX's documented Hann values), the generated C
// against evaluate bit for bit, and errors.
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

OpTest Window(const std::string& op, int64_t size, int64_t periodic, int64_t type = 1) {
  OpTest t(op, "w");
  t.Constant("size", MakeTensor(DType::kInt64, {}, {static_cast<double>(size)}));
  t.Output("y");
  if (periodic != 1) t.Attr("periodic", periodic);
  if (type != 1) t.Attr("output_datatype", type);
  return t;
}

std::vector<double> Evaluated(OpTest& t) {
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  return y.ok() ? Values((*y)[0]) : std::vector<double>{};
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

TEST(Windows, Values) {
  // Periodic Hann of 4: 0.5 - 0.5 cos(pi k / 2).
  OpTest hann = Window("HannWindow", 4, 1);
  ExpectNear(Evaluated(hann), {0, 0.5, 1, 0.5});
  EXPECT_EQ(hann.graph().value(hann.node().outputs[0]).shape, (Shape{4}));
  // Symmetric Hann of 5: N = 4.
  OpTest sym = Window("HannWindow", 5, 0);
  ExpectNear(Evaluated(sym), {0, 0.5, 1, 0.5, 0});
  // Hamming: 25/46 - 21/46 cos(2 pi k / 4).
  OpTest hamming = Window("HammingWindow", 4, 1, 11);
  ExpectNear(Evaluated(hamming), {4.0 / 46, 25.0 / 46, 1, 25.0 / 46});
  EXPECT_EQ(hamming.graph().value(hamming.node().outputs[0]).dtype, DType::kFloat64);
  // Blackman: 0.42 - 0.5 cos(x) + 0.08 cos(2x) at x = 0, pi/2, pi, 3pi/2.
  OpTest blackman = Window("BlackmanWindow", 4, 1);
  ExpectNear(Evaluated(blackman), {0, 0.42 - 0.08, 0.42 + 0.5 + 0.08, 0.42 - 0.08});
  // Empty, and a symmetric window of one sample (0/0, as ONNX's reference).
  OpTest empty = Window("HannWindow", 0, 1);
  EXPECT_TRUE(Evaluated(empty).empty());
  OpTest one = Window("BlackmanWindow", 1, 0);
  const std::vector<double> nan = Evaluated(one);
  ASSERT_EQ(nan.size(), 1u);
  EXPECT_TRUE(std::isnan(nan[0]));
}

TEST(Windows, GeneratedMatchesReference) {
  uint64_t k = 0;
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    for (int64_t size : {0, 1, 10, 33}) {
      for (int64_t periodic : {0, 1}) {
        OpTest t = Window(op, size, periodic, ++k % 2 == 0 ? 11 : 1);
        SCOPED_TRACE(std::string(op) + " size " + std::to_string(size) + " periodic " + std::to_string(periodic));
        ExpectGeneratedMatches(t, {}, 0, k % 5 == 0);
      }
    }
  }
}

TEST(Windows, Errors) {
  OpTest runtime("HannWindow", "w");
  runtime.Input("size", DType::kInt64, {});
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'w' (HannWindow): input 0 (size) must be a constant");

  OpTest f("HannWindow", "w");
  f.Constant("size", MakeTensor(DType::kFloat32, {}, {4}));
  f.Output("y");
  EXPECT_EQ(InferError(f), "node 'w' (HannWindow): input 0 (size) must be int32 or int64, got float32");

  OpTest two("HammingWindow", "w");
  two.Constant("size", Int64s({4, 5}));
  two.Output("y");
  EXPECT_EQ(InferError(two), "node 'w' (HammingWindow): input 0 (size) must hold one value, got shape [2]");

  OpTest negative = Window("BlackmanWindow", -1, 1);
  EXPECT_EQ(InferError(negative), "node 'w' (BlackmanWindow): input 0 (size) is -1, expected 0 or more");
  OpTest type = Window("HannWindow", 4, 1, 7);
  EXPECT_EQ(InferError(type), "node 'w' (HannWindow): output_datatype 7 is not supported (1: float32, 11: float64)");
  EXPECT_EQ(type.Infer().code(), StatusCode::kUnimplemented);
  OpTest periodic = Window("HannWindow", 4, 2);
  EXPECT_EQ(InferError(periodic), "node 'w' (HannWindow): periodic 2 is invalid (0 or 1)");
}

}  // namespace
}  // namespace mlf::ops::testing
