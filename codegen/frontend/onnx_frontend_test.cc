#include "codegen/frontend/onnx_frontend.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <fstream>

#include "codegen/frontend/tensor_proto.h"
#include "codegen/ops/op.h"

namespace mlf::frontend {
namespace {

constexpr int64_t kDyn = -1;  // a dim_param "N"

// Builds small ONNX models in memory.
class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13, int64_t ir_version = 8) {
    model_.set_ir_version(ir_version);
    model_.set_producer_name("mlfkit-test");
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("g");
  }

  onnx::ModelProto& model() { return model_; }

  void Input(const std::string& name, int32_t type, std::vector<int64_t> dims) {
    SetType(model_.mutable_graph()->add_input(), name, type, dims);
  }
  void Output(const std::string& name, int32_t type, std::vector<int64_t> dims) {
    SetType(model_.mutable_graph()->add_output(), name, type, dims);
  }
  void Initializer(const std::string& name, const ir::HostTensor& t) {
    *model_.mutable_graph()->add_initializer() = ToTensorProto(t, name);
  }
  onnx::NodeProto* Node(const std::string& op, std::vector<std::string> in,
                        std::vector<std::string> out, const std::string& name = "") {
    onnx::NodeProto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
  void ImportDomain(const std::string& domain, int64_t version) {
    auto* o = model_.add_opset_import();
    o->set_domain(domain);
    o->set_version(version);
  }
  std::string Bytes() const { return model_.SerializeAsString(); }

 private:
  static void SetType(onnx::ValueInfoProto* v, const std::string& name, int32_t type,
                      const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      if (d == kDyn) {
        shape->add_dim()->set_dim_param("N");
      } else if (d == -2) {
        shape->add_dim();
      } else {
        shape->add_dim()->set_dim_value(d);
      }
    }
  }

  onnx::ModelProto model_;
};

