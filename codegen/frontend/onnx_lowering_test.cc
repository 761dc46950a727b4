#include "codegen/frontend/onnx_lowering.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace mlf::frontend {
namespace {

// Records emitted nodes without inferring them.
class FakeContext : public LoweringContext {
 public:
  FakeContext() {
    ir::Value x;
    x.name = "x";
    x.shape = {2, 3, 4};
    ids["x"] = graph_.AddValue(x);
  }
  ir::Graph& graph() override { return graph_; }
  const TensorLimits& limits() const override { return limits_; }
  Result<int> Lookup(const std::string& name, const ir::Node& node) override {
    auto it = ids.find(name);
    if (it == ids.end()) return InvalidArgument(node.Describe() + ": no '" + name + "'");
    return it->second;
  }
  Result<int> Define(const std::string& name, const ir::Node&) override {
    ir::Value v;
    v.name = name;
    return ids[name] = graph_.AddValue(v);
  }
  Status DefineConstant(const std::string& name, ir::HostTensor t, const ir::Node&) override {
    return (ids[name] = graph_.AddConstant(name, std::move(t))), Status::Ok();
  }
  int AddConstant(const std::string& base, ir::HostTensor t) override {
    return graph_.AddConstant(graph_.UniqueName(base), std::move(t));
  }
  int AddTemp(const std::string& base) override {
    ir::Value v;
    v.name = graph_.UniqueName(base);
    return graph_.AddValue(v);
  }
  bool IsUsed(const std::string& name) const override { return used.count(name) > 0; }
  Status Emit(ir::Node node) override {
    emitted.push_back(std::move(node));
    return Status::Ok();
  }

  std::vector<int64_t> ConstInts(int id) { return graph_.value(id).constant->ToInts(); }

  std::map<std::string, int> ids;
  std::set<std::string> used;
  std::vector<ir::Node> emitted;

 private:
  ir::Graph graph_;
  TensorLimits limits_;
};

onnx::NodeProto Node(const std::string& op, std::vector<std::string> in,
                     std::vector<std::string> out) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (auto& s : in) n.add_input(s);
  for (auto& s : out) n.add_output(s);
  return n;
}

