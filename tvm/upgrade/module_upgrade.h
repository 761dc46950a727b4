// One module of a TVM archive turned into an mlfkit module: the checks
// that it can run as one, its metadata, and its code (the rewritten TVM
// sources, the adapter and the interface header). See upgrade.h.
#ifndef MLFKIT_TVM_UPGRADE_MODULE_UPGRADE_H_
#define MLFKIT_TVM_UPGRADE_MODULE_UPGRADE_H_

#include <map>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"

namespace mlf::tvm_upgrade {

inline constexpr char kProvenanceDir[] = "src/tvm/";
inline constexpr char kRuntimeSource[] = "codegen/host/src/mlf_tvm_runtime.c";

struct UpgradedModule {
  ModuleMetadata metadata;         // version 8; host_library not yet set
  std::vector<StagedFile> code;    // sources, adapter, interface header (graph: graph function)
  // Graph executor modules: the parameter blob, member metadata.parameters->path
  // ("parameters/<c>.bin"); empty when the graph has no parameters.
  std::string constants;
  std::vector<std::string> notes;  // what a user should know (e.g. rewritten sources)
  // Empty when the code builds on this host; else why not (names the target).
  std::string not_for_host;
};

// Ok when module `name` (normalised TVM metadata, m.tvm set) can become a
// runnable mlfkit module as far as its metadata says; otherwise
// FailedPrecondition / Unimplemented saying why: the upgrade verdict of its
// plan (tvm/plan/tvm_plan.h).
Status CheckUpgradable(const std::string& name, const ModuleMetadata& m);

// Converts module `name`. `members` holds the archive's code and header
// members by path (and for graph executor modules their graph JSON and
// .params); `metadata_sha256` is the original metadata.json's digest.
//
// Graph executor modules keep TVM's sources as they are and get
// codegen/host/src/<c>_mlf_graph.c, the graph as C (tvm/compat/
// graph_source.h), which the adapter's tvmgen_<c>_run calls; the .params
// tensors the graph uses become parameters/<c>.bin (storage "file"), and
// the workspace is the graph's (storage, then the operators' allocator).
Result<UpgradedModule> UpgradeModule(const std::string& name, const ModuleMetadata& m,
                                     const std::map<std::string, std::string>& members,
                                     const std::string& metadata_sha256);

}  // namespace mlf::tvm_upgrade

#endif  // MLFKIT_TVM_UPGRADE_MODULE_UPGRADE_H_
