#include "codegen/emit/memory_plan.h"

#include <map>

#include <gtest/gtest.h>

namespace mlf::emit {
namespace {

bool Valid(const std::vector<Buffer>& buffers, const std::vector<uint64_t>& offsets) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (offsets[i] % kPlanAlignment != 0) return false;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const bool live_together = buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
      const bool addresses_overlap = offsets[i] < offsets[j] + buffers[j].size &&
                                     offsets[j] < offsets[i] + buffers[i].size;
      if (live_together && addresses_overlap) return false;
    }
  }
  return true;
}

TEST(MemoryPlanTest, ReusesMemoryOfDeadBuffers) {
  // A chain a -> b -> c: a and c never live together.
  std::vector<Buffer> buffers = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}};
  uint64_t total = 0;
  auto offsets = PlaceBuffers(buffers, &total);
  EXPECT_TRUE(Valid(buffers, offsets));
  EXPECT_EQ(total, 2024u);  // the second 1000-byte buffer starts at 1024 (64-aligned)
  EXPECT_EQ(PeakLiveBytes(buffers), 2000u);
}

TEST(MemoryPlanTest, EmptyPlan) {
  uint64_t total = 7;
  EXPECT_TRUE(PlaceBuffers({}, &total).empty());
  EXPECT_EQ(total, 0u);
  EXPECT_EQ(PeakLiveBytes({}), 0u);
}

TEST(MemoryPlanTest, RandomIntervalGraphsStayValidAndCloseToTheBound) {
  uint64_t state = 12345;
  auto next = [&] { state = state * 6364136223846793005ull + 1442695040888963407ull; return state >> 33; };
  double worst = 1.0;
  for (int round = 0; round < 200; ++round) {
    std::vector<Buffer> buffers;
    const int n = 2 + static_cast<int>(next() % 30);
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(next() % 40);
      buffers.push_back({64 * (1 + next() % 64), first, first + static_cast<int>(next() % 6)});
    }
    uint64_t total = 0;
    auto offsets = PlaceBuffers(buffers, &total);
    ASSERT_TRUE(Valid(buffers, offsets)) << "round " << round;
    const uint64_t bound = PeakLiveBytes(buffers);
    ASSERT_GE(total, bound);
    worst = std::max(worst, static_cast<double>(total) / static_cast<double>(bound));
  }
  // Greedy best-fit is not optimal in general; this records how far it gets.
  EXPECT_LT(worst, 1.5);
  std::printf("memory plan: worst workspace / lower bound over 200 random graphs = %.3f\n", worst);
}

