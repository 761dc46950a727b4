// Packs constant weights at export into the layouts the kernel layer reads
// (codegen/kernels/packing.h): the last pass before emission, since nothing
// can evaluate a node with a packed weight afterwards.
#ifndef MLFKIT_CODEGEN_PASSES_PACK_WEIGHTS_H_
#define MLFKIT_CODEGEN_PASSES_PACK_WEIGHTS_H_

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::passes {

// Every Conv that ops::ConvSuitsKernel accepts gets its weight W[M][C][KH][KW]
// replaced by gemm_f32's packed form (same shape and byte count, elements
// reordered) and the attribute mlf.weight_layout = "gemm_f32_panels8"; every
// Gemm that ops::GemmSuitsGemvKernel accepts gets its B[N][K] in the packed
// GEMV's blocks and mlf.weight_layout = "gemv_f32_blocks16". Their emit then
// calls the kernel layer. Returns the number of nodes packed.
Result<int> PackWeights(ir::Graph& graph);

}  // namespace mlf::passes

#endif  // MLFKIT_CODEGEN_PASSES_PACK_WEIGHTS_H_
