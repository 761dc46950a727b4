// ONNX shape inference (libonnx 1.12) with the inference functions that crash
// on inconsistent ranks guarded.
//
// libonnx 1.12's convPoolShapeInference (Conv, ConvInteger, QLinearConv) and
// convTransposeShapeInference (ConvTranspose) index their attribute vectors and
// the input shapes by the rank of the weight W without checking it against the
// rank of X (and ConvTranspose reads W's shape even when W has none): a model
// whose W and X ranks differ reads out of bounds and typically segfaults. The
// ranks are only known during inference (X may be computed by another node), so
// a check of the model beforehand cannot close this.
//
// InferOnnxShapes therefore runs onnx::shape_inference::InferShapes with its own
// schema registry: it answers every lookup with the default registry's schema,
// except for every version of the guarded operators, for which it answers with
// a copy whose inference function first checks the ranks and fails the node's
// inference (an onnx::InferenceError, as libonnx's own checks do) when they
// differ. Like every node-level inference error in libonnx's default mode, that
// leaves the node's outputs without an inferred shape; the importer's own
// inference (ops::InferNode) then refuses the node with an error naming it.
// The global OpSchemaRegistry is never modified; the guarded registry is built
// once, on first use, and is immutable and safe to share between threads.
#ifndef MLFKIT_CODEGEN_FRONTEND_ONNX_SHAPE_INFERENCE_H_
#define MLFKIT_CODEGEN_FRONTEND_ONNX_SHAPE_INFERENCE_H_

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "artifact/status.h"

namespace mlf::frontend {

// Runs ONNX shape inference on `model` in place with the guarded registry.
// An exception escaping libonnx becomes InvalidArgument("ONNX shape inference
// failed: <what>").
Status InferOnnxShapes(onnx::ModelProto& model);

// The operators (default ONNX domain) whose inference functions are guarded,
// and how many schema versions of them the guarded registry replaces.
const std::vector<std::string>& GuardedOnnxOps();
int GuardedOnnxSchemaCount();

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_ONNX_SHAPE_INFERENCE_H_
