// The seam through which ModelLibrary (model_library.h) runs modules whose
// metadata it cannot run itself: modules of a foreign archive format (today
// TVM's, ModuleMetadata::tvm set), implemented by the TVM wing
// (tvm_wing::HostModules(), tvm/tvm.h) and passed in through
// LoadOptions::foreign_modules.
//
// The loader verifies the archive with the runner's format, captures the
// members the runner asks for while verifying, and asks the runner for a
// build: the files to stage, the C sources to compile through the compile
// cache, and how to call the result. It compiles, loads and binds the
// result as it does its own modules; a module the runner cannot build is
// refused with the runner's reason (CreateExecutor gives it), and the
// archive's other modules still load.
#ifndef MLFKIT_LOADER_HOST_FOREIGN_MODULE_H_
#define MLFKIT_LOADER_HOST_FOREIGN_MODULE_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "artifact/archive/foreign_archive.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"
#include "loader/host/aot_executor.h"

namespace mlf {

// How to build and call one foreign module on this host.
struct ForeignModuleBuild {
  std::vector<StagedFile> files;     // the archive's staged files + the runner's own
  std::vector<std::string> sources;  // the C sources to compile
  HostBuildConfig config;
  std::string entry_symbol;          // called with mlfkit's run ABI (aot_executor.h)
  std::string run_symbol;            // what the entry calls, for messages
  std::string last_error_symbol;     // const char* (*)(void): the runtime's last error
  std::vector<TensorSpec> inputs;    // the executor's inputs and outputs
  std::vector<TensorSpec> outputs;
  uint64_t workspace_bytes = 0;      // what each executor provides
  std::string constants;             // a parameter blob shared by executors (may be empty)
  bool reentrant = false;            // runs need no lock
};

class ForeignModuleRunner {
 public:
  virtual ~ForeignModuleRunner() = default;

  // The archive format whose modules this runner builds (for VerifyOptions).
  virtual const ForeignArchiveFormat& format() const = 0;

  // Members of module `m` the build needs whole (e.g. a graph JSON and its
  // .params), captured while the archive is verified.
  virtual std::set<std::string> WholeMembers(const ModuleMetadata& m) const = 0;

  // Whether member `path` of a foreign archive is staged for compiling
  // besides the module's sources and headers (e.g. a bundled runtime's headers).
  virtual bool StagesMember(const std::string& path) const = 0;

  // The build of `module`, from the staged files and the WholeMembers
  // captured (by path); an error is the module's refusal, kept for
  // CreateExecutor. Compiles nothing.
  virtual Result<ForeignModuleBuild> Build(const std::string& module, const ModuleMetadata& m,
                                           const std::vector<StagedFile>& staged,
                                           const std::map<std::string, std::string>& members,
                                           const HostBuildConfig& base) const = 0;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_FOREIGN_MODULE_H_
