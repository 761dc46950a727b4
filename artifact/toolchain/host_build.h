// Building an archive's C sources into a host shared library with the system
// C compiler. Used by the exporter (to ship codegen/host/lib/<mod>.so) and by
// the host loader (to compile archives that ship no library for this host).
//
// The files are staged in a fresh temporary directory and compiled with that
// directory as the working directory and relative paths only, so no host
// path leaks into the library and identical inputs give identical bytes.
#ifndef MLFKIT_ARTIFACT_TOOLCHAIN_HOST_BUILD_H_
#define MLFKIT_ARTIFACT_TOOLCHAIN_HOST_BUILD_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf {

struct StagedFile {
  std::string path;  // relative, e.g. "codegen/host/src/default_lib0.c"
  std::string content;
};

struct HostBuildConfig {
  std::string compiler;  // empty: $CC, else "cc"
  std::vector<std::string> flags = {"-O3", "-fPIC", "-std=c99"};
  // Relative to the staging directory.
  std::vector<std::string> include_dirs = {"codegen/host/include"};
  std::vector<std::string> defines;  // "NAME" or "NAME=value"
  // After the sources on the command line: generated code uses <math.h>.
  std::vector<std::string> link_flags = {"-lm"};
};

// The compiler to run for `config` ($CC or "cc" when config.compiler is empty).
std::string ResolveCompiler(const HostBuildConfig& config);

// "gcc 12.2.0" (from -dumpfullversion and --version), for metadata and cache keys.
Result<std::string> CompilerIdentity(const std::string& compiler);

// Stages `files`, compiles `sources` (paths among them) with -shared into
// `output`, written atomically. A compiler failure is kFailedPrecondition
// with the compiler's output (truncated) in the message.
Status BuildHostLibrary(const std::vector<StagedFile>& files,
                        const std::vector<std::string>& sources, const std::string& output,
                        const HostBuildConfig& config);

// The triple of the machine mlfkit runs on, e.g. "x86_64-linux-gnu".
const char* HostTriple();

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_TOOLCHAIN_HOST_BUILD_H_
