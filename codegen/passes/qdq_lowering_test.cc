#include "codegen/passes/qdq_lowering.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/requantize.h"
#include "codegen/passes/simplify.h"

namespace mlf::passes {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

HostTensor Tensor(DType dtype, Shape shape, const std::vector<double>& v) {
  HostTensor t = HostTensor::Zeros(dtype, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.SetDouble(i, v[i]);
  return t;
}

// Deterministic integers in [lo, hi].
std::vector<double> Ints(size_t n, int lo, int hi, unsigned seed) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v.push_back(lo + static_cast<int>((seed >> 8) % static_cast<unsigned>(hi - lo + 1)));
  }
  return v;
}

struct Builder {
  ir::Graph g;
  int Input(const std::string& name, DType dtype, Shape shape) {
    ir::Value v;
    v.name = name;
    v.dtype = dtype;
    v.shape = std::move(shape);
    const int id = g.AddValue(v);
    g.inputs.push_back(id);
    return id;
  }
  int Const(const std::string& name, HostTensor t) { return g.AddConstant(name, std::move(t)); }
  int Scalar(const std::string& name, DType dtype, double v) { return Const(name, Tensor(dtype, {}, {v})); }
  int Node(const std::string& op, std::vector<int> inputs, std::map<std::string, ir::AttrValue> attrs = {}) {
    ir::Node n;
    n.name = op + "_" + std::to_string(g.nodes.size());
    n.op = op;
    n.inputs = std::move(inputs);
    ir::Value v;
    v.name = n.name + "_out";
    n.outputs = {g.AddValue(v)};
    n.attrs = std::move(attrs);
    const Status s = ops::InferNode(n, g);
    EXPECT_TRUE(s.ok()) << s.ToString();
    g.nodes.push_back(n);
    return n.outputs[0];
  }
  // DQ(v) with scale s and zero point zp of v's dtype.
  int Dq(int v, double s, double zp) {
    const DType d = g.value(v).dtype;
    return Node("DequantizeLinear", {v, Scalar(g.UniqueName("dq_s"), DType::kFloat32, s),
                                     Scalar(g.UniqueName("dq_zp"), d, zp)});
  }
  int Q(int v, double s, double zp, DType d) {
    return Node("QuantizeLinear", {v, Scalar(g.UniqueName("q_s"), DType::kFloat32, s),
                                   Scalar(g.UniqueName("q_zp"), d, zp)});
  }
};

// Runs the graph through evaluate, node by node.
HostTensor RunGraph(const ir::Graph& g, const std::vector<HostTensor>& inputs) {
  std::map<int, HostTensor> values;
  for (size_t i = 0; i < g.inputs.size(); ++i) values[g.inputs[i]] = inputs[i];
  for (const ir::Node& n : g.nodes) {
    std::vector<const HostTensor*> in;
    for (int id : n.inputs) {
      if (id == ir::kNoValue) {
        in.push_back(nullptr);
      } else if (g.value(id).is_constant()) {
        in.push_back(&*g.value(id).constant);
      } else {
        in.push_back(&values.at(id));
      }
    }
    std::vector<HostTensor> out;
    const Status s = ops::EvaluateNode(n, in, &out);
    EXPECT_TRUE(s.ok()) << n.Describe() << ": " << s.ToString();
    if (!s.ok()) return {};
    values[n.outputs[0]] = out[0];
  }
  return values.at(g.outputs[0]);
}

