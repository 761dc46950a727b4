// Assembling generated modules into a version-8 archive: the last step of
// `mlf export`, shared by everything that produces archives from C code.
//
// For each module it adds the interface header and metadata function
// (codegen/c_interface.h), a copy of mlf/model_abi.h, the module's C sources,
// the parameter blob (file storage), and optionally a host library built from
// exactly those files with the system C compiler (compiler and flags are
// recorded in metadata). Then the archive is written by WriteMlfArchive:
// validated, deterministic and atomic.
#ifndef MLFKIT_CODEGEN_ARCHIVE_EXPORT_H_
#define MLFKIT_CODEGEN_ARCHIVE_EXPORT_H_

#include <string>
#include <vector>

#include "artifact/toolchain/host_build.h"
#include "artifact/format/metadata.h"
#include "artifact/archive/pack.h"
#include "artifact/base/status.h"

namespace mlf {

struct ModuleArtifacts {
  std::string name;         // module name (metadata.json "modules" key)
  ModuleMetadata metadata;  // "sources", "host_library" and "files" are filled in here
  // Generated C sources, by file name (placed under codegen/host/src/).
  std::vector<StagedFile> sources;
  // The parameter blob when metadata.parameters->storage is "file".
  std::string parameter_blob;
  // Extra members (e.g. the source model under src/), by archive path.
  std::vector<StagedFile> extra_members;
};

struct ExportOptions {
  bool build_host_library = true;
  HostBuildConfig build;
  PackOptions pack;
  std::string generator_version = "0.1.0";
};

// Fills in the module's interface, writes the archive `out` and returns its metadata.
Result<Metadata> ExportArchive(const std::vector<ModuleArtifacts>& modules, const std::string& out,
                               const ExportOptions& options);

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_ARCHIVE_EXPORT_H_
