// Lowering of one ONNX node to the IR's canonical operator forms
// (codegen/ops/README.md).
//
// The importer converts models below opset 13 to opset 13 first
// (onnx::version_conversion), so the rules that matter in practice are those
// for opsets 13..17; the older rules are here so that lowering is correct for
// whatever opset it is given:
//
//   Squeeze/Unsqueeze (< 13), ReduceSum (< 13), other Reduce* (< 18):
//       attribute `axes` -> constant int64 input 1
//   Split (< 13): attribute `split` -> constant int64 input 1
//   Clip (< 11): attributes `min`/`max` -> scalar inputs 1, 2 of the input dtype
//   Pad (< 11): attribute `pads` (`paddings` in opset 1) -> input 1,
//       `value` -> input 2
//   Slice (< 10): attributes `starts`/`ends`/`axes` -> inputs 1..3
//   Reshape (< 5): attribute `shape` -> input 1
//   Resize (10): (X, scales) -> (X, roi omitted, scales), asymmetric coordinates
//   Softmax/LogSoftmax (< 13, coerce-to-2D semantics) with an axis that is not
//       the last: Reshape to 2-D -> Softmax(axis=-1) -> Reshape back
//   BatchNormalization (>= 14): training_mode=1 refused; attribute dropped
//   Constant: becomes a constant value (value, value_float(s), value_int(s)),
//       never a node
//   any op: optional outputs (per the ONNX schema) that nothing reads are
//       dropped when trailing, unnamed ones in the middle get fresh values;
//       trailing omitted inputs are dropped
//
// Attributes keep ONNX's values: INT -> int64, FLOAT -> double, STRING,
// INTS, FLOATS, STRINGS, TENSOR -> HostTensor. Graph, sparse-tensor and type
// attributes, and nodes outside the default ONNX domain, are refused with an
// error naming the node.
#ifndef MLFKIT_CODEGEN_FRONTEND_ONNX_LOWERING_H_
#define MLFKIT_CODEGEN_FRONTEND_ONNX_LOWERING_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

#include "artifact/base/status.h"
#include "codegen/frontend/tensor_proto.h"
#include "codegen/ir/graph.h"

namespace mlf::frontend {

// What lowering needs from the importer that drives it.
class LoweringContext {
 public:
  virtual ~LoweringContext() = default;

  virtual ir::Graph& graph() = 0;
  virtual const TensorLimits& limits() const = 0;
  // The value id of the ONNX value `name`; an error naming `node` when the
  // name is not defined before it.
  virtual Result<int> Lookup(const std::string& name, const ir::Node& node) = 0;
  // A new value for the ONNX value `name`, produced by `node` (dtype and
  // shape are set by inference); an error when the name is already defined.
  virtual Result<int> Define(const std::string& name, const ir::Node& node) = 0;
  // Binds the ONNX value `name` to a constant (Constant nodes).
  virtual Status DefineConstant(const std::string& name, ir::HostTensor tensor,
                                const ir::Node& node) = 0;
  // A new constant / intermediate value with a fresh name derived from `base`.
  virtual int AddConstant(const std::string& base, ir::HostTensor tensor) = 0;
  virtual int AddTemp(const std::string& base) = 0;
  // Whether the ONNX value `name` is read by any node or is a graph output.
  virtual bool IsUsed(const std::string& name) const = 0;
  // Infers, checks, possibly folds, and appends one lowered node.
  virtual Status Emit(ir::Node node) = 0;
};

// The refusal of a node of an operator domain mlfkit does not compile;
// `who` is "node 'n' (Op)". The training domain says it is training.
Status UnsupportedDomain(const std::string& who, const std::string& domain);

// Lowers `proto` (named `name`: the model's, or "<op>_<index>") under the
// default-domain opset `opset`, calling ctx.Emit for each resulting node.
Status LowerNode(const onnx::NodeProto& proto, const std::string& name, int64_t opset,
                 LoweringContext& ctx);

// One ONNX attribute as an IR attribute value; `node` names errors.
Result<ir::AttrValue> ConvertAttribute(const onnx::AttributeProto& attr, const ir::Node& node,
                                       const TensorLimits& limits);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_ONNX_LOWERING_H_
