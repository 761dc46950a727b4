// Assembling generated modules into an mlfkit archive: the last step of
// `mlf export`, shared by everything that produces archives from C code.
//
// For each module it stages the interface header and metadata function
// (codegen/c_interface.h), the module's C sources, the parameter blob (file
// storage) and the extra members; the archive assembler
// (artifact/archive/archive_assembler.h) adds mlf/model_abi.h, checks every
// generated name, optionally builds a host library from exactly those files
// with the system C compiler (compiler and flags are recorded in metadata),
// and writes the archive: validated, deterministic and atomic.
#ifndef MLFKIT_CODEGEN_ARCHIVE_EXPORT_H_
#define MLFKIT_CODEGEN_ARCHIVE_EXPORT_H_

#include <string>
#include <vector>

#include "artifact/archive/pack.h"
#include "artifact/base/status.h"
#include "artifact/base/version.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"

namespace mlf {

struct ModuleArtifacts {
  std::string name;         // module name (metadata.json "modules" key)
  ModuleMetadata metadata;  // "sources", "host_library" and "files" are filled in here
  // Generated C sources, by file name (placed under codegen/host/src/).
  std::vector<StagedFile> sources;
  // Files the sources include from codegen/host/src/ without being sources
  // themselves (kernel headers): staged there, not listed in "sources".
  std::vector<StagedFile> support_files;
  // The parameter blob when metadata.parameters->storage is "file".
  std::string parameter_blob;
  // Extra members (e.g. the source model under src/), by archive path.
  std::vector<StagedFile> extra_members;
};

struct ExportOptions {
  bool build_host_library = true;
  HostBuildConfig build;
  PackOptions pack;
  std::string generator_version = kMlfkitVersion;
};

// Fills in the module's interface, writes the archive `out` and returns its metadata.
Result<Metadata> ExportArchive(const std::vector<ModuleArtifacts>& modules, const std::string& out,
                               const ExportOptions& options);

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_ARCHIVE_EXPORT_H_
