// ONNX control flow (If, Loop, Scan) unrolled at export.
//
// A compiled model has a fixed sequence of operators, so control flow is
// resolved when the model is imported:
//
//   If    the condition must be known at export (a constant, or computed
//         from constants and --constant inputs); the branch taken is
//         inlined, the other dropped.
//   Loop  the trip count M and the initial condition must be known at
//         export; the body is inlined once per iteration, and the condition
//         the body computes must be known after each iteration (a body whose
//         condition depends on the input data is refused: the number of
//         iterations, and so the output shapes, would depend on the values).
//         Loop-carried values thread through the copies; scan outputs are
//         stacked along a new axis 0 (Unsqueeze + Concat).
//   Scan  (opset 9 and later) the trip count is the scan inputs' length
//         along their scan axes, static by construction; each iteration
//         reads element t (or T-1-t, reverse direction) with Gather, and the
//         scan outputs are stacked along their output axes.
//
// Inlining renames every value a subgraph defines to a fresh name (values
// of the enclosing scopes keep theirs), so each copy is ordinary SSA, and
// nested control flow inside a body is unrolled the same way when its copy
// is lowered. The unrolled nodes of one control-flow node are bounded by the
// importer's node limit.
#ifndef MLFKIT_CODEGEN_FRONTEND_ONNX_CONTROL_FLOW_H_
#define MLFKIT_CODEGEN_FRONTEND_ONNX_CONTROL_FLOW_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/host_tensor.h"

namespace mlf::frontend {

// What unrolling needs from the importer that drives it.
class ControlFlowHost {
 public:
  virtual ~ControlFlowHost() = default;
  // Lowers one node (of the model or of an inlined subgraph) like any node
  // of the main graph; control-flow nodes come back to LowerControlFlow.
  virtual Status LowerProto(const onnx::NodeProto& node, const std::string& name) = 0;
  // The value of ONNX value `name` if it is known at export, else null.
  virtual const ir::HostTensor* KnownValue(const std::string& name) const = 0;
  // The shape of the defined ONNX value `name`, or nullopt when undefined.
  virtual std::optional<std::vector<int64_t>> ShapeOf(const std::string& name) const = 0;
  // A name derived from `base` that no value of the model or of the import
  // has, reserved from now on.
  virtual std::string ReserveName(const std::string& base) = 0;
  // Records that `name` is read (by an inlined node or as a body's result).
  virtual void MarkRead(const std::string& name) = 0;
  // The refusal of `who`'s input `index` (`field`, "cond") whose value is
  // not known at export, with `why`, and how to give it (--constant) when
  // graph inputs feed it.
  virtual Status NotKnown(const std::string& who, int index, const std::string& field,
                          const std::string& value, const std::string& why) const = 0;
  // At most this many nodes may come out of unrolling one node.
  virtual uint64_t MaxUnrolledNodes() const = 0;
};

// Whether `node` is a control-flow node this file unrolls.
bool IsControlFlow(const onnx::NodeProto& node);

// Unrolls `node` (If, Loop or Scan, named `name`), lowering every resulting
// node through host.LowerProto; its outputs are defined under their names.
Status LowerControlFlow(const onnx::NodeProto& node, const std::string& name,
                        ControlFlowHost& host);

// Scan of opset 8 has a batch axis (axis 0 of every state and scan input,
// scanned along axis 1) that later Scans do not, and libonnx 1.12's 8 -> 9
// adapter drops that axis from the graph's own inputs and outputs. Before
// conversion, each top-level Scan-8 of `model` (an opset-8 model whose value
// shapes ONNX inference has recorded) becomes, per batch entry b, a Loop of
// opset 8 over the scan axis (Gather of entry b, then of step t or T-1-t),
// with the results stacked back along axis 0; the Loops are then unrolled
// like any other. Scans with sequence_lens, nested in subgraphs, or with a
// batch or sequence length ONNX does not know are refused naming the node.
Status RewriteOpset8Scans(onnx::ModelProto* model);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_ONNX_CONTROL_FLOW_H_
