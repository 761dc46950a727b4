// Expand, Tile, DepthToSpace, SpaceToDepth: reference values (the ONNX
// documentation examples), generated C against the reference, errors.
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

// Runs `op` on data with constant input 1 (shape or repeats) through infer
// and evaluate; returns the values and sets the shape.
std::vector<double> RunWithParam(const std::string& op, const HostTensor& data, const std::vector<int64_t>& param,
                        Shape* shape) {
  OpTest t(op);
  t.Input("data", data.dtype, data.shape);
  t.Constant("param", Int64s(param));
  t.Output("y");
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({data});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = (*y)[0].shape;
  EXPECT_EQ(*shape, t.graph().value(t.node().outputs[0]).shape);
  return Values((*y)[0]);
}

TEST(Expand, DocumentationExamples) {
  Shape shape;
  const HostTensor x = MakeTensor(DType::kFloat32, {3, 1}, {1, 2, 3});
  // test_expand_dim_unchanged
  EXPECT_EQ(RunWithParam("Expand", x, {3, 4}, &shape), (std::vector<double>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  EXPECT_EQ(shape, (Shape{3, 4}));
  // test_expand_dim_changed: the output has the larger rank.
  const std::vector<double> got = RunWithParam("Expand", x, {2, 1, 6}, &shape);
  EXPECT_EQ(shape, (Shape{2, 3, 6}));
  std::vector<double> want;
  for (int r = 0; r < 2; ++r) {
    for (double v : {1.0, 2.0, 3.0}) want.insert(want.end(), 6, v);
  }
  EXPECT_EQ(got, want);
  // A shape smaller than the input's keeps the input's dimensions (bidirectional).
  EXPECT_EQ(RunWithParam("Expand", Iota(DType::kInt32, {2, 3}), {1, 1}, &shape), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(shape, (Shape{2, 3}));
}

TEST(Tile, DocumentationExamples) {
  Shape shape;
  // test_tile_precomputed
  EXPECT_EQ(RunWithParam("Tile", MakeTensor(DType::kFloat32, {2, 2}, {0, 1, 2, 3}), {2, 2}, &shape),
            (std::vector<double>{0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3}));
  EXPECT_EQ(shape, (Shape{4, 4}));
  EXPECT_EQ(RunWithParam("Tile", MakeTensor(DType::kInt64, {3}, {5, 6, 7}), {0}, &shape), (std::vector<double>{}));
  EXPECT_EQ(shape, (Shape{0}));
}

HostTensor DepthInput() {  // the documentation's x: channel c, row h, column w = 9c + 3h + w
  HostTensor x = HostTensor::Zeros(DType::kFloat32, {1, 8, 2, 3});
  for (uint64_t i = 0; i < 48; ++i) x.SetDouble(i, static_cast<double>(9 * (i / 6) + 3 * (i / 3 % 2) + i % 3));
  return x;
}

std::vector<double> Rearranged(const std::string& op, const HostTensor& x, int64_t block, const std::string& mode,
                               Shape* shape) {
  OpTest t(op);
  t.Input("x", x.dtype, x.shape);
  t.Output("y");
  t.Attr("blocksize", block);
  if (!mode.empty()) t.Attr("mode", mode);
  const Status s = t.Infer();
  EXPECT_TRUE(s.ok()) << s.ToString();
  auto y = t.Evaluate({x});
  EXPECT_TRUE(y.ok()) << y.status().ToString();
  if (!y.ok()) return {};
  *shape = (*y)[0].shape;
  return Values((*y)[0]);
}

TEST(DepthToSpace, DocumentationExamples) {
  Shape shape;
  EXPECT_EQ(Rearranged("DepthToSpace", DepthInput(), 2, "DCR", &shape),
            (std::vector<double>{0,  18, 1,  19, 2,  20, 36, 54, 37, 55, 38, 56, 3,  21, 4,  22, 5,  23, 39, 57, 40, 58, 41, 59,
                                 9,  27, 10, 28, 11, 29, 45, 63, 46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68}));
  EXPECT_EQ(shape, (Shape{1, 2, 4, 6}));
  EXPECT_EQ(Rearranged("DepthToSpace", DepthInput(), 2, "", &shape),
            Rearranged("DepthToSpace", DepthInput(), 2, "DCR", &shape));
  EXPECT_EQ(Rearranged("DepthToSpace", DepthInput(), 2, "CRD", &shape),
            (std::vector<double>{0,  9,  1,  10, 2,  11, 18, 27, 19, 28, 20, 29, 3,  12, 4,  13, 5,  14, 21, 30, 22, 31, 23, 32,
                                 36, 45, 37, 46, 38, 47, 54, 63, 55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68}));
}

TEST(SpaceToDepth, DocumentationExample) {
  const HostTensor x = MakeTensor(DType::kFloat32, {1, 2, 4, 6},
                                  {0,  6,  1,  7,  2,  8,  12, 18, 13, 19, 14, 20, 3,  9,  4,  10, 5,  11, 15, 21, 16, 22, 17, 23,
                                   27, 33, 28, 34, 29, 35, 39, 45, 40, 46, 41, 47, 30, 36, 31, 37, 32, 38, 42, 48, 43, 49, 44, 50});
  Shape shape;
  EXPECT_EQ(Rearranged("SpaceToDepth", x, 2, "", &shape),
            (std::vector<double>{0,  1,  2,  3,  4,  5,  27, 28, 29, 30, 31, 32, 6,  7,  8,  9,  10, 11, 33, 34, 35, 36, 37, 38,
                                 12, 13, 14, 15, 16, 17, 39, 40, 41, 42, 43, 44, 18, 19, 20, 21, 22, 23, 45, 46, 47, 48, 49, 50}));
  EXPECT_EQ(shape, (Shape{1, 8, 2, 3}));
}

TEST(Expand, GeneratedMatchesReference) {
  struct Case {
    DType dtype;
    Shape x, shape;
  };
  const Case cases[] = {
      {DType::kFloat32, {3, 1}, {2, 1, 6}},  {DType::kInt64, {1, 4}, {3, 1}},     {DType::kUInt8, {}, {2, 3}},
      {DType::kFloat16, {2, 1, 3}, {2, 5, 3}}, {DType::kBool, {1}, {7}},         {DType::kFloat64, {4, 5}, {4, 5}},
      {DType::kInt32, {1, 3, 1}, {4, 1, 3, 9}}, {DType::kInt8, {2, 3}, {0, 2, 3}},
  };
  uint64_t seed = 11;
  for (const Case& c : cases) {
    OpTest t("Expand");
    t.Input("x", c.dtype, c.x);
    t.Constant("shape", Int64s(c.shape));
    t.Output("y");
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + FormatShape(c.x) + " to " + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.dtype, c.x, seed++)}, 0, seed % 2 == 0);
  }
}

