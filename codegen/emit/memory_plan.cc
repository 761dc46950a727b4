#include "codegen/emit/memory_plan.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>

namespace mlf::emit {
namespace {

uint64_t AlignUp(uint64_t n) { return (n + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

bool Overlap(const Buffer& a, const Buffer& b) { return a.first <= b.last && b.first <= a.last; }

// The lowest aligned offset where `size` bytes fit between the address ranges
// `taken` (sorted by start).
uint64_t LowestFit(std::vector<std::pair<uint64_t, uint64_t>> taken, uint64_t size) {
  std::sort(taken.begin(), taken.end());
  uint64_t candidate = 0;
  for (const auto& [start, end] : taken) {
    if (candidate + size <= start) break;
    candidate = std::max(candidate, AlignUp(end));
  }
  return candidate;
}

// Places buffers in `order`, each at the lowest offset free for its lifetime.
std::vector<uint64_t> PlaceInOrder(const std::vector<Buffer>& buffers,
                                   const std::vector<size_t>& order, uint64_t* total) {
  std::vector<uint64_t> offsets(buffers.size(), 0);
  std::vector<bool> placed(buffers.size(), false);
  *total = 0;
  for (size_t i : order) {
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t j = 0; j < buffers.size(); ++j) {
      if (placed[j] && Overlap(buffers[i], buffers[j])) {
        taken.push_back({offsets[j], offsets[j] + buffers[j].size});
      }
    }
    offsets[i] = LowestFit(std::move(taken), buffers[i].size);
    placed[i] = true;
    // Offsets are aligned; the end is not: the caller aligns the workspace's
    // start, and nothing reads past the last buffer.
    *total = std::max(*total, offsets[i] + buffers[i].size);
  }
  return offsets;
}

}  // namespace

std::vector<uint64_t> PlaceBuffers(const std::vector<Buffer>& buffers, uint64_t* total) {
  // Greedy placement depends on the order; a few classic orders are tried and
  // the smallest workspace kept (ties: the first order, so plans are stable).
  using Less = std::function<bool(const Buffer&, const Buffer&)>;
  const std::vector<Less> orders = {
      [](const Buffer& a, const Buffer& b) { return a.size > b.size; },
      [](const Buffer& a, const Buffer& b) {
        return (a.last - a.first) * 1.0 * a.size > (b.last - b.first) * 1.0 * b.size;
      },
      [](const Buffer& a, const Buffer& b) { return a.first < b.first || (a.first == b.first && a.size > b.size); },
      [](const Buffer& a, const Buffer& b) { return a.last - a.first > b.last - b.first; },
  };
  std::vector<uint64_t> best;
  *total = UINT64_MAX;
  for (const Less& less : orders) {
    std::vector<size_t> order(buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return less(buffers[a], buffers[b]); });
    uint64_t candidate_total = 0;
    std::vector<uint64_t> offsets = PlaceInOrder(buffers, order, &candidate_total);
    if (candidate_total < *total) {
      *total = candidate_total;
      best = std::move(offsets);
    }
  }
  if (buffers.empty()) *total = 0;
  return best;
}

uint64_t PeakLiveBytes(const std::vector<Buffer>& buffers) {
  int last = -1;
  for (const Buffer& b : buffers) last = std::max(last, b.last);
  uint64_t peak = 0;
  for (int t = 0; t <= last; ++t) {
    uint64_t live = 0;
    for (const Buffer& b : buffers) {
      if (b.first <= t && t <= b.last) live += b.size;
    }
    peak = std::max(peak, live);
  }
  return peak;
}

bool ConcatInPlace(const ir::Graph& graph, size_t n) {
  const ir::Node& node = graph.nodes[n];
  if (node.op != "Concat" || node.outputs.size() != 1 || node.inputs.empty() ||
      graph.IsOutput(node.outputs[0])) {
    return false;
  }
  const ir::Value& out = graph.value(node.outputs[0]);
  Result<int64_t> axis = node.Int("axis", 0);
  const int64_t rank = static_cast<int64_t>(out.shape.size());
  if (!axis.ok() || *axis < -rank || *axis >= rank) return false;
  for (int64_t d = 0; d < (*axis < 0 ? *axis + rank : *axis); ++d) {
    if (out.shape[static_cast<size_t>(d)] != 1) return false;
  }
  std::set<int> seen;
  for (int id : node.inputs) {
    if (id == ir::kNoValue || !seen.insert(id).second || graph.IsOutput(id)) return false;
    const int producer = graph.Producer(id);
    if (producer < 0 || producer >= static_cast<int>(n) || graph.nodes[producer].op == "Concat") return false;
    const std::vector<int> readers = graph.Consumers(id);
    if (readers.size() != 1 || readers[0] != static_cast<int>(n)) return false;
    if (graph.value(id).dtype != out.dtype) return false;
  }
  return true;
}

Result<MemoryPlan> PlanMemory(const ir::Graph& graph, const std::vector<uint64_t>& scratch_bytes) {
  const std::set<int> outputs(graph.outputs.begin(), graph.outputs.end());
  MemoryPlan plan;
  std::map<int, int> slice_of;  // input value of an in-place Concat -> that Concat's node index
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!ConcatInPlace(graph, n)) continue;
    plan.elided_nodes.insert(static_cast<int>(n));
    for (int id : graph.nodes[n].inputs) slice_of[id] = static_cast<int>(n);
  }
  std::vector<Buffer> buffers;
  std::vector<int> owners;  // value id, or -(node index + 1) for scratch
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (int id : graph.nodes[n].outputs) {
      if (outputs.count(id) || slice_of.count(id)) continue;
      const ir::Value& v = graph.value(id);
      MLF_ASSIGN_OR_RETURN(uint64_t size, ByteSize(v.dtype, v.shape));
      Buffer b{size, static_cast<int>(n), static_cast<int>(n)};
      for (int consumer : graph.Consumers(id)) b.last = std::max(b.last, consumer);
      if (plan.elided_nodes.count(static_cast<int>(n))) {
        for (int in : graph.nodes[n].inputs) b.first = std::min(b.first, graph.Producer(in));
      }
      buffers.push_back(b);
      owners.push_back(id);
    }
    if (n < scratch_bytes.size() && scratch_bytes[n] > 0) {
      buffers.push_back(Buffer{scratch_bytes[n], static_cast<int>(n), static_cast<int>(n)});
      owners.push_back(-static_cast<int>(n) - 1);
    }
  }
  const std::vector<uint64_t> offsets = PlaceBuffers(buffers, &plan.workspace_bytes);
  plan.lower_bound_bytes = PeakLiveBytes(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    PlannedBuffer planned{-1, -1, offsets[i], buffers[i].size, buffers[i].first, buffers[i].last, -1};
    if (owners[i] >= 0) {
      plan.value_offsets[owners[i]] = offsets[i];
      planned.value = owners[i];
    } else {
      plan.scratch_offsets[-owners[i] - 1] = offsets[i];
      planned.node = -owners[i] - 1;
    }
    plan.buffers.push_back(planned);
  }
  // Each in-place Concat's inputs, one after the other inside its output.
  for (int n : plan.elided_nodes) {
    uint64_t at = plan.value_offsets.at(graph.nodes[static_cast<size_t>(n)].outputs[0]);
    const int output = graph.nodes[static_cast<size_t>(n)].outputs[0];
    for (int id : graph.nodes[static_cast<size_t>(n)].inputs) {
      plan.value_offsets[id] = at;
      const ir::Value& v = graph.value(id);
      MLF_ASSIGN_OR_RETURN(uint64_t size, ByteSize(v.dtype, v.shape));
      plan.buffers.push_back(PlannedBuffer{id, -1, at, size, graph.Producer(id), n, output});
      at += size;
    }
  }
  return plan;
}

}  // namespace mlf::emit
