// The QDQ lowering (issue 14, step 2): what PyTorch's and ONNX Runtime's
// quantizers write as DequantizeLinear -> float operator -> QuantizeLinear
// becomes an integer operator that the kernel layer runs (gemm_s8: int32
// sums, fixed-point requantisation; codegen/ops/requantize.h).
//
// Rewrites, each only when every scale and zero point it reads is a
// constant (x's and y's per tensor, w's per tensor or per output channel),
// and each intermediate float value has no other reader and is not a graph
// output:
//   - DQ(x) , DQ(w const) [, DQ(bias int32 const) or a float bias] -> Conv
//     [-> Relu | Clip with constant bounds] -> Q  becomes one QLinearConv
//     (attributes quant::kFixedPointAttr, and quant::kClampAttr for the
//     folded activation: Q is monotone, so Q(relu(v)) = max(Q(v), Q(0)) and
//     Q(clip(v, a, b)) = clamp(Q(v), Q(a), Q(b)));
//   - the same with Gemm (alpha = beta = 1, transA = 0, a 2-D x, a bias of
//     shape [N]) or MatMul (2-D x, 2-D w): a 1x1 QLinearConv on x reshaped
//     to [M, K, 1, 1] (the weight re-laid out once, here, as [N, K, 1, 1])
//     and the result reshaped back;
//   - DQ(a) + DQ(b) [-> Relu | Clip] -> Q, a and b of one shape and the
//     ratios of the scales at most 256 (codegen/ops/requantize.h AddRule):
//     one QLinearAdd, integer in and out (a residual connection keeps its
//     activations int8 instead of two float dequantizations, a float Add
//     and a quantization);
//   - DQ(a) * DQ(b) [-> Relu | Clip] -> Q, broadcast as numpy does: one
//     QLinearMul (the exact integer product, one requantisation);
//   - DQ(x) [-> a Pad that adds nothing, as PyTorch exports AvgPool2d] ->
//     AveragePool (2-D windows without padding, ceil_mode 0, dilations 1) |
//     GlobalAveragePool [-> Relu | Clip] -> Q: one
//     QLinearAveragePool (each window's integer sum, one fixed-point
//     requantisation; the classifier head of an int8 CNN stays in integers);
//   - DQ(x_0), ..., DQ(x_k) -> Concat [-> Relu | Clip] -> Q: a Concat of
//     the integers when every input is on the Q's grid (scale, zero point,
//     dtype) and nothing is folded, else one QLinearConcat (each input
//     requantized to the Q's grid);
//   - DQ(x) -> a unary operator (Sigmoid, Tanh, HardSwish, LeakyRelu, Elu,
//     Exp, ...) [-> Relu | Clip] -> Q: one QLinearLookup, a table of the 256
//     outputs of the chain for the 256 values of x, made here by evaluating
//     it (the run is one load per value);
//   - DQ(a) -> MaxPool | Reshape | Flatten | Transpose | Squeeze | Unsqueeze
//     -> Q with the DQ's own scale, zero point and dtype: the operator
//     runs on a's integers (they map grid values to grid values, so
//     Q(op(DQ(a))) = op(a)); the Q/DQ pair cancels.
//   - a QLinearConv or QLinearMatMul of the model with constant scales (x's
//     per tensor) is marked for the fixed-point rule, so a QOperator model's
//     convolutions take the kernel too.
// A bias DQ'd with a scale other than x_scale * w_scale is requantized to it
// (round half to even). Everything else stays as it was: float operators
// between DQ and Q keep running in float, so a model that mixes int8 and
// float parts compiles. The DQ nodes the rewrites leave unread are removed
// by dead-code elimination; DQs of constants that remain are folded after.
#ifndef MLFKIT_CODEGEN_PASSES_QDQ_LOWERING_H_
#define MLFKIT_CODEGEN_PASSES_QDQ_LOWERING_H_

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::passes {

// What the pass changed.
struct QdqLoweringReport {
  int convs = 0;       // Conv -> QLinearConv
  int gemms = 0;       // Gemm / MatMul -> 1x1 QLinearConv
  int adds = 0;        // Add -> QLinearAdd
  int pools = 0;       // AveragePool / GlobalAveragePool -> QLinearAveragePool
  int muls = 0;        // Mul -> QLinearMul
  int lookups = 0;     // a unary operator -> QLinearLookup (a 256-entry table)
  int concats = 0;     // Concat on integers (QLinearConcat, or a plain Concat on one grid)
  int cancelled = 0;   // Q/DQ pairs around a grid-preserving operator
  int marked = 0;      // model QLinear nodes given the fixed-point rule
};

// Runs the rewrites above until none applies. The graph must be inferred;
// rewritten nodes are inferred again.
Result<QdqLoweringReport> LowerQdq(ir::Graph& graph);

}  // namespace mlf::passes

#endif  // MLFKIT_CODEGEN_PASSES_QDQ_LOWERING_H_
