// The compiler pipeline from a graph to a module ready for an archive:
//   constant folding -> Identity/Dropout removal -> BatchNormalization
//   folding -> bias fusion -> activation fusion -> dead-code elimination ->
//   memory planning and C emission (codegen/emit/module_emitter.h).
// Front ends (codegen/frontend) produce the graph; codegen/archive_export.h
// writes the archive.
#ifndef MLFKIT_CODEGEN_COMPILER_H_
#define MLFKIT_CODEGEN_COMPILER_H_

#include <string>

#include "artifact/base/status.h"
#include "codegen/archive_export.h"
#include "codegen/ir/graph.h"

namespace mlf {

struct CompileOptions {
  bool link_params = false;  // parameters as const arrays in the code
  bool optimize = true;      // run the fusion passes (and the QDQ lowering)
};

// What the passes did, for reports and tests.
struct CompileReport {
  int identities_removed = 0;
  int batchnorms_folded = 0;
  int biases_fused = 0;
  int residuals_fused = 0;
  int activations_fused = 0;
  int dead_nodes_removed = 0;
  int nodes_emitted = 0;
  int weights_packed = 0;  // constant weights re-laid out for the kernel layer
  int qdq_lowered = 0;     // DQ -> Conv/Gemm/MatMul/Add -> Q made integer operators (qdq_lowering.h)
};

Result<ModuleArtifacts> CompileGraph(const std::string& module, ir::Graph graph,
                                     const CompileOptions& options,
                                     CompileReport* report = nullptr);

// Runs the graph passes only (what CompileGraph does before emitting).
Status OptimizeGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report);

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_COMPILER_H_
