#include "codegen/archive_export.h"

#include <utility>

#include "artifact/archive/archive_assembler.h"
#include "artifact/toolchain/host_library_builder.h"
#include "codegen/c_interface.h"

namespace mlf {
namespace {

// The module as the assembler takes it: its sources are the generated ones
// plus the metadata function, under codegen/host/src/.
AssembledModule ModuleToAssemble(const ModuleArtifacts& m, bool build_host_library) {
  AssembledModule module{m.name, m.metadata, m.parameter_blob, build_host_library};
  module.metadata.sources.clear();
  for (const StagedFile& s : m.sources) module.metadata.sources.push_back(kHostSourceDir + s.path);
  module.metadata.sources.push_back(kHostSourceDir + ModuleCName(m.name) + "_metadata.c");
  return module;
}

// Stages the module's code (interface header, metadata function, sources)
// and extra members.
Status StageFiles(const ModuleArtifacts& m, ArchiveAssembler* assembler) {
  const std::string c = ModuleCName(m.name);
  MLF_ASSIGN_OR_RETURN(std::string header, EmitInterfaceHeader(m.name, m.metadata));
  MLF_ASSIGN_OR_RETURN(std::string describe, EmitMetadataSource(m.name, m.metadata));
  assembler->AddCode(kHostIncludeDir + ("tvmgen_" + c + ".h"), std::move(header));
  for (const StagedFile& s : m.sources) assembler->AddCode(kHostSourceDir + s.path, s.content);
  for (const StagedFile& s : m.support_files) assembler->AddCode(kHostSourceDir + s.path, s.content);
  assembler->AddCode(kHostSourceDir + c + "_metadata.c", std::move(describe));
  for (const StagedFile& f : m.extra_members) {
    assembler->AddMember({f.path, MemberSource::Bytes(f.content), false});
  }
  return Status::Ok();
}

}  // namespace

Result<Metadata> ExportArchive(const std::vector<ModuleArtifacts>& modules, const std::string& out,
                               const ExportOptions& options) {
  ArchiveAssembler assembler;
  for (const ModuleArtifacts& m : modules) {
    MLF_RETURN_IF_ERROR(assembler.AddModule(ModuleToAssemble(m, options.build_host_library)));
    MLF_RETURN_IF_ERROR(StageFiles(m, &assembler).WithContext("module '" + m.name + "'"));
  }
  AssemblyOptions assembly;
  assembly.generator_version = options.generator_version;
  assembly.pack = options.pack;
  if (options.build_host_library) assembly.build_host_library = HostCompilerLibraryBuilder(options.build);
  return std::move(assembler).Write(out, assembly);
}

}  // namespace mlf
