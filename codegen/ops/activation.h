// The fused activation of a node (attribute "mlf.activation", set by the
// fusion pass) as a C++ function, for the evaluate() of operators that honour
// it (OpDef::fuses_activation). It mirrors EmitContext::Activation, which
// writes the same formula as C, term by term in float arithmetic, so that the
// reference and the generated code agree.
#ifndef MLFKIT_CODEGEN_OPS_ACTIVATION_H_
#define MLFKIT_CODEGEN_OPS_ACTIVATION_H_

#include <functional>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::ops {

// The identity when the node has no fused activation; kUnimplemented naming
// the node for an unknown one.
Result<std::function<float(float)>> FusedActivation(const ir::Node& node);

// Whether the node carries a fused activation.
bool HasFusedActivation(const ir::Node& node);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_ACTIVATION_H_
