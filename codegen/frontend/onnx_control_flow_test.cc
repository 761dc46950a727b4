// If, Loop and Scan through the whole importer: each model is imported,
// then run by the reference interpreter, and its outputs are compared with
// values worked out by hand from the ONNX semantics.
#include "codegen/frontend/onnx_control_flow.h"

#include <gtest/gtest.h>

#include "codegen/frontend/onnx_frontend.h"
#include "codegen/frontend/tensor_proto.h"
#include "codegen/reference/interpreter.h"

namespace mlf::frontend {
namespace {

const int32_t kFloat = onnx::TensorProto::FLOAT;
const int32_t kInt64 = onnx::TensorProto::INT64;
const int32_t kBool = onnx::TensorProto::BOOL;

void SetType(onnx::ValueInfoProto* v, const std::string& name, int32_t type,
             const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in,
                         std::vector<std::string> out, const std::string& name = "") {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto& s : in) n->add_input(s);
  for (auto& s : out) n->add_output(s);
  return n;
}

void AddInt(onnx::NodeProto* n, const std::string& key, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void AddInts(onnx::NodeProto* n, const std::string& key, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

onnx::GraphProto* AddGraph(onnx::NodeProto* n, const std::string& key) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(key);
  return a->mutable_g();
}

ir::HostTensor Floats(std::vector<int64_t> shape, std::vector<float> values) {
  ir::HostTensor t = ir::HostTensor::Zeros(DType::kFloat32, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

ir::HostTensor Scalar(DType dtype, int64_t v) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, {});
  t.SetDouble(0, static_cast<double>(v));
  return t;
}

void AddConstant(onnx::GraphProto* g, const std::string& name, const ir::HostTensor& t) {
  onnx::NodeProto* n = AddNode(g, "Constant", {}, {name});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = ToTensorProto(t, name);
}

onnx::ModelProto NewModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(16);
  m.mutable_graph()->set_name("g");
  return m;
}

std::vector<float> AsFloats(const ir::HostTensor& t) {
  std::vector<float> v;
  for (uint64_t i = 0; i < t.element_count(); ++i) v.push_back(static_cast<float>(t.GetDouble(i)));
  return v;
}

// Imports `m` with `options` and runs it on `inputs`.
Result<std::vector<ir::HostTensor>> ImportAndRun(const onnx::ModelProto& m,
                                                 const std::vector<ir::HostTensor>& inputs,
                                                 const OnnxImportOptions& options = {}) {
  MLF_ASSIGN_OR_RETURN(ir::Graph g, ImportOnnx(m.SerializeAsString(), options));
  return reference::Interpret(g, inputs);
}

// y = If(cond) then x * 2 else x + 10; both branches read the outer x.
onnx::ModelProto IfModel() {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto* g = m.mutable_graph();
  SetType(g->add_input(), "cond", kBool, {});
  SetType(g->add_input(), "x", kFloat, {2});
  onnx::NodeProto* n = AddNode(g, "If", {"cond"}, {"y"}, "choose");
  onnx::GraphProto* then_branch = AddGraph(n, "then_branch");
  AddConstant(then_branch, "two", Floats({}, {2}));
  AddNode(then_branch, "Mul", {"x", "two"}, {"doubled"});
  SetType(then_branch->add_output(), "doubled", kFloat, {2});
  onnx::GraphProto* else_branch = AddGraph(n, "else_branch");
  AddConstant(else_branch, "ten", Floats({}, {10}));
  AddNode(else_branch, "Add", {"x", "ten"}, {"shifted"});
  SetType(else_branch->add_output(), "shifted", kFloat, {2});
  SetType(g->add_output(), "y", kFloat, {2});
  return m;
}

TEST(OnnxControlFlow, IfTakesTheBranchItsConstantConditionNames) {
  for (bool cond : {true, false}) {
    OnnxImportOptions options;
    options.constant_inputs["cond"] = Scalar(DType::kBool, cond ? 1 : 0);
    Result<std::vector<ir::HostTensor>> out =
        ImportAndRun(IfModel(), {Floats({2}, {1.5f, -3})}, options);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(AsFloats((*out)[0]),
              cond ? std::vector<float>({3, -6}) : std::vector<float>({11.5f, 7}));
  }
}

TEST(OnnxControlFlow, IfWithADataConditionAsksForTheConstant) {
  OnnxImportOptions options;
  options.constant_inputs_option = "--constant";
  Result<ir::Graph> g = ImportOnnx(IfModel().SerializeAsString(), options);
  EXPECT_EQ(g.status().ToString(),
            "invalid_argument: node 'choose' (If): input 0 (cond) must be a constant: the branch "
            "taken is chosen at export (it is graph input 'cond': give its value with --constant "
            "cond=FILE.npy)");
}

// Loop(M=3, cond=true, s=x): s = s + i * x per iteration, scan output s.
onnx::ModelProto LoopModel(bool data_condition = false) {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto* g = m.mutable_graph();
  SetType(g->add_input(), "x", kFloat, {2});
  AddConstant(g, "M", Scalar(DType::kInt64, 3));
  AddConstant(g, "go", Scalar(DType::kBool, 1));
  onnx::NodeProto* n = AddNode(g, "Loop", {"M", "go", "x"}, {"s_final", "s_all"}, "repeat");
  onnx::GraphProto* body = AddGraph(n, "body");
  SetType(body->add_input(), "i", kInt64, {});
  SetType(body->add_input(), "c", kBool, {});
  SetType(body->add_input(), "s", kFloat, {2});
  AddInt(AddNode(body, "Cast", {"i"}, {"fi"}), "to", onnx::TensorProto::FLOAT);
  AddNode(body, "Mul", {"fi", "x"}, {"ix"});
  AddNode(body, "Add", {"s", "ix"}, {"s_next"});
  if (data_condition) {
    AddNode(body, "ReduceMax", {"s_next"}, {"peak"});
    AddConstant(body, "limit", Floats({}, {100}));
    AddNode(body, "Less", {"peak", "limit"}, {"c_next"});
  } else {
    AddNode(body, "Identity", {"c"}, {"c_next"});
  }
  SetType(body->add_output(), "c_next", kBool, {});
  SetType(body->add_output(), "s_next", kFloat, {2});
  SetType(body->add_output(), "s_next", kFloat, {2});
  SetType(g->add_output(), "s_final", kFloat, {2});
  SetType(g->add_output(), "s_all", kFloat, {3, 2});
  return m;
}

TEST(OnnxControlFlow, LoopIsUnrolledWithCarriedAndScanOutputs) {
  Result<std::vector<ir::HostTensor>> out = ImportAndRun(LoopModel(), {Floats({2}, {1, 10})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // s: x, then x + 0x, x + 0x + 1x, x + 0x + 1x + 2x.
  EXPECT_EQ(AsFloats((*out)[0]), std::vector<float>({4, 40}));
  EXPECT_EQ((*out)[1].shape, std::vector<int64_t>({3, 2}));
  EXPECT_EQ(AsFloats((*out)[1]), std::vector<float>({1, 10, 2, 20, 4, 40}));
}

TEST(OnnxControlFlow, LoopWhoseConditionDependsOnDataIsRefused) {
  Result<ir::Graph> g = ImportOnnx(LoopModel(/*data_condition=*/true).SerializeAsString());
  EXPECT_EQ(g.status().ToString(),
            "unimplemented: node 'repeat' (Loop): the condition its body computes is not known "
            "at export (it depends on the input data), so the number of iterations and the "
            "output shape depends on the input values");
}

TEST(OnnxControlFlow, LoopUnrolledBeyondTheNodeLimitIsRefused) {
  OnnxImportOptions options;
  options.max_nodes = 10;
  Result<ir::Graph> g = ImportOnnx(LoopModel().SerializeAsString(), options);
  EXPECT_EQ(g.status().ToString(),
            "out_of_range: node 'repeat' (Loop): unrolled 3 times, its 6 body nodes would make "
            "more than the limit of 10 nodes");
}

TEST(OnnxControlFlow, LoopTripCountFromAGraphInputAsksForTheConstant) {
  onnx::ModelProto m = LoopModel();
  onnx::GraphProto* g = m.mutable_graph();
  g->mutable_node()->erase(g->mutable_node()->begin());  // the constant M
  SetType(g->add_input(), "M", kInt64, {});
  OnnxImportOptions options;
  options.constant_inputs_option = "--constant";
  EXPECT_EQ(ImportOnnx(m.SerializeAsString(), options).status().ToString(),
            "invalid_argument: node 'repeat' (Loop): input 0 (M) must be a constant: the loop is "
            "unrolled at export, so its trip count must be known (it is graph input 'M': give "
            "its value with --constant M=FILE.npy)");
  options.constant_inputs["M"] = Scalar(DType::kInt64, 2);
  Result<ir::Graph> graph = ImportOnnx(m.SerializeAsString(), options);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
}

// Scan over x[2, 3] along axis 1, reversed: a running sum (state) and each
// step's sum stacked along output axis 1 -> [2, 3].
TEST(OnnxControlFlow, ScanReadsAlongItsAxisAndStacksItsOutputs) {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto* g = m.mutable_graph();
  SetType(g->add_input(), "init", kFloat, {2});
  SetType(g->add_input(), "x", kFloat, {2, 3});
  onnx::NodeProto* n = AddNode(g, "Scan", {"init", "x"}, {"total", "partial"}, "sum");
  AddInt(n, "num_scan_inputs", 1);
  AddInts(n, "scan_input_axes", {1});
  AddInts(n, "scan_input_directions", {1});
  AddInts(n, "scan_output_axes", {-1});
  onnx::GraphProto* body = AddGraph(n, "body");
  SetType(body->add_input(), "acc", kFloat, {2});
  SetType(body->add_input(), "column", kFloat, {2});
  AddNode(body, "Add", {"acc", "column"}, {"acc_next"});
  SetType(body->add_output(), "acc_next", kFloat, {2});
  SetType(body->add_output(), "acc_next", kFloat, {2});
  SetType(g->add_output(), "total", kFloat, {2});
  SetType(g->add_output(), "partial", kFloat, {2, 3});
  Result<std::vector<ir::HostTensor>> out =
      ImportAndRun(m, {Floats({2}, {0, 100}), Floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(AsFloats((*out)[0]), std::vector<float>({6, 115}));
  // Columns taken last to first: 3, 3+2, 3+2+1 (row 0); 106, 111, 115.
  EXPECT_EQ((*out)[1].shape, std::vector<int64_t>({2, 3}));
  EXPECT_EQ(AsFloats((*out)[1]), std::vector<float>({3, 5, 6, 106, 111, 115}));
}

// Opset 8's Scan has a batch axis: each batch entry is scanned along axis 1
// (here reversed), and the stacked outputs keep the batch axis in front.
TEST(OnnxControlFlow, Opset8ScanKeepsItsBatchAxis) {
  onnx::ModelProto m = NewModel();
  m.mutable_opset_import(0)->set_version(8);
  onnx::GraphProto* g = m.mutable_graph();
  SetType(g->add_input(), "init", kFloat, {2, 1});
  SetType(g->add_input(), "x", kFloat, {2, 3, 1});
  onnx::NodeProto* n = AddNode(g, "Scan", {"", "init", "x"}, {"total", "partial"}, "sum8");
  AddInt(n, "num_scan_inputs", 1);
  AddInts(n, "directions", {1});
  onnx::GraphProto* body = AddGraph(n, "body");
  SetType(body->add_input(), "acc", kFloat, {1});
  SetType(body->add_input(), "step", kFloat, {1});
  AddNode(body, "Add", {"acc", "step"}, {"acc_next"});
  AddNode(body, "Identity", {"acc_next"}, {"seen"});
  SetType(body->add_output(), "acc_next", kFloat, {1});
  SetType(body->add_output(), "seen", kFloat, {1});
  SetType(g->add_output(), "total", kFloat, {2, 1});
  SetType(g->add_output(), "partial", kFloat, {2, 3, 1});
  Result<std::vector<ir::HostTensor>> out =
      ImportAndRun(m, {Floats({2, 1}, {0, 10}), Floats({2, 3, 1}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, std::vector<int64_t>({2, 1}));
  EXPECT_EQ(AsFloats((*out)[0]), std::vector<float>({6, 25}));
  EXPECT_EQ((*out)[1].shape, std::vector<int64_t>({2, 3, 1}));
  EXPECT_EQ(AsFloats((*out)[1]), std::vector<float>({3, 5, 6, 16, 21, 25}));
  // sequence_lens is not supported.
  g->mutable_node(0)->set_input(0, "lens");
  SetType(g->add_input(), "lens", onnx::TensorProto::INT32, {2});
  EXPECT_EQ(ImportOnnx(m.SerializeAsString()).status().ToString(),
            "unimplemented: node 'sum8' (Scan): input 0 (sequence_lens) of opset 8's Scan is not "
            "supported; re-export the model with opset 9 or later");
}

// An If inside a Loop body reads the loop's carried value: the nested
// branch is unrolled per iteration with the copy's names.
TEST(OnnxControlFlow, NestedIfInALoopBodyReadsTheIterationsValues) {
  onnx::ModelProto m = NewModel();
  onnx::GraphProto* g = m.mutable_graph();
  SetType(g->add_input(), "x", kFloat, {1});
  AddConstant(g, "M", Scalar(DType::kInt64, 2));
  AddConstant(g, "yes", Scalar(DType::kBool, 1));
  onnx::NodeProto* loop = AddNode(g, "Loop", {"M", "", "x"}, {"y"}, "outer");
  onnx::GraphProto* body = AddGraph(loop, "body");
  SetType(body->add_input(), "i", kInt64, {});
  SetType(body->add_input(), "c", kBool, {});
  SetType(body->add_input(), "v", kFloat, {1});
  onnx::NodeProto* branch = AddNode(body, "If", {"yes"}, {"w"}, "inner");
  onnx::GraphProto* then_branch = AddGraph(branch, "then_branch");
  AddNode(then_branch, "Add", {"v", "v"}, {"twice"});
  SetType(then_branch->add_output(), "twice", kFloat, {1});
  onnx::GraphProto* else_branch = AddGraph(branch, "else_branch");
  AddNode(else_branch, "Identity", {"v"}, {"same"});
  SetType(else_branch->add_output(), "same", kFloat, {1});
  AddNode(body, "Identity", {"c"}, {"c_next"});
  SetType(body->add_output(), "c_next", kBool, {});
  SetType(body->add_output(), "w", kFloat, {1});
  SetType(g->add_output(), "y", kFloat, {1});
  Result<std::vector<ir::HostTensor>> out = ImportAndRun(m, {Floats({1}, {3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(AsFloats((*out)[0]), std::vector<float>({12}));
}

// Subgraph names become value names of the unrolled graph: a control
// character in one is refused like one in the main graph, saying where.
TEST(OnnxControlFlow, ControlCharactersInSubgraphNamesAreRefused) {
  onnx::ModelProto m = IfModel();
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(1)->set_output(
      0, "doubled\n#include <evil>");
  EXPECT_EQ(ImportOnnx(m.SerializeAsString()).status().ToString(),
            "invalid_argument: node 0: attribute 'then_branch': node 1: output 0 "
            "'doubled\\x0a#include <evil>' contains a control character (U+000A); names must be "
            "printable");
}

}  // namespace
}  // namespace mlf::frontend
