// Replays fuzz/regressions/<target>/* through the fuzz target of that name
// (fuzz/fuzz_target.h), built without libFuzzer: every input that once made a
// target crash, hang or break an invariant must now run cleanly. A target's
// MLF_FUZZ_CHECK aborts the test on a broken invariant; sanitizer findings
// show up when the suite runs under --config=asan (scripts/test.sh).
//
// Also runs every target over a few trivial inputs, so a target that cannot
// even start is caught in the normal suite, long before anyone fuzzes.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/fuzz_target.h"

namespace mlf::fuzz {
namespace {

const std::vector<std::string> kTargets = {"archive_reader", "metadata", "npy",    "onnx",
                                           "tvm_graph",      "tvm_params", "verify", "yaml"};

// The targets that have regression inputs: exactly the subdirectories of
// fuzz/regressions (RegressionDirectoriesAreExactlyThese), each non-empty. A
// target gains an entry here with its first regression input; a target without
// one is not replayed at all rather than replaying an empty directory.
const std::vector<std::string> kTargetsWithRegressions = {"metadata", "onnx", "yaml"};

std::string RegressionsDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (workspace ? workspace : "mlfkit") +
         "/fuzz/regressions";
}

// Regular files (or symlinks to them, as in runfiles) directly in `dir`, sorted.
std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return files;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == ".." || name == "README.md") continue;
    struct stat st {};
    if (stat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode)) files.push_back(name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

int RunTarget(FuzzFunction f, const std::string& input) {
  return f(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

TEST(FuzzRegressionTest, EveryTargetIsRegistered) {
  std::vector<std::string> registered;
  for (const auto& [name, f] : Targets()) registered.push_back(name);
  EXPECT_EQ(registered, kTargets);
}

TEST(FuzzRegressionTest, TrivialInputs) {
  for (const auto& [name, f] : Targets()) {
    SCOPED_TRACE(name);
    for (const std::string& input : {std::string(), std::string(1, '\0'), std::string(512, '\0'),
                                    std::string("{}"), std::string(4096, '\xff')}) {
      EXPECT_EQ(RunTarget(f, input), 0);
    }
  }
}

// The subdirectories of fuzz/regressions are exactly the replayed targets: a
// typo, a new directory nobody replays, or a directory lost from the runfiles
// fails here instead of replaying nothing.
TEST(FuzzRegressionTest, RegressionDirectoriesAreExactlyThese) {
  DIR* d = opendir(RegressionsDir().c_str());
  ASSERT_NE(d, nullptr) << RegressionsDir() << " is not in the runfiles";
  std::vector<std::string> dirs;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    struct stat st {};
    if (name == "." || name == ".." ||
        stat((RegressionsDir() + "/" + name).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      continue;
    }
    EXPECT_TRUE(Targets().count(name)) << "fuzz/regressions/" << name << " names no fuzz target";
    dirs.push_back(name);
  }
  closedir(d);
  std::sort(dirs.begin(), dirs.end());
  EXPECT_EQ(dirs, kTargetsWithRegressions);
}

class ReplayTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayTest, EveryRegressionInputRunsCleanly) {
  const std::string target = GetParam();
  const auto it = Targets().find(target);
  ASSERT_NE(it, Targets().end());
  const std::string dir = RegressionsDir() + "/" + target;
  const std::vector<std::string> files = FilesIn(dir);
  ASSERT_FALSE(files.empty()) << "fuzz/regressions/" << target << " holds no input to replay";
  for (const std::string& file : files) {
    const std::string name = "fuzz/regressions/" + target + "/" + file;
    // Printed first: a crash kills the test before any gtest message.
    std::fprintf(stderr, "replaying %s\n", name.c_str());
    SCOPED_TRACE(name);
    EXPECT_EQ(RunTarget(it->second, ReadFile(dir + "/" + file)), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ReplayTest, ::testing::ValuesIn(kTargetsWithRegressions),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace mlf::fuzz
