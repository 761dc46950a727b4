// ONNX shape inference (libonnx 1.12) with the inference functions that crash
// on inconsistent ranks guarded.
//
// Some of libonnx 1.12's inference functions index dims and attribute
// vectors without checking the ranks they assume, and read out of bounds
// (typically a segfault) on a model whose ranks disagree:
//   - convPoolShapeInference (Conv, ConvInteger, QLinearConv) and
//     convTransposeShapeInference (ConvTranspose) when W's rank differs from
//     X's (ConvTranspose also reads W's shape when W has none);
//   - LayerNormalization-17 when axis < -rank(X);
//   - STFT-17 when the signal has rank 0 or 1 (the operator defines rank 3);
//   - Gemm-6 when A or B has rank below 2;
//   - RNN-1, GRU-3 and LSTM-1 when X has rank below 2.
// (Found by the onnx fuzzer and by a sweep of every operator version up to
// opset 17 over rank combinations, which OnnxShapeInference.
// NoOperatorCrashesOnAnyRankCombination repeats; the other operators check
// the ranks they use.) The preconditions are the ranks each operator's
// definition requires, applied to all its versions. The ranks are
// only known during inference (X may be computed by another node), so a check
// of the model beforehand cannot close this.
//
// InferOnnxShapes therefore runs onnx::shape_inference::InferShapes with its own
// schema registry: it answers every lookup with the default registry's schema,
// except for every version of the guarded operators, for which it answers with
// a copy whose inference function first checks the precondition and fails the
// node's inference (an onnx::InferenceError, as libonnx's own checks do) when
// it does not hold. libonnx's default mode records such node errors and goes
// on; a failed precondition, though, makes InferOnnxShapes refuse the model
// (the version converter, which runs next for old opsets, reads the same
// shapes out of bounds): it runs inference once more in the mode that throws
// node errors, to name the node, and returns
//   InvalidArgument("the ONNX model is invalid: node 'g' (Gemm): B has rank 1,
//                    expected 2")
// The global OpSchemaRegistry is never modified; the guarded registry is built
// once, on first use, and is immutable and safe to share between threads.
#ifndef MLFKIT_CODEGEN_FRONTEND_ONNX_SHAPE_INFERENCE_H_
#define MLFKIT_CODEGEN_FRONTEND_ONNX_SHAPE_INFERENCE_H_

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::frontend {

// Runs ONNX shape inference on `model` in place with the guarded registry.
// A failed precondition is InvalidArgument (above); an exception escaping
// libonnx becomes InvalidArgument("ONNX shape inference failed: <what>").
Status InferOnnxShapes(onnx::ModelProto& model);

// The operators (default ONNX domain) whose inference functions are guarded,
// and how many schema versions of them the guarded registry replaces.
const std::vector<std::string>& GuardedOnnxOps();
int GuardedOnnxSchemaCount();

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_ONNX_SHAPE_INFERENCE_H_
