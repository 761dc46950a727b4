// Which tensors of a graph are quantized, and how: read from the quantized
// operators that take or produce them (QuantizeLinear's output,
// DequantizeLinear's input, the QLinear* operators' operands), whose scale
// and zero-point inputs say it. Metadata records the result for the
// module's inputs, outputs and parameters (version 9, "quantization").
//
// A tensor is listed only when every operator that speaks of it agrees and
// its scale and zero point are constants: metadata says nothing rather than
// something a later operator contradicts.
#ifndef MLFKIT_CODEGEN_OPS_QUANTIZED_TENSORS_H_
#define MLFKIT_CODEGEN_OPS_QUANTIZED_TENSORS_H_

#include <map>

#include "artifact/format/metadata.h"
#include "codegen/ir/graph.h"

namespace mlf::ops {

// Value id -> its quantization.
std::map<int, QuantizationInfo> QuantizedTensors(const ir::Graph& graph);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_QUANTIZED_TENSORS_H_
