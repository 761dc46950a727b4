// Constant folding: computes, at compile time, every node whose inputs are all
// constants, with the operator's evaluate() (codegen/ops/op.h), and turns its
// outputs into constants. `Shape` and `Size` fold from their input's static
// shape even when the input is not constant (every shape in the IR is
// static), which is what turns PyTorch's Shape -> Gather -> Unsqueeze ->
// Concat -> Reshape chains into a Reshape with a constant shape.
//
// Random operators (RandomNormal, RandomUniform(Like), Bernoulli, Multinomial)
// are never folded. Neither is a node whose outputs would exceed
// FoldOptions::max_output_bytes (the node then stays in the graph).
//
// The ONNX front end folds eagerly, node by node, with TryFoldNode while it
// builds the graph; FoldConstants is the same over a finished graph (e.g. from
// the YAML front end).
#ifndef MLFKIT_CODEGEN_PASSES_CONSTANT_FOLDING_H_
#define MLFKIT_CODEGEN_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::passes {

struct FoldOptions {
  // Nodes whose outputs together exceed this many bytes are left alone.
  uint64_t max_output_bytes = uint64_t{1} << 30;
  // Whether a DequantizeLinear of constants folds. The ONNX front end keeps
  // them (false), so that the QDQ lowering pass (qdq_lowering.h) still sees
  // the int8 weights and their scales; OptimizeGraph folds what is left.
  bool fold_dequantize_linear = true;
};

// Folds `node` if it can: on true, every output value of the node (in
// `graph`) now holds its constant, and the caller drops the node; on false
// the graph is unchanged. Shape and Size need only their input's shape
// (their output dtype and shape are set here); any other node must have been
// inferred (ops::InferNode) first. An evaluate() failure, or outputs that do
// not match the inferred dtype and shape, is an error naming the node.
Result<bool> TryFoldNode(ir::Graph& graph, const ir::Node& node, const FoldOptions& options = {});

// Folds every foldable node of `graph` in order (so chains fold), removes the
// folded nodes, then prunes (PruneGraph). Graph outputs stay outputs, also
// when they became constants. The graph must be inferred.
Status FoldConstants(ir::Graph& graph, const FoldOptions& options = {});

// Removes what folding leaves behind: nodes none of whose outputs is read by
// another node or is a graph output (operators are pure), then every value no
// node, graph input or graph output refers to (e.g. the constant shape tensors
// of a folded subgraph). Value ids are renumbered; order is preserved.
void PruneGraph(ir::Graph& graph);

}  // namespace mlf::passes

#endif  // MLFKIT_CODEGEN_PASSES_CONSTANT_FOLDING_H_
