#include "codegen/ops/quantized_tensors.h"

#include <gtest/gtest.h>

namespace mlf::ops {
namespace {

ir::HostTensor Tensor(DType dtype, std::vector<int64_t> shape, std::vector<double> values) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) t.SetDouble(i, values[i]);
  return t;
}

int Value(ir::Graph& g, const char* name, DType dtype, std::vector<int64_t> shape) {
  ir::Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = shape;
  return g.AddValue(v);
}

// x (uint8) -> DequantizeLinear -> Relu -> QuantizeLinear -> y (int8), and a
// per-channel int8 weight read by a DequantizeLinear with axis 0.
TEST(QuantizedTensorsTest, ReadsScalesAndZeroPointsOfInputsOutputsAndWeights) {
  ir::Graph g;
  const int x = Value(g, "x", DType::kUInt8, {1, 4});
  const int xf = Value(g, "xf", DType::kFloat32, {1, 4});
  const int r = Value(g, "r", DType::kFloat32, {1, 4});
  const int y = Value(g, "y", DType::kInt8, {1, 4});
  const int x_scale = g.AddConstant("x_scale", Tensor(DType::kFloat32, {}, {0.5}));
  const int x_zp = g.AddConstant("x_zp", Tensor(DType::kUInt8, {}, {128}));
  const int y_scale = g.AddConstant("y_scale", Tensor(DType::kFloat32, {}, {0.25}));
  const int w = g.AddConstant("w", Tensor(DType::kInt8, {3, 2}, {1, 2, 3, 4, 5, 6}));
  const int wf = Value(g, "wf", DType::kFloat32, {3, 2});
  const int w_scale = g.AddConstant("w_scale", Tensor(DType::kFloat32, {3}, {0.1, 0.2, 0.4}));
  const int w_zp = g.AddConstant("w_zp", Tensor(DType::kInt8, {3}, {0, -1, 2}));
  g.inputs = {x};
  g.outputs = {y, wf};
  g.nodes.push_back({"dq", "DequantizeLinear", {x, x_scale, x_zp}, {xf}, {}});
  g.nodes.push_back({"relu", "Relu", {xf}, {r}, {}});
  g.nodes.push_back({"q", "QuantizeLinear", {r, y_scale}, {y}, {}});
  g.nodes.push_back({"dqw", "DequantizeLinear", {w, w_scale, w_zp}, {wf}, {{"axis", int64_t{0}}}});

  const std::map<int, QuantizationInfo> q = QuantizedTensors(g);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q.at(x).scale, std::vector<double>{0.5});
  EXPECT_EQ(q.at(x).zero_point, std::vector<int64_t>{128});
  EXPECT_FALSE(q.at(x).axis.has_value());
  EXPECT_EQ(q.at(y).zero_point, std::vector<int64_t>{0});  // zero point omitted: 0
  EXPECT_EQ(q.at(w).zero_point, (std::vector<int64_t>{0, -1, 2}));
  EXPECT_EQ(*q.at(w).axis, 0);
  EXPECT_FLOAT_EQ(static_cast<float>(q.at(w).scale[2]), 0.4f);

  // A second reader that disagrees: metadata says nothing about x.
  const int xf2 = Value(g, "xf2", DType::kFloat32, {1, 4});
  g.nodes.push_back({"dq2", "DequantizeLinear", {x, y_scale, x_zp}, {xf2}, {}});
  EXPECT_EQ(QuantizedTensors(g).count(x), 0u);
  // A scale computed at run time: nothing about y.
  g.nodes[2].inputs[1] = r;
  EXPECT_EQ(QuantizedTensors(g).count(y), 0u);
}

// QLinearConv: x, per-output-channel w, y; a negative attribute axis counts
// from the end.
TEST(QuantizedTensorsTest, QLinearOperandsAndNegativeAxis) {
  ir::Graph g;
  const int x = Value(g, "x", DType::kInt8, {1, 1, 3, 3});
  const int y = Value(g, "y", DType::kInt8, {1, 2, 3, 3});
  const int s = g.AddConstant("s", Tensor(DType::kFloat32, {}, {0.5}));
  const int zp = g.AddConstant("zp", Tensor(DType::kInt8, {}, {-4}));
  const int w = g.AddConstant("w", Tensor(DType::kInt8, {2, 1, 1, 1}, {1, 2}));
  const int ws = g.AddConstant("ws", Tensor(DType::kFloat32, {2}, {0.5, 0.25}));
  const int wzp = g.AddConstant("wzp", Tensor(DType::kInt8, {2}, {0, 0}));
  g.inputs = {x};
  g.outputs = {y};
  g.nodes.push_back({"conv", "QLinearConv", {x, s, zp, w, ws, wzp, s, zp}, {y}, {}});
  std::map<int, QuantizationInfo> q = QuantizedTensors(g);
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(*q.at(w).axis, 0);
  EXPECT_EQ(q.at(y).zero_point, std::vector<int64_t>{-4});

  ir::Graph h;
  const int t = Value(h, "t", DType::kInt8, {2, 3});
  const int tf = Value(h, "tf", DType::kFloat32, {2, 3});
  const int ts = h.AddConstant("ts", Tensor(DType::kFloat32, {3}, {1, 2, 3}));
  h.inputs = {t};
  h.outputs = {tf};
  h.nodes.push_back({"dq", "DequantizeLinear", {t, ts}, {tf}, {{"axis", int64_t{-1}}}});
  q = QuantizedTensors(h);
  EXPECT_EQ(*q.at(t).axis, 1);
}

}  // namespace
}  // namespace mlf::ops
