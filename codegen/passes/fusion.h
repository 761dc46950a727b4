// Fusions that remove whole passes over memory without changing results
// beyond float rounding:
//   - BatchNormalization folded into a preceding Conv or Gemm (weights scaled,
//     bias adjusted: both computed once here);
//   - a constant per-channel Add folded into the bias of a preceding Conv or
//     Gemm, and MatMul + constant Add turned into Gemm with C;
//   - an Add of a Conv's output and another tensor of its shape taken into
//     that Conv as a residual, when the Conv runs through the kernel layer
//     (attribute "mlf.residual", codegen/ops/conv_kernel.h);
//   - an elementwise activation (Relu, Clip, LeakyRelu, Sigmoid, Tanh,
//     HardSigmoid, HardSwish) applied in its producer's store (node
//     attribute "mlf.activation", see codegen/ops/op.h EmitContext).
// A producer is only changed when its output has no other reader and is not
// a graph output; shared weight constants are never modified in place.
// Fused operators are recorded in the producer's "mlf.fused_ops" attribute
// for metadata "operators".
#ifndef MLFKIT_CODEGEN_PASSES_FUSION_H_
#define MLFKIT_CODEGEN_PASSES_FUSION_H_

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::passes {

// Each returns the number of fusions made.
Result<int> FoldBatchNormalization(ir::Graph& graph);
Result<int> FuseBias(ir::Graph& graph);
Result<int> FuseResidualAdds(ir::Graph& graph);
Result<int> FuseActivations(ir::Graph& graph);

}  // namespace mlf::passes

#endif  // MLFKIT_CODEGEN_PASSES_FUSION_H_
