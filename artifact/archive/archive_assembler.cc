#include "artifact/archive/archive_assembler.h"

#include <utility>

#include "artifact/format/c_name.h"
#include "artifact/format/name_clash.h"
#include "schemas/embedded.h"

namespace mlf {
namespace {

std::string Who(const std::string& module) { return "module '" + module + "'"; }

// Every generated name of every module at once, before any file is made:
// modules `a-b` and `a_b` would otherwise share tvmgen_a_b.h.
Status CheckNames(const std::vector<AssembledModule>& modules) {
  Metadata names;
  for (const AssembledModule& m : modules) names.modules[m.name] = m.metadata;
  return CheckGeneratedNames(names);
}

// Builds `m`'s library and records it in its metadata and in `members`.
Status AddHostLibrary(const std::map<std::string, std::string>& code, const AssemblyOptions& options,
                      AssembledModule* m, std::vector<ArchiveMember>* members) {
  if (!options.build_host_library) {
    return FailedPrecondition("a host library was asked for but no builder was given");
  }
  MLF_ASSIGN_OR_RETURN(BuiltHostLibrary built, options.build_host_library(code, m->metadata.sources));
  const std::string path = "codegen/host/lib/" + SanitizeCName(m->name) + ".so";
  m->metadata.host_library =
      HostLibraryInfo{path, std::move(built.triple), std::move(built.compiler), std::move(built.flags)};
  members->push_back({path, MemberSource::Bytes(std::move(built.bytes)), false});
  return Status::Ok();
}

}  // namespace

Status ArchiveAssembler::AddModule(AssembledModule module) {
  for (const AssembledModule& m : modules_) {
    if (m.name == module.name) return InvalidArgument(Who(module.name) + " given twice");
  }
  modules_.push_back(std::move(module));
  return Status::Ok();
}

void ArchiveAssembler::AddCode(std::string path, std::string content) {
  code_[std::move(path)] = std::move(content);
}

void ArchiveAssembler::AddMember(ArchiveMember member) { members_.push_back(std::move(member)); }

Result<Metadata> ArchiveAssembler::Write(const std::string& out, const AssemblyOptions& options) && {
  MLF_RETURN_IF_ERROR(CheckNames(modules_));
  if (!modules_.empty()) {
    code_[std::string(kHostIncludeDir) + "mlf/model_abi.h"] = std::string(*EmbeddedFile("model_abi.h"));
  }
  Metadata metadata;
  metadata.generator_version = options.generator_version;
  metadata.export_datetime = options.export_datetime;
  std::vector<ArchiveMember> members = std::move(members_);
  for (AssembledModule& m : modules_) {
    ModuleMetadata& md = m.metadata;
    if (md.parameters && md.parameters->storage == ParamStorage::kFile) {
      md.parameters->path = "parameters/" + SanitizeCName(m.name) + ".bin";
      members.push_back({md.parameters->path, MemberSource::Bytes(std::move(m.parameter_blob)), false});
    }
    md.host_library.reset();
    if (m.build_host_library) {
      MLF_RETURN_IF_ERROR(AddHostLibrary(code_, options, &m, &members).WithContext(Who(m.name)));
    }
  }
  for (AssembledModule& m : modules_) metadata.modules[m.name] = std::move(m.metadata);
  for (auto& [path, content] : code_) {
    members.push_back({path, MemberSource::Bytes(std::move(content)), false});
  }
  return WriteMlfArchive(out, std::move(metadata), std::move(members), options.pack);
}

}  // namespace mlf