void AddInts(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

void AddInt(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

TEST(OnnxLowering, AxesAttributeBecomesInput) {
  FakeContext ctx;
  onnx::NodeProto n = Node("Unsqueeze", {"x"}, {"y"});
  AddInts(n, "axes", {0, 4});
  ASSERT_TRUE(LowerNode(n, "u", 11, ctx).ok());
  ASSERT_EQ(ctx.emitted.size(), 1u);
  const ir::Node& u = ctx.emitted[0];
  EXPECT_EQ(u.name, "u");
  EXPECT_FALSE(u.HasAttr("axes"));
  ASSERT_EQ(u.inputs.size(), 2u);
  EXPECT_EQ(ctx.ConstInts(u.inputs[1]), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(ctx.graph().value(u.inputs[1]).name, "u_axes");

  // Opset 13 keeps the input form as it is; ReduceMean keeps the attribute
  // until opset 18, so it is moved at opset 17 too.
  FakeContext ctx2;
  onnx::NodeProto r = Node("ReduceMean", {"x"}, {"y"});
  AddInts(r, "axes", {1});
  AddInt(r, "keepdims", 0);
  ASSERT_TRUE(LowerNode(r, "r", 17, ctx2).ok());
  EXPECT_EQ(ctx2.ConstInts(ctx2.emitted[0].inputs[1]), (std::vector<int64_t>{1}));
  EXPECT_EQ(std::get<int64_t>(ctx2.emitted[0].attrs.at("keepdims")), 0);

  FakeContext ctx3;
  onnx::NodeProto s = Node("ReduceSum", {"x", ""}, {"y"});
  ASSERT_TRUE(LowerNode(s, "s", 13, ctx3).ok());
  EXPECT_EQ(ctx3.emitted[0].inputs.size(), 1u);  // trailing omitted input dropped
}

TEST(OnnxLowering, ClipAndPadAttributesBecomeInputs) {
  FakeContext ctx;
  onnx::NodeProto c = Node("Clip", {"x"}, {"y"});
  auto* lo = c.add_attribute();
  lo->set_name("min");
  lo->set_type(onnx::AttributeProto::FLOAT);
  lo->set_f(-1);
  ASSERT_TRUE(LowerNode(c, "c", 6, ctx).ok());
  const ir::Node& clip = ctx.emitted[0];
  ASSERT_EQ(clip.inputs.size(), 2u);
  EXPECT_EQ(ctx.graph().value(clip.inputs[1]).constant->GetDouble(0), -1.0);
  EXPECT_TRUE(ctx.graph().value(clip.inputs[1]).shape.empty());

  onnx::NodeProto p = Node("Pad", {"x"}, {"z"});
  AddInts(p, "pads", {0, 1, 0, 0, 1, 0});
  ASSERT_TRUE(LowerNode(p, "p", 2, ctx).ok());
  const ir::Node& pad = ctx.emitted[1];
  ASSERT_EQ(pad.inputs.size(), 2u);
  EXPECT_EQ(ctx.ConstInts(pad.inputs[1]), (std::vector<int64_t>{0, 1, 0, 0, 1, 0}));
}

TEST(OnnxLowering, UpsampleBecomesResize) {
  FakeContext ctx;
  ctx.ids["scales"] = ctx.graph().AddConstant("scales", ir::HostTensor::Zeros(DType::kFloat32, {3}));
  onnx::NodeProto n = Node("Upsample", {"x", "scales"}, {"y"});
  ASSERT_TRUE(LowerNode(n, "up", 9, ctx).ok());
  const ir::Node& r = ctx.emitted[0];
  EXPECT_EQ(r.op, "Resize");
  EXPECT_EQ(r.inputs, (std::vector<int>{ctx.ids["x"], ir::kNoValue, ctx.ids["scales"]}));
  EXPECT_EQ(std::get<std::string>(r.attrs.at("coordinate_transformation_mode")), "asymmetric");
  EXPECT_EQ(std::get<std::string>(r.attrs.at("nearest_mode")), "floor");

  // Opset 7: scales is an attribute.
  onnx::NodeProto old = Node("Upsample", {"x"}, {"z"});
  auto* a = old.add_attribute();
  a->set_name("scales");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float f : {1.0f, 2.0f, 3.0f}) a->add_floats(f);
  ASSERT_TRUE(LowerNode(old, "up7", 7, ctx).ok());
  const ir::Node& r7 = ctx.emitted[1];
  EXPECT_EQ(r7.op, "Resize");
  ASSERT_EQ(r7.inputs.size(), 3u);
  EXPECT_EQ(r7.inputs[1], ir::kNoValue);
  EXPECT_FALSE(r7.HasAttr("scales"));
  const ir::HostTensor& scales = *ctx.graph().value(r7.inputs[2]).constant;
  EXPECT_EQ(scales.dtype, DType::kFloat32);
  EXPECT_EQ(scales.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(scales.GetDouble(2), 3.0);
}

TEST(OnnxLowering, OldSoftmaxIsReshapedTo2D) {
  FakeContext ctx;
  onnx::NodeProto n = Node("Softmax", {"x"}, {"y"});
  AddInt(n, "axis", 1);
  ASSERT_TRUE(LowerNode(n, "sm", 11, ctx).ok());
  ASSERT_EQ(ctx.emitted.size(), 3u);
  EXPECT_EQ(ctx.emitted[0].op, "Reshape");
  EXPECT_EQ(ctx.ConstInts(ctx.emitted[0].inputs[1]), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(ctx.emitted[1].op, "Softmax");
  EXPECT_EQ(std::get<int64_t>(ctx.emitted[1].attrs.at("axis")), -1);
  EXPECT_EQ(ctx.emitted[2].op, "Reshape");
  EXPECT_EQ(ctx.ConstInts(ctx.emitted[2].inputs[1]), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(ctx.emitted[2].outputs[0], ctx.ids["y"]);

  // The last axis needs no reshape.
  FakeContext last;
  onnx::NodeProto l = Node("LogSoftmax", {"x"}, {"y"});
  AddInt(l, "axis", 2);
  ASSERT_TRUE(LowerNode(l, "ls", 11, last).ok());
  ASSERT_EQ(last.emitted.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(last.emitted[0].attrs.at("axis")), -1);
}

TEST(OnnxLowering, UnusedOptionalOutputsAreDropped) {
  FakeContext ctx;
  ASSERT_TRUE(LowerNode(Node("Dropout", {"x"}, {"y", "mask"}), "d", 13, ctx).ok());
  EXPECT_EQ(ctx.emitted[0].outputs.size(), 1u);

  FakeContext used;
  used.used.insert("mask");
  ASSERT_TRUE(LowerNode(Node("Dropout", {"x"}, {"y", "mask"}), "d", 13, used).ok());
  EXPECT_EQ(used.emitted[0].outputs.size(), 2u);
}

TEST(OnnxLowering, BatchNormalizationInferenceOnly) {
  FakeContext ctx;
  onnx::NodeProto n = Node("BatchNormalization", {"x", "x", "x", "x", "x"}, {"y"});
  AddInt(n, "training_mode", 1);
  EXPECT_EQ(LowerNode(n, "bn", 15, ctx).ToString(),
            "unimplemented: node 'bn' (BatchNormalization): training_mode=1 is not supported "
            "(inference only)");

  FakeContext stats;
  stats.used.insert("mean");
  EXPECT_EQ(LowerNode(Node("BatchNormalization", {"x", "x", "x", "x", "x"}, {"y", "mean"}), "bn",
                      13, stats)
                .ToString(),
            "unimplemented: node 'bn' (BatchNormalization): outputs other than Y (training "
            "statistics) are not supported (inference only)");
}

// Attributes the compiler's passes set (codegen/ir/graph.h
// IsCompilerAttribute) cannot come from a model.
TEST(OnnxLowering, CompilerAttributesAreRefused) {
  FakeContext ctx;
  onnx::NodeProto n = Node("Conv", {"x", "x", "x", "x"}, {"y"});
  AddInt(n, "mlf.residual", 1);
  EXPECT_EQ(LowerNode(n, "c", 13, ctx).ToString(),
            "invalid_argument: node 'c' (Conv): attribute 'mlf.residual': names starting with "
            "'mlf.' are reserved for mlfkit's compiler");
}

TEST(OnnxLowering, Constants) {
  FakeContext ctx;
  onnx::NodeProto f = Node("Constant", {}, {"c"});
  auto* a = f.add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  a->add_floats(1.5f);
  a->add_floats(2);
  ASSERT_TRUE(LowerNode(f, "k", 13, ctx).ok());
  EXPECT_TRUE(ctx.emitted.empty());
  const ir::Value& c = ctx.graph().value(ctx.ids["c"]);
  ASSERT_TRUE(c.is_constant());
  EXPECT_EQ(c.dtype, DType::kFloat32);
  EXPECT_EQ(c.constant->GetDouble(1), 2.0);

  onnx::NodeProto i = Node("Constant", {}, {"i"});
  AddInt(i, "value_int", -3);
  ASSERT_TRUE(LowerNode(i, "k2", 13, ctx).ok());
  EXPECT_EQ(ctx.graph().value(ctx.ids["i"]).constant->ToInts(), (std::vector<int64_t>{-3}));

  onnx::NodeProto s = Node("Constant", {}, {"s"});
  auto* sa = s.add_attribute();
  sa->set_name("value_string");
  sa->set_type(onnx::AttributeProto::STRING);
  sa->set_s("hi");
  EXPECT_EQ(LowerNode(s, "k3", 13, ctx).ToString(),
            "unimplemented: node 'k3' (Constant): string constants are not supported");
}

TEST(OnnxLowering, Errors) {
  FakeContext ctx;
  onnx::NodeProto ml = Node("Normalizer", {"x"}, {"y"});
  ml.set_domain("ai.onnx.ml");
  EXPECT_EQ(LowerNode(ml, "n", 13, ctx).ToString(),
            "unimplemented: node 'n' (Normalizer): domain 'ai.onnx.ml' is not supported; mlfkit "
            "compiles operators of the default ONNX domain only");

  onnx::NodeProto map = Node("SequenceMap", {"x"}, {"y"});
  auto* g = map.add_attribute();
  g->set_name("body");
  g->set_type(onnx::AttributeProto::GRAPH);
  EXPECT_EQ(LowerNode(map, "map", 17, ctx).ToString(),
            "unimplemented: node 'map' (SequenceMap): attribute 'body' is a subgraph; only If, "
            "Loop and Scan take subgraphs, unrolled at export");

  onnx::NodeProto t = Node("ConstantOfShape", {"x"}, {"y"});
  auto* ta = t.add_attribute();
  ta->set_name("value");
  ta->set_type(onnx::AttributeProto::TENSOR);
  ta->mutable_t()->set_data_type(onnx::TensorProto::STRING);
  EXPECT_EQ(LowerNode(t, "cos", 13, ctx).ToString(),
            "unimplemented: node 'cos' (ConstantOfShape): attribute 'value': unnamed tensor: ONNX "
            "dtype STRING is not supported");

  EXPECT_EQ(LowerNode(Node("Relu", {"nope"}, {"y"}), "r", 13, ctx).ToString(),
            "invalid_argument: node 'r' (Relu): no 'nope'");
}

}  // namespace
}  // namespace mlf::frontend
