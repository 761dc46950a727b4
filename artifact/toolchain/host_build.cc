#include "artifact/toolchain/host_build.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "artifact/base/atomic_file.h"
#include "artifact/base/scratch_dir.h"
#include "artifact/base/subprocess.h"
#include "artifact/format/c_name.h"

namespace mlf {
namespace {

namespace fs = std::filesystem;

Status Stage(const std::string& root, const StagedFile& file) {
  if (!IsSafeMemberPath(file.path)) {
    return InvalidArgument("cannot stage '" + file.path + "': not a safe relative path");
  }
  const fs::path target = fs::path(root) / file.path;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return IoError("cannot create " + target.parent_path().string() + ": " + ec.message());
  return WriteFileAtomically(target.string(), file.content);
}

Result<std::string> FirstLine(const std::vector<std::string>& argv) {
  MLF_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(argv));
  if (r.exit_code != 0) return FailedPrecondition(CommandLine(argv) + " failed: " + r.output);
  return r.output.substr(0, r.output.find('\n'));
}

}  // namespace

std::string ResolveCompiler(const HostBuildConfig& config) {
  if (!config.compiler.empty()) return config.compiler;
  const char* cc = std::getenv("CC");
  return cc != nullptr && *cc != '\0' ? cc : "cc";
}

Result<std::string> CompilerIdentity(const std::string& compiler) {
  MLF_ASSIGN_OR_RETURN(std::string version, FirstLine({compiler, "-dumpfullversion"}));
  MLF_ASSIGN_OR_RETURN(std::string banner, FirstLine({compiler, "--version"}));
  const std::string family = banner.find("clang") != std::string::npos ? "clang" : "gcc";
  return family + " " + version;
}

Status BuildHostLibrary(const std::vector<StagedFile>& files,
                        const std::vector<std::string>& sources, const std::string& output,
                        const HostBuildConfig& config) {
  MLF_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::CreateInTemp("mlf-build-"));
  for (const StagedFile& f : files) MLF_RETURN_IF_ERROR(Stage(scratch.path(), f));
  std::vector<std::string> argv = {ResolveCompiler(config)};
  argv.insert(argv.end(), config.flags.begin(), config.flags.end());
  for (const std::string& dir : config.include_dirs) argv.push_back("-I" + dir);
  for (const std::string& d : config.defines) argv.push_back("-D" + d);
  argv.insert(argv.end(), {"-shared", "-o", "lib.so"});
  argv.insert(argv.end(), sources.begin(), sources.end());
  argv.insert(argv.end(), config.link_flags.begin(), config.link_flags.end());
  ProcessOptions options;
  options.cwd = scratch.path();
  options.max_output = 8192;
  MLF_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(argv, options));
  if (r.exit_code != 0) {
    return FailedPrecondition("compiling the host library failed (" + CommandLine(argv) +
                              "):\n" + r.output);
  }
  // Copied through AtomicFile rather than renamed: the scratch directory may
  // be on another file system, and concurrent builders must not collide.
  std::ifstream in(scratch.path() + "/lib.so", std::ios::binary);
  std::stringstream library;
  library << in.rdbuf();
  if (!in) return IoError("cannot read the compiled library in " + scratch.path());
  return WriteFileAtomically(output, library.str(), 0755);
}

const char* HostTriple() {
#if defined(__x86_64__) && defined(__linux__)
  return "x86_64-linux-gnu";
#elif defined(__aarch64__) && defined(__linux__)
  return "aarch64-linux-gnu";
#elif defined(__arm__) && defined(__linux__)
  return "arm-linux-gnueabihf";
#else
  return "unknown";
#endif
}

}  // namespace mlf
