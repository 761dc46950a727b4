// QLinearLookup: one table entry per input value (int8 with its sign bit
// flipped), the generated C against evaluate bit for bit, and the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/requantize.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

// Entry k of a table: 255 - k for uint8 outputs, k - 128 for int8 ones.
HostTensor Table(DType y) {
  std::vector<double> v;
  for (int k = 0; k < 256; ++k) v.push_back(y == DType::kUInt8 ? 255 - k : k - 128);
  return MakeTensor(y, {256}, v);
}

void Build(OpTest& t, DType x, const Shape& shape, DType y) {
  t.Input("x", x, shape);
  t.Constant("table", Table(y));
  t.Output("y");
  t.Attr(quant::kFixedPointAttr, int64_t{1});
}

TEST(QLinearLookup, IndexesByValue) {
  {  // uint8 x: entry x
    OpTest t("QLinearLookup");
    Build(t, DType::kUInt8, {3}, DType::kUInt8);
    auto y = t.Evaluate({MakeTensor(DType::kUInt8, {3}, {0, 1, 255})});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(Values((*y)[0]), (std::vector<double>{255, 254, 0}));
  }
  {  // int8 x: entry x + 128
    OpTest t("QLinearLookup");
    Build(t, DType::kInt8, {3}, DType::kInt8);
    auto y = t.Evaluate({MakeTensor(DType::kInt8, {3}, {-128, 0, 127})});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(Values((*y)[0]), (std::vector<double>{-128, 0, 127}));
  }
}

TEST(QLinearLookup, GeneratedMatchesEvaluate) {
  uint64_t seed = 2500;
  for (DType x : {DType::kUInt8, DType::kInt8}) {
    for (DType y : {DType::kUInt8, DType::kInt8}) {
      OpTest t("QLinearLookup");
      Build(t, x, {2, 3, 17}, y);
      ExpectGeneratedMatches(t, {RandomTensor(x, {2, 3, 17}, seed++)});
    }
  }
}

TEST(QLinearLookup, Refusals) {
  {
    OpTest t("QLinearLookup");
    Build(t, DType::kUInt8, {3}, DType::kUInt8);
    t.node().attrs.erase(quant::kFixedPointAttr);
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("made by mlfkit's QDQ lowering only"), std::string::npos) << s.ToString();
  }
  {
    OpTest t("QLinearLookup");
    t.Input("x", DType::kUInt8, {3});
    t.Constant("table", MakeTensor(DType::kUInt8, {255}, std::vector<double>(255, 0)));
    t.Output("y");
    t.Attr(quant::kFixedPointAttr, int64_t{1});
    const Status s = t.Infer();
    EXPECT_NE(s.ToString().find("input 1 (table) must be a constant of shape [256], got [255]"), std::string::npos)
        << s.ToString();
  }
}

}  // namespace
}  // namespace mlf::ops::testing
