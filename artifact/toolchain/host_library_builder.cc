#include "artifact/toolchain/host_library_builder.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "artifact/base/scratch_dir.h"

namespace mlf {
namespace {

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return IoError("cannot read " + path);
  return ss.str();
}

Result<BuiltHostLibrary> Build(const HostBuildConfig& config, const std::map<std::string, std::string>& code,
                               const std::vector<std::string>& sources) {
  std::vector<StagedFile> staged;
  for (const auto& [path, content] : code) staged.push_back(StagedFile{path, content});
  MLF_ASSIGN_OR_RETURN(ScratchDir dir, ScratchDir::CreateInTemp("mlf-hostlib-"));
  const std::string so = dir.path() + "/lib.so";
  MLF_RETURN_IF_ERROR(BuildHostLibrary(staged, sources, so, config));
  BuiltHostLibrary built;
  MLF_ASSIGN_OR_RETURN(built.bytes, ReadWhole(so));
  built.triple = HostTriple();
  MLF_ASSIGN_OR_RETURN(built.compiler, CompilerIdentity(ResolveCompiler(config)));
  built.flags = config.flags;
  built.flags.insert(built.flags.end(), config.link_flags.begin(), config.link_flags.end());
  return built;
}

}  // namespace

HostLibraryBuilder HostCompilerLibraryBuilder(HostBuildConfig config) {
  return [config = std::move(config)](const std::map<std::string, std::string>& code,
                                      const std::vector<std::string>& sources) {
    return Build(config, code, sources);
  };
}

}  // namespace mlf
