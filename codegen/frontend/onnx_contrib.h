// ONNX Runtime's QOperator contrib operators (domain "com.microsoft"), as
// ONNX Runtime's quantizer writes them, rewritten into standard ONNX before
// the model is checked:
//
//   QLinearAdd, QLinearMul         DequantizeLinear x2 -> Add / Mul -> QuantizeLinear
//   QLinearAveragePool             DequantizeLinear -> AveragePool -> QuantizeLinear
//   QLinearGlobalAveragePool       DequantizeLinear -> GlobalAveragePool -> QuantizeLinear
//   QLinearConcat                  DequantizeLinear per input -> Concat -> QuantizeLinear
//   QLinearSigmoid                 DequantizeLinear -> Sigmoid -> QuantizeLinear
//   QLinearLeakyRelu               DequantizeLinear -> LeakyRelu -> QuantizeLinear
//
// This is what each operator is defined to compute (float arithmetic between
// dequantization and requantization); the QDQ lowering pass
// (codegen/passes/qdq_lowering.h) then takes the patterns it has integer
// kernels for, and the rest runs in float, as in any QDQ model. Being
// standard ONNX afterwards, the nodes go through the checker, shape
// inference and the version converter like any other.
//
// The rewrite is the contrib domain's one place: adding an operator is one
// entry in onnx_contrib.cc's table.
#ifndef MLFKIT_CODEGEN_FRONTEND_ONNX_CONTRIB_H_
#define MLFKIT_CODEGEN_FRONTEND_ONNX_CONTRIB_H_

#include <onnx/onnx_pb.h>

#include "artifact/base/status.h"

namespace mlf::frontend {

inline constexpr char kContribDomain[] = "com.microsoft";

// Rewrites every contrib node of the table in `model`'s main graph and drops
// the contrib domain's opset import when no contrib node is left. Errors
// name the node: a contrib operator not in the table (listing those that
// are), a channels_last layout, a wrong input count, or a default-domain
// opset below 10 (no QuantizeLinear there).
Status RewriteContribOps(onnx::ModelProto* model);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_ONNX_CONTRIB_H_