void AddInts(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

void AddInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

std::string Error(const std::string& bytes, const OnnxImportOptions& options = {}) {
  Result<ir::Graph> g = ImportOnnx(bytes, options);
  return g.ok() ? "ok" : g.status().ToString();
}

const int32_t kFloat = onnx::TensorProto::FLOAT;
const int32_t kInt64 = onnx::TensorProto::INT64;

// x[N, 3] -> Shape -> y: imports without any registered operator.
ModelBuilder ShapeModel() {
  ModelBuilder b;
  b.Input("x", kFloat, {kDyn, 3});
  b.Node("Shape", {"x"}, {"y"}, "shape");
  b.Output("y", kInt64, {2});
  return b;
}

TEST(OnnxFrontend, NotAProtobuf) {
  EXPECT_EQ(Error(std::string("\xff\xff\xff", 3)),
            "invalid_argument: not an ONNX model: the bytes do not parse as an ONNX ModelProto");
}

// Names may be any printable text; a control character in a node, value or
// initializer name is refused before the checker (which would quote it).
TEST(OnnxFrontend, NamesWithControlCharactersAreRefused) {
  ModelBuilder node = ShapeModel();
  node.model().mutable_graph()->mutable_node(0)->set_name("r\n$(shell echo X > PWNED)\n#");
  EXPECT_EQ(
      Error(node.Bytes()),
      "invalid_argument: node 0: name 'r\\x0a$(shell echo X > PWNED)\\x0a#' contains a control "
      "character (U+000A); names must be printable");
  ModelBuilder input = ShapeModel();
  input.model().mutable_graph()->mutable_node(0)->set_input(0, "x\r");
  EXPECT_EQ(Error(input.Bytes()),
            "invalid_argument: node 0: input 0 'x\\x0d' contains a control character (U+000D); "
            "names must be printable");
  ModelBuilder graph_input = ShapeModel();
  graph_input.model().mutable_graph()->mutable_input(0)->set_name("\x1b[2Kx");
  EXPECT_EQ(Error(graph_input.Bytes()),
            "invalid_argument: graph input 0: name '\\x1b[2Kx' contains a control character "
            "(U+001B); names must be printable");
  ModelBuilder init = ShapeModel();
  init.Initializer("w\x7f", ir::HostTensor::Zeros(DType::kFloat32, {1}));
  EXPECT_EQ(Error(init.Bytes()),
            "invalid_argument: initializer 0: name 'w\\x7f' contains a control character "
            "(U+007F); names must be printable");
  ModelBuilder printable = ShapeModel();
  printable.model().mutable_graph()->mutable_node(0)->set_name("r */ $(x) `y` ?\?/ \\");
  OnnxImportOptions fixed;
  fixed.input_shapes["x"] = {2, 3};
  EXPECT_EQ(Error(printable.Bytes(), fixed), "ok");
}

TEST(OnnxFrontend, CheckerFailure) {
  ModelBuilder b = ShapeModel();
  b.model().clear_ir_version();
  EXPECT_EQ(Error(b.Bytes()),
            "invalid_argument: the ONNX model is invalid: The model does not have an ir_version "
            "set properly.");
}

TEST(OnnxFrontend, SizeAndNodeBounds) {
  const std::string bytes = ShapeModel().Bytes();
  OnnxImportOptions small;
  small.max_model_bytes = 10;
  EXPECT_EQ(Error(bytes, small), "out_of_range: the ONNX model is " +
                                     std::to_string(bytes.size()) +
                                     " bytes, more than the limit of 10 bytes");

  ModelBuilder two;
  two.Input("x", kFloat, {2, 3});
  two.Node("Shape", {"x"}, {"s"});
  two.Node("Size", {"x"}, {"n"});
  two.Output("s", kInt64, {2});
  two.Output("n", kInt64, {});
  OnnxImportOptions one_node;
  one_node.max_nodes = 1;
  EXPECT_EQ(Error(two.Bytes(), one_node),
            "out_of_range: the ONNX graph has 2 nodes, more than the limit of 1");
  EXPECT_EQ(Error(two.Bytes()), "ok");
}

TEST(OnnxFrontend, TensorBounds) {
  ModelBuilder rank;
  rank.Input("x", kFloat, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  rank.Node("Shape", {"x"}, {"y"});
  rank.Output("y", kInt64, {9});
  EXPECT_EQ(Error(rank.Bytes()), "out_of_range: input 'x': rank 9 is more than the limit of 8");

  OnnxImportOptions few;
  few.tensor_limits.max_elements = 5;
  EXPECT_EQ(Error(ShapeModel().Bytes(), [&] {
              OnnxImportOptions o = few;
              o.input_shapes["x"] = {2, 3};
              return o;
            }()),
            "out_of_range: OnnxImportOptions::input_shapes 'x': shape [2, 3] has more elements than the limit of 5");

  ModelBuilder init;
  init.Initializer("w", ir::HostTensor::Zeros(DType::kFloat32, {3, 3}));
  init.Output("w", kFloat, {3, 3});
  EXPECT_EQ(Error(init.Bytes(), few),
            "out_of_range: tensor 'w': shape [3, 3] has more elements than the limit of 5");
}

TEST(OnnxFrontend, DynamicDims) {
  EXPECT_EQ(Error(ShapeModel().Bytes()),
            "invalid_argument: input 'x': dimension 0 ('N') is symbolic; fix it with "
            "OnnxImportOptions::input_shapes x=1,3");

  ModelBuilder unknown;
  unknown.Input("x", kFloat, {2, -2});
  unknown.Node("Shape", {"x"}, {"y"});
  unknown.Output("y", kInt64, {2});
  EXPECT_EQ(Error(unknown.Bytes()),
            "invalid_argument: input 'x': dimension 1 is symbolic; fix it with "
            "OnnxImportOptions::input_shapes x=2,1");

  OnnxImportOptions fixed;
  fixed.input_shapes["x"] = {4, 3};
  Result<ir::Graph> g = ImportOnnx(ShapeModel().Bytes(), fixed);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(g->nodes.empty());
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->value(g->inputs[0]).shape, (std::vector<int64_t>{4, 3}));
  ASSERT_EQ(g->outputs.size(), 1u);
  const ir::Value& y = g->value(g->outputs[0]);
  EXPECT_EQ(y.name, "y");
  ASSERT_TRUE(y.is_constant());
  EXPECT_EQ(y.constant->ToInts(), (std::vector<int64_t>{4, 3}));

  OnnxImportOptions wrong_name;
  wrong_name.input_shapes["z"] = {1};
  EXPECT_EQ(Error(ShapeModel().Bytes(), wrong_name),
            "invalid_argument: OnnxImportOptions::input_shapes names 'z', which is not an input of the model");
  OnnxImportOptions wrong_rank;
  wrong_rank.input_shapes["x"] = {1, 2, 3};
  EXPECT_EQ(Error(ShapeModel().Bytes(), wrong_rank),
            "invalid_argument: OnnxImportOptions::input_shapes gives input 'x' the shape [1, 2, 3], but the model "
            "says it has rank 2");
}

TEST(OnnxFrontend, UnsupportedDTypeAndKinds) {
  ModelBuilder s;
  s.Input("s", onnx::TensorProto::STRING, {2});
  s.Node("Shape", {"s"}, {"y"});
  s.Output("y", kInt64, {1});
  EXPECT_EQ(Error(s.Bytes()), "unimplemented: input 's': ONNX dtype STRING is not supported");

  ModelBuilder seq;
  auto* in = seq.model().mutable_graph()->add_input();
  in->set_name("q");
  in->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
      ->set_elem_type(kFloat);
  seq.Node("SequenceLength", {"q"}, {"n"});
  seq.Output("n", kInt64, {});
  EXPECT_EQ(Error(seq.Bytes()),
            "unimplemented: input 'q' is not a tensor (sequences, maps and optionals are not "
            "supported)");
}

// RandomUniformLike (a random-number op) is not an operator of this build; if it is ever
// registered, pick another one the registry lacks.
TEST(OnnxFrontend, UnsupportedOp) {
  ASSERT_EQ(ops::FindOp("RandomUniformLike"), nullptr);
  ModelBuilder b;
  b.Input("x", kFloat, {3, 3});
  b.Node("RandomUniformLike", {"x"}, {"y"}, "random");
  b.Output("y", kFloat, {3, 3});
  EXPECT_EQ(Error(b.Bytes()),
            "unimplemented: node 'random' (RandomUniformLike): operator RandomUniformLike is not "
            "supported: it draws random numbers, and a compiled model gives the same outputs for "
            "the same inputs");
}

TEST(OnnxFrontend, UnsupportedDomain) {
  ModelBuilder b;
  b.ImportDomain("ai.onnx.ml", 1);
  b.Input("x", kFloat, {2, 3});
  onnx::NodeProto* n = b.Node("Normalizer", {"x"}, {"y"});
  n->set_domain("ai.onnx.ml");
  auto* norm = n->add_attribute();
  norm->set_name("norm");
  norm->set_type(onnx::AttributeProto::STRING);
  norm->set_s("MAX");
  b.Output("y", kFloat, {2, 3});
  EXPECT_EQ(Error(b.Bytes()),
            "unimplemented: node 'Normalizer_0' (Normalizer): domain 'ai.onnx.ml' is not "
            "supported; mlfkit compiles operators of the default ONNX domain only");
}

TEST(OnnxFrontend, TrainingDomainIsRefusedAsTraining) {
  ModelBuilder b;
  b.ImportDomain("ai.onnx.preview.training", 1);
  b.Input("x", kFloat, {2});
  b.Input("g", kFloat, {2});
  onnx::NodeProto* n = b.Node("Momentum", {"x", "g"}, {"y"});
  n->set_domain("ai.onnx.preview.training");
  b.Output("y", kFloat, {2});
  EXPECT_EQ(Error(b.Bytes()),
            "unimplemented: node 'Momentum_0' (Momentum): domain 'ai.onnx.preview.training' holds "
            "training operators; mlfkit compiles inference only");
}

TEST(OnnxFrontend, Opsets) {
  ModelBuilder newer(18);
  newer.Input("x", kFloat, {2});
  newer.Node("Shape", {"x"}, {"y"});
  newer.Output("y", kInt64, {1});
  EXPECT_EQ(Error(newer.Bytes()),
            "failed_precondition: the ONNX model uses opset 18; mlfkit supports opsets up to 17: "
            "re-export it with opset 17 or lower (torch.onnx.export(..., opset_version=17))");

  ModelBuilder none;
  none.model().clear_opset_import();
  none.ImportDomain("ai.onnx.ml", 1);
  none.Initializer("w", ir::HostTensor::Zeros(DType::kFloat32, {1}));
  none.Output("w", kFloat, {1});
  EXPECT_EQ(Error(none.Bytes()),
            "invalid_argument: the ONNX model does not import the default ONNX domain (no "
            "opset_import for \"\")");

  // Split had no adapter from opset 1 to 2 in ONNX's version converter.
  ModelBuilder old(1, 3);
  old.Input("x", kFloat, {4});
  old.Node("Split", {"x"}, {"a", "b"});
  old.Output("a", kFloat, {2});
  old.Output("b", kFloat, {2});
  EXPECT_EQ(Error(old.Bytes()),
            "failed_precondition: cannot convert the ONNX model from opset 1 to opset 13: No "
            "Adapter From Version $1 for Split");

  // An old model that converts: Shape is unchanged; info reports the source.
  ModelBuilder v7(7, 3);
  v7.Input("x", kFloat, {2, 5});
  v7.Node("Shape", {"x"}, {"y"});
  v7.Output("y", kInt64, {2});
  OnnxModelInfo info;
  Result<ir::Graph> g = ImportOnnx(v7.Bytes(), {}, &info);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(info.opset, 7);
  EXPECT_TRUE(info.converted);
  EXPECT_EQ(info.producer_name, "mlfkit-test");
  EXPECT_EQ(g->value(g->outputs[0]).constant->ToInts(), (std::vector<int64_t>{2, 5}));
}

TEST(OnnxFrontend, ConstantsStayOutputs) {
  ModelBuilder b(13, 3);
  ir::HostTensor w = ir::HostTensor::Zeros(DType::kFloat32, {2});
  w.data<float>()[1] = 7;
  b.Initializer("w", w);
  b.Input("w", kFloat, {2});  // an input that is also an initializer: a constant
  onnx::NodeProto* c = b.Node("Constant", {}, {"c"});
  AddInts(c, "value_ints", {3, 4, 5});
  onnx::NodeProto* f = b.Node("Constant", {}, {"f"});
  auto* a = f->add_attribute();
  a->set_name("value_float");
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(0.5f);
  b.Output("w", kFloat, {2});
  b.Output("c", kInt64, {3});
  b.Output("f", kFloat, {});
  Result<ir::Graph> g = ImportOnnx(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(g->inputs.empty());
  EXPECT_TRUE(g->nodes.empty());
  ASSERT_EQ(g->outputs.size(), 3u);
  EXPECT_EQ(g->value(g->outputs[0]).constant->GetDouble(1), 7.0);
  EXPECT_EQ(g->value(g->outputs[1]).constant->ToInts(), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(g->value(g->outputs[2]).dtype, DType::kFloat32);
  EXPECT_EQ(g->value(g->outputs[2]).constant->GetDouble(0), 0.5);
  EXPECT_EQ(g->values.size(), 3u);
}

TEST(OnnxFrontend, ShapeWithStartEndAndSize) {
  ModelBuilder b(15);
  b.Input("x", kFloat, {2, 3, 4, 5});
  onnx::NodeProto* s = b.Node("Shape", {"x"}, {"s"});
  AddInt(s, "start", 1);
  AddInt(s, "end", -1);
  b.Node("Size", {"x"}, {"n"});
  b.Output("s", kInt64, {2});
  b.Output("n", kInt64, {});
  Result<ir::Graph> g = ImportOnnx(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->value(g->outputs[0]).constant->ToInts(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(g->value(g->outputs[1]).constant->ToInts(), (std::vector<int64_t>{120}));
  ASSERT_EQ(g->inputs.size(), 1u);  // unused inputs stay: they are the interface
}

// If, Loop and Scan are unrolled (onnx_control_flow_test.cc); a condition
// that is a graph input must be given as a constant.
TEST(OnnxFrontend, IfConditionMustBeKnown) {
  ModelBuilder b;
  b.Input("c", onnx::TensorProto::BOOL, {});
  onnx::NodeProto* n = b.Node("If", {"c"}, {"y"}, "branch");
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = a->mutable_g();
    g->set_name(name);
    auto* k = g->add_node();
    k->set_op_type("Constant");
    k->add_output(std::string(name) + "_out");
    auto* v = k->add_attribute();
    v->set_name("value_float");
    v->set_type(onnx::AttributeProto::FLOAT);
    v->set_f(1);
    auto* out = g->add_output();
    out->set_name(std::string(name) + "_out");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(kFloat);
    out->mutable_type()->mutable_tensor_type()->mutable_shape();
  }
  b.Output("y", kFloat, {});
  EXPECT_EQ(Error(b.Bytes()),
            "invalid_argument: node 'branch' (If): input 0 (cond) must be a constant: the branch "
            "taken is chosen at export (it is graph input 'c': give its value with "
            "OnnxImportOptions::constant_inputs c=FILE.npy)");
}

TEST(OnnxFrontend, ImportFile) {
  const std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  const std::string path = dir + "/shape.onnx";
  const std::string bytes = ShapeModel().Bytes();
  std::ofstream(path, std::ios::binary) << bytes;
  OnnxImportOptions options;
  options.input_shapes["x"] = {1, 3};
  Result<ir::Graph> g = ImportOnnxFile(path, options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();

  options.max_model_bytes = 10;
  EXPECT_EQ(ImportOnnxFile(path, options).status().ToString(),
            "out_of_range: '" + path + "': the ONNX model is " + std::to_string(bytes.size()) +
                " bytes, more than the limit of 10 bytes");
  EXPECT_EQ(ImportOnnxFile(dir + "/missing.onnx").status().ToString(),
            "io_error: cannot read '" + dir + "/missing.onnx': No such file or directory");
  EXPECT_EQ(ImportOnnxFile(path).status().ToString(),
            "invalid_argument: " + path + ": input 'x': dimension 0 ('N') is symbolic; fix it "
            "with OnnxImportOptions::input_shapes x=1,3");
}

TEST(OnnxFrontend, FoldsPyTorchReshapeChain) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1]))
  ModelBuilder b;
  b.Input("x", kFloat, {2, 3, 4});
  b.Node("Shape", {"x"}, {"shape"});
  ir::HostTensor zero = ir::HostTensor::Zeros(DType::kInt64, {});
  b.Initializer("zero", zero);
  b.Node("Gather", {"shape", "zero"}, {"batch"});
  ir::HostTensor axes = ir::HostTensor::Zeros(DType::kInt64, {1});
  b.Initializer("axes", axes);
  b.Node("Unsqueeze", {"batch", "axes"}, {"batch1"});
  ir::HostTensor minus1 = ir::HostTensor::Zeros(DType::kInt64, {1});
  minus1.data<int64_t>()[0] = -1;
  b.Initializer("minus1", minus1);
  onnx::NodeProto* cat = b.Node("Concat", {"batch1", "minus1"}, {"target"});
  AddInt(cat, "axis", 0);
  b.Node("Reshape", {"x", "target"}, {"y"}, "reshape");
  b.Output("y", kFloat, {2, 12});
  Result<ir::Graph> g = ImportOnnx(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, "Reshape");
  EXPECT_EQ(g->value(g->nodes[0].inputs[1]).constant->ToInts(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(g->value(g->outputs[0]).shape, (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(g->values.size(), 3u);  // x, the folded shape, y: the rest is pruned
}

TEST(OnnxFrontend, SmallModelWithOps) {
  ModelBuilder b;
  b.Input("x", kFloat, {2, 3});
  b.Node("Relu", {"x"}, {"y"}, "relu");
  b.Node("Relu", {"y"}, {"z"});
  b.Output("z", kFloat, {2, 3});
  Result<ir::Graph> g = ImportOnnx(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].name, "relu");
  EXPECT_EQ(g->nodes[1].name, "Relu_1");
  EXPECT_EQ(g->value(g->outputs[0]).name, "z");
}

TEST(OnnxFrontend, ConstantHintNamesTheGraphInputsAShapeIsComputedFrom) {
  // x[2, 3]; Reshape's shape is s + t: both must be frozen.
  ModelBuilder b;
  b.Input("x", kFloat, {2, 3});
  b.Input("s", kInt64, {2});
  b.Input("t", kInt64, {2});
  b.Node("Add", {"s", "t"}, {"st"}, "add");
  b.Node("Reshape", {"x", "st"}, {"y"}, "reshape");
  b.Output("y", kFloat, {-2, -2});
  EXPECT_EQ(Error(b.Bytes()),
            "invalid_argument: node 'reshape' (Reshape): input 1 (shape) must be a constant (it is "
            "computed from graph inputs 's', 't': give their values with "
            "OnnxImportOptions::constant_inputs s=FILE.npy OnnxImportOptions::constant_inputs "
            "t=FILE.npy)");
  OnnxImportOptions options;
  options.constant_inputs["s"] = ir::HostTensor::Zeros(DType::kInt64, {2});
  EXPECT_EQ(Error(b.Bytes(), options),
            "invalid_argument: node 'reshape' (Reshape): input 1 (shape) must be a constant (it is "
            "computed from graph input 't': give its value with OnnxImportOptions::constant_inputs "
            "t=FILE.npy)");
}

TEST(OnnxFrontend, ConstantInputs) {
  // x[2, 3], s[2] -> Reshape -> y: `s` must be frozen to compile.
  ModelBuilder b;
  b.Input("x", kFloat, {2, 3});
  b.Input("s", kInt64, {2});
  b.Node("Reshape", {"x", "s"}, {"y"}, "reshape");
  b.Output("y", kFloat, {-2, -2});
  ir::HostTensor shape = ir::HostTensor::Zeros(DType::kInt64, {2});
  shape.data<int64_t>()[0] = 3;
  shape.data<int64_t>()[1] = 2;
  OnnxImportOptions options;
  options.constant_inputs["s"] = shape;
  EXPECT_EQ(Error(b.Bytes()),
            "invalid_argument: node 'reshape' (Reshape): input 1 (shape) must be a constant (it is "
            "graph input 's': give its value with OnnxImportOptions::constant_inputs s=FILE.npy)");
  Result<ir::Graph> g = ImportOnnx(b.Bytes(), options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->value(g->inputs[0]).name, "x");
  EXPECT_EQ(g->value(g->outputs[0]).shape, (std::vector<int64_t>{3, 2}));
  OnnxImportOptions wrong_name;
  wrong_name.constant_inputs["z"] = shape;
  EXPECT_EQ(Error(b.Bytes(), wrong_name),
            "invalid_argument: OnnxImportOptions::constant_inputs names 'z', which is not an input of the model");
  OnnxImportOptions wrong_type;
  wrong_type.constant_inputs["s"] = ir::HostTensor::Zeros(DType::kInt32, {2});
  EXPECT_EQ(Error(b.Bytes(), wrong_type),
            "invalid_argument: OnnxImportOptions::constant_inputs 's' is int32 [2], but the model declares INT64 [2]");
  OnnxImportOptions wrong_shape;
  wrong_shape.constant_inputs["s"] = ir::HostTensor::Zeros(DType::kInt64, {3});
  EXPECT_EQ(Error(b.Bytes(), wrong_shape),
            "invalid_argument: OnnxImportOptions::constant_inputs 's' is int64 [3], but the model declares INT64 [2]");
}

// ONNX's converter turns Upsample (opset 9) into Resize with Resize-11's
// default half_pixel coordinates; Upsample's are asymmetric. The front end
// sets them, so linear upsampling keeps its values.
TEST(OnnxFrontend, UpsampleKeepsAsymmetricCoordinates) {
  ModelBuilder b(9, 4);
  b.Input("x", kFloat, {1, 1, 2, 2});
  ir::HostTensor scales = ir::HostTensor::Zeros(DType::kFloat32, {4});
  for (int i = 0; i < 4; ++i) scales.data<float>()[i] = i < 2 ? 1 : 2;
  b.Initializer("scales", scales);
  onnx::NodeProto* up = b.Node("Upsample", {"x", "scales"}, {"y"}, "up");
  auto* mode = up->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("linear");
  b.Output("y", kFloat, {1, 1, 4, 4});
  Result<ir::Graph> g = ImportOnnx(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].op, "Resize");
  EXPECT_EQ(g->nodes[0].String("coordinate_transformation_mode", "").value(), "asymmetric");
  ir::HostTensor x = ir::HostTensor::Zeros(DType::kFloat32, {1, 1, 2, 2});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  std::vector<const ir::HostTensor*> in;
  for (int id : g->nodes[0].inputs) {
    in.push_back(id == ir::kNoValue ? nullptr : id == g->inputs[0] ? &x : &*g->value(id).constant);
  }
  std::vector<ir::HostTensor> out;
  ASSERT_TRUE(ops::EvaluateNode(g->nodes[0], in, &out).ok());
  const float want[] = {1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4};
  for (int i = 0; i < 16; ++i) EXPECT_FLOAT_EQ(out[0].data<float>()[i], want[i]) << i;
}

// PRelu before opset 7 applied a slope [C] per channel (PyTorch's
// PReLU(num_parameters=C)); the front end reshapes it to [C, 1] so that it
// still does after the conversion to opset 13's broadcasting.
TEST(OnnxFrontend, OldPReluSlopeIsPerChannel) {
  ModelBuilder b(6, 3);
  b.Input("x", kFloat, {1, 3, 2});
  ir::HostTensor slope = ir::HostTensor::Zeros(DType::kFloat32, {3});
  for (int i = 0; i < 3; ++i) slope.data<float>()[i] = static_cast<float>(i + 1);
  b.Initializer("slope", slope);
  b.Input("slope", kFloat, {3});  // IR 3 lists initializers as inputs too
  b.Node("PRelu", {"x", "slope"}, {"y"}, "p");
  b.Output("y", kFloat, {1, 3, 2});
  Result<ir::Graph> g = ImportOnnx(b.Bytes());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->value(g->nodes[0].inputs[1]).shape, (std::vector<int64_t>{3, 1}));
  ir::HostTensor x = ir::HostTensor::Zeros(DType::kFloat32, {1, 3, 2});
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = -1;
  std::vector<ir::HostTensor> out;
  ASSERT_TRUE(ops::EvaluateNode(g->nodes[0], {&x, &*g->value(g->nodes[0].inputs[1]).constant}, &out).ok());
  const float want[] = {-1, -1, -2, -2, -3, -3};
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out[0].data<float>()[i], want[i]) << i;

  // A slope that is not of the channel count is left to broadcast as it is.
  ModelBuilder last(6, 3);
  last.Input("x", kFloat, {1, 2, 3});
  last.Initializer("slope", slope);
  last.Input("slope", kFloat, {3});
  last.Node("PRelu", {"x", "slope"}, {"y"}, "p");
  last.Output("y", kFloat, {1, 2, 3});
  Result<ir::Graph> h = ImportOnnx(last.Bytes());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->value(h->nodes[0].inputs[1]).shape, (std::vector<int64_t>{3}));
}