std::vector<std::string> Ops(const ir::Graph& g) {
  std::vector<std::string> ops;
  for (const ir::Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

// Input uint8 [1, 3, 6, 6] -> DQ -> Conv (int8 weight per channel, int32
// bias) -> activation -> Q int8 -> DQ -> output.
struct ConvModel {
  Builder b;
  int out = -1;
  explicit ConvModel(const std::string& act, bool graph_output_conv = false) {
    const int x = b.Input("x", DType::kUInt8, {1, 3, 6, 6});
    const int w = b.Const("w", Tensor(DType::kInt8, {4, 3, 3, 3}, Ints(108, -127, 127, 3)));
    const int ws = b.Const("w_scale", Tensor(DType::kFloat32, {4}, {0.01, 0.02, 0.015, 0.005}));
    const int wzp = b.Const("w_zp", Tensor(DType::kInt8, {4}, {0, 0, 0, 0}));
    const int dw = b.Node("DequantizeLinear", {w, ws, wzp}, {{"axis", int64_t{0}}});
    const float xs = 0.05f;
    std::vector<double> bias_scale;
    for (int c = 0; c < 4; ++c) {
      bias_scale.push_back(xs * b.g.value(ws).constant->data<float>()[c]);
    }
    const int bq = b.Const("b", Tensor(DType::kInt32, {4}, {100, -2000, 35, 0}));
    const int bs = b.Const("b_scale", Tensor(DType::kFloat32, {4}, bias_scale));
    const int db = b.Node("DequantizeLinear", {bq, bs}, {{"axis", int64_t{0}}});
    const int dx = b.Dq(x, xs, 128);
    int y = b.Node("Conv", {dx, dw, db}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    if (graph_output_conv) b.g.outputs.push_back(y);
    if (act == "Relu") y = b.Node("Relu", {y});
    if (act == "Clip") {
      y = b.Node("Clip", {y, b.Scalar("lo", DType::kFloat32, -1), b.Scalar("hi", DType::kFloat32, 2)});
    }
    if (act == "Sigmoid") y = b.Node("Sigmoid", {y});
    out = b.Dq(b.Q(y, 0.04, -3, DType::kInt8), 0.04, -3);
    b.g.outputs.insert(b.g.outputs.begin(), out);
  }
};

// The lowered graph against the float one: within one step of the output
// (rounding ties resolved differently), nearly all equal.
void ExpectCloseToFloat(const ir::Graph& lowered, const ir::Graph& original, double step) {
  const HostTensor x = Tensor(DType::kUInt8, {1, 3, 6, 6}, Ints(108, 0, 255, 9));
  const HostTensor want = RunGraph(original, {x}), got = RunGraph(lowered, {x});
  ASSERT_EQ(got.element_count(), want.element_count());
  uint64_t equal = 0;
  for (uint64_t i = 0; i < got.element_count(); ++i) {
    const double d = std::fabs(got.GetDouble(i) - want.GetDouble(i)) / step;
    EXPECT_LE(d, 1.0 + 1e-4) << "element " << i;
    if (d < 1e-4) ++equal;
  }
  EXPECT_GE(equal * 10, got.element_count() * 9);
}

TEST(QdqLowering, ConvReluQuantizeBecomesOneQLinearConv) {
  ConvModel m("Relu");
  const ir::Graph original = m.b.g;
  auto r = LowerQdq(m.b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->convs, 1);
  EliminateDeadCode(m.b.g);
  EXPECT_EQ(Ops(m.b.g), (std::vector<std::string>{"QLinearConv", "DequantizeLinear"}));
  const ir::Node& q = m.b.g.nodes[0];
  EXPECT_EQ(std::get<int64_t>(q.attrs.at(ops::quant::kFixedPointAttr)), 1);
  // Relu: Q(0) = the zero point -3.
  EXPECT_EQ(std::get<std::vector<int64_t>>(q.attrs.at(ops::quant::kClampAttr)), (std::vector<int64_t>{-3, 127}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(q.attrs.at("pads")), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(m.b.g.value(q.inputs[0]).name, "x");
  EXPECT_EQ(m.b.g.value(q.inputs[3]).name, "w");  // the int8 weight, not a float copy
  // The bias DQ'd at exactly x_scale * w_scale is taken as it is.
  EXPECT_EQ(m.b.g.value(q.inputs[8]).constant->ToInts(), (std::vector<int64_t>{100, -2000, 35, 0}));
  EXPECT_TRUE(m.b.g.Validate().ok());
  ExpectCloseToFloat(m.b.g, original, 0.04);
}

TEST(QdqLowering, ClipBoundsBecomeTheClamp) {
  ConvModel m("Clip");
  const ir::Graph original = m.b.g;
  auto r = LowerQdq(m.b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EliminateDeadCode(m.b.g);
  ASSERT_EQ(Ops(m.b.g), (std::vector<std::string>{"QLinearConv", "DequantizeLinear"}));
  // Q(-1) = -25 - 3, Q(2) = 50 - 3.
  EXPECT_EQ(std::get<std::vector<int64_t>>(m.b.g.nodes[0].attrs.at(ops::quant::kClampAttr)),
            (std::vector<int64_t>{-28, 47}));
  ExpectCloseToFloat(m.b.g, original, 0.04);
}

TEST(QdqLowering, ConvWithoutActivationHasNoClamp) {
  ConvModel m("");
  const ir::Graph original = m.b.g;
  ASSERT_TRUE(LowerQdq(m.b.g).ok());
  EliminateDeadCode(m.b.g);
  ASSERT_EQ(Ops(m.b.g), (std::vector<std::string>{"QLinearConv", "DequantizeLinear"}));
  EXPECT_FALSE(m.b.g.nodes[0].HasAttr(ops::quant::kClampAttr));
  ExpectCloseToFloat(m.b.g, original, 0.04);
}

TEST(QdqLowering, FloatPartsStayFloat) {
  ConvModel sigmoid("Sigmoid");  // not foldable into a clamp
  auto r = LowerQdq(sigmoid.b.g);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->convs, 0);
  EXPECT_EQ(Ops(sigmoid.b.g)[3], "Conv");
  ConvModel read_twice("Relu", /*graph_output_conv=*/true);  // the float result is an output too
  r = LowerQdq(read_twice.b.g);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->convs, 0);
}

TEST(QdqLowering, GemmBecomesA1x1QLinearConvBetweenReshapes) {
  for (int64_t trans_b : {0, 1}) {
    Builder b;
    const int x = b.Input("x", DType::kInt8, {2, 5});
    const std::vector<double> wv = Ints(15, -100, 100, 5);  // [N=3, K=5] or [K=5, N=3]
    const int w = b.Const("w", Tensor(DType::kInt8, trans_b ? Shape{3, 5} : Shape{5, 3}, wv));
    const int dw = b.Dq(w, 0.02, 0);
    const int c = b.Const("c", Tensor(DType::kFloat32, {3}, {0.5, -0.25, 0.1}));  // a float bias
    const int dx = b.Dq(x, 0.1, 4);
    const int y = b.Node("Gemm", {dx, dw, c}, {{"transB", trans_b}});
    b.g.outputs = {b.Dq(b.Q(y, 0.05, 10, DType::kUInt8), 0.05, 10)};
    const ir::Graph original = b.g;
    auto r = LowerQdq(b.g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->gemms, 1);
    EliminateDeadCode(b.g);
    EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"Reshape", "QLinearConv", "Reshape", "DequantizeLinear"}));
    EXPECT_EQ(b.g.value(b.g.nodes[1].inputs[3]).shape, (Shape{3, 5, 1, 1}));
    // The float bias at the accumulator's scale 0.1 * 0.02: 250, -125, 50.
    EXPECT_EQ(b.g.value(b.g.nodes[1].inputs[8]).constant->ToInts(), (std::vector<int64_t>{250, -125, 50}));
    EXPECT_TRUE(b.g.Validate().ok());
    const HostTensor in = Tensor(DType::kInt8, {2, 5}, Ints(10, -128, 127, 1));
    const HostTensor want = RunGraph(original, {in}), got = RunGraph(b.g, {in});
    for (uint64_t i = 0; i < got.element_count(); ++i) {
      EXPECT_LE(std::fabs(got.GetDouble(i) - want.GetDouble(i)), 0.05 * (1 + 1e-4)) << "element " << i;
    }
  }
}

// A residual connection: DQ(a) + DQ(b) [-> Relu] -> Q of mixed dtypes.
TEST(QdqLowering, ResidualAddBecomesOneQLinearAdd) {
  for (bool relu : {false, true}) {
    Builder b;
    const int a = b.Input("a", DType::kUInt8, {1, 4, 5, 5});
    const int c = b.Input("c", DType::kInt8, {1, 4, 5, 5});
    int y = b.Node("Add", {b.Dq(a, 0.031, 131), b.Dq(c, 0.047, -7)});
    if (relu) y = b.Node("Relu", {y});
    b.g.outputs = {b.Dq(b.Q(y, 0.052, 125, DType::kUInt8), 0.052, 125)};
    const ir::Graph original = b.g;
    auto r = LowerQdq(b.g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->adds, 1);
    EliminateDeadCode(b.g);
    EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"QLinearAdd", "DequantizeLinear"}));
    const ir::Node& q = b.g.nodes[0];
    EXPECT_EQ(b.g.value(q.inputs[0]).name, "a");
    EXPECT_EQ(b.g.value(q.inputs[3]).name, "c");
    EXPECT_EQ(q.HasAttr(ops::quant::kClampAttr), relu);
    EXPECT_TRUE(b.g.Validate().ok());
    // Against the float graph: within one step (ties), nearly all equal.
    const HostTensor in_a = Tensor(DType::kUInt8, {1, 4, 5, 5}, Ints(100, 0, 255, 4));
    const HostTensor in_c = Tensor(DType::kInt8, {1, 4, 5, 5}, Ints(100, -128, 127, 8));
    const HostTensor want = RunGraph(original, {in_a, in_c}), got = RunGraph(b.g, {in_a, in_c});
    ASSERT_EQ(got.element_count(), 100u);
    uint64_t equal = 0;
    for (uint64_t i = 0; i < got.element_count(); ++i) {
      const double d = std::fabs(got.GetDouble(i) - want.GetDouble(i)) / 0.052;
      EXPECT_LE(d, 1.0 + 1e-4) << "element " << i;
      if (d < 1e-4) ++equal;
    }
    EXPECT_GE(equal, 95u);
  }
}

