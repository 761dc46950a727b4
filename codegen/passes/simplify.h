// Graph clean-ups that change no result: removing Identity, inference
// Dropout and same-dtype Cast nodes, and dead-code elimination.
#ifndef MLFKIT_CODEGEN_PASSES_SIMPLIFY_H_
#define MLFKIT_CODEGEN_PASSES_SIMPLIFY_H_

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::passes {

// Rewires readers of Identity / Dropout (whose mask output nobody reads) /
// Cast to its input's own dtype outputs to their input and drops the node. A node whose output is a graph
// output stays (the output buffer must be written, under the model's name).
// Returns the number of nodes removed.
int RemoveIdentities(ir::Graph& graph);

// Drops nodes none of whose outputs is read or is a graph output, repeatedly,
// then constants nobody reads. Returns the number of nodes removed.
int EliminateDeadCode(ir::Graph& graph);

}  // namespace mlf::passes

#endif  // MLFKIT_CODEGEN_PASSES_SIMPLIFY_H_