TEST(OnnxFrontend, DisagreementWithOnnxShapeInference) {
  // value_info claims c is [4]; the Constant makes it [3].
  ModelBuilder b;
  onnx::NodeProto* c = b.Node("Constant", {}, {"c"}, "k");
  AddInts(c, "value_ints", {1, 2, 3});
  b.Output("c", kInt64, {-2});
  onnx::ValueInfoProto* vi = b.model().mutable_graph()->add_value_info();
  vi->set_name("c");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(kInt64);
  vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  EXPECT_EQ(Error(b.Bytes()),
            "invalid_argument: node 'k' (Constant): output 'c' is int64 [3] by mlfkit's shape "
            "rules, but INT64 [4] by ONNX (declared in the model or inferred)");
}

// libonnx 1.12's inference of these operators reads out of bounds (most
// segfault) on ranks it assumes (onnx_shape_inference.h): such models are
// refused, naming the node, without crashing.
ModelBuilder ConvModel(const std::string& op, std::vector<int64_t> x, std::vector<int64_t> w) {
  ModelBuilder b;
  b.Input("x", kFloat, x);
  b.Initializer("w", ir::HostTensor::Zeros(DType::kFloat32, w));
  b.Node(op, {"x", "w"}, {"y"}, "conv");
  b.Output("y", kFloat, {-2});
  return b;
}

