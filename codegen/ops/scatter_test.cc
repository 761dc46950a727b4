// GatherElements, GatherND, ScatterElements, Scatter, ScatterND: reference
// values (the ONNX documentation examples), generated C against the
// reference with run-time indices (in range, negative, out of range), and
// errors.
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

// `op` on data and indices (and updates) at run time: the reference's
// values, after checking the generated code gives the same bytes.
std::vector<double> RunOp(const std::string& op, const std::vector<HostTensor>& in,
                          const std::vector<std::pair<std::string, ir::AttrValue>>& attrs, Shape* shape = nullptr) {
  OpTest t(op);
  const char* names[] = {"data", "indices", "updates"};
  for (size_t i = 0; i < in.size(); ++i) t.Input(names[i], in[i].dtype, in[i].shape);
  t.Output("y");
  for (const auto& [k, v] : attrs) t.Attr(k, v);
  ExpectGeneratedMatches(t, in);
  auto y = t.Evaluate(in);
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  if (shape != nullptr) *shape = (*y)[0].shape;
  return Values((*y)[0]);
}

HostTensor F32(Shape shape, const std::vector<double>& v) { return MakeTensor(DType::kFloat32, std::move(shape), v); }
HostTensor I64(Shape shape, const std::vector<double>& v) { return MakeTensor(DType::kInt64, std::move(shape), v); }

