// Gather: reference values, generated C against the reference, errors. The
// example operator test to copy (codegen/ops/README.md, "Adding an operator").
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

std::vector<double> GatherValues(const HostTensor& data, const HostTensor& indices, int64_t axis, Shape* shape) {
  OpTest t("Gather");
  t.Input("data", data.dtype, data.shape);
  t.Constant("indices", indices);
  t.Output("y");
  t.Attr("axis", axis);
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({data});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = (*y)[0].shape;
  EXPECT_EQ(*shape, t.graph().value(t.node().outputs[0]).shape);
  return Values((*y)[0]);
}

TEST(Gather, DocumentationExamples) {
  Shape shape;
  const HostTensor a = MakeTensor(DType::kFloat32, {3, 2}, {1.0, 1.2, 2.3, 3.4, 4.5, 5.7});
  const std::vector<double> got_a = GatherValues(a, MakeTensor(DType::kInt64, {2, 2}, {0, 1, 1, 2}), 0, &shape);
  EXPECT_EQ(shape, (Shape{2, 2, 2}));
  EXPECT_EQ(got_a, Values(MakeTensor(DType::kFloat32, {8}, {1.0, 1.2, 2.3, 3.4, 2.3, 3.4, 4.5, 5.7})));

  const HostTensor b = MakeTensor(DType::kFloat32, {3, 3}, {1.0, 1.2, 1.9, 2.3, 3.4, 3.9, 4.5, 5.7, 5.9});
  const std::vector<double> got_b = GatherValues(b, MakeTensor(DType::kInt32, {1, 2}, {0, 2}), 1, &shape);
  EXPECT_EQ(shape, (Shape{3, 1, 2}));
  EXPECT_EQ(got_b, Values(MakeTensor(DType::kFloat32, {6}, {1.0, 1.9, 2.3, 3.9, 4.5, 5.9})));

  // test_gather_negative_indices; a scalar index drops the axis.
  EXPECT_EQ(GatherValues(Iota(DType::kFloat32, {10}), Int64s({0, -9, -10}), 0, &shape),
            (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(GatherValues(Iota(DType::kInt8, {2, 3}), MakeTensor(DType::kInt64, {}, {-1}), 1, &shape),
            (std::vector<double>{2, 5}));
  EXPECT_EQ(shape, (Shape{2}));
}

TEST(Gather, GeneratedWithRuntimeIndices) {
  struct Case {
    DType data, index;
    Shape shape, index_shape;
    int64_t axis;
  };
  const Case cases[] = {
      {DType::kFloat32, DType::kInt64, {5, 4, 3, 2}, {3}, 0},  // test_gather_0
      {DType::kFloat32, DType::kInt32, {5, 4, 3, 2}, {3}, 1},  // test_gather_1
      {DType::kInt16, DType::kInt64, {3, 3}, {2, 2}, 1},       // test_gather_2d_indices
      {DType::kUInt8, DType::kInt32, {4, 6}, {}, -1},
      {DType::kFloat16, DType::kInt64, {7, 5}, {4, 2}, 0},
      {DType::kFloat64, DType::kInt32, {2, 3, 4}, {5}, 2},
  };
  uint64_t seed = 70;
  for (const Case& c : cases) {
    OpTest t("Gather");
    t.Input("data", c.data, c.shape);
    t.Input("indices", c.index, c.index_shape);
    t.Output("y");
    t.Attr("axis", c.axis);
    const size_t axis = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int64_t>(c.shape.size()) : c.axis);
    const int64_t dim = c.shape[axis];
    HostTensor indices = HostTensor::Zeros(c.index, c.index_shape);
    for (uint64_t i = 0; i < indices.element_count(); ++i) {
      indices.SetDouble(i, static_cast<double>(static_cast<int64_t>((i * 7 + seed) % (2 * dim)) - dim));
    }
    SCOPED_TRACE(std::string(DTypeName(c.data)) + FormatShape(c.shape) + " axis " + std::to_string(c.axis));
    ExpectGeneratedMatches(t, {RandomTensor(c.data, c.shape, seed++), indices}, 0, seed % 2 == 0);
  }
}

TEST(Gather, GeneratedCodeClampsOutOfRangeIndices) {
  OpTest t("Gather");
  t.Input("data", DType::kInt32, {4});
  t.Input("indices", DType::kInt64, {4});
  t.Output("y");
  ASSERT_TRUE(t.Infer().ok());
  const HostTensor data = MakeTensor(DType::kInt32, {4}, {10, 11, 12, 13});
  const HostTensor indices = Int64s({7, -9, 1, -1});
  auto y = t.RunGenerated({data, indices});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{13, 10, 11, 13}));
  auto ref = t.Evaluate({data, indices});
  EXPECT_EQ(ref.status().message(), "node 'n0' (Gather): index 7 is out of range for axis 0 of size 4");
}

// Nothing to copy: no indices, or a zero dimension besides the gathered
// axis. The generated function must still compile without warnings.
TEST(Gather, GeneratedWithEmptyTensors) {
  OpTest none("Gather");
  none.Input("data", DType::kFloat32, {3, 2});
  none.Input("indices", DType::kInt64, {0});
  none.Output("y");
  ExpectGeneratedMatches(none, {RandomTensor(DType::kFloat32, {3, 2}, 1), Int64s({})});
  EXPECT_EQ(none.graph().value(none.node().outputs[0]).shape, (Shape{0, 2}));

  OpTest zero("Gather");
  zero.Input("data", DType::kInt32, {3, 0});
  zero.Input("indices", DType::kInt32, {2});
  zero.Output("y");
  zero.Attr("axis", int64_t{0});
  ExpectGeneratedMatches(zero, {HostTensor::Zeros(DType::kInt32, {3, 0}), MakeTensor(DType::kInt32, {2}, {2, -3})});
  EXPECT_EQ(zero.graph().value(zero.node().outputs[0]).shape, (Shape{2, 0}));
}

TEST(Gather, Errors) {
  OpTest arity("Gather", "g");
  arity.Input("data", DType::kFloat32, {4});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), "node 'g' (Gather): expects 2 inputs, got 1");

  OpTest empty_axis("Gather", "g");
  empty_axis.Input("data", DType::kFloat32, {0, 2});
  empty_axis.Constant("indices", Int64s({0}));
  empty_axis.Output("y");
  EXPECT_EQ(InferError(empty_axis), "node 'g' (Gather): cannot gather from axis 0 of size 0");

  OpTest f("Gather", "g");
  f.Input("data", DType::kFloat32, {4});
  f.Input("indices", DType::kFloat32, {2});
  f.Output("y");
  EXPECT_EQ(InferError(f), "node 'g' (Gather): input 1 (indices) must be int32 or int64, got float32");

  OpTest c("Gather", "g");
  c.Input("data", DType::kFloat32, {4, 2});
  c.Constant("indices", Int64s({1, 4}));
  c.Output("y");
  EXPECT_EQ(InferError(c), "node 'g' (Gather): index 4 is out of range for axis 0 of size 4");

  OpTest a("Gather", "g");
  a.Input("data", DType::kFloat32, {4, 2});
  a.Constant("indices", Int64s({1}));
  a.Output("y");
  a.Attr("axis", int64_t{-3});
  EXPECT_EQ(InferError(a), "node 'g' (Gather): axis -3 is out of range for rank 2 (expected -2 to 1)");
}

}  // namespace
}  // namespace mlf::ops::testing