const char kInvalid[] = "invalid_argument: the ONNX model is invalid: ";

TEST(OnnxFrontend, ConvWeightRankDiffersFromInput) {
  const std::string node = std::string(kInvalid) + "node 'conv' ";
  EXPECT_EQ(Error(ConvModel("Conv", {1, 2, 5}, {4, 2, 3, 3}).Bytes()),
            node + "(Conv): W has rank 4 but X has rank 3; W must have the rank of X");
  EXPECT_EQ(Error(ConvModel("Conv", {1, 2, 5, 5}, {4, 2, 3}).Bytes()),
            node + "(Conv): W has rank 3 but X has rank 4; W must have the rank of X");
  EXPECT_EQ(Error(ConvModel("ConvTranspose", {1, 2, 5, 5}, {2, 4}).Bytes()),
            node + "(ConvTranspose): W has rank 2 but X has rank 4; W must have the rank of X");
  EXPECT_EQ(Error(ConvModel("ConvTranspose", {1, 2, 5}, {2, 4, 3, 3}).Bytes()),
            node + "(ConvTranspose): W has rank 4 but X has rank 3; W must have the rank of X");
}

TEST(OnnxFrontend, ConvIntegerWeightRankDiffersFromInput) {
  ModelBuilder b(10);
  b.Input("x", onnx::TensorProto::UINT8, {1, 2, 5});
  b.Initializer("w", ir::HostTensor::Zeros(DType::kUInt8, {4, 2, 3, 3}));
  b.Node("ConvInteger", {"x", "w"}, {"y"}, "conv");
  b.Output("y", onnx::TensorProto::INT32, {-2});
  EXPECT_EQ(Error(b.Bytes()), std::string(kInvalid) +
                                  "node 'conv' (ConvInteger): W has rank 4 but X has rank 3; W "
                                  "must have the rank of X");
}