TEST(QdqLowering, AddThatBroadcastsOrHasFarApartScalesStaysFloat) {
  Builder b;
  const int a = b.Input("a", DType::kUInt8, {1, 4, 5, 5});
  const int c = b.Input("c", DType::kUInt8, {1, 4, 1, 1});
  const int y = b.Node("Add", {b.Dq(a, 0.03, 128), b.Dq(c, 0.03, 128)});
  const int e = b.Input("e", DType::kUInt8, {1, 4, 5, 5});
  const int z = b.Node("Add", {b.Dq(a, 1.0, 128), b.Dq(e, 0.001, 128)});  // a step of a is 1000 of z
  b.g.outputs = {b.Q(y, 0.05, 128, DType::kUInt8), b.Q(z, 0.001, 128, DType::kUInt8)};
  auto r = LowerQdq(b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->adds, 0);
}

// The classifier heads of int8 CNNs: DQ -> GlobalAveragePool -> Q
// (MobileNetV2), DQ -> AveragePool 5x4 -> Relu -> Q, and DQ -> an empty
// Pad -> AveragePool -> Q (the DS-CNN as PyTorch exports it), each one
// QLinearAveragePool within one step of the float graph.
TEST(QdqLowering, AveragePoolsBecomeOneQLinearAveragePool) {
  struct Case {
    std::string op;
    std::map<std::string, ir::AttrValue> attrs;
    bool relu, empty_pad;  // empty_pad: a Pad of zeros first, as PyTorch exports AvgPool2d
    Shape out;
  };
  const Case cases[] = {
      {"GlobalAveragePool", {}, false, false, {1, 6, 1, 1}},
      {"AveragePool",
       {{"kernel_shape", std::vector<int64_t>{5, 4}}, {"strides", std::vector<int64_t>{5, 4}}},
       true,
       false,
       {1, 6, 2, 2}},
      {"AveragePool", {{"kernel_shape", std::vector<int64_t>{10, 8}}}, false, true, {1, 6, 1, 1}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + (c.empty_pad ? " after an empty Pad" : ""));
    Builder b;
    const int x = b.Input("x", DType::kUInt8, {1, 6, 10, 8});
    int pool_in = b.Dq(x, 0.0237, 117);
    if (c.empty_pad) pool_in = b.Node("Pad", {pool_in, b.Const("pads", Tensor(DType::kInt64, {8}, {0, 0, 0, 0, 0, 0, 0, 0}))});
    int y = b.Node(c.op, {pool_in}, c.attrs);
    if (c.relu) y = b.Node("Relu", {y});
    b.g.outputs = {b.Dq(b.Q(y, 0.0113, -5, DType::kInt8), 0.0113, -5)};
    const ir::Graph original = b.g;
    auto r = LowerQdq(b.g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->pools, 1);
    EliminateDeadCode(b.g);
    EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"QLinearAveragePool", "DequantizeLinear"}));
    EXPECT_EQ(b.g.value(b.g.nodes[0].outputs[0]).shape, c.out);
    EXPECT_EQ(b.g.nodes[0].HasAttr(ops::quant::kClampAttr), c.relu);
    EXPECT_TRUE(b.g.Validate().ok());
    const HostTensor in = Tensor(DType::kUInt8, {1, 6, 10, 8}, Ints(480, 0, 255, 6));
    const HostTensor want = RunGraph(original, {in}), got = RunGraph(b.g, {in});
    ASSERT_EQ(got.element_count(), want.element_count());
    for (uint64_t i = 0; i < got.element_count(); ++i) {
      EXPECT_LE(std::fabs(got.GetDouble(i) - want.GetDouble(i)) / 0.0113, 1.0 + 1e-4) << "element " << i;
    }
  }
}

