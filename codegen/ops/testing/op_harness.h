// Test support for operators: build a one-node graph, run it through the
// reference evaluator and through its generated C (compiled with the system
// compiler at -O2 -std=c99 -Wall -Wextra -Werror, so a warning fails the
// test), and compare.
//
//   OpTest t("Add");
//   int a = t.Input("a", DType::kFloat32, {2, 3});
//   int b = t.Constant("b", HostTensor{...});
//   t.Output("y");
//   t.Attr("some_attr", int64_t{1});
//   ASSERT_TRUE(t.Infer().ok());                       // shapes of outputs
//   auto ref = t.Evaluate({a_tensor});                 // reference outputs
//   auto gen = t.RunGenerated({a_tensor});             // generated C outputs
//   EXPECT_TRUE(AllClose(*gen, *ref, 1e-6, 1e-6).ok());
#ifndef MLFKIT_CODEGEN_OPS_TESTING_OP_HARNESS_H_
#define MLFKIT_CODEGEN_OPS_TESTING_OP_HARNESS_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::ops::testing {

class OpTest {
 public:
  explicit OpTest(const std::string& op, const std::string& name = "n0");

  // Adds a graph input / constant as the node's next input; returns its value id.
  int Input(const std::string& name, DType dtype, std::vector<int64_t> shape);
  int Constant(const std::string& name, ir::HostTensor tensor);
  // An omitted optional input (kNoValue).
  void OmittedInput();
  // Adds an output (dtype and shape are set by Infer()).
  int Output(const std::string& name);
  void Attr(const std::string& key, ir::AttrValue value);

  ir::Graph& graph() { return graph_; }
  ir::Node& node() { return graph_.nodes[0]; }

  // Runs the op's infer().
  Status Infer();
  // Reference outputs (infer() must have run). `inputs`: one per Input(), in order.
  Result<std::vector<ir::HostTensor>> Evaluate(const std::vector<ir::HostTensor>& inputs);
  // Outputs of the generated C code, compiled and run.
  Result<std::vector<ir::HostTensor>> RunGenerated(const std::vector<ir::HostTensor>& inputs);

 private:
  ir::Graph graph_;
};

// Ok when every element of `got` is within atol + rtol*|want| of `want`
// (NaN matches NaN; dtypes and shapes must be equal); otherwise an error
// naming the tensor index, the element, and both values.
Status AllClose(const std::vector<ir::HostTensor>& got, const std::vector<ir::HostTensor>& want,
                double rtol, double atol);

// Evaluate() and RunGenerated() of `t` (infer() must have run) on `inputs`,
// compared with AllClose: the first error of the three, or ok.
Status GeneratedMatchesReference(OpTest& t, const std::vector<ir::HostTensor>& inputs, double rtol,
                                 double atol);

// Every element of `t` as a double, in order.
std::vector<double> Values(const ir::HostTensor& t);
// A tensor from values (converted to `dtype`).
ir::HostTensor MakeTensor(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values);
// A reproducible pseudo-random tensor (artifact/format/tensor_values.h FillRandom).
ir::HostTensor RandomTensor(DType dtype, std::vector<int64_t> shape, uint64_t seed);

}  // namespace mlf::ops::testing

#endif  // MLFKIT_CODEGEN_OPS_TESTING_OP_HARNESS_H_
