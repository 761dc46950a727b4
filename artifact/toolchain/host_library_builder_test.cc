#include "artifact/toolchain/host_library_builder.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

const std::map<std::string, std::string> kCode = {
    {"codegen/host/include/answer.h", "#define ANSWER 42\n"},
    {"codegen/host/src/a.c", "#include \"answer.h\"\nint answer(void) { return ANSWER; }\n"},
    {"codegen/host/src/b.c", "#error b.c is not a source of this module\n"},
};

TEST(HostLibraryBuilderTest, BuildsTheModulesSourcesAndDescribesTheLibrary) {
  HostBuildConfig config;
  config.flags = {"-O2", "-fPIC"};
  config.link_flags = {"-lm"};
  Result<BuiltHostLibrary> built = HostCompilerLibraryBuilder(config)(kCode, {"codegen/host/src/a.c"});
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->triple, HostTriple());
  Result<std::string> identity = CompilerIdentity(ResolveCompiler(config));
  ASSERT_TRUE(identity.ok()) << identity.status().ToString();
  EXPECT_EQ(built->compiler, *identity);
  EXPECT_EQ(built->flags, (std::vector<std::string>{"-O2", "-fPIC", "-lm"}));

  // The bytes are the library: it loads and answers.
  const std::string so = testutil::FreshDir("builder") + "/answer.so";
  testutil::WriteFile(so, built->bytes);
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto answer = reinterpret_cast<int (*)()>(dlsym(handle, "answer"));
  ASSERT_NE(answer, nullptr);
  EXPECT_EQ(answer(), 42);
  dlclose(handle);

  // Identical inputs give identical bytes.
  Result<BuiltHostLibrary> again = HostCompilerLibraryBuilder(config)(kCode, {"codegen/host/src/a.c"});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->bytes, built->bytes);
}

TEST(HostLibraryBuilderTest, CompilerErrorsAreReturned) {
  Result<BuiltHostLibrary> built = HostCompilerLibraryBuilder({})(kCode, {"codegen/host/src/b.c"});
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(built.status().message().rfind("compiling the host library failed (cc -O3 -fPIC -std=c99 ", 0), 0u)
      << built.status().message();
  EXPECT_NE(built.status().message().find("b.c is not a source of this module"), std::string::npos)
      << built.status().message();
}

}  // namespace
}  // namespace mlf