// Padding (the pool's or a Pad's), ceil_mode and dilations change how
// many values a window averages: those pools stay float.
TEST(QdqLowering, PaddedAveragePoolStaysFloat) {
  const std::map<std::string, ir::AttrValue> variants[] = {
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}},
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"auto_pad", std::string("SAME_UPPER")}},
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}},
       {"ceil_mode", int64_t{1}}},
  };
  for (const auto& attrs : variants) {
    Builder b;
    const int x = b.Input("x", DType::kUInt8, {1, 2, 6, 6});
    const int y = b.Node("AveragePool", {b.Dq(x, 0.1, 0)}, attrs);
    b.g.outputs = {b.Q(y, 0.1, 0, DType::kUInt8)};
    auto r = LowerQdq(b.g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->pools, 0);
  }
  // A Pad that pads (zeros count in the average): stays float too.
  Builder b;
  const int x = b.Input("x", DType::kUInt8, {1, 2, 6, 6});
  const int padded = b.Node("Pad", {b.Dq(x, 0.1, 0), b.Const("pads", Tensor(DType::kInt64, {8}, {0, 0, 1, 1, 0, 0, 1, 1}))});
  const int y = b.Node("AveragePool", {padded}, {{"kernel_shape", std::vector<int64_t>{3, 3}}});
  b.g.outputs = {b.Q(y, 0.1, 0, DType::kUInt8)};
  auto r = LowerQdq(b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->pools, 0);
}

