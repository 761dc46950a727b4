// The seam through which firmware projects (project.h) take modules whose
// metadata loader/firmware cannot plan itself: modules of a foreign archive
// format (today TVM's, ModuleMetadata::tvm set), implemented by the TVM wing
// (tvm/firmware) and passed in as ProjectOptions::foreign_modules.
//
// The project verifies the archive with the implementation's format, lets it
// check and rewrite the metadata for the platform (which also says how main.c
// calls each module), plans buffers, identifiers and the fit check itself
// with the sizes the implementation gives, and asks it for the C files only
// it can write: a module's generated functions, the runtime stand-ins and
// main.c.
#ifndef MLFKIT_LOADER_FIRMWARE_FOREIGN_PROJECT_H_
#define MLFKIT_LOADER_FIRMWARE_FOREIGN_PROJECT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "artifact/archive/foreign_archive.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/project_input.h"
#include "loader/firmware/project_plan.h"
#include "loader/firmware/project_writer.h"
#include "loader/firmware/vendor_source.h"

namespace mlf::firmware {

// A graph-style module (ModuleKind::kTvmGraph) as the implementation planned it.
struct ForeignGraphPlan {
  uint64_t workspace_bytes = 0;  // one static workspace
  uint64_t constants_bytes = 0;  // the parameter blob in flash; 0: none
  std::shared_ptr<const ForeignPlanData> data;  // read back by ModuleFiles
};

class ForeignProjectModules {
 public:
  virtual ~ForeignProjectModules() = default;

  // The archive format whose modules these are (for VerifyOptions).
  virtual const ForeignArchiveFormat& format() const = 0;

  // Checks every module of a foreign archive for `platform` and rewrites
  // `metadata` into the view the project works from; how main.c calls each
  // module. An error says why a module cannot be built for the platform;
  // `vendor` is what the user's vendor libraries provide (vendor_source.h).
  virtual Result<std::map<std::string, ModuleKind>> Prepare(Metadata* metadata,
                                                           const Platform& platform,
                                                           const VendorProvision& vendor) const = 0;

  // Plans graph module `m` from its members in `input`; errors name the member.
  virtual Result<ForeignGraphPlan> PlanGraph(const ModuleMetadata& m,
                                             const ProjectInput& input) const = 0;

  // The workspace an operator-style module (ModuleKind::kTvmOperator) needs.
  virtual uint64_t OperatorWorkspaceBytes(const ModuleMetadata& m) const = 0;

  // The files module `m` adds (its graph function and parameter array, or
  // its operators function), in order; none for the other kinds.
  virtual std::vector<ProjectFile> ModuleFiles(const ModulePlan& m) const = 0;

  // The files every project of a foreign archive carries (runtime stand-ins).
  virtual std::vector<ProjectFile> RuntimeFiles() const = 0;

  // src/main.c of a foreign archive's project.
  virtual Result<std::string> MainSource(const ProjectPlan& plan) const = 0;
};

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_FOREIGN_PROJECT_H_