TEST(GatherElements, DocumentationExamples) {
  Shape shape;
  EXPECT_EQ(RunOp("GatherElements", {F32({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {0, 0, 1, 0})}, {{"axis", int64_t{1}}}, &shape),
            (std::vector<double>{1, 1, 4, 3}));
  const HostTensor d = F32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(RunOp("GatherElements", {d, I64({2, 3}, {1, 2, 0, 2, 0, 0})}, {{"axis", int64_t{0}}}, &shape),
            (std::vector<double>{4, 8, 3, 7, 2, 3}));
  EXPECT_EQ(shape, (Shape{2, 3}));
  EXPECT_EQ(RunOp("GatherElements", {d, MakeTensor(DType::kInt32, {2, 3}, {-1, -2, 0, -2, 0, 0})}, {{"axis", int64_t{0}}}),
            (std::vector<double>{7, 5, 3, 4, 2, 3}));
  // Out of range at run time: clamped to the axis.
  EXPECT_EQ(RunOp("GatherElements", {d, I64({1, 3}, {3, -4, 100})}, {{"axis", int64_t{0}}}),
            (std::vector<double>{7, 2, 9}));
}

TEST(GatherND, DocumentationExamples) {
  Shape shape;
  EXPECT_EQ(RunOp("GatherND", {MakeTensor(DType::kInt32, {2, 2}, {0, 1, 2, 3}), I64({2, 2}, {0, 0, 1, 1})}, {}, &shape),
            (std::vector<double>{0, 3}));
  EXPECT_EQ(shape, (Shape{2}));
  EXPECT_EQ(RunOp("GatherND", {MakeTensor(DType::kInt32, {2, 2}, {0, 1, 2, 3}), I64({2, 1}, {1, 0})}, {}, &shape),
            (std::vector<double>{2, 3, 0, 1}));
  EXPECT_EQ(shape, (Shape{2, 2}));
  const HostTensor d = F32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(RunOp("GatherND", {d, I64({2, 1, 2}, {0, 1, 1, 0})}, {}, &shape), (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(shape, (Shape{2, 1, 2}));
  // batch_dims 1
  EXPECT_EQ(RunOp("GatherND", {d, I64({2, 1}, {1, 0})}, {{"batch_dims", int64_t{1}}}, &shape),
            (std::vector<double>{2, 3, 4, 5}));
  EXPECT_EQ(shape, (Shape{2, 2}));
  // Negative and out-of-range (clamped) coordinates.
  EXPECT_EQ(RunOp("GatherND", {d, I64({3, 3}, {-1, -1, -1, 5, 0, 1, 0, -7, 0})}, {}), (std::vector<double>{7, 5, 0}));
}

TEST(ScatterElements, DocumentationExamples) {
  const HostTensor row = F32({1, 5}, {1, 2, 3, 4, 5});
  const HostTensor up = F32({1, 2}, {1.1, 2.1});
  auto f = [](std::vector<double> v) { return Values(F32({static_cast<int64_t>(v.size())}, v)); };
  EXPECT_EQ(RunOp("ScatterElements", {row, I64({1, 2}, {1, 3}), up}, {{"axis", int64_t{1}}}), f({1, 1.1, 3, 2.1, 5}));
  EXPECT_EQ(RunOp("ScatterElements", {row, I64({1, 2}, {1, -3}), up}, {{"axis", int64_t{1}}}), f({1, 1.1, 2.1, 4, 5}));
  EXPECT_EQ(RunOp("ScatterElements", {row, I64({1, 2}, {1, 1}), up}, {{"axis", int64_t{1}}, {"reduction", std::string("add")}}),
            f({1, 2 + 1.1f + 2.1f, 3, 4, 5}));
  EXPECT_EQ(RunOp("ScatterElements", {row, I64({1, 2}, {1, 1}), up}, {{"axis", int64_t{1}}, {"reduction", std::string("mul")}}),
            f({1, 2 * 1.1f * 2.1f, 3, 4, 5}));
  // Duplicates without reduction: the last update wins.
  EXPECT_EQ(RunOp("ScatterElements", {row, I64({1, 2}, {4, 4}), up}, {{"axis", int64_t{1}}}), f({1, 2, 3, 4, 2.1}));
  // test_scatter_elements_without_axis, and Scatter (opset 9) alike.
  const std::vector<HostTensor> in = {HostTensor::Zeros(DType::kFloat32, {3, 3}), I64({2, 3}, {1, 0, 2, 0, 2, 1}),
                                      F32({2, 3}, {1, 1.1, 1.2, 2, 2.1, 2.2})};
  EXPECT_EQ(RunOp("ScatterElements", in, {}), f({2, 1.1, 0, 1, 0, 2.2, 0, 2.1, 1.2}));
  EXPECT_EQ(RunOp("Scatter", in, {}), f({2, 1.1, 0, 1, 0, 2.2, 0, 2.1, 1.2}));
  // Out of range at run time: skipped.
  EXPECT_EQ(RunOp("ScatterElements", {row, I64({1, 2}, {5, -6}), up}, {{"axis", int64_t{1}}}), f({1, 2, 3, 4, 5}));
}

TEST(ScatterND, DocumentationExamples) {
  const HostTensor d = F32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  const HostTensor ind = I64({4, 1}, {4, 3, 1, 7});
  const HostTensor up = F32({4}, {9, 10, 11, 12});
  EXPECT_EQ(RunOp("ScatterND", {d, ind, up}, {}), (std::vector<double>{1, 11, 3, 10, 9, 6, 7, 12}));
  // Slices; add and mul with duplicate indices; negative and skipped indices.
  const HostTensor m = MakeTensor(DType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6});
  const HostTensor rows = MakeTensor(DType::kInt32, {3, 2}, {10, 20, 30, 40, 50, 60});
  EXPECT_EQ(RunOp("ScatterND", {m, I64({3, 1}, {0, 0, -1}), rows}, {{"reduction", std::string("add")}}),
            (std::vector<double>{41, 62, 3, 4, 55, 66}));
  EXPECT_EQ(RunOp("ScatterND", {m, I64({3, 1}, {2, 2, 1}), rows}, {{"reduction", std::string("mul")}}),
            (std::vector<double>{1, 2, 150, 240, 1500, 4800}));
  EXPECT_EQ(RunOp("ScatterND", {m, I64({3, 1}, {3, -4, 1}), rows}, {}), (std::vector<double>{1, 2, 50, 60, 5, 6}));
  EXPECT_EQ(RunOp("ScatterND", {m, I64({2, 2}, {0, 1, 2, 0}), MakeTensor(DType::kInt32, {2}, {-1, -2})}, {}),
            (std::vector<double>{1, -1, 3, 4, -2, 6}));
}

TEST(Scatter, GeneratedMatchesReferenceOverDTypes) {
  uint64_t seed = 7;
  for (DType d : {DType::kFloat64, DType::kInt8, DType::kUInt16, DType::kInt64, DType::kFloat16, DType::kBool}) {
    SCOPED_TRACE(DTypeName(d));
    const bool numeric = d != DType::kFloat16 && d != DType::kBool;
    for (const char* reduction : {"none", "add", "mul"}) {
      if (!numeric && std::string(reduction) != "none") continue;
      HostTensor idx = HostTensor::Zeros(DType::kInt32, {2, 4, 3});
      for (uint64_t i = 0; i < idx.element_count(); ++i) idx.SetDouble(i, static_cast<double>(static_cast<int64_t>(i * 5 % 11) - 5));
      OpTest t("ScatterElements");
      t.Input("data", d, {3, 5, 4});
      t.Input("indices", DType::kInt32, {2, 4, 3});
      t.Input("updates", d, {2, 4, 3});
      t.Output("y");
      t.Attr("axis", int64_t{-2});
      t.Attr("reduction", std::string(reduction));
      ExpectGeneratedMatches(t, {RandomTensor(d, {3, 5, 4}, seed), idx, RandomTensor(d, {2, 4, 3}, seed + 1)}, 0,
                             seed % 2 == 0);
      ++seed;
      HostTensor nd = HostTensor::Zeros(DType::kInt64, {2, 3, 2});
      for (uint64_t i = 0; i < nd.element_count(); ++i) nd.SetDouble(i, static_cast<double>(static_cast<int64_t>(i * 7 % 9) - 4));
      OpTest s("ScatterND");
      s.Input("data", d, {3, 4, 5});
      s.Input("indices", DType::kInt64, {2, 3, 2});
      s.Input("updates", d, {2, 3, 5});
      s.Output("y");
      s.Attr("reduction", std::string(reduction));
      ExpectGeneratedMatches(s, {RandomTensor(d, {3, 4, 5}, seed), nd, RandomTensor(d, {2, 3, 5}, seed + 1)}, 0,
                             seed % 2 == 0);
      ++seed;
    }
    HostTensor gi = HostTensor::Zeros(DType::kInt64, {4, 2, 4});
    for (uint64_t i = 0; i < gi.element_count(); ++i) gi.SetDouble(i, static_cast<double>(static_cast<int64_t>(i * 3 % 13) - 6));
    OpTest g("GatherElements");
    g.Input("data", d, {5, 3, 4});
    g.Input("indices", DType::kInt64, {4, 2, 4});
    g.Output("y");
    ExpectGeneratedMatches(g, {RandomTensor(d, {5, 3, 4}, seed++), gi}, 0, true);
    HostTensor ni = HostTensor::Zeros(DType::kInt32, {2, 3, 1});
    for (uint64_t i = 0; i < ni.element_count(); ++i) ni.SetDouble(i, static_cast<double>(static_cast<int64_t>(i * 5 % 9) - 4));
    OpTest n("GatherND");
    n.Input("data", d, {2, 4, 3});
    n.Input("indices", DType::kInt32, {2, 3, 1});
    n.Output("y");
    n.Attr("batch_dims", int64_t{1});
    ExpectGeneratedMatches(n, {RandomTensor(d, {2, 4, 3}, seed++), ni}, 0, true);
  }
}

TEST(Scatter, EmptyTensors) {
  OpTest g("GatherElements");
  g.Input("data", DType::kFloat32, {3, 2});
  g.Input("indices", DType::kInt64, {0, 2});
  g.Output("y");
  ExpectGeneratedMatches(g, {RandomTensor(DType::kFloat32, {3, 2}, 1), HostTensor::Zeros(DType::kInt64, {0, 2})});
  OpTest s("ScatterND");
  s.Input("data", DType::kFloat32, {3, 2});
  s.Input("indices", DType::kInt64, {0, 1});
  s.Input("updates", DType::kFloat32, {0, 2});
  s.Output("y");
  ExpectGeneratedMatches(s, {RandomTensor(DType::kFloat32, {3, 2}, 1), HostTensor::Zeros(DType::kInt64, {0, 1}),
                             HostTensor::Zeros(DType::kFloat32, {0, 2})});
}

TEST(Scatter, Errors) {
  OpTest c("GatherElements", "g");
  c.Input("data", DType::kFloat32, {3, 3});
  c.Constant("indices", I64({1, 2}, {0, 3}));
  c.Output("y");
  c.Attr("axis", int64_t{1});
  EXPECT_EQ(InferError(c), "node 'g' (GatherElements): index 3 is out of range for axis 1 of size 3");

  OpTest rank("GatherElements", "g");
  rank.Input("data", DType::kFloat32, {3, 3});
  rank.Input("indices", DType::kInt64, {3});
  rank.Output("y");
  EXPECT_EQ(InferError(rank), "node 'g' (GatherElements): input 1 (indices) has rank 1, expected 2 as data");

  OpTest big("GatherElements", "g");
  big.Input("data", DType::kFloat32, {3, 3});
  big.Input("indices", DType::kInt64, {2, 4});
  big.Output("y");
  EXPECT_EQ(InferError(big),
            "node 'g' (GatherElements): input 1 (indices) of shape [2, 4] is larger than data of shape [3, 3] in axis 1");

  OpTest f("ScatterElements", "s");
  f.Input("data", DType::kFloat32, {3});
  f.Input("indices", DType::kFloat32, {2});
  f.Input("updates", DType::kFloat32, {2});
  f.Output("y");
  EXPECT_EQ(InferError(f), "node 's' (ScatterElements): input 1 (indices) must be int32 or int64, got float32");

  OpTest u("ScatterElements", "s");
  u.Input("data", DType::kFloat32, {3});
  u.Input("indices", DType::kInt64, {2});
  u.Input("updates", DType::kFloat32, {3});
  u.Output("y");
  EXPECT_EQ(InferError(u), "node 's' (ScatterElements): input 2 (updates) has shape [3], expected [2] as indices");

  OpTest r("ScatterElements", "s");
  r.Input("data", DType::kFloat32, {3});
  r.Input("indices", DType::kInt64, {2});
  r.Input("updates", DType::kFloat32, {2});
  r.Output("y");
  r.Attr("reduction", std::string("max"));
  EXPECT_EQ(InferError(r), "node 's' (ScatterElements): reduction 'max' is not supported (none, add, mul)");

  OpTest b("ScatterND", "s");
  b.Input("data", DType::kBool, {3});
  b.Input("indices", DType::kInt64, {2, 1});
  b.Input("updates", DType::kBool, {2});
  b.Output("y");
  b.Attr("reduction", std::string("add"));
  EXPECT_EQ(InferError(b),
            "node 's' (ScatterND): input data with reduction 'add' has dtype bool; supported: int8, int16, int32, "
            "int64, uint8, uint16, uint32, uint64, float32, float64");

  OpTest depth("GatherND", "n");
  depth.Input("data", DType::kFloat32, {3, 3});
  depth.Input("indices", DType::kInt64, {2, 3});
  depth.Output("y");
  EXPECT_EQ(InferError(depth), "node 'n' (GatherND): the last axis of input 1 (indices) has size 3, expected 1 to 2");

  OpTest batch("GatherND", "n");
  batch.Input("data", DType::kFloat32, {3, 3});
  batch.Input("indices", DType::kInt64, {2, 1});
  batch.Output("y");
  batch.Attr("batch_dims", int64_t{1});
  EXPECT_EQ(InferError(batch), "node 'n' (GatherND): batch axis 0 differs: data [3, 3], indices [2, 1]");

  OpTest nd("ScatterND", "s");
  nd.Input("data", DType::kFloat32, {3, 2});
  nd.Constant("indices", I64({1, 1}, {-4}));
  nd.Input("updates", DType::kFloat32, {1, 2});
  nd.Output("y");
  EXPECT_EQ(InferError(nd), "node 's' (ScatterND): index -4 is out of range for axis 0 of size 3");
}

}  // namespace
}  // namespace mlf::ops::testing
