// Static memory planning: every intermediate value (and every node's scratch
// buffer) gets an offset in one workspace, reusing memory across values whose
// lifetimes do not overlap. Graph inputs and outputs live in the caller's
// buffers and constants in flash or the parameter blob, so neither is planned.
//
// Lifetimes are node-index intervals [producer, last reader]; a value nobody
// reads still lives during its producer. Buffers are placed largest first at
// the lowest 64-byte aligned offset free for their whole lifetime (greedy
// best-fit on an interval graph), which is usually within a few percent of
// the lower bound: the largest sum of simultaneously live bytes.
#ifndef MLFKIT_CODEGEN_EMIT_MEMORY_PLAN_H_
#define MLFKIT_CODEGEN_EMIT_MEMORY_PLAN_H_

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::emit {

inline constexpr uint64_t kPlanAlignment = 64;

struct Buffer {
  uint64_t size = 0;
  int first = 0;  // node index where it becomes live
  int last = 0;   // node index after which it is dead
};

// One placed buffer as metadata's memory.plan describes it: a value (also
// one held in its slice of an in-place Concat's output) or a node's scratch.
struct PlannedBuffer {
  int value = -1;   // the value's id; -1 for a scratch
  int node = -1;    // the node whose scratch it is; -1 for a value
  uint64_t offset = 0;
  uint64_t size = 0;
  int first = 0;    // node indices of its lifetime
  int last = 0;
  int inside = -1;  // the in-place Concat output value holding it, or -1
};

struct MemoryPlan {
  std::map<int, uint64_t> value_offsets;    // intermediate value id -> offset
  std::map<int, uint64_t> scratch_offsets;  // node index -> offset of its scratch
  // Concat nodes done by the plan itself: each input is placed in its slice
  // of the output, so its producer writes it there and the node has nothing
  // left to do (see ConcatInPlace).
  std::set<int> elided_nodes;
  // Every buffer, values first in placement order, then the in-place
  // Concats' inputs.
  std::vector<PlannedBuffer> buffers;
  uint64_t workspace_bytes = 0;             // end of the last buffer (offsets are aligned)
  uint64_t lower_bound_bytes = 0;
};

// Places `buffers`; returns their offsets in the same order.
std::vector<uint64_t> PlaceBuffers(const std::vector<Buffer>& buffers, uint64_t* total);

// The largest sum of sizes of buffers live at the same node index.
uint64_t PeakLiveBytes(const std::vector<Buffer>& buffers);

// Whether node `n` is a Concat the plan can do in place: its output is an
// intermediate value whose slices along the axis are contiguous (every
// dimension before the axis is 1), and every input is a distinct
// intermediate value of its dtype, written by an earlier node that is not a
// Concat and read by this node only.
bool ConcatInPlace(const ir::Graph& graph, size_t n);

// Plans `graph`; `scratch_bytes[n]` is node n's scratch need (0 for none).
// An in-place Concat's output lives from its first input's producer to its
// last reader, and its inputs get offsets inside it.
Result<MemoryPlan> PlanMemory(const ir::Graph& graph, const std::vector<uint64_t>& scratch_bytes);

}  // namespace mlf::emit

#endif  // MLFKIT_CODEGEN_EMIT_MEMORY_PLAN_H_