TEST(Tile, GeneratedMatchesReference) {
  struct Case {
    DType dtype;
    Shape x, repeats;
  };
  const Case cases[] = {
      {DType::kFloat32, {2, 2}, {2, 2}}, {DType::kInt64, {3}, {4}},         {DType::kUInt16, {2, 3, 4}, {1, 3, 2}},
      {DType::kBool, {2, 1}, {1, 5}},    {DType::kFloat64, {2, 3}, {0, 2}}, {DType::kInt8, {}, {}},
  };
  uint64_t seed = 21;
  for (const Case& c : cases) {
    OpTest t("Tile");
    t.Input("x", c.dtype, c.x);
    t.Constant("repeats", Int64s(c.repeats));
    t.Output("y");
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + FormatShape(c.x) + " repeats " + FormatShape(c.repeats));
    ExpectGeneratedMatches(t, {RandomTensor(c.dtype, c.x, seed++)}, 0, seed % 2 == 0);
  }
}

TEST(DepthToSpace, GeneratedMatchesReference) {
  struct Case {
    const char* op;
    const char* mode;
    DType dtype;
    Shape x;
    int64_t block;
  };
  const Case cases[] = {
      {"DepthToSpace", "DCR", DType::kFloat32, {1, 8, 2, 3}, 2}, {"DepthToSpace", "CRD", DType::kFloat32, {2, 18, 3, 2}, 3},
      {"DepthToSpace", "DCR", DType::kInt16, {1, 4, 5, 5}, 1},   {"DepthToSpace", "CRD", DType::kUInt8, {3, 16, 4, 4}, 4},
      {"SpaceToDepth", "", DType::kFloat32, {1, 2, 4, 6}, 2},     {"SpaceToDepth", "", DType::kInt64, {2, 3, 6, 9}, 3},
      {"SpaceToDepth", "", DType::kFloat64, {1, 1, 0, 4}, 2},
  };
  uint64_t seed = 31;
  for (const Case& c : cases) {
    OpTest t(c.op);
    t.Input("x", c.dtype, c.x);
    t.Output("y");
    t.Attr("blocksize", c.block);
    if (std::string(c.mode).size() > 0) t.Attr("mode", std::string(c.mode));
    SCOPED_TRACE(std::string(c.op) + " " + c.mode + " " + FormatShape(c.x));
    ExpectGeneratedMatches(t, {RandomTensor(c.dtype, c.x, seed++)}, 0, seed % 2 == 0);
  }
}

