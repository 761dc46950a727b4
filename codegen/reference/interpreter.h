// The naive reference implementation: runs a graph node by node with each
// operator's evaluate() (codegen/ops/op.h) in plain C++ loops. It is what the
// generated code is checked against and what benchmarks compare with.
#ifndef MLFKIT_CODEGEN_REFERENCE_INTERPRETER_H_
#define MLFKIT_CODEGEN_REFERENCE_INTERPRETER_H_

#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::reference {

// Runs `graph` on `inputs` (one per graph input, in order); returns one
// tensor per graph output.
Result<std::vector<ir::HostTensor>> Interpret(const ir::Graph& graph,
                                              const std::vector<ir::HostTensor>& inputs);

}  // namespace mlf::reference

#endif  // MLFKIT_CODEGEN_REFERENCE_INTERPRETER_H_
