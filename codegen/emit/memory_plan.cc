#include "codegen/emit/memory_plan.h"

#include <algorithm>
#include <functional>
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

Result<MemoryPlan> PlanMemory(const ir::Graph& graph, const std::vector<uint64_t>& scratch_bytes) {
  const std::set<int> outputs(graph.outputs.begin(), graph.outputs.end());
  std::vector<Buffer> buffers;
  std::vector<int> owners;  // value id, or -(node index + 1) for scratch
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (int id : graph.nodes[n].outputs) {
      if (outputs.count(id)) continue;
      const ir::Value& v = graph.value(id);
      MLF_ASSIGN_OR_RETURN(uint64_t size, ByteSize(v.dtype, v.shape));
      Buffer b{size, static_cast<int>(n), static_cast<int>(n)};
      for (int consumer : graph.Consumers(id)) b.last = std::max(b.last, consumer);
      buffers.push_back(b);
      owners.push_back(id);
    }
    if (n < scratch_bytes.size() && scratch_bytes[n] > 0) {
      buffers.push_back(Buffer{scratch_bytes[n], static_cast<int>(n), static_cast<int>(n)});
      owners.push_back(-static_cast<int>(n) - 1);
    }
  }
  MemoryPlan plan;
  const std::vector<uint64_t> offsets = PlaceBuffers(buffers, &plan.workspace_bytes);
  plan.lower_bound_bytes = PeakLiveBytes(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (owners[i] >= 0) {
      plan.value_offsets[owners[i]] = offsets[i];
    } else {
      plan.scratch_offsets[-owners[i] - 1] = offsets[i];
    }
  }
  return plan;
}

}  // namespace mlf::emit
