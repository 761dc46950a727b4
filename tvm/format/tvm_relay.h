// Tensor signatures from the text TVM archives carry beside metadata.json,
// which never records shapes (docs/archive-format.md, "TVM archives"):
//
//   - the Relay text of the model (src/<mod>.relay, v<=6 src/relay.txt):
//       def @main(%input_1: Tensor[(1, 28, 28, 1), float32] /* ty=... */,
//                 %v_param_1: Tensor[(10, 784), float32],
//                 output_tensor_names=["Identity"]) -> Tensor[(1, 10), float32] {
//     Only the signature of @main is read; the body is never parsed. Names
//     are as TVM's printer wrote them: raw (they may contain ':' or '/'), or
//     double-quoted, or with a "v" prefix TVM added to names that do not start
//     with a letter ("_param_1" is printed "%v_param_1"). A parameter without
//     a type, or a dimension that is not a number ("?", "Any", "n"), makes
//     that tensor's shape unknown. Results: one tensor, or a (nested) tuple,
//     flattened in order.
//
//   - the graph executor's JSON (executor-config/graph/<mod>.graph, v5
//     .../graph.json): nodes, arg_nodes, heads, node_row_ptr and the
//     attrs dltype / shape lists.
//
// Both parsers are for untrusted input: bounded, never recursive beyond a
// fixed depth, and every failure is an InvalidArgument naming what is wrong
// and where (line for Relay, JSON field for graphs).
#ifndef MLFKIT_TVM_FORMAT_TVM_RELAY_H_
#define MLFKIT_TVM_FORMAT_TVM_RELAY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"

namespace mlf {

struct SignatureTensor {
  std::string name;   // empty for results (TVM does not name them)
  std::string dtype;  // as written, e.g. "float32"; empty when unknown
  std::vector<int64_t> shape;
  bool shape_known = false;
};

struct RelaySignature {
  std::vector<SignatureTensor> params;   // in declaration order
  std::vector<SignatureTensor> results;  // flattened; empty when no "->" type
  // The function attribute output_tensor_names=[...] when present.
  std::vector<std::string> output_names;
};

// The signature of `def @main(...)` in Relay text.
Result<RelaySignature> ParseRelayMainSignature(std::string_view text);

struct GraphSignature {
  std::vector<SignatureTensor> args;     // arg_nodes: inputs and parameters, in order
  std::vector<SignatureTensor> outputs;  // heads, in order (unnamed)
};

// The inputs and outputs of a graph executor JSON.
Result<GraphSignature> ParseGraphExecutorJson(std::string_view text);

// TVM's names for results: "output" for one, "output0", "output1", ... for
// several, unless `given` names them all.
std::vector<std::string> TvmOutputNames(size_t count, const std::vector<std::string>& given);

}  // namespace mlf

#endif  // MLFKIT_TVM_FORMAT_TVM_RELAY_H_