TEST(OnnxFrontend, ConvRankMismatchOnComputedInput) {
  // X of rank 3 is known only from ONNX inference of the ReduceMean before it.
  ModelBuilder b;
  b.Input("x", kFloat, {1, 2, 5, 1});
  onnx::NodeProto* r = b.Node("ReduceMean", {"x"}, {"x3"}, "mean");
  AddInts(r, "axes", {3});
  AddInt(r, "keepdims", 0);
  b.Initializer("w", ir::HostTensor::Zeros(DType::kFloat32, {4, 2, 3, 3}));
  b.Node("Conv", {"x3", "w"}, {"y"}, "conv");
  // ConvTranspose whose W (the failed Conv's output) has no inferred type.
  b.Input("x4", kFloat, {1, 4, 5, 5});
  b.Node("ConvTranspose", {"x4", "y"}, {"z"}, "deconv");
  b.Output("z", kFloat, {-2});
  EXPECT_EQ(Error(b.Bytes()), std::string(kInvalid) +
                                  "node 'conv' (Conv): W has rank 4 but X has rank 3; W must "
                                  "have the rank of X");
}

TEST(OnnxFrontend, LayerNormalizationAndStftWithBadRanksAreRefused) {
  ModelBuilder ln(17);
  ln.Input("x", kFloat, {2, 3});
  ln.Initializer("s", ir::HostTensor::Zeros(DType::kFloat32, {3}));
  AddInt(ln.Node("LayerNormalization", {"x", "s"}, {"y", "mean", "inv"}, "ln"), "axis", -3);
  ln.Output("y", kFloat, {-2});
  EXPECT_EQ(Error(ln.Bytes()), std::string(kInvalid) +
                                   "node 'ln' (LayerNormalization): axis -3 is out of range for "
                                   "X of rank 2");

  ModelBuilder stft(17);
  stft.Input("x", kFloat, {8});
  stft.Initializer("step", ir::HostTensor::Zeros(DType::kInt64, {}));
  stft.Node("STFT", {"x", "step"}, {"y"}, "stft");
  stft.Output("y", kFloat, {-2});
  EXPECT_EQ(Error(stft.Bytes()),
            std::string(kInvalid) + "node 'stft' (STFT): signal has rank 1, expected 3");
}

