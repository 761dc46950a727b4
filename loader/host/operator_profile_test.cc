#include "loader/host/operator_profile.h"

#include <gtest/gtest.h>

#include <thread>

#include "artifact/base/digest.h"
#include "artifact/base/testing/test_files.h"
#include "loader/host/shared_object.h"

namespace mlf {
namespace {

using testutil::FreshDir;
using testutil::ReadFile;

using HookFn = void (*)(uint32_t);

// The hook file compiled by the system C compiler, as it is into a profiled
// archive's library.
std::unique_ptr<SharedObject> LoadHookLibrary() {
  const std::vector<StagedFile> files = {ProfileHookFile()};
  const std::vector<std::string> sources = {files[0].path};
  const std::string out = FreshDir("operator_profile") + "/lib.so";
  Status built = BuildHostLibrary(files, sources, out, HostBuildConfig{});
  EXPECT_TRUE(built.ok()) << built.ToString();
  const std::string bytes = ReadFile(out);
  Result<std::unique_ptr<CodeImage>> image = CodeImage::Create("hook library");
  EXPECT_TRUE(image.ok());
  EXPECT_TRUE((*image)->Append(bytes.data(), bytes.size()).ok());
  EXPECT_TRUE((*image)->Seal(Sha256Hex(bytes), "hook library").ok());
  Result<std::unique_ptr<SharedObject>> object = SharedObject::Load(**image, "'hook library'");
  EXPECT_TRUE(object.ok()) << object.status().ToString();
  return object.ok() ? std::move(*object) : nullptr;
}

TEST(OperatorProfileTest, AddsTimeAndCallsPerOperator) {
  OperatorProfile profile(3);
  for (int run = 0; run < 2; ++run) {
    profile.Begin(0);
    profile.End(0);
    profile.Begin(2);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    profile.End(2);
  }
  const std::vector<OperatorTime>& t = profile.totals();
  EXPECT_EQ(t[0].calls, 2u);
  EXPECT_EQ(t[1].calls, 0u);
  EXPECT_EQ(t[1].nanoseconds, 0u);
  EXPECT_EQ(t[2].calls, 2u);
  EXPECT_GE(t[2].nanoseconds, 4000000u);
  EXPECT_LT(t[0].nanoseconds, t[2].nanoseconds);
  profile.Reset();
  EXPECT_EQ(profile.totals()[2].calls, 0u);
  EXPECT_EQ(profile.totals()[2].nanoseconds, 0u);
}

TEST(OperatorProfileTest, IgnoresUnmatchedEndsAndUnknownOperators) {
  OperatorProfile profile(2);
  profile.End(0);  // never begun
  profile.Begin(0);
  profile.End(1);  // not the one begun: 0 stays open
  profile.End(0);
  profile.End(0);  // no longer open
  profile.Begin(7);
  profile.End(7);  // beyond the metadata's operators
  EXPECT_EQ(profile.totals()[0].calls, 1u);
  EXPECT_EQ(profile.totals()[1].calls, 0u);
}

// The hook as generated code calls it: through the compiled library, into
// the profile of the scope on the calling thread, and nowhere outside one.
TEST(OperatorProfileTest, CompiledHookRecordsIntoTheCallingThreadsScope) {
  std::unique_ptr<SharedObject> lib = LoadHookLibrary();
  ASSERT_NE(lib, nullptr);
  auto begin = reinterpret_cast<HookFn>(*lib->Symbol("mlf_profile_begin"));
  auto end = reinterpret_cast<HookFn>(*lib->Symbol("mlf_profile_end"));
  begin(0);  // not installed yet: nothing to call
  end(0);
  ASSERT_TRUE(InstallProfileHook(*lib).ok());

  OperatorProfile mine(2), other(2);
  begin(1);  // no scope on this thread: dropped
  end(1);
  {
    ProfileScope scope(&mine);
    begin(1);
    end(1);
    std::thread t([&] {
      ProfileScope theirs(&other);
      begin(0);
      end(0);
    });
    t.join();
  }
  begin(1);
  end(1);
  EXPECT_EQ(mine.totals()[0].calls, 0u);
  EXPECT_EQ(mine.totals()[1].calls, 1u);
  EXPECT_EQ(other.totals()[0].calls, 1u);
  EXPECT_EQ(other.totals()[1].calls, 0u);
}

TEST(OperatorProfileTest, ALibraryWithoutTheHookIsRefused) {
  std::vector<StagedFile> files = {{"lib.c", "int answer(void) { return 42; }\n"}};
  const std::string out = FreshDir("operator_profile_plain") + "/lib.so";
  ASSERT_TRUE(BuildHostLibrary(files, {"lib.c"}, out, HostBuildConfig{}).ok());
  const std::string bytes = ReadFile(out);
  Result<std::unique_ptr<CodeImage>> image = CodeImage::Create("plain");
  ASSERT_TRUE(image.ok());
  ASSERT_TRUE((*image)->Append(bytes.data(), bytes.size()).ok());
  ASSERT_TRUE((*image)->Seal(Sha256Hex(bytes), "plain").ok());
  Result<std::unique_ptr<SharedObject>> lib = SharedObject::Load(**image, "'plain'");
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  Status s = InstallProfileHook(**lib);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "the library was not built for operator profiles (no mlf_host_profile_install)");
}

}  // namespace
}  // namespace mlf