// DepthToSpace in DCR mode undoes SpaceToDepth.
TEST(DepthToSpace, InvertsSpaceToDepth) {
  const HostTensor x = RandomTensor(DType::kFloat32, {2, 3, 6, 4}, 5);
  OpTest s2d("SpaceToDepth");
  s2d.Input("x", x.dtype, x.shape);
  s2d.Output("y");
  s2d.Attr("blocksize", int64_t{2});
  ASSERT_TRUE(s2d.Infer().ok());
  auto packed = s2d.Evaluate({x});
  ASSERT_TRUE(packed.ok()) << packed.status().ToString();
  OpTest d2s("DepthToSpace");
  d2s.Input("x", x.dtype, (*packed)[0].shape);
  d2s.Output("y");
  d2s.Attr("blocksize", int64_t{2});
  ASSERT_TRUE(d2s.Infer().ok());
  auto back = d2s.Evaluate({(*packed)[0]});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[0].shape, x.shape);
  EXPECT_EQ((*back)[0].bytes, x.bytes);
}

TEST(Expand, Errors) {
  OpTest runtime("Expand", "e");
  runtime.Input("x", DType::kFloat32, {3, 1});
  runtime.Input("shape", DType::kInt64, {2});
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'e' (Expand): input 1 (shape) must be a constant");

  OpTest clash("Expand", "e");
  clash.Input("x", DType::kFloat32, {3, 2});
  clash.Constant("shape", Int64s({4}));
  clash.Output("y");
  EXPECT_EQ(InferError(clash), "node 'e' (Expand): cannot broadcast input shape [3, 2] to shape [4]");

  OpTest negative("Expand", "e");
  negative.Input("x", DType::kFloat32, {3, 1});
  negative.Constant("shape", Int64s({3, -1}));
  negative.Output("y");
  EXPECT_EQ(InferError(negative), "node 'e' (Expand): input 1 (shape) has a negative dimension -1");

  OpTest arity("Expand", "e");
  arity.Input("x", DType::kFloat32, {3, 1});
  arity.Output("y");
  EXPECT_EQ(InferError(arity), "node 'e' (Expand): expects 2 inputs, got 1");
}

TEST(Tile, Errors) {
  OpTest runtime("Tile", "t");
  runtime.Input("x", DType::kFloat32, {3, 1});
  runtime.Input("repeats", DType::kInt64, {2});
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 't' (Tile): input 1 (repeats) must be a constant");

  OpTest count("Tile", "t");
  count.Input("x", DType::kFloat32, {3, 1});
  count.Constant("repeats", Int64s({2}));
  count.Output("y");
  EXPECT_EQ(InferError(count),
            "node 't' (Tile): input 1 (repeats) has 1 values, expected one per axis of input 0 (2)");

  OpTest negative("Tile", "t");
  negative.Input("x", DType::kFloat32, {3});
  negative.Constant("repeats", Int64s({-2}));
  negative.Output("y");
  EXPECT_EQ(InferError(negative), "node 't' (Tile): input 1 (repeats) has a negative value -2");

  OpTest dtype("Tile", "t");
  dtype.Input("x", DType::kFloat32, {3});
  dtype.Constant("repeats", MakeTensor(DType::kFloat32, {1}, {2}));
  dtype.Output("y");
  EXPECT_EQ(InferError(dtype), "node 't' (Tile): input 1 (repeats) must be int64 or int32, got float32");
}

TEST(DepthToSpace, Errors) {
  auto error = [](const std::string& op, Shape x, int64_t block, const std::string& mode) {
    OpTest t(op, "d");
    t.Input("x", DType::kFloat32, std::move(x));
    t.Output("y");
    if (block != 0) t.Attr("blocksize", block);
    if (!mode.empty()) t.Attr("mode", mode);
    return InferError(t);
  };
  EXPECT_EQ(error("DepthToSpace", {1, 8, 2}, 2, ""),
            "node 'd' (DepthToSpace): input 0 must have rank 4 (N, C, H, W), got shape [1, 8, 2]");
  EXPECT_EQ(error("DepthToSpace", {1, 8, 2, 2}, 0, ""), "node 'd' (DepthToSpace): attribute 'blocksize' is required");
  EXPECT_EQ(error("DepthToSpace", {1, 8, 2, 2}, -1, ""),
            "node 'd' (DepthToSpace): blocksize must be at least 1, got -1");
  EXPECT_EQ(error("DepthToSpace", {1, 8, 2, 2}, 2, "RCD"), "node 'd' (DepthToSpace): mode 'RCD' is not DCR or CRD");
  EXPECT_EQ(error("DepthToSpace", {1, 6, 2, 2}, 2, ""),
            "node 'd' (DepthToSpace): channels 6 are not a multiple of blocksize squared (4)");
  EXPECT_EQ(error("SpaceToDepth", {1, 1, 4, 5}, 2, ""),
            "node 'd' (SpaceToDepth): height 4 and width 5 must be multiples of blocksize 2");
}

}  // namespace
}  // namespace mlf::ops::testing
