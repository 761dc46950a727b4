// Test support (testonly) for the generated run functions of tvm/compat
// (graph_source.h, operator_source.h): the checks and the build that their
// tests share. Header-only.
#ifndef MLFKIT_TVM_COMPAT_TESTING_GENERATED_RUN_H_
#define MLFKIT_TVM_COMPAT_TESTING_GENERATED_RUN_H_

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/toolchain/host_build.h"
#include "tvm/compat/compat.h"

namespace mlf::tvm_compat::testing {

// The entry point the wrapper exports: (inputs, outputs, pools) -> 0 on success.
using RunFn = int32_t (*)(void* const*, void* const*, void*);

// The lines of generated C that declare mutable static data: every `static`
// declaration must be a function or const, so that the code is reentrant.
inline std::vector<std::string> MutableStaticLines(const std::string& source) {
  std::vector<std::string> found;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, 7, "static ") != 0) continue;
    if (line.find("const ") == std::string::npos && line.find('(') == std::string::npos) {
      found.push_back(line);
    }
  }
  return found;
}

// A loaded test library and its directory, closed and removed when it goes.
struct LoadedRun {
  LoadedRun() = default;
  LoadedRun(const LoadedRun&) = delete;
  LoadedRun& operator=(const LoadedRun&) = delete;
  ~LoadedRun() {
    if (handle != nullptr) dlclose(handle);
    if (dir.empty()) return;
    unlink((dir + "/m.so").c_str());
    rmdir(dir.c_str());
  }

  RunFn run = nullptr;
  void* handle = nullptr;
  std::string dir;
};

// Compiles kernels.c (`kernels`), the generated run function (`source`, as
// `source_name`), the entry wrapper of module "m" (`wrapper`) and the
// compatibility runtime into a shared library in a fresh directory under /tmp
// named after `test`, and loads it into `loaded`.
inline Status BuildAndLoad(const std::string& test, const std::string& kernels,
                           const std::string& source_name, const std::string& source,
                           const std::string& wrapper, LoadedRun* loaded) {
  std::vector<StagedFile> files = {{"kernels.c", kernels}, {source_name, source}, {"wrapper.c", wrapper}};
  for (const File& f : Files()) files.push_back({"mlf_tvm/" + std::string(f.path), std::string(f.content)});
  HostBuildConfig config;
  config.flags = {"-O2", "-fPIC", "-std=gnu11", "-Wall", "-Werror", "-Wno-unused-parameter"};
  config.include_dirs = {"mlf_tvm/include"};
  std::string dir = "/tmp/" + test + "_XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return Internal("mkdtemp failed for " + dir);
  loaded->dir = dir;
  const std::string so = dir + "/m.so";
  MLF_RETURN_IF_ERROR(BuildHostLibrary(
      files, {"kernels.c", source_name, "wrapper.c", "mlf_tvm/src/mlf_tvm_runtime.c"}, so, config));
  loaded->handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (loaded->handle == nullptr) return Internal(std::string("dlopen: ") + dlerror());
  loaded->run = reinterpret_cast<RunFn>(dlsym(loaded->handle, EntrySymbol("m").c_str()));
  if (loaded->run == nullptr) return Internal("no symbol " + EntrySymbol("m"));
  return Status::Ok();
}

}  // namespace mlf::tvm_compat::testing

#endif  // MLFKIT_TVM_COMPAT_TESTING_GENERATED_RUN_H_
