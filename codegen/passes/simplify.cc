#include "codegen/passes/simplify.h"

#include <set>

namespace mlf::passes {
namespace {

bool IsPassThrough(const ir::Graph& g, const ir::Node& n) {
  if (n.op == "Identity") return true;
  // A Cast to the dtype it already has (PyTorch writes one after every
  // QuantizeLinear of a quantized model): a copy.
  if (n.op == "Cast" && n.HasInput(0) && n.outputs.size() == 1 &&
      g.value(n.inputs[0]).dtype == g.value(n.outputs[0]).dtype) {
    return true;
  }
  if (n.op != "Dropout") return false;
  // The mask output, when present, must be unused.
  return n.outputs.size() < 2 || (g.Consumers(n.outputs[1]).empty() && !g.IsOutput(n.outputs[1]));
}

// Values read by nodes or listed as graph outputs.
std::set<int> LiveValues(const ir::Graph& g) {
  std::set<int> live(g.outputs.begin(), g.outputs.end());
  for (const ir::Node& n : g.nodes) {
    for (int in : n.inputs) {
      if (in != ir::kNoValue) live.insert(in);
    }
  }
  return live;
}

}  // namespace

int RemoveIdentities(ir::Graph& g) {
  int removed = 0;
  for (size_t i = 0; i < g.nodes.size();) {
    const ir::Node& n = g.nodes[i];
    if (!IsPassThrough(g, n) || g.IsOutput(n.outputs[0]) || n.inputs.empty() ||
        n.inputs[0] == ir::kNoValue) {
      ++i;
      continue;
    }
    const int from = n.outputs[0], to = n.inputs[0];
    g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
    g.ReplaceUses(from, to);
    ++removed;
  }
  return removed;
}

int EliminateDeadCode(ir::Graph& g) {
  int removed = 0;
  for (bool changed = true; changed;) {
    changed = false;
    const std::set<int> live = LiveValues(g);
    for (size_t i = g.nodes.size(); i-- > 0;) {
      bool used = false;
      for (int out : g.nodes[i].outputs) used = used || live.count(out);
      if (used) continue;
      g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
      ++removed;
      changed = true;
    }
  }
  // Constants are kept in `values` (ids stay stable) but release their data.
  const std::set<int> live = LiveValues(g);
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (g.values[v].is_constant() && !live.count(static_cast<int>(v))) g.values[v].constant->bytes.clear();
  }
  return removed;
}

}  // namespace mlf::passes