// DQ(a), DQ(c) -> Concat -> Q: a plain Concat of the integers when both
// are on the Q's grid (the same values exactly), a QLinearConcat otherwise
// (within one step of the float graph).
TEST(QdqLowering, ConcatRunsOnIntegers) {
  for (bool same_grid : {true, false}) {
    SCOPED_TRACE(same_grid ? "one grid" : "two grids");
    Builder b;
    const int a = b.Input("a", DType::kUInt8, {1, 3, 4, 4});
    const int c = b.Input("c", DType::kUInt8, {1, 2, 4, 4});
    const int y = b.Node("Concat", {b.Dq(a, 0.05, 128), b.Dq(c, same_grid ? 0.05 : 0.0731, same_grid ? 128 : 90)},
                         {{"axis", int64_t{1}}});
    b.g.outputs = {b.Dq(b.Q(y, 0.05, 128, DType::kUInt8), 0.05, 128)};
    const ir::Graph original = b.g;
    auto r = LowerQdq(b.g);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->concats, 1);
    EliminateDeadCode(b.g);
    EXPECT_EQ(Ops(b.g), (std::vector<std::string>{same_grid ? "Concat" : "QLinearConcat", "DequantizeLinear"}));
    EXPECT_TRUE(b.g.Validate().ok());
    const HostTensor in_a = Tensor(DType::kUInt8, {1, 3, 4, 4}, Ints(48, 0, 255, 5));
    const HostTensor in_c = Tensor(DType::kUInt8, {1, 2, 4, 4}, Ints(32, 0, 255, 7));
    const HostTensor want = RunGraph(original, {in_a, in_c}), got = RunGraph(b.g, {in_a, in_c});
    ASSERT_EQ(got.element_count(), 80u);
    for (uint64_t i = 0; i < got.element_count(); ++i) {
      const double d = std::fabs(got.GetDouble(i) - want.GetDouble(i)) / 0.05;
      if (same_grid) {
        EXPECT_EQ(d, 0.0) << "element " << i;
      } else {
        EXPECT_LE(d, 1.0 + 1e-4) << "element " << i;
      }
    }
  }
}

