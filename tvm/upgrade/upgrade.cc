#include "tvm/upgrade/upgrade.h"

#include <map>
#include <utility>

#include "artifact/archive/archive_assembler.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/read_metadata.h"
#include "artifact/base/digest.h"
#include "artifact/toolchain/host_library_builder.h"
#include "tvm/compat/compat.h"
#include "tvm/format/tvm_archive.h"
#include "tvm/upgrade/module_upgrade.h"

namespace mlf {
namespace {

using tvm_upgrade::kProvenanceDir;

// Members of a compressed archive are held in memory up to this total.
constexpr uint64_t kMaxHeldBytes = 1ull << 30;

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Members whose bytes upgrade reads, rewrites or copies into codegen/, and
// those a graph module is generated from (its graph JSON and .params).
bool IsCodeMember(const std::string& path) {
  return StartsWith(path, "codegen/host/") || StartsWith(path, "runtime/include/") ||
         StartsWith(path, "executor-config/graph/") ||
         (StartsWith(path, "parameters/") && path.size() > 7 &&
          path.compare(path.size() - 7, 7, ".params") == 0);
}

Status NotTvm(const std::string& in, const ReaderLimits& limits) {
  Result<ArchiveHead> head = ReadArchiveHead(in, limits);
  if (head.ok() && head->metadata.version == kMetadataVersion) {
    return FailedPrecondition("'" + in + "' is already an mlfkit archive: there is nothing to upgrade");
  }
  return InvalidArgument("'" + in + "' is not a TVM Model Library Format archive (metadata version "
                         "5, 6 or 7)" + (head.ok() ? std::string() : ": " + head.status().message()));
}

struct ReadMembers {
  std::map<std::string, std::string> code;  // IsCodeMember paths and metadata.json
  std::vector<ArchiveMember> provenance;    // src/tvm/<path> for every member
};

// The second pass over `in`: code members into memory (checked against the
// digests of the scan, so what was analysed is what is rewritten), every
// member as a provenance copy.
Result<ReadMembers> ReadAllMembers(const std::string& in, const TvmArchiveScan& scan,
                                   const ReaderLimits& limits) {
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, ArchiveReader::Open(in, limits));
  ReadMembers out;
  uint64_t held = 0;
  for (;;) {
    MLF_ASSIGN_OR_RETURN(std::optional<EntryInfo> e, reader->Next());
    if (!e) break;
    const std::string copy = kProvenanceDir + e->name;
    const bool code = IsCodeMember(e->name) || e->name == kMetadataMember;
    if (!code && e->data_offset != kUnknownOffset) {
      out.provenance.push_back({copy, MemberSource::FileRange(in, e->data_offset, e->size), false});
      continue;
    }
    held += e->size;
    if (held > kMaxHeldBytes) {
      return OutOfRange("member " + e->name + ": upgrade holds at most " + std::to_string(kMaxHeldBytes) +
                        " bytes of a compressed archive in memory; decompress the archive first");
    }
    MLF_ASSIGN_OR_RETURN(std::string bytes, reader->ReadAll(kMaxHeldBytes));
    const std::string digest = Sha256Hex(bytes);
    auto scanned = scan.metadata.files.find(e->name);
    const std::string& expected = e->name == kMetadataMember ? scan.metadata_sha256
                                  : scanned == scan.metadata.files.end() ? std::string()
                                                                         : scanned->second.sha256;
    if (digest != expected) {
      return DataLoss("member " + e->name + " of '" + in + "' changed while it was being upgraded");
    }
    if (code) out.code[e->name] = bytes;
    out.provenance.push_back({copy, MemberSource::Bytes(std::move(bytes)), false});
  }
  return out;
}

// codegen/host/** shared by the modules, staged so that each later one wins:
// compatibility headers, then the archive's bundled runtime/include, then its
// own codegen/host members; and the runtime source.
void StageSharedCode(const ReadMembers& members, ArchiveAssembler* assembler) {
  const std::string compat_include = std::string(tvm_compat::kIncludeDir) + "/";
  for (const tvm_compat::File& f : tvm_compat::Files()) {
    const std::string path(f.path);
    if (StartsWith(path, compat_include.c_str())) {
      assembler->AddCode(kHostIncludeDir + path.substr(compat_include.size()), std::string(f.content));
    } else if (path == tvm_compat::kRuntimeSource) {
      assembler->AddCode(tvm_upgrade::kRuntimeSource, std::string(f.content));
    }
  }
  for (const auto& [path, bytes] : members.code) {
    if (StartsWith(path, "runtime/include/")) {
      assembler->AddCode(kHostIncludeDir + path.substr(std::string("runtime/include/").size()), bytes);
    }
  }
  for (const auto& [path, bytes] : members.code) {
    if (StartsWith(path, "codegen/host/") && !StartsWith(path, "codegen/host/lib/")) {
      assembler->AddCode(path, bytes);
    }
  }
}

// The system C compiler with TVM's flags appended; a failure says how to
// upgrade without a library.
HostLibraryBuilder TvmLibraryBuilder(const HostBuildConfig& base) {
  HostBuildConfig config = base;
  config.flags.push_back("-std=gnu11");
  config.flags.push_back("-fno-strict-aliasing");
  return [compile = HostCompilerLibraryBuilder(config)](const std::map<std::string, std::string>& code,
                                                        const std::vector<std::string>& sources)
             -> Result<BuiltHostLibrary> {
    Result<BuiltHostLibrary> built = compile(code, sources);
    if (!built.ok()) {
      return built.status().WithContext(
          "building its host library failed (pass --no-host-lib to upgrade without one)");
    }
    return built;
  };
}

}  // namespace

