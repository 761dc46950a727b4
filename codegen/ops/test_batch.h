// Test support (testonly): checks many one-node OpTests against their
// generated C with a single compiler run, by merging their graphs into one
// graph of independent nodes (the harness emits and calls every node).
//
//   Batch batch;
//   OpTest t("Add"); ...; batch.Add(t, {a, b}, "Add float32 [2, 3]");
//   batch.Run();   // infers each, evaluates and compiles once, compares
#ifndef MLFKIT_CODEGEN_OPS_TEST_BATCH_H_
#define MLFKIT_CODEGEN_OPS_TEST_BATCH_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {

class Batch {
 public:
  // Adds `t` (inputs and outputs declared; infer() not yet run) with one
  // tensor per graph input, compared with atol + rtol * |want|.
  void Add(OpTest& t, std::vector<ir::HostTensor> inputs, const std::string& what, double rtol = 1e-6,
           double atol = 1e-7) {
    Status st = t.Infer();
    EXPECT_TRUE(st.ok()) << what << ": " << st.ToString();
    if (!st.ok()) return;
    const ir::Graph& g = t.graph();
    const int offset = static_cast<int>(graph_.values.size());
    for (const ir::Value& v : g.values) {
      ir::Value copy = v;
      copy.name = "c" + std::to_string(cases_.size()) + "_" + v.name;
      graph_.values.push_back(std::move(copy));
    }
    auto remap = [offset](int id) { return id == ir::kNoValue ? id : id + offset; };
    for (const ir::Node& n : g.nodes) {
      ir::Node copy = n;
      for (int& id : copy.inputs) id = remap(id);
      for (int& id : copy.outputs) id = remap(id);
      graph_.nodes.push_back(std::move(copy));
    }
    for (int id : g.inputs) graph_.inputs.push_back(remap(id));
    for (int id : g.outputs) {
      graph_.outputs.push_back(remap(id));
      cases_.push_back({what, rtol, atol});
    }
    for (ir::HostTensor& in : inputs) inputs_.push_back(std::move(in));
  }

  // Evaluates and runs the generated code of every node added, compiled once.
  void Run() {
    if (graph_.nodes.empty()) return;
    OpTest all("Batch");
    all.graph() = graph_;
    auto ref = all.Evaluate(inputs_);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    auto gen = all.RunGenerated(inputs_);
    ASSERT_TRUE(gen.ok()) << gen.status().ToString();
    ASSERT_EQ(gen->size(), cases_.size());
    for (size_t k = 0; k < cases_.size(); ++k) {
      Status close = AllClose({(*gen)[k]}, {(*ref)[k]}, cases_[k].rtol, cases_[k].atol);
      EXPECT_TRUE(close.ok()) << cases_[k].what << " (output " << k << "): " << close.ToString();
    }
  }

  size_t size() const { return graph_.nodes.size(); }

 private:
  struct Case {
    std::string what;
    double rtol, atol;
  };
  ir::Graph graph_;
  std::vector<ir::HostTensor> inputs_;
  std::vector<Case> cases_;
};

}  // namespace mlf::ops::testing

#endif  // MLFKIT_CODEGEN_OPS_TEST_BATCH_H_
