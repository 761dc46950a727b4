#include "codegen/frontend/onnx_contrib.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mlf::frontend {
namespace {

onnx::ModelProto Model(int64_t opset = 13) {
  onnx::ModelProto m;
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  o = m.add_opset_import();
  o->set_domain(kContribDomain);
  o->set_version(1);
  return m;
}

onnx::NodeProto* Contrib(onnx::ModelProto& m, const std::string& op, std::vector<std::string> in,
                         const std::string& out, const std::string& name) {
  onnx::NodeProto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_domain(kContribDomain);
  n->set_name(name);
  for (const std::string& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

std::vector<std::string> Ops(const onnx::ModelProto& m) {
  std::vector<std::string> ops;
  for (const auto& n : m.graph().node()) {
    std::string io = n.op_type() + "(";
    for (int i = 0; i < n.input_size(); ++i) io += (i ? "," : "") + n.input(i);
    ops.push_back(io + ")->" + n.output(0));
  }
  return ops;
}

TEST(OnnxContrib, QLinearAddBecomesDequantizeAddQuantize) {
  onnx::ModelProto m = Model();
  Contrib(m, "QLinearAdd", {"a", "as", "az", "b", "bs", "", "cs", "cz"}, "c", "add");
  ASSERT_TRUE(RewriteContribOps(&m).ok());
  EXPECT_EQ(Ops(m), (std::vector<std::string>{
                        "DequantizeLinear(a,as,az)->c/dequantized_0",
                        "DequantizeLinear(b,bs)->c/dequantized_3",
                        "Add(c/dequantized_0,c/dequantized_3)->c/float",
                        "QuantizeLinear(c/float,cs,cz)->c",
                    }));
  EXPECT_EQ(m.graph().node(2).name(), "add/float");
  EXPECT_EQ(m.opset_import_size(), 1);  // the contrib domain's import is gone
  for (const auto& n : m.graph().node()) EXPECT_EQ(n.domain(), "");
}

TEST(OnnxContrib, ConcatTakesTriplesAndPoolsKeepTheirAttributes) {
  onnx::ModelProto m = Model();
  Contrib(m, "QLinearConcat", {"ys", "yz", "p", "ps", "pz", "q", "qs", "qz"}, "y", "cat")
      ->add_attribute()->CopyFrom([] {
        onnx::AttributeProto a;
        a.set_name("axis");
        a.set_type(onnx::AttributeProto::INT);
        a.set_i(1);
        return a;
      }());
  onnx::NodeProto* pool = Contrib(m, "QLinearAveragePool", {"y", "ys", "yz", "zs", "zz"}, "z", "pool");
  onnx::AttributeProto* k = pool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(2);
  k->add_ints(2);
  onnx::AttributeProto* layout = pool->add_attribute();
  layout->set_name("channels_last");
  layout->set_type(onnx::AttributeProto::INT);
  layout->set_i(0);
  ASSERT_TRUE(RewriteContribOps(&m).ok());
  EXPECT_EQ(Ops(m), (std::vector<std::string>{
                        "DequantizeLinear(p,ps,pz)->y/dequantized_2",
                        "DequantizeLinear(q,qs,qz)->y/dequantized_5",
                        "Concat(y/dequantized_2,y/dequantized_5)->y/float",
                        "QuantizeLinear(y/float,ys,yz)->y",
                        "DequantizeLinear(y,ys,yz)->z/dequantized_0",
                        "AveragePool(z/dequantized_0)->z/float",
                        "QuantizeLinear(z/float,zs,zz)->z",
                    }));
  EXPECT_EQ(m.graph().node(2).attribute(0).name(), "axis");
  ASSERT_EQ(m.graph().node(5).attribute_size(), 1);  // channels_last dropped
  EXPECT_EQ(m.graph().node(5).attribute(0).name(), "kernel_shape");
}

TEST(OnnxContrib, FreshNamesDoNotClash) {
  onnx::ModelProto m = Model();
  m.mutable_graph()->add_initializer()->set_name("y/float");
  Contrib(m, "QLinearSigmoid", {"x", "xs", "xz", "ys", "yz"}, "y", "s");
  ASSERT_TRUE(RewriteContribOps(&m).ok());
  EXPECT_EQ(m.graph().node(1).output(0), "y/float_2");
}

TEST(OnnxContrib, Errors) {
  auto error = [](onnx::ModelProto m) { return RewriteContribOps(&m).ToString(); };
  onnx::ModelProto m = Model();
  Contrib(m, "FusedConv", {"x"}, "y", "f");
  EXPECT_EQ(error(m),
            "unimplemented: node 'f' (com.microsoft FusedConv) is not supported; of domain "
            "com.microsoft mlfkit reads QLinearAdd, QLinearMul, QLinearAveragePool, "
            "QLinearGlobalAveragePool, QLinearSigmoid, QLinearLeakyRelu, QLinearConcat");

  m = Model(9);
  Contrib(m, "QLinearSigmoid", {"x", "xs", "xz", "ys", "yz"}, "y", "s");
  EXPECT_EQ(error(m),
            "unimplemented: node 's' (com.microsoft QLinearSigmoid): the model imports "
            "default-domain opset 9; QOperator models need opset 10 or later (QuantizeLinear)");

  m = Model();
  Contrib(m, "QLinearSigmoid", {"x", "xs", "xz", "ys"}, "y", "s");
  EXPECT_EQ(error(m),
            "unimplemented: node 's' (com.microsoft QLinearSigmoid): input 4 (the output's zero "
            "point) is missing; mlfkit needs it to know the output's type");

  m = Model();
  Contrib(m, "QLinearAdd", {"a", "as", "az", "b"}, "c", "add");
  EXPECT_EQ(error(m),
            "invalid_argument: node 'add' (com.microsoft QLinearAdd) has 4 inputs; it takes 8");

  m = Model();
  Contrib(m, "QLinearConcat", {"ys", "yz", "p", "ps"}, "y", "cat");
  EXPECT_EQ(error(m), "invalid_argument: node 'cat' (com.microsoft QLinearConcat) has 4 inputs; "
                      "it takes Y_scale, Y_zero_point and then a value, scale and zero point per "
                      "input");

  m = Model();
  onnx::NodeProto* gap = Contrib(m, "QLinearGlobalAveragePool", {"x", "xs", "xz", "ys", "yz"}, "y", "g");
  onnx::AttributeProto* layout = gap->add_attribute();
  layout->set_name("channels_last");
  layout->set_type(onnx::AttributeProto::INT);
  layout->set_i(1);
  EXPECT_EQ(error(m),
            "unimplemented: node 'g' (com.microsoft QLinearGlobalAveragePool): channels_last = 1 "
            "(NHWC) is not supported; export the model channels-first");
}

}  // namespace
}  // namespace mlf::frontend