// Old operator versions, inferred before the model is converted to opset 13:
// libonnx 1.12 read dims 0 and 1 whatever the rank (and its version converter
// would read the same shapes next).
TEST(OnnxFrontend, OldGemmAndGruWithLowRanksAreRefused) {
  ModelBuilder gemm(6, 3);
  gemm.Input("a", kFloat, {2, 3});
  gemm.Input("b", kFloat, {4});
  gemm.Input("c", kFloat, {4});
  gemm.Node("Gemm", {"a", "b", "c"}, {"y"}, "gemm");
  gemm.Output("y", kFloat, {2, 4});
  EXPECT_EQ(Error(gemm.Bytes()),
            std::string(kInvalid) + "node 'gemm' (Gemm): B has rank 1, expected 2");

  ModelBuilder gru(3, 3);
  gru.Input("x", kFloat, {4});
  gru.Input("w", kFloat, {1, 6, 4});
  gru.Input("r", kFloat, {1, 6, 2});
  AddInt(gru.Node("GRU", {"x", "w", "r"}, {"y"}, "gru"), "hidden_size", 2);
  gru.Output("x", kFloat, {4});
  EXPECT_EQ(Error(gru.Bytes()),
            std::string(kInvalid) + "node 'gru' (GRU): X has rank 1, expected 3");
}

}  // namespace
}  // namespace mlf::frontend

