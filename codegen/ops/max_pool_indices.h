// MaxPool with its optional Indices output (output 1, int64): the entry
// points pool.cc's MaxPool hands a node with two outputs to.
//
// Indices are ONNX's: the position of each maximum in the flattened input
// X (N x C x spatial, padding not counted), the spatial part row-major
// (storage_order 0) or column-major (storage_order 1: the first spatial axis
// varies fastest). Y is MaxPool's: padding never wins and ties keep the
// first tap in window order (each axis in turn, the last fastest); a window
// whose values never exceed the dtype's lowest value points at its first
// tap inside X.
#ifndef MLFKIT_CODEGEN_OPS_MAX_POOL_INDICES_H_
#define MLFKIT_CODEGEN_OPS_MAX_POOL_INDICES_H_

#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"
#include "codegen/ops/op.h"

namespace mlf::ops {

Status MaxPoolIndicesInfer(const ir::Node& node, ir::Graph& graph);
Status MaxPoolIndicesEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                              std::vector<ir::HostTensor>* outputs);
Status MaxPoolIndicesEmit(const EmitContext& ctx, std::string* body);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_MAX_POOL_INDICES_H_