TEST(MemoryPlanTest, PlansAGraph) {
  ir::Graph g;
  auto value = [&](const char* name) {
    ir::Value v;
    v.name = name;
    v.shape = {256};  // 1 KiB of float32
    return g.AddValue(v);
  };
  const int x = value("x"), a = value("a"), b = value("b"), y = value("y");
  g.inputs = {x};
  g.outputs = {y};
  g.nodes.push_back({"n0", "Relu", {x}, {a}, {}});
  g.nodes.push_back({"n1", "Relu", {a}, {b}, {}});
  g.nodes.push_back({"n2", "Relu", {b}, {y}, {}});
  auto plan = PlanMemory(g, {0, 512, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->value_offsets.count(x), 0u);  // inputs and outputs are not planned
  EXPECT_EQ(plan->value_offsets.count(y), 0u);
  EXPECT_EQ(plan->scratch_offsets.size(), 1u);
  EXPECT_EQ(plan->lower_bound_bytes, 1024u + 1024u + 512u);  // a, b and node 1's scratch
  EXPECT_EQ(plan->workspace_bytes, 2560u);
  // What metadata's memory.plan lists: a, node 1's scratch and b, with
  // their offsets and lives.
  ASSERT_EQ(plan->buffers.size(), 3u);
  std::map<int, PlannedBuffer> by_value;
  for (const PlannedBuffer& p : plan->buffers) {
    if (p.value >= 0) by_value[p.value] = p;
    if (p.value < 0) {
      EXPECT_EQ(p.node, 1);
      EXPECT_EQ(p.offset, plan->scratch_offsets.at(1));
      EXPECT_EQ(p.size, 512u);
      EXPECT_EQ(p.first, 1);
      EXPECT_EQ(p.last, 1);
    }
  }
  EXPECT_EQ(by_value.at(a).offset, plan->value_offsets.at(a));
  EXPECT_EQ(by_value.at(a).size, 1024u);
  EXPECT_EQ(by_value.at(a).first, 0);
  EXPECT_EQ(by_value.at(a).last, 1);
  EXPECT_EQ(by_value.at(b).first, 1);
  EXPECT_EQ(by_value.at(b).last, 2);
  EXPECT_EQ(by_value.at(b).inside, -1);
}

// x -> a, x -> b, Concat(a, b) -> c, Relu(c) -> y: a and b are placed one
// after the other inside c, whose life starts with a's producer; the Concat
// is elided. A Concat whose input is read elsewhere, or whose output is a
// graph output, or whose slices are not contiguous, copies.
TEST(MemoryPlanTest, ConcatInPlace) {
  ir::Graph g;
  auto value = [&](const char* name, std::vector<int64_t> shape) {
    ir::Value v;
    v.name = name;
    v.shape = shape;
    return g.AddValue(v);
  };
  const int x = value("x", {1, 4, 8}), a = value("a", {1, 4, 8}), b = value("b", {1, 2, 8}),
            c = value("c", {1, 6, 8}), y = value("y", {1, 6, 8});
  g.inputs = {x};
  g.outputs = {y};
  g.nodes.push_back({"n0", "Relu", {x}, {a}, {}});
  g.nodes.push_back({"n1", "Slice", {x}, {b}, {}});
  g.nodes.push_back({"n2", "Concat", {a, b}, {c}, {{"axis", int64_t{-2}}}});
  g.nodes.push_back({"n3", "Relu", {c}, {y}, {}});
  auto plan = PlanMemory(g, {0, 0, 0, 0});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->elided_nodes, std::set<int>{2});
  EXPECT_EQ(plan->value_offsets.at(a), plan->value_offsets.at(c));
  EXPECT_EQ(plan->value_offsets.at(b), plan->value_offsets.at(c) + 4 * 8 * 4);
  EXPECT_EQ(plan->workspace_bytes, 6u * 8 * 4);
  // c lives from a's producer to its reader; a and b are listed inside it.
  ASSERT_EQ(plan->buffers.size(), 3u);
  EXPECT_EQ(plan->buffers[0].value, c);
  EXPECT_EQ(plan->buffers[0].first, 0);
  EXPECT_EQ(plan->buffers[0].last, 3);
  EXPECT_EQ(plan->buffers[1].value, a);
  EXPECT_EQ(plan->buffers[1].inside, c);
  EXPECT_EQ(plan->buffers[1].first, 0);
  EXPECT_EQ(plan->buffers[1].last, 2);
  EXPECT_EQ(plan->buffers[2].value, b);
  EXPECT_EQ(plan->buffers[2].offset, plan->value_offsets.at(b));
  EXPECT_EQ(plan->buffers[2].size, 2u * 8 * 4);
  EXPECT_EQ(plan->buffers[2].inside, c);

  // Slices along axis 2 of [1, 6, 8] are not contiguous.
  g.nodes[2].attrs["axis"] = int64_t{2};
  EXPECT_FALSE(ConcatInPlace(g, 2));
  g.nodes[2].attrs["axis"] = int64_t{1};
  EXPECT_TRUE(ConcatInPlace(g, 2));
  // a also read by n3.
  g.nodes[3].inputs = {c, a};
  EXPECT_FALSE(ConcatInPlace(g, 2));
  g.nodes[3].inputs = {c};
  // The Concat's output is the graph's output.
  g.outputs = {c};
  EXPECT_FALSE(ConcatInPlace(g, 2));
  g.outputs = {y};
  // A graph input as an operand.
  g.nodes[2].inputs = {a, x};
  EXPECT_FALSE(ConcatInPlace(g, 2));
}

}  // namespace
}  // namespace mlf::emit
