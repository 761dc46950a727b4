#include "bench/bench_args.h"

#include <stdlib.h>

#include <cstring>
#include <filesystem>

namespace mlf::bench {

bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) return true;
  }
  return false;
}

const char* FlagValue(int argc, char** argv, const char* name) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return nullptr;
}

std::string MakeWorkDir(const std::string& prefix) {
  std::string dir = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(dir.data()) == nullptr) return "";
  return dir;
}

}  // namespace mlf::bench