namespace mlf::frontend {
namespace {

// QuantizeLinear x -> y whose zero point is an initializer of raw dtype `code`.
std::string QuantizeWithZeroPointType(int32_t code) {
  ModelBuilder b;
  b.Input("x", kFloat, {1, 4});
  ir::HostTensor scale = ir::HostTensor::Zeros(DType::kFloat32, {});
  scale.SetDouble(0, 0.5);
  b.Initializer("s", scale);
  onnx::TensorProto* zp = b.model().mutable_graph()->add_initializer();
  zp->set_name("zp");
  zp->set_data_type(code);
  zp->set_raw_data(std::string(1, '\0'));
  b.Node("QuantizeLinear", {"x", "s", "zp"}, {"y"}, "q");
  b.Output("y", code, {1, 4});
  return Error(b.Bytes());
}

TEST(OnnxFrontend, QuantizedTypesNewerThanOnnx112AreRefusedNamingNodeAndField) {
  const char* names[] = {"FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
                         "UINT4", "INT4"};
  for (int32_t code = 17; code <= 22; ++code) {
    EXPECT_EQ(QuantizeWithZeroPointType(code),
              std::string("unimplemented: node 'q' (QuantizeLinear) input 2 (y_zero_point): "
                          "tensor 'zp': ONNX dtype ") +
                  names[code - 17] + " (code " + std::to_string(code) + ", ONNX " +
                  (code < 21 ? "1.14" : "1.16") +
                  ") is not supported: mlfkit reads ONNX 1.12's types; quantize to int8 or uint8")
        << code;
  }
}

}  // namespace
}  // namespace mlf::frontend
