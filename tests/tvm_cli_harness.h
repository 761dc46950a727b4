// What the tests of `mlf` on TVM fixture archives share (tvm_cli_test,
// tvm_entry_test, tvm_vendor_cli_test): writing a fixture archive, running
// the real binary with a private compile cache, and reading its outputs.
#ifndef MLFKIT_TESTS_TVM_CLI_HARNESS_H_
#define MLFKIT_TESTS_TVM_CLI_HARNESS_H_

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "artifact/format/npy.h"
#include "tests/run_command.h"
#include "tests/test_files.h"
#include "tests/tvm_fixtures/tvm_fixtures.h"

namespace mlf::testing {

// Writes `files` as the TVM archive <fresh dir "<prefix><name>">/<name>.tar
// and returns its path.
std::string WriteTvmFixtureArchive(const std::string& prefix, const std::string& name,
                                   const tvm_testing::Files& files,
                                   const tvm_testing::TarLayout& layout = {});

// Runs `mlf args...` with MLF_CACHE_DIR in the test's temporary directory
// (compiled TVM code is cached there, not in the user's cache).
CommandResult MlfWithTestCache(const std::vector<std::string>& args);

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The elements of the .npy file at `path` as T (its dtype is not checked).
template <typename T>
std::vector<T> NpyValues(const std::string& path) {
  Result<NpyArray> a = ParseNpy(ReadFile(path));
  EXPECT_TRUE(a.ok()) << path << ": " << a.status().ToString();
  if (!a.ok()) return {};
  std::vector<T> v(a->data.size() / sizeof(T));
  std::memcpy(v.data(), a->data.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace mlf::testing

#define EXPECT_CONTAINS(text, part)                                         \
  EXPECT_TRUE(::mlf::testing::Contains(text, part)) << "missing: " << (part) \
                                                    << "\nin:\n"             \
                                                    << (text)

#endif  // MLFKIT_TESTS_TVM_CLI_HARNESS_H_
