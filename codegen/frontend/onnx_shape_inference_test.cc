#include "codegen/frontend/onnx_shape_inference.h"

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <thread>
#include <vector>

namespace mlf::frontend {
namespace {

void SetShape(onnx::ValueInfoProto* v, const std::string& name, int32_t type,
              const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// op(x, w) -> y with the given input shapes; QLinearConv gets its scales and
// zero points as scalar inputs.
onnx::ModelProto ConvModel(const std::string& op, const std::vector<int64_t>& x,
                           const std::vector<int64_t>& w, int64_t opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  onnx::GraphProto* g = m.mutable_graph();
  const bool quantized = op == "QLinearConv" || op == "ConvInteger";
  const int32_t t = quantized ? onnx::TensorProto::UINT8 : onnx::TensorProto::FLOAT;
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("n");
  SetShape(g->add_input(), "x", t, x);
  n->add_input("x");
  if (op == "QLinearConv") {
    SetShape(g->add_input(), "xs", onnx::TensorProto::FLOAT, {});
    SetShape(g->add_input(), "xz", t, {});
    n->add_input("xs");
    n->add_input("xz");
  }
  SetShape(g->add_input(), "w", t, w);
  n->add_input("w");
  if (op == "QLinearConv") {
    SetShape(g->add_input(), "ws", onnx::TensorProto::FLOAT, {});
    SetShape(g->add_input(), "wz", t, {});
    SetShape(g->add_input(), "ys", onnx::TensorProto::FLOAT, {});
    SetShape(g->add_input(), "yz", t, {});
    for (const char* name : {"ws", "wz", "ys", "yz"}) n->add_input(name);
  }
  n->add_output("y");
  g->add_output()->set_name("y");
  return m;
}

// The shape ONNX inference gave y, as text ("none" if it has none).
std::string InferredShape(onnx::ModelProto m) {
  Status st = InferOnnxShapes(m);
  if (!st.ok()) return st.ToString();
  for (const auto& vi : m.graph().output()) {
    if (vi.name() != "y" || !vi.type().tensor_type().has_shape()) continue;
    std::string s;
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      s += (s.empty() ? "" : ",") + (d.has_dim_value() ? std::to_string(d.dim_value()) : "?");
    }
    return "[" + s + "]";
  }
  return "none";
}

TEST(OnnxShapeInference, GuardsEveryVersionOfTheConvFamily) {
  EXPECT_EQ(GuardedOnnxOps(),
            (std::vector<std::string>{"Conv", "ConvInteger", "QLinearConv", "ConvTranspose",
                                      "LayerNormalization", "STFT", "Gemm", "RNN", "GRU",
                                      "LSTM"}));
  // Conv 1 and 11, ConvInteger 10, QLinearConv 10, ConvTranspose 1 and 11,
  // LayerNormalization 17, STFT 17, Gemm 1, 6, 7, 9, 11 and 13, RNN 1, 7 and
  // 14, GRU 1, 3, 7 and 14, LSTM 1, 7 and 14.
  EXPECT_EQ(GuardedOnnxSchemaCount(), 24);
}

TEST(OnnxShapeInference, ConsistentRanksStillInferred) {
  EXPECT_EQ(InferredShape(ConvModel("Conv", {1, 2, 5, 5}, {4, 2, 3, 3})), "[1,4,3,3]");
  EXPECT_EQ(InferredShape(ConvModel("Conv", {1, 2, 5, 5}, {4, 2, 3, 3}, 9)), "[1,4,3,3]");
  EXPECT_EQ(InferredShape(ConvModel("ConvTranspose", {1, 2, 5, 5}, {2, 4, 3, 3})), "[1,4,7,7]");
  EXPECT_EQ(InferredShape(ConvModel("ConvInteger", {1, 2, 5}, {4, 2, 3})), "[1,4,3]");
  EXPECT_EQ(InferredShape(ConvModel("QLinearConv", {1, 2, 5}, {4, 2, 3})), "[1,4,3]");
}

// "the ONNX model is invalid: <node> (<op>): <what>" as InferOnnxShapes says it.
std::string Invalid(const std::string& node, const std::string& what) {
  return "invalid_argument: the ONNX model is invalid: " + node + ": " + what;
}

const char kConvRanks[] = "W has rank 4 but X has rank 3; W must have the rank of X";

// Each of these read out of bounds in libonnx 1.12 (most segfault): now the
// model is refused, naming the node.
TEST(OnnxShapeInference, RankMismatchIsRefusedNamingTheNode) {
  EXPECT_EQ(InferredShape(ConvModel("Conv", {1, 2, 5}, {4, 2, 3, 3})),
            Invalid("node 'n' (Conv)", kConvRanks));
  EXPECT_EQ(InferredShape(ConvModel("Conv", {1, 2, 5, 5}, {4, 2, 3})),
            Invalid("node 'n' (Conv)", "W has rank 3 but X has rank 4; W must have the rank of X"));
  EXPECT_EQ(InferredShape(ConvModel("Conv", {1, 2, 5}, {4, 2, 3, 3}, 9)),
            Invalid("node 'n' (Conv)", kConvRanks));
  EXPECT_EQ(InferredShape(ConvModel("ConvInteger", {1, 2, 5}, {4, 2, 3, 3}, 10)),
            Invalid("node 'n' (ConvInteger)", kConvRanks));
  EXPECT_EQ(InferredShape(ConvModel("QLinearConv", {1, 2, 5}, {4, 2, 3, 3})),
            Invalid("node 'n' (QLinearConv)", kConvRanks));
  EXPECT_EQ(InferredShape(ConvModel("ConvTranspose", {1, 2, 5, 5}, {2, 4})),
            Invalid("node 'n' (ConvTranspose)",
                    "W has rank 2 but X has rank 4; W must have the rank of X"));
  EXPECT_EQ(InferredShape(ConvModel("ConvTranspose", {1, 2, 5, 5}, {2})),
            Invalid("node 'n' (ConvTranspose)",
                    "W has rank 1 but X has rank 4; W must have the rank of X"));
  EXPECT_EQ(InferredShape(ConvModel("ConvTranspose", {1, 2, 5, 5}, {2, 4, 3}, 9)),
            Invalid("node 'n' (ConvTranspose)",
                    "W has rank 3 but X has rank 4; W must have the rank of X"));
}

TEST(OnnxShapeInference, ConvTransposeWithoutWeightShape) {
  onnx::ModelProto m = ConvModel("ConvTranspose", {1, 2, 5, 5}, {});
  m.mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_EQ(InferredShape(m), "none");
  m.mutable_graph()->mutable_input(1)->clear_type();  // no type at all
  EXPECT_EQ(InferredShape(m), "none");
}

// One node `op` over float inputs of the given shapes (a name "" skips an
// optional input), output y; opset 17.
onnx::ModelProto OneNode(const std::string& op,
                         const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs,
                         const std::string& int_attr = "", int64_t value = 0,
                         int32_t second_type = onnx::TensorProto::FLOAT) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& [name, shape] = inputs[i];
    n->add_input(name);
    if (name.empty()) continue;
    SetShape(g->add_input(), name, i == 1 ? second_type : onnx::TensorProto::FLOAT, shape);
  }
  n->add_output("y");
  if (!int_attr.empty()) {
    auto* a = n->add_attribute();
    a->set_name(int_attr);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  g->add_output()->set_name("y");
  return m;
}

TEST(OnnxShapeInference, LayerNormalizationAxisBelowMinusRank) {
  auto ln = [](int64_t axis) {
    return InferredShape(OneNode("LayerNormalization", {{"x", {2, 3}}, {"s", {3}}}, "axis", axis));
  };
  const std::string node = "a node (LayerNormalization)";  // OneNode gives no name
  EXPECT_EQ(ln(-3), Invalid(node, "axis -3 is out of range for X of rank 2"));  // read dims[-1]
  EXPECT_EQ(ln(-100), Invalid(node, "axis -100 is out of range for X of rank 2"));
  EXPECT_EQ(ln(2), Invalid(node, "axis 2 is out of range for X of rank 2"));
  EXPECT_EQ(ln(-2), "[2,3]");
  EXPECT_EQ(ln(1), "[2,3]");
}

TEST(OnnxShapeInference, StftRanks) {
  const int32_t i64 = onnx::TensorProto::INT64;
  auto stft = [i64](std::vector<std::pair<std::string, std::vector<int64_t>>> in) {
    return InferredShape(OneNode("STFT", in, "", 0, i64));
  };
  const std::string node = "a node (STFT)";
  // libonnx 1.12 read dims 1 and 2 of a rank-1 signal.
  EXPECT_EQ(stft({{"x", {8}}, {"step", {}}}), Invalid(node, "signal has rank 1, expected 3"));
  EXPECT_EQ(stft({{"x", {1, 8}}, {"step", {}}}), Invalid(node, "signal has rank 2, expected 3"));
  EXPECT_EQ(stft({{"x", {1, 8, 1}}, {"step", {1}}}),
            Invalid(node, "frame_step has rank 1, expected 0"));
  EXPECT_EQ(stft({{"x", {1, 8, 1}}, {"step", {}}, {"w", {2, 2}}}),
            Invalid(node, "window has rank 2, expected 1"));
  EXPECT_EQ(stft({{"x", {1, 8, 1}}, {"step", {}}, {"", {}}, {"len", {1}}}),
            Invalid(node, "frame_length has rank 1, expected 0"));
  // The ranks STFT defines, with a constant frame_step: a two-sided
  // transform (onesided=0) is inferred by libonnx 1.12; a one-sided one (the
  // default) is not, since libonnx 1.12 would give 4 bins where it has 3.
  auto with_step = [](onnx::ModelProto m) {
    onnx::TensorProto* step = m.mutable_graph()->add_initializer();
    step->set_name("step");
    step->set_data_type(onnx::TensorProto::INT64);
    step->add_int64_data(2);
    return m;
  };
  const std::vector<std::pair<std::string, std::vector<int64_t>>> in = {
      {"x", {1, 8, 1}}, {"step", {}}, {"w", {4}}};
  EXPECT_EQ(InferredShape(with_step(OneNode("STFT", in, "onesided", 0, i64))), "[1,3,4,2]");
  EXPECT_EQ(InferredShape(with_step(OneNode("STFT", in, "", 0, i64))), "none");
}

// The element type a sweep gives an input: float if allowed, else the first
// of a few others the constraint allows, else float.
int32_t SweepType(const onnx::OpSchema::FormalParameter& p) {
  const std::pair<const char*, int32_t> preferred[] = {
      {"tensor(float)", onnx::TensorProto::FLOAT}, {"tensor(int64)", onnx::TensorProto::INT64},
      {"tensor(uint8)", onnx::TensorProto::UINT8}, {"tensor(int32)", onnx::TensorProto::INT32},
      {"tensor(bool)", onnx::TensorProto::BOOL},   {"tensor(int8)", onnx::TensorProto::INT8}};
  for (const auto& [name, type] : preferred) {
    for (const std::string* t : p.GetTypes()) {
      if (*t == name) return type;
    }
  }
  return onnx::TensorProto::FLOAT;
}

// Every version (up to opset 17) of every default-domain operator, with
// default attributes, over inputs of many rank combinations (all equal; the
// first two chosen and the rest equal to the second or scalars): whatever the
// onnx checker accepts must get through guarded inference without a crash
// (under ASan: without any out-of-bounds access). Unguarded, libonnx 1.12
// crashes on about 150 of these cases.
TEST(OnnxShapeInference, NoOperatorCrashesOnAnyRankCombination) {
  int accepted = 0;
  for (const onnx::OpSchema& version : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    const int opset = version.since_version();
    if (!version.domain().empty() || opset > 17 || version.inputs().empty()) continue;
    const onnx::OpSchema* schema = &version;
    const std::string& op = schema->Name();
    const size_t n = schema->inputs().size();
    std::vector<std::vector<int>> patterns;
    for (int r = 0; r <= 6; ++r) patterns.push_back(std::vector<int>(n, r));
    for (int r0 = 0; r0 <= 5; ++r0) {
      for (int r1 = 0; r1 <= 4; ++r1) {
        std::vector<int> rest_like_second(n, r1), rest_scalar(n, 0);
        rest_like_second[0] = rest_scalar[0] = r0;
        if (n > 1) rest_scalar[1] = r1;
        patterns.push_back(rest_like_second);
        patterns.push_back(rest_scalar);
      }
    }
    for (const std::vector<int>& ranks : patterns) {
      onnx::ModelProto m;
      m.set_ir_version(opset >= 15 ? 8 : opset >= 13 ? 7 : 6);
      auto* o = m.add_opset_import();
      o->set_domain("");
      o->set_version(opset);
      onnx::GraphProto* g = m.mutable_graph();
      g->set_name("g");
      onnx::NodeProto* node = g->add_node();
      node->set_op_type(op);
      for (size_t i = 0; i < n; ++i) {
        const std::string name = "i" + std::to_string(i);
        node->add_input(name);
        SetShape(g->add_input(), name, SweepType(schema->inputs()[i]),
                 std::vector<int64_t>(ranks[i], 2));
      }
      for (size_t i = 0; i < schema->outputs().size(); ++i) node->add_output("o" + std::to_string(i));
      *g->add_output() = g->input(0);
      try {
        onnx::checker::check_model(m);
      } catch (const std::exception&) {
        continue;
      }
      ++accepted;
      SCOPED_TRACE(op + "-" + std::to_string(opset));
      (void)InferOnnxShapes(m);
    }
  }
  // Not vacuous: most cases pass the checker.
  EXPECT_GT(accepted, 5000);
}

TEST(OnnxShapeInference, ConcurrentFirstUse) {
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&results, i] {
      results[i] = InferredShape(ConvModel("Conv", {1, 2, 5}, {4, 2, 3, 3})) +
                   InferredShape(ConvModel("Conv", {1, 2, 5, 5}, {4, 2, 3, 3}));
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& r : results) {
    EXPECT_EQ(r, Invalid("node 'n' (Conv)", kConvRanks) + "[1,4,3,3]");
  }
}

}  // namespace
}  // namespace mlf::frontend
