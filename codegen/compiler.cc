#include "codegen/compiler.h"

#include "artifact/format/name_clash.h"
#include "codegen/emit/module_emitter.h"
#include "codegen/passes/constant_folding.h"
#include "codegen/passes/fusion.h"
#include "codegen/passes/pack_weights.h"
#include "codegen/passes/qdq_lowering.h"
#include "codegen/passes/simplify.h"

namespace mlf {

Status OptimizeGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report) {
  CompileReport local;
  CompileReport& r = report ? *report : local;
  if (options.optimize) {
    // First: it needs the DequantizeLinear of the int8 weights that the
    // ONNX front end leaves unfolded; FoldConstants folds those left after.
    MLF_ASSIGN_OR_RETURN(const passes::QdqLoweringReport q, passes::LowerQdq(graph));
    r.qdq_lowered = q.convs + q.gemms + q.adds + q.muls + q.pools + q.concats + q.lookups;
  }
  MLF_RETURN_IF_ERROR(passes::FoldConstants(graph));
  r.identities_removed = passes::RemoveIdentities(graph);
  if (options.optimize) {
    MLF_ASSIGN_OR_RETURN(r.batchnorms_folded, passes::FoldBatchNormalization(graph));
    MLF_ASSIGN_OR_RETURN(r.biases_fused, passes::FuseBias(graph));
    MLF_ASSIGN_OR_RETURN(r.residuals_fused, passes::FuseResidualAdds(graph));
    MLF_ASSIGN_OR_RETURN(r.activations_fused, passes::FuseActivations(graph));
  }
  r.dead_nodes_removed = passes::EliminateDeadCode(graph);
  r.nodes_emitted = static_cast<int>(graph.nodes.size());
  return graph.Validate();
}

Result<ModuleArtifacts> CompileGraph(const std::string& module, ir::Graph graph,
                                     const CompileOptions& options, CompileReport* report) {
  CompileReport local;
  CompileReport& r = report ? *report : local;
  MLF_RETURN_IF_ERROR(OptimizeGraph(graph, options, &r));
  // Last: a packed weight can no longer be evaluated (with or without
  // --no-optimize, which skips the fusions only).
  MLF_ASSIGN_OR_RETURN(r.weights_packed, passes::PackWeights(graph));
  emit::ModuleEmitOptions emit_options;
  emit_options.link_params = options.link_params;
  MLF_ASSIGN_OR_RETURN(emit::EmittedModule emitted, emit::EmitModule(module, graph, emit_options));
  // Names that would collide in the generated C (Y and y give one
  // TVMGEN_<MOD>_Y_SIZE) or take a reserved name are refused before any
  // code is built; ExportArchive checks them across modules as well.
  MLF_RETURN_IF_ERROR(CheckGeneratedNames(module, emitted.metadata));
  ModuleArtifacts artifacts;
  artifacts.name = module;
  artifacts.metadata = std::move(emitted.metadata);
  artifacts.sources = std::move(emitted.sources);
  artifacts.support_files = std::move(emitted.support_files);
  artifacts.parameter_blob = std::move(emitted.parameter_blob);
  return artifacts;
}

}  // namespace mlf