// A squeeze-and-excitation gate: DQ(x) * DQ(s) with s per channel
// [1, C, 1, 1] -> Q: one QLinearMul within one step of the float graph.
TEST(QdqLowering, BroadcastMulBecomesOneQLinearMul) {
  Builder b;
  const int x = b.Input("x", DType::kUInt8, {1, 4, 5, 5});
  const int gate = b.Input("s", DType::kUInt8, {1, 4, 1, 1});
  const int y = b.Node("Mul", {b.Dq(x, 0.031, 3), b.Dq(gate, 1.0 / 256, 0)});
  b.g.outputs = {b.Dq(b.Q(y, 0.02, 0, DType::kUInt8), 0.02, 0)};
  const ir::Graph original = b.g;
  auto r = LowerQdq(b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->muls, 1);
  EliminateDeadCode(b.g);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"QLinearMul", "DequantizeLinear"}));
  EXPECT_TRUE(b.g.Validate().ok());
  const HostTensor in_x = Tensor(DType::kUInt8, {1, 4, 5, 5}, Ints(100, 0, 255, 3));
  const HostTensor in_s = Tensor(DType::kUInt8, {1, 4, 1, 1}, {255, 128, 7, 0});
  const HostTensor want = RunGraph(original, {in_x, in_s}), got = RunGraph(b.g, {in_x, in_s});
  ASSERT_EQ(got.element_count(), 100u);
  for (uint64_t i = 0; i < got.element_count(); ++i) {
    EXPECT_LE(std::fabs(got.GetDouble(i) - want.GetDouble(i)) / 0.02, 1.0 + 1e-4) << "element " << i;
  }
}

// DQ -> Sigmoid | HardSwish | LeakyRelu [-> Relu] -> Q: one QLinearLookup
// whose table is the float chain itself, so the lowered graph equals the
// float one on every value.
TEST(QdqLowering, UnaryOperatorsBecomeATable) {
  const std::vector<std::pair<std::string, bool>> cases = {{"Sigmoid", false}, {"HardSwish", false},
                                                           {"LeakyRelu", true}};
  for (const auto& [op, relu] : cases) {
    SCOPED_TRACE(op);
    for (DType dtype : {DType::kUInt8, DType::kInt8}) {
      Builder b;
      const int x = b.Input("x", dtype, {1, 2, 16, 8});
      int y = b.Node(op, {b.Dq(x, 0.047, dtype == DType::kUInt8 ? 131 : -5)});
      if (relu) y = b.Node("Relu", {y});
      b.g.outputs = {b.Dq(b.Q(y, 0.0071, -20, DType::kInt8), 0.0071, -20)};
      const ir::Graph original = b.g;
      auto r = LowerQdq(b.g);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->lookups, 1);
      EliminateDeadCode(b.g);
      EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"QLinearLookup", "DequantizeLinear"}));
      EXPECT_TRUE(b.g.Validate().ok());
      const HostTensor in = Tensor(dtype, {1, 2, 16, 8},
                                   Ints(256, dtype == DType::kUInt8 ? 0 : -128, dtype == DType::kUInt8 ? 255 : 127, 11));
      const HostTensor want = RunGraph(original, {in}), got = RunGraph(b.g, {in});
      for (uint64_t i = 0; i < got.element_count(); ++i) EXPECT_EQ(got.GetDouble(i), want.GetDouble(i)) << i;
    }
  }
}

