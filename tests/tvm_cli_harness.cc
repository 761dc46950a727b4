#include "tests/tvm_cli_harness.h"

#include <cstdlib>

namespace mlf::testing {

std::string WriteTvmFixtureArchive(const std::string& prefix, const std::string& name,
                                   const tvm_testing::Files& files,
                                   const tvm_testing::TarLayout& layout) {
  const std::string path = FreshDir(prefix + name) + "/" + name + ".tar";
  tvm_testing::WriteTvmArchive(path, files, layout);
  return path;
}

CommandResult MlfWithTestCache(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {MlfBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions options;
  options.env.push_back({"MLF_CACHE_DIR", std::string(std::getenv("TEST_TMPDIR")) + "/mlf-cache"});
  return RunCommand(argv, options);
}

}  // namespace mlf::testing