Result<UpgradeResult> UpgradeTvmArchive(const std::string& in, const std::string& out,
                                        const UpgradeOptions& options) {
  MLF_ASSIGN_OR_RETURN(std::optional<TvmArchiveScan> scan, ScanTvmArchive(in, options.limits));
  if (!scan) return NotTvm(in, options.limits);
  if (!scan->report.problems.empty()) {
    return JoinForeignProblems(scan->report.problems)
        .WithContext("cannot upgrade '" + in + "': it does not verify");
  }
  for (const auto& [name, m] : scan->metadata.modules) {
    MLF_RETURN_IF_ERROR(tvm_upgrade::CheckUpgradable(name, m).WithContext("cannot upgrade '" + in + "'"));
  }
  MLF_ASSIGN_OR_RETURN(ReadMembers read, ReadAllMembers(in, *scan, options.limits));

  UpgradeResult result;
  ArchiveAssembler assembler;
  StageSharedCode(read, &assembler);
  for (ArchiveMember& member : read.provenance) assembler.AddMember(std::move(member));
  std::vector<std::string> library_notes;
  for (const auto& [name, m] : scan->metadata.modules) {
    MLF_ASSIGN_OR_RETURN(tvm_upgrade::UpgradedModule up,
                         tvm_upgrade::UpgradeModule(name, m, read.code, scan->metadata_sha256));
    for (StagedFile& f : up.code) assembler.AddCode(std::move(f.path), std::move(f.content));
    result.notes.insert(result.notes.end(), up.notes.begin(), up.notes.end());
    AssembledModule module{name, std::move(up.metadata), std::move(up.constants), false};
    if (!up.not_for_host.empty()) {
      library_notes.push_back("module '" + name + "': no host library: " + up.not_for_host +
                              "; build it for that target with mlf project");
    } else if (!options.build_host_library) {
      library_notes.push_back("module '" + name + "': no host library (--no-host-lib): the host loader "
                              "compiles the sources on first use");
    } else {
      module.build_host_library = true;
    }
    MLF_RETURN_IF_ERROR(assembler.AddModule(std::move(module)));
  }
  result.notes.insert(result.notes.end(), library_notes.begin(), library_notes.end());
  AssemblyOptions assembly;
  assembly.generator_version = options.generator_version;
  assembly.export_datetime = scan->metadata.export_datetime;
  assembly.pack = PackOptions{options.compression, options.mtime, options.progress};
  assembly.build_host_library = TvmLibraryBuilder(options.build);
  MLF_ASSIGN_OR_RETURN(result.metadata, std::move(assembler).Write(out, assembly));
  return result;
}

}  // namespace mlf