TEST(QdqLowering, QuantizePairAroundMaxPoolCancels) {
  Builder b;
  const int x = b.Input("x", DType::kInt8, {1, 2, 4, 4});
  const int pooled = b.Node("MaxPool", {b.Dq(x, 0.1, 3)}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  b.g.outputs = {b.Dq(b.Q(pooled, 0.1, 3, DType::kInt8), 0.1, 3)};
  const ir::Graph original = b.g;
  auto r = LowerQdq(b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->cancelled, 1);
  EliminateDeadCode(b.g);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"MaxPool", "DequantizeLinear"}));
  EXPECT_EQ(b.g.nodes[0].inputs[0], x);
  const HostTensor in = Tensor(DType::kInt8, {1, 2, 4, 4}, Ints(32, -128, 127, 2));
  const HostTensor want = RunGraph(original, {in}), got = RunGraph(b.g, {in});
  for (uint64_t i = 0; i < got.element_count(); ++i) EXPECT_EQ(got.GetDouble(i), want.GetDouble(i)) << i;

  // Other parameters on the Q: not the same grid, nothing cancels.
  Builder c;
  const int y = c.Input("x", DType::kInt8, {1, 2, 4, 4});
  const int p2 = c.Node("MaxPool", {c.Dq(y, 0.1, 3)}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  c.g.outputs = {c.Q(p2, 0.2, 3, DType::kInt8)};
  r = LowerQdq(c.g);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cancelled, 0);
}

TEST(QdqLowering, ModelQLinearConvWithConstantScalesIsMarked) {
  Builder b;
  const int x = b.Input("x", DType::kUInt8, {1, 1, 3, 3});
  b.Node("QLinearConv", {x, b.Scalar("xs", DType::kFloat32, 0.1), b.Scalar("xz", DType::kUInt8, 1),
                         b.Const("w", Tensor(DType::kInt8, {1, 1, 1, 1}, {3})), b.Scalar("ws", DType::kFloat32, 0.1),
                         b.Scalar("wz", DType::kInt8, 0), b.Scalar("ys", DType::kFloat32, 0.1),
                         b.Scalar("yz", DType::kUInt8, 0)});
  b.g.outputs = {b.g.nodes.back().outputs[0]};
  auto r = LowerQdq(b.g);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->marked, 1);
  EXPECT_TRUE(b.g.nodes[0].HasAttr(ops::quant::kFixedPointAttr));
}

// PyTorch's exporter writes a Cast to the same dtype after every Q; after
// the lowering it is only a copy, and RemoveIdentities drops it.
TEST(QdqLowering, SameDTypeCastAfterQuantizeIsRemovedAfterwards) {
  Builder b;
  const int x = b.Input("x", DType::kInt8, {1, 2, 4, 4});
  const int cast = b.Node("Cast", {x}, {{"to", int64_t{3}}});  // int8 to int8
  const int pooled = b.Node("MaxPool", {b.Dq(cast, 0.1, 3)}, {{"kernel_shape", std::vector<int64_t>{2, 2}}});
  b.g.outputs = {b.Dq(b.Q(pooled, 0.1, 3, DType::kInt8), 0.1, 3)};
  ASSERT_TRUE(LowerQdq(b.g).ok());
  EXPECT_EQ(RemoveIdentities(b.g), 1);
  EliminateDeadCode(b.g);
  EXPECT_EQ(Ops(b.g), (std::vector<std::string>{"MaxPool", "DequantizeLinear"}));
  EXPECT_EQ(b.g.nodes[0].inputs[0], x);
}

}  // namespace
}  // namespace mlf::passes
