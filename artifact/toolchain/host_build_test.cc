#include "artifact/toolchain/host_build.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::ReadFile;

std::string TempDir() { return std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp"; }

const std::vector<StagedFile> kFiles = {
    {"codegen/host/include/answer.h", "#define ANSWER 42\n"},
    {"codegen/host/src/a.c", "#include \"answer.h\"\nint answer(void) { return ANSWER; }\n"},
};

TEST(HostBuildTest, BuildsALoadableLibrary) {
  const std::string out = TempDir() + "/answer.so";
  ASSERT_TRUE(BuildHostLibrary(kFiles, {"codegen/host/src/a.c"}, out, {}).ok());
  void* handle = dlopen(out.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto answer = reinterpret_cast<int (*)()>(dlsym(handle, "answer"));
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer(), 42);
  dlclose(handle);
}

TEST(HostBuildTest, IdenticalInputsGiveIdenticalBytes) {
  const std::string a = TempDir() + "/a1.so", b = TempDir() + "/a2.so";
  ASSERT_TRUE(BuildHostLibrary(kFiles, {"codegen/host/src/a.c"}, a, {}).ok());
  ASSERT_TRUE(BuildHostLibrary(kFiles, {"codegen/host/src/a.c"}, b, {}).ok());
  EXPECT_EQ(ReadFile(a), ReadFile(b));
  EXPECT_EQ(ReadFile(a).find(TempDir()), std::string::npos);
}

TEST(HostBuildTest, CompilerErrorsAreReported) {
  std::vector<StagedFile> files = {{"bad.c", "int f(void) { return }\n"}};
  Status s = BuildHostLibrary(files, {"bad.c"}, TempDir() + "/bad.so", {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message().rfind("compiling the host library failed (cc -O3 -fPIC -std=c99 ", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find("bad.c:1"), std::string::npos) << s.message();
}

TEST(HostBuildTest, UnsafeStagedPathIsRefused) {
  std::vector<StagedFile> files = {{"../escape.c", "int x;\n"}};
  EXPECT_EQ(BuildHostLibrary(files, {}, TempDir() + "/x.so", {}).message(),
            "cannot stage '../escape.c': not a safe relative path");
}

TEST(HostBuildTest, CompilerIdentityNamesFamilyAndVersion) {
  auto id = CompilerIdentity("cc");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_TRUE(id->rfind("gcc ", 0) == 0 || id->rfind("clang ", 0) == 0) << *id;
}

TEST(HostBuildTest, HostTripleIsKnown) { EXPECT_STRNE(HostTriple(), "unknown"); }

}  // namespace
}  // namespace mlf
