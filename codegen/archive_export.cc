#include "codegen/archive_export.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "artifact/format/name_clash.h"
#include "artifact/base/scratch_dir.h"
#include "codegen/c_interface.h"
#include "schemas/embedded.h"

namespace mlf {
namespace {

constexpr char kSrcDir[] = "codegen/host/src/";
constexpr char kIncludeDir[] = "codegen/host/include/";

// Every file of one module as it will appear in the archive.
struct ModuleFiles {
  std::vector<StagedFile> files;     // sources and headers
  std::vector<std::string> sources;  // the .c files among them
};

Result<ModuleFiles> CollectFiles(const ModuleArtifacts& m) {
  const std::string c = ModuleCName(m.name);
  ModuleFiles out;
  MLF_ASSIGN_OR_RETURN(std::string header, EmitInterfaceHeader(m.name, m.metadata));
  MLF_ASSIGN_OR_RETURN(std::string describe, EmitMetadataSource(m.name, m.metadata));
  out.files.push_back({kIncludeDir + ("tvmgen_" + c + ".h"), header});
  out.files.push_back({std::string(kIncludeDir) + "mlf/model_abi.h",
                       std::string(*EmbeddedFile("model_abi.h"))});
  std::vector<StagedFile> sources = m.sources;
  sources.push_back({c + "_metadata.c", describe});
  for (const StagedFile& s : sources) {
    out.files.push_back({kSrcDir + s.path, s.content});
    out.sources.push_back(kSrcDir + s.path);
  }
  return out;
}

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return IoError("cannot read " + path);
  return ss.str();
}

// Builds the module's host library and returns its bytes.
Result<std::string> BuildLibrary(const ModuleFiles& files, const HostBuildConfig& config) {
  MLF_ASSIGN_OR_RETURN(ScratchDir dir, ScratchDir::CreateInTemp("mlf-export-"));
  const std::string so = dir.path() + "/lib.so";
  MLF_RETURN_IF_ERROR(BuildHostLibrary(files.files, files.sources, so, config));
  return ReadWhole(so);
}

Status AddModule(const ModuleArtifacts& m, const ExportOptions& options, Metadata* metadata,
                 std::vector<ArchiveMember>* members) {
  MLF_ASSIGN_OR_RETURN(ModuleFiles files, CollectFiles(m));
  ModuleMetadata module = m.metadata;
  module.sources = files.sources;
  const std::string c = ModuleCName(m.name);
  for (const StagedFile& f : files.files) {
    // Modules share the one copy of mlf/model_abi.h.
    const bool shared = std::any_of(members->begin(), members->end(),
                                    [&](const ArchiveMember& a) { return a.name == f.path; });
    if (!shared) members->push_back({f.path, MemberSource::Bytes(f.content), false});
  }
  if (module.parameters && module.parameters->storage == ParamStorage::kFile) {
    module.parameters->path = "parameters/" + c + ".bin";
    members->push_back({module.parameters->path, MemberSource::Bytes(m.parameter_blob), false});
  }
  for (const StagedFile& f : m.extra_members) {
    members->push_back({f.path, MemberSource::Bytes(f.content), false});
  }
  module.host_library.reset();
  if (options.build_host_library) {
    MLF_ASSIGN_OR_RETURN(std::string library, BuildLibrary(files, options.build));
    const std::string compiler = ResolveCompiler(options.build);
    MLF_ASSIGN_OR_RETURN(std::string identity, CompilerIdentity(compiler));
    std::vector<std::string> flags = options.build.flags;
    flags.insert(flags.end(), options.build.link_flags.begin(), options.build.link_flags.end());
    module.host_library = HostLibraryInfo{"codegen/host/lib/" + c + ".so", HostTriple(), identity, flags};
    members->push_back({module.host_library->path, MemberSource::Bytes(std::move(library)), false});
  }
  metadata->modules[m.name] = std::move(module);
  return Status::Ok();
}

}  // namespace

Result<Metadata> ExportArchive(const std::vector<ModuleArtifacts>& modules, const std::string& out,
                               const ExportOptions& options) {
  Metadata metadata;
  metadata.generator_version = options.generator_version;
  // Every generated name of every module at once, before any file is made:
  // modules `a-b` and `a_b` would otherwise share tvmgen_a_b.h.
  Metadata names;
  for (const ModuleArtifacts& m : modules) {
    if (names.modules.count(m.name)) return InvalidArgument("module '" + m.name + "' given twice");
    names.modules[m.name] = m.metadata;
  }
  MLF_RETURN_IF_ERROR(CheckGeneratedNames(names));
  std::vector<ArchiveMember> members;
  for (const ModuleArtifacts& m : modules) {
    MLF_RETURN_IF_ERROR(AddModule(m, options, &metadata, &members).WithContext("module '" + m.name + "'"));
  }
  return WriteMlfArchive(out, std::move(metadata), std::move(members), options.pack);
}

}  // namespace mlf
