// The plan of a firmware project: which modules, which files, and the C
// identifiers of every buffer, decided once from the verified archive so that
// main.c, the build files and the README agree.
//
// Project layout (relative to the project directory):
//   codegen/host/include/...      headers, as in the archive
//   codegen/host/src/...          the modules' sources, as in the archive
//   parameters/<mod>_params.c     file-storage parameter blobs as const arrays
//   src/main.c, src/model_data.h, src/sample_inputs.c, src/mlf_print.[ch]
//   platform/startup.c, platform/mps2.ld          (Cortex-M only)
//   Makefile, CMakeLists.txt, model.mk, README.md
// and for TVM archives (tvm/firmware, through foreign_project.h):
//   runtime/include/...           the archive's bundled TVM runtime headers, if any
//   mlf_tvm/include/..., mlf_tvm/src/mlf_tvm_runtime.c   mlfkit's compatibility layer
//   parameters/<mod>_params.c     a graph executor module's .params as one const blob
//   src/<mod>_graph.c             a graph executor module's graph as a C function
//                                 (tvm/compat/graph_source.h)
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_PLAN_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_PLAN_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/project_input.h"
#include "loader/firmware/sample_input.h"

namespace mlf::firmware {

class ForeignProjectModules;  // foreign_project.h

// What a foreign module's plan carries that only the implementation of
// foreign_project.h reads (e.g. a TVM graph's plan).
class ForeignPlanData {
 public:
  virtual ~ForeignPlanData() = default;
};

struct TensorPlan {
  TensorInfo info;
  DType dtype = DType::kFloat32;
  uint64_t count = 0;         // elements
  std::string buffer;         // static buffer in main.c: "mlf_in_<mod>_<c_name>", "mlf_out_..."
  std::string sample;         // const sample array ("" when the input starts as zeros)
  std::string sample_source;  // the .npy file it came from
  std::string label;          // printed name: "<c_name>", or "<mod>.<c_name>" with several modules
};

// How main.c calls a module.
enum class ModuleKind {
  kMlf,          // mlfkit's ABI: tvmgen_<mod>_run(inputs, outputs, pools)
  kTvmAot,       // TVM AOT, C interface: tvmgen_<mod>_run(inputs, outputs)
  kTvmGraph,     // TVM graph executor: the generated graph function (src/<mod>_graph.c)
  kTvmOperator,  // TVM operator style: each operator's packed function
};

struct ModulePlan {
  std::string name;    // the metadata key
  std::string c_name;  // sanitised: tvmgen_<c_name>_run
  const ModuleMetadata* metadata = nullptr;
  ModuleKind kind = ModuleKind::kMlf;
  std::vector<TensorPlan> inputs, outputs;
  std::string workspace;         // static workspace array; "" when the size is 0
  std::string constants;         // const parameter array; "" unless file storage or graph
  std::string constants_source;  // "parameters/<c_name>_params.c"
  std::string constants_member;  // the blob's archive member ("" for graph modules)
  // TVM modules: the workspace behind TVMBackendAllocWorkspace, in bytes.
  uint64_t workspace_bytes = 0;
  // Static RAM the module's buffers take, for the fit check.
  uint64_t ram_bytes = 0;
  // kTvmGraph: the plan of the graph function, for the foreign modules'
  // implementation (foreign_project.h; its parameter blob is `constants`,
  // constants_bytes long, its workspace `workspace`) and its source file.
  std::shared_ptr<const ForeignPlanData> foreign;
  uint64_t constants_bytes = 0;
  std::string graph_source;  // "src/<c_name>_graph.c"
  // Operator style: the generated operators function (operator_source.h).
  std::string operator_source;  // "src/<c_name>_operators.c"
};

struct ProjectPlan {
  Platform platform;
  std::string title;         // "tiny", or "a, b" with several modules
  std::string archive_name;  // the archive's file name, without directories
  std::vector<ModulePlan> modules;
  std::vector<std::string> model_sources;    // codegen/host/src/..., compiled for speed
  std::vector<std::string> support_sources;  // everything else that is compiled, for size
  // The model as a library for the user's own firmware (libmodel.a: model.mk
  // and CMakeLists.txt's mlfkit::model): model_sources plus these, which are
  // also among support_sources (parameter blobs, TVM's compatibility
  // runtime). Never main(), the startup code, the console or a harness.
  std::vector<std::string> library_sources;
  std::vector<std::string> library_defines;  // -D of the library's sources (a subset of defines)
  std::vector<std::string> copied_members;   // archive members copied as they are
  SampleInputs samples;                      // (module, input index) -> bytes
  bool tvm = false;                          // a TVM archive (metadata versions 5-7)
  std::vector<std::string> include_dirs;     // -I, in order
  std::vector<std::string> defines;          // -D
  std::string model_flags;                   // extra flags of the model sources
  std::vector<std::string> compile_flags;    // extra flags of every source (stack_usage.h)
  // The SysTick harness (src/mlf_cycles.[ch], instruction_count.h) around
  // each run, and SysTick's entry in the vector table.
  bool count_instructions = false;
  // The MLF_PROFILE hook's harness (src/mlf_profile.[ch], operator_profile.h).
  bool profile = false;
};

// Plans the project for `input` on `platform`. Refuses archives a project
// cannot be built from safely: a source that is not a ".c" file under
// codegen/host/src/ or whose path is not build-safe (c_text.h), a missing
// interface header, and, on Cortex-M, parameters or buffers that do not fit
// the board's flash or RAM. `input` must outlive the plan.
// For a foreign (TVM) archive, `foreign` plans what only it can
// (foreign_project.h) and `foreign_kinds` says how each module is called;
// `input.metadata` must then be the view foreign->Prepare made.
Result<ProjectPlan> PlanProject(const ProjectInput& input, const Platform& platform,
                                SampleInputs samples, const std::string& archive_name,
                                const std::map<std::string, ModuleKind>& foreign_kinds = {},
                                const ForeignProjectModules* foreign = nullptr);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_PLAN_H_
