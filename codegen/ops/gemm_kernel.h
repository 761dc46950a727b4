// Gemm through the kernel layer (codegen/kernels, family gemm_f32): which
// Gemm nodes take its GEMV-style product with the weight packed at export
// (codegen/passes/pack_weights.h), and the layout name that marks them. A
// Gemm without the mark keeps the generated loops of matmul.cc, or the GEMV
// on the weight as exported when it is large (a classifier whose weight is
// not a constant of its own).
#ifndef MLFKIT_CODEGEN_OPS_GEMM_KERNEL_H_
#define MLFKIT_CODEGEN_OPS_GEMM_KERNEL_H_

#include <cstdint>

#include "codegen/ir/graph.h"
#include "codegen/ops/conv_kernel.h"

namespace mlf::ops {

// Gemm's W[N][K] (B with transB = 1) as mlfk_gemv_f32_packed reads it
// (codegen/kernels/packing.h PackGemvW), in attribute kWeightLayoutAttr.
inline constexpr char kGemvBlocksLayout[] = "gemv_f32_blocks16";

// Rows of A (a batch) up to which a Gemm counts as a GEMV.
inline constexpr int64_t kGemvMaxRows = 8;

// Whether `node` runs through the packed GEMV once its weight is packed: a
// float32 Gemm with transA = 0, transB = 1, alpha 1, 1 to kGemvMaxRows rows,
// no C or a per-column float32 C with beta 1, no fused activation or Relu or
// Clip, sizes that fit a C int, and a constant W read by this node only.
// Any size: the kernel gives the bits of the generated loops, and firmware
// gets its portable C (LeNet-5's and the MLP's layers, mnist_mlp's).
bool GemmSuitsGemvKernel(const ir::Node& node, const ir::Graph& graph);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_GEMM_KERNEL_H_
