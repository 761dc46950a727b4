// Multidirectional (numpy-style) broadcasting and strided loop nests: the
// shape rule of ONNX's binary operators, the index math of their reference
// evaluation, and the C loops their emitters write.
//
// A loop nest runs over an iteration shape (e.g. a binary op's output shape,
// or a reduction's input shape) and addresses several operands, each through
// its own element strides in that shape (stride 0 = the operand does not vary
// along that axis: broadcast, or a reduced axis of a reduction's output).
// Collapse() drops size-1 axes and merges axes that every operand traverses
// contiguously, so that same-shape operands become one flat loop and a
// scalar operand becomes `x[0]`.
#ifndef MLFKIT_CODEGEN_OPS_BROADCAST_H_
#define MLFKIT_CODEGEN_OPS_BROADCAST_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::ops {

// The broadcast shape of `a` and `b`; kInvalidArgument "shapes [2, 3] and [4]
// are not broadcastable (3 vs 4 at output axis 1)" otherwise (no node prefix).
Result<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b);

// Row-major element strides of `shape`.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape);

// Strides of an operand of shape `in` (right-aligned, broadcastable to `out`)
// in the iteration space `out`: 0 where the operand has size 1 or no axis.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& in,
                                      const std::vector<int64_t>& out);

struct LoopNest {
  std::vector<int64_t> dims;                  // extents, outermost first
  std::vector<std::vector<int64_t>> strides;  // per operand, one per dim

  // Drops size-1 axes and merges adjacent axes that every operand can walk as
  // one. An empty `dims` afterwards means a single iteration.
  static LoopNest Collapse(const std::vector<int64_t>& shape,
                           const std::vector<std::vector<int64_t>>& strides);

  // The element offset of every operand for every iteration, in iteration
  // order (for evaluate()): result[operand][iteration].
  std::vector<std::vector<uint64_t>> Offsets() const;

  // C99 loops over the nest, `indent` spaces deep, with `body(index)` as the
  // innermost statement(s), where index[k] is the C expression of operand k's
  // element offset ("0", "i1", "i0 * 12 + i1"). Loop counters are size_t
  // i0, i1, ... Empty when some extent is 0.
  std::string Emit(const std::function<std::string(const std::vector<std::string>&)>& body,
                   int indent = 2) const;
};

// An N-ary elementwise operation over broadcast operands: the output shape
// (numpy rules over every input) and the collapsed nest whose operand 0 is the
// output (contiguous) and operand k + 1 is input k.
struct BroadcastPlan {
  std::vector<int64_t> out;
  LoopNest nest;
};
// kInvalidArgument as BroadcastShapes when the inputs do not broadcast (the
// shape so far against the next input's).
Result<BroadcastPlan> PlanBroadcast(const std::vector<std::vector<int64_t>>& inputs);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_BROADCAST_H_
