// Conv through the kernel layer (codegen/kernels, family conv_f32): which
// Conv nodes take it, and the node attribute that says their weight has
// been packed at export (codegen/passes/pack_weights.h). A Conv without the
// attribute keeps the direct convolution of conv.cc (for an unpadded
// stride-1 one, after conv_f32's AVX-512 direct path, which does the same
// sums when the run's variant has it).
#ifndef MLFKIT_CODEGEN_OPS_CONV_KERNEL_H_
#define MLFKIT_CODEGEN_OPS_CONV_KERNEL_H_

#include <cstddef>
#include <cstdint>

#include "codegen/ir/graph.h"

namespace mlf::ops {

// Node attribute naming the layout of a node's constant weight input 1;
// absent means the ONNX layout.
inline constexpr char kWeightLayoutAttr[] = "mlf.weight_layout";
// W[M][C][KH][KW] as gemm_f32's packed A (codegen/kernels/packing.h).
inline constexpr char kGemmPanelsLayout[] = "gemm_f32_panels8";

// Node attribute (int 1) saying that input 3 of a Conv is a residual added
// to its output before the fused activation: an Add fused by
// codegen/passes/fusion.h FuseResidualAdds, only into Convs that take
// conv_f32 (the direct code has no residual).
inline constexpr char kResidualAttr[] = "mlf.residual";
inline constexpr size_t kResidualInput = 3;

// Below this many multiply-accumulates a Conv keeps the direct code: tiny
// convolutions (the firmware examples, LeNet-5) gain nothing from the im2col
// scratch, which would only grow their workspace.
inline constexpr uint64_t kConvKernelMinMacs = uint64_t{1} << 20;
// Output pixels per im2col chunk (fewer when the image has fewer): measured
// against 128, 512 and 1024 on ResNet18's 3x3 layers (codegen/kernels/README.md).
inline constexpr int64_t kConvKernelChunk = 256;

// Whether `node` runs through conv_f32 once its weight is packed: a float32
// 2-D Conv of one group whose weight is a constant read by this node only,
// with at least kConvKernelMinMacs MACs and sizes that fit a C int.
bool ConvSuitsKernel(const ir::Node& node, const ir::Graph& graph);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_CONV_KERNEL_H_
