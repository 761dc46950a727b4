#include "codegen/passes/pack_weights.h"

#include <cstring>

#include "codegen/kernels/packing.h"
#include "codegen/ops/conv_kernel.h"
#include "codegen/ops/gemm_kernel.h"

namespace mlf::passes {

Result<int> PackWeights(ir::Graph& graph) {
  int packed = 0;
  for (ir::Node& node : graph.nodes) {
    if (ops::GemmSuitsGemvKernel(node, graph)) {
      ir::HostTensor& t = *graph.values[node.inputs[1]].constant;
      const std::vector<float> blocks =
          kernels::PackGemvW(t.data<float>(), t.shape[0], t.shape[1]);
      std::memcpy(t.data<float>(), blocks.data(), blocks.size() * sizeof(float));
      node.attrs[ops::kWeightLayoutAttr] = std::string(ops::kGemvBlocksLayout);
      ++packed;
      continue;
    }
    if (!ops::ConvSuitsKernel(node, graph)) continue;
    ir::Value& w = graph.values[node.inputs[1]];
    ir::HostTensor& t = *w.constant;
    const int64_t m = w.shape[0];
    const int64_t k = static_cast<int64_t>(t.element_count()) / (m > 0 ? m : 1);
    const std::vector<float> panels = kernels::PackGemmA(t.data<float>(), m, k);
    std::memcpy(t.data<float>(), panels.data(), panels.size() * sizeof(float));
    node.attrs[ops::kWeightLayoutAttr] = std::string(ops::kGemmPanelsLayout);
    ++packed;
  }
  return packed;
}

}  // namespace mlf::passes
