// The ONNX front end: an ONNX model (protobuf bytes or a .onnx file) to the
// compiler's graph IR (codegen/ir/graph.h), in canonical operator form
// (codegen/ops/README.md), fully inferred and constant-folded.
//
//   OnnxImportOptions options;
//   options.input_shapes["input"] = {1, 3, 224, 224};  // fixes dynamic dims
//   MLF_ASSIGN_OR_RETURN(ir::Graph g, ImportOnnxFile("model.onnx", options));
//
// Steps, each with its own error:
//   1. bounds: model bytes (max_model_bytes), node count (max_nodes);
//   2. parse (not an ONNX protobuf -> InvalidArgument), step 3, onnx::checker
//      (InvalidArgument with the checker's text), plus what libonnx 1.12's
//      checker misses and its shape inference or converter would crash on
//      (undefined graph outputs; strides/dilations/kernel_shape/group/
//      blocksize below 1; a zero Range delta);
//   3. opset (before the checker, whose message for a newer opset says
//      nothing useful): the default ONNX domain is required; opsets 13..17 are kept,
//      lower ones are converted to 13 with onnx::version_conversion (its
//      failure is FailedPrecondition naming both opsets and the reason),
//      higher ones are refused; nodes of any other domain (ai.onnx.ml, ...)
//      are refused naming the node;
//   4. input_shapes and constant_inputs are applied; ONNX shape inference
//      (onnx_shape_inference.h: libonnx's, with the Conv family's inference
//      guarded against the rank mismatches it would crash on);
//      graph inputs must have static shapes (or one in input_shapes), dtypes
//      from artifact/format/dtype.h, rank <= max_rank and at most max_elements
//      elements (TensorLimits). Models converted from opset <= 10 get
//      Upsample/Resize-10's asymmetric coordinates and floor rounding back
//      on their Resize nodes (the converter drops them);
//   5. initializers and Constant nodes become constants (an input that is
//      also an initializer is a constant); every node is lowered
//      (onnx_lowering.h), inferred with its operator's rules
//      (ops::InferNode), checked against ONNX shape inference wherever both
//      know a dim (a disagreement is an error naming the node), and folded
//      when its inputs are constants (passes::TryFoldNode; Shape and Size of
//      any value fold);
//   6. unused values and nodes are pruned, graph outputs kept (also when they
//      are constants), Graph::Validate().
// Unsupported ops, attributes, dtypes and dynamic shapes are errors naming
// the node (or input), its op and the reason. No exception escapes.
#ifndef MLFKIT_CODEGEN_FRONTEND_ONNX_FRONTEND_H_
#define MLFKIT_CODEGEN_FRONTEND_ONNX_FRONTEND_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/frontend/tensor_limits.h"
#include "codegen/ir/graph.h"
#include "codegen/passes/constant_folding.h"

namespace mlf::frontend {

// The opset the front end lowers to; and the newest it accepts.
inline constexpr int64_t kCanonicalOpset = 13;
inline constexpr int64_t kMaxOpset = 17;

struct OnnxImportOptions {
  uint64_t max_model_bytes = uint64_t{2} << 30;  // 2 GiB
  uint64_t max_nodes = 100000;
  TensorLimits tensor_limits;  // every initializer, input and computed value
  // Shapes for graph inputs by name: replace the model's (same rank), e.g.
  // to fix a dynamic batch dimension.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Graph inputs bound to fixed values ("frozen"): they become constants and
  // are no longer inputs of the graph. For inputs that the operators need as
  // constants (Reshape shapes, Slice starts, Resize scales, ...). The dtype
  // must match the model's, and so must every static dimension.
  std::map<std::string, ir::HostTensor> constant_inputs;
  passes::FoldOptions folding;
  // How the caller's users spell the two options above, for the messages
  // that name them (the CLI: "--input-shape", "--constant"; Python:
  // "input_shapes", "constants"). A message that asks to fix a symbolic
  // shape also suggests one: the input's name, "=", its dimensions with each
  // symbolic one as 1 ("--input-shape input=1,3,224,224").
  std::string input_shapes_option = "OnnxImportOptions::input_shapes";
  std::string constant_inputs_option = "OnnxImportOptions::constant_inputs";
};

// Facts about the source model (for metadata's "source").
struct OnnxModelInfo {
  int64_t opset = 0;        // the model's default-domain opset, before conversion
  int64_t ir_version = 0;
  bool converted = false;   // converted to kCanonicalOpset
  std::string producer_name;
  std::string producer_version;
};

Result<ir::Graph> ImportOnnx(std::string_view model_bytes, const OnnxImportOptions& options = {},
                             OnnxModelInfo* info = nullptr);
// Reads `path` (refusing a file over max_model_bytes before reading it).
Result<ir::Graph> ImportOnnxFile(const std::string& path, const OnnxImportOptions& options = {},
                                 OnnxModelInfo* info = nullptr);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_ONNX_FRONTEND_H_
