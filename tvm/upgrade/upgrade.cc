#include "tvm/upgrade/upgrade.h"

#include <fstream>
#include <map>
#include <sstream>

#include "artifact/format/c_name.h"
#include "artifact/base/digest.h"
#include "artifact/archive/pack.h"
#include "artifact/archive/read_metadata.h"
#include "artifact/base/scratch_dir.h"
#include "tvm/format/tvm_archive.h"
#include "tvm/compat/compat.h"
#include "tvm/upgrade/module_upgrade.h"
#include "schemas/embedded.h"

namespace mlf {
namespace {

using tvm_upgrade::kIncludeDir;
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
    return FailedPrecondition("'" + in + "' is already a version-8 archive: there is nothing to upgrade");
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

// codegen/host/** shared by the modules: compatibility headers, then the
// archive's bundled runtime/include, then its own codegen/host members
// (each later one wins), the runtime source and mlf/model_abi.h.
std::map<std::string, std::string> SharedCode(const ReadMembers& members) {
  std::map<std::string, std::string> files;
  const std::string compat_include = std::string(tvm_compat::kIncludeDir) + "/";
  for (const tvm_compat::File& f : tvm_compat::Files()) {
    const std::string path(f.path);
    if (StartsWith(path, compat_include.c_str())) {
      files[kIncludeDir + path.substr(compat_include.size())] = std::string(f.content);
    } else if (path == tvm_compat::kRuntimeSource) {
      files[tvm_upgrade::kRuntimeSource] = std::string(f.content);
    }
  }
  for (const auto& [path, bytes] : members.code) {
    if (StartsWith(path, "runtime/include/")) {
      files[kIncludeDir + path.substr(std::string("runtime/include/").size())] = bytes;
    }
  }
  for (const auto& [path, bytes] : members.code) {
    if (StartsWith(path, "codegen/host/") && !StartsWith(path, "codegen/host/lib/")) files[path] = bytes;
  }
  files[std::string(kIncludeDir) + "mlf/model_abi.h"] = std::string(*EmbeddedFile("model_abi.h"));
  return files;
}

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return IoError("cannot read " + path);
  return ss.str();
}

Result<std::string> BuildLibrary(const std::map<std::string, std::string>& code,
                                 const std::vector<std::string>& sources, const HostBuildConfig& config) {
  std::vector<StagedFile> staged;
  for (const auto& [path, bytes] : code) staged.push_back(StagedFile{path, bytes});
  MLF_ASSIGN_OR_RETURN(ScratchDir dir, ScratchDir::CreateInTemp("mlf-upgrade-"));
  const std::string so = dir.path() + "/lib.so";
  MLF_RETURN_IF_ERROR(BuildHostLibrary(staged, sources, so, config));
  return ReadWhole(so);
}

HostBuildConfig TvmBuildConfig(const HostBuildConfig& base) {
  HostBuildConfig config = base;
  config.flags.push_back("-std=gnu11");
  config.flags.push_back("-fno-strict-aliasing");
  return config;
}

// Builds codegen/host/lib/<c>.so of `name` into `members` and sets host_library.
Status AddHostLibrary(const std::string& name, const std::map<std::string, std::string>& code,
                      const UpgradeOptions& options, ModuleMetadata* m,
                      std::vector<ArchiveMember>* members) {
  const HostBuildConfig config = TvmBuildConfig(options.build);
  Result<std::string> library = BuildLibrary(code, m->sources, config);
  if (!library.ok()) {
    return library.status().WithContext("module '" + name + "': building its host library failed (pass "
                                         "--no-host-lib to upgrade without one)");
  }
  MLF_ASSIGN_OR_RETURN(std::string identity, CompilerIdentity(ResolveCompiler(config)));
  std::vector<std::string> flags = config.flags;
  flags.insert(flags.end(), config.link_flags.begin(), config.link_flags.end());
  m->host_library = HostLibraryInfo{"codegen/host/lib/" + SanitizeCName(name) + ".so", HostTriple(),
                                    identity, flags};
  members->push_back({m->host_library->path, MemberSource::Bytes(std::move(*library)), false});
  return Status::Ok();
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
  Metadata md;
  md.generator_version = options.generator_version;
  md.export_datetime = scan->metadata.export_datetime;
  std::map<std::string, std::string> code = SharedCode(read);
  std::map<std::string, std::string> not_for_host;
  for (const auto& [name, m] : scan->metadata.modules) {
    MLF_ASSIGN_OR_RETURN(tvm_upgrade::UpgradedModule up,
                         tvm_upgrade::UpgradeModule(name, m, read.code, scan->metadata_sha256));
    for (StagedFile& f : up.code) code[f.path] = std::move(f.content);
    if (up.metadata.parameters && up.metadata.parameters->storage == "file") {
      read.provenance.push_back(
          {up.metadata.parameters->path, MemberSource::Bytes(std::move(up.constants)), false});
    }
    result.notes.insert(result.notes.end(), up.notes.begin(), up.notes.end());
    if (!up.not_for_host.empty()) not_for_host[name] = up.not_for_host;
    md.modules[name] = std::move(up.metadata);
  }
  std::vector<ArchiveMember> members = std::move(read.provenance);
  for (auto& [name, m] : md.modules) {
    auto foreign = not_for_host.find(name);
    if (foreign != not_for_host.end()) {
      result.notes.push_back("module '" + name + "': no host library: " + foreign->second +
                             "; build it for that target with mlf project");
    } else if (!options.build_host_library) {
      result.notes.push_back("module '" + name + "': no host library (--no-host-lib): the host loader "
                             "compiles the sources on first use");
    } else {
      MLF_RETURN_IF_ERROR(AddHostLibrary(name, code, options, &m, &members));
    }
  }
  for (auto& [path, bytes] : code) members.push_back({path, MemberSource::Bytes(std::move(bytes)), false});
  PackOptions pack{options.compression, options.mtime, options.progress};
  MLF_ASSIGN_OR_RETURN(result.metadata, WriteMlfArchive(out, std::move(md), std::move(members), pack));
  return result;
}

}  // namespace mlf
