// Assembling an mlfkit archive from staged modules: the one path by which
// `mlf export` (codegen/archive_export.h) and `mlf upgrade` (the TVM wing)
// turn generated code into an archive.
//
// The caller stages, for each module, its metadata (complete but for
// "host_library" and the parameter blob's path), its parameter blob, and
// whether it gets a host library; and for the whole archive the code files
// (codegen/host/**: sources and headers, by archive path) and any other
// members (the source model under src/, a TVM original under src/tvm/).
// Write() then, in this order:
//   1. checks every generated name of every module at once
//      (artifact/format/name_clash.h), before anything is built or written;
//   2. adds codegen/host/include/mlf/model_abi.h (the ABI every interface
//      header includes; it replaces a staged file of that path);
//   3. places each "file" parameter blob at parameters/<c>.bin;
//   4. builds each module's host library, in the order the modules were
//      added, through the caller's HostLibraryBuilder, and places it at
//      codegen/host/lib/<c>.so with its host_library metadata;
//   5. writes the archive with WriteMlfArchive (artifact/archive/pack.h):
//      sizes and digests filled in, metadata validated as a reader checks
//      it, members in canonical order, atomically (on any error `out` is
//      left as it was).
//
// The archive layer does not run compilers: building a host library is the
// toolchain's (artifact/toolchain/host_library_builder.h gives the builder
// that runs the system C compiler), so the builder is passed in.
#ifndef MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_ASSEMBLER_H_
#define MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_ASSEMBLER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "artifact/archive/archive_writer.h"
#include "artifact/archive/pack.h"
#include "artifact/base/status.h"
#include "artifact/base/version.h"
#include "artifact/format/metadata.h"

namespace mlf {

// Where code files go in an mlfkit archive.
inline constexpr char kHostSourceDir[] = "codegen/host/src/";
inline constexpr char kHostIncludeDir[] = "codegen/host/include/";

struct AssembledModule {
  std::string name;  // the metadata.json "modules" key
  // "sources" names code files staged with AddCode. "host_library" is
  // replaced by what Write builds, and for "file" parameters the path is set
  // to parameters/<c>.bin.
  ModuleMetadata metadata;
  // The bytes of the parameter file when metadata.parameters->storage is "file".
  std::string parameter_blob;
  // Build codegen/host/lib/<c>.so from the archive's code for this module.
  bool build_host_library = false;
};

// A host library as built, with the metadata "host_library" fields that
// describe it (its path is the assembler's).
struct BuiltHostLibrary {
  std::string bytes;
  std::string triple;    // e.g. "x86_64-linux-gnu"
  std::string compiler;  // e.g. "gcc 12.2.0"
  std::vector<std::string> flags;
};

// Builds one module's host library from every code file of the archive
// (`code`: archive path -> content), compiling `sources` (the module's
// metadata "sources", paths among `code`).
using HostLibraryBuilder = std::function<Result<BuiltHostLibrary>(
    const std::map<std::string, std::string>& code, const std::vector<std::string>& sources)>;

struct AssemblyOptions {
  std::string generator_version = kMlfkitVersion;
  // As the format records it; the default is the format's "unknown" time.
  std::string export_datetime = Metadata().export_datetime;
  PackOptions pack;
  // Required when a module has build_host_library set. Its errors are
  // returned with the module named: "module '<name>': <error>".
  HostLibraryBuilder build_host_library;
};

class ArchiveAssembler {
 public:
  // Stages a module. A name already added is refused ("module '<name>'
  // given twice"); name rules are checked by Write, over all modules at once.
  Status AddModule(AssembledModule module);

  // Stages a code file at archive path `path` (under codegen/host/); staging
  // a path again replaces its content (later wins: e.g. TVM's bundled
  // headers replace the compatibility headers of the same name).
  void AddCode(std::string path, std::string content);

  // Stages any other member as it is (provenance copies, the source model).
  void AddMember(ArchiveMember member);

  // Writes the archive `out` (steps 1-5 above) and returns its metadata as
  // written. The staged bytes are moved into the writer.
  Result<Metadata> Write(const std::string& out, const AssemblyOptions& options) &&;

 private:
  std::vector<AssembledModule> modules_;  // in the order added
  std::map<std::string, std::string> code_;
  std::vector<ArchiveMember> members_;
};

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_ARCHIVE_ARCHIVE_ASSEMBLER_H_
