// The private cache directory's checks run as root in CI: another user's
// directory is made with chown, so what is asserted is the owner and mode
// check, never a permission error.
#include "loader/host/compile_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "artifact/base/digest.h"
#include "artifact/base/testing/test_files.h"

namespace mlf {
namespace {

using testutil::FreshDir;
using testutil::ReadFile;
using testutil::WriteFile;

constexpr uid_t kOtherUser = 65534;

std::string Me() { return std::to_string(geteuid()); }

const std::vector<StagedFile> kFiles = {{"lib.c", "int answer(void) { return 42; }\n"}};
const std::vector<std::string> kSources = {"lib.c"};

TEST(PrivateCacheDirTest, AMissingDirectoryIsCreatedPrivateOnlyWhenAsked) {
  const std::string dir = FreshDir("cache_created") + "/a/cache";
  Result<std::optional<PrivateCacheDir>> absent = PrivateCacheDir::Open({dir, ""}, false);
  ASSERT_TRUE(absent.ok()) << absent.status().ToString();
  EXPECT_FALSE(absent->has_value());
  Result<std::optional<PrivateCacheDir>> made = PrivateCacheDir::Open({dir, ""}, true);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ASSERT_TRUE(made->has_value());
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, geteuid());
}

TEST(PrivateCacheDirTest, AnotherUsersDirectoryIsRefused) {
  const std::string dir = FreshDir("cache_other_user") + "/mlfkit";
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(chown(dir.c_str(), kOtherUser, kOtherUser), 0);
  Result<std::optional<PrivateCacheDir>> opened = PrivateCacheDir::Open({dir, "XDG_CACHE_HOME"}, true);
  EXPECT_EQ(opened.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(opened.status().message(),
            "cache directory '" + dir + "' is owned by uid 65534, not by this user (uid " + Me() +
                "); not using it: set XDG_CACHE_HOME or HOME to a directory of your own, or "
                "MLF_CACHE_DIR to one with mode 0700");
}

TEST(PrivateCacheDirTest, GroupOrOtherAccessIsRefused) {
  for (mode_t mode : {0770, 0750, 0707, 0701, 0710}) {
    const std::string dir = FreshDir("cache_open_mode") + "/mlfkit";
    ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(chmod(dir.c_str(), mode), 0);
    char octal[8];
    snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
    Result<std::optional<PrivateCacheDir>> opened = PrivateCacheDir::Open({dir, "MLF_CACHE_DIR"}, true);
    EXPECT_EQ(opened.status().message(),
              "cache directory '" + dir + "' is open to its group or others (mode " + octal +
                  "); not using it: set MLF_CACHE_DIR to a directory of your own with mode 0700");
  }
}

TEST(PrivateCacheDirTest, ASymbolicLinkIsRefusedEvenToAPrivateDirectory) {
  const std::string base = FreshDir("cache_symlink");
  ASSERT_EQ(mkdir((base + "/real").c_str(), 0700), 0);
  ASSERT_EQ(symlink("real", (base + "/link").c_str()), 0);
  Result<std::optional<PrivateCacheDir>> opened = PrivateCacheDir::Open({base + "/link", "HOME"}, true);
  EXPECT_EQ(opened.status().message(),
            "cache directory '" + base + "/link' is a symbolic link or not a directory; not using "
            "it: set XDG_CACHE_HOME or HOME to a directory of your own, or MLF_CACHE_DIR to one "
            "with mode 0700");
}

TEST(PrivateCacheDirTest, SubdirectoriesAreCheckedTheSameWay) {
  const std::string dir = FreshDir("cache_subdir") + "/cache";
  Result<std::optional<PrivateCacheDir>> cache = PrivateCacheDir::Open({dir, ""}, true);
  ASSERT_TRUE(cache.ok() && cache->has_value());
  ASSERT_EQ(mkdir((dir + "/host-libs").c_str(), 0700), 0);
  ASSERT_EQ(chown((dir + "/host-libs").c_str(), kOtherUser, kOtherUser), 0);
  Result<int> libs = (*cache)->OpenSubdirectory("host-libs", true);
  EXPECT_EQ(libs.status().message(),
            "cache directory '" + dir + "/host-libs' is owned by uid 65534, not by this user (uid " +
                Me() + "); not using it: pass a cache directory of your own with mode 0700");
  Result<HostLibrary> library = CachedHostLibrary(&**cache, kFiles, kSources, HostBuildConfig{});
  EXPECT_EQ(library.status().message(), libs.status().message());
}

class CachedHostLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshDir(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "/cache";
    Result<std::optional<PrivateCacheDir>> cache = PrivateCacheDir::Open({dir_, ""}, true);
    ASSERT_TRUE(cache.ok() && cache->has_value());
    cache_ = std::move(**cache);
    Result<std::string> key = HostLibraryCacheKey(kFiles, kSources, HostBuildConfig{});
    ASSERT_TRUE(key.ok());
    entry_ = dir_ + "/host-libs/" + HostLibraryEntryName(*key);
  }

  HostLibrary Get() {
    Result<HostLibrary> library = CachedHostLibrary(&*cache_, kFiles, kSources, HostBuildConfig{});
    EXPECT_TRUE(library.ok()) << library.status().ToString();
    EXPECT_TRUE(library->image->sealed());
    return std::move(*library);
  }

  std::string dir_, entry_;
  std::optional<PrivateCacheDir> cache_;
};

TEST_F(CachedHostLibraryTest, CompiledOnceThenTakenFromTheCacheWithItsRecordedDigest) {
  HostLibrary first = Get();
  EXPECT_FALSE(first.from_cache);
  const std::string entry = ReadFile(entry_);
  const std::string header = "mlfkit-host-library-v1\n" + first.image->sha256() + "\n";
  ASSERT_EQ(entry.substr(0, header.size()), header);
  EXPECT_EQ(Sha256Hex(entry.substr(header.size())), first.image->sha256());
  struct stat st {};
  ASSERT_EQ(stat(entry_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  HostLibrary second = Get();
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.image->sha256(), first.image->sha256());
}

TEST_F(CachedHostLibraryTest, BytesThatAreNotTheRecordedOnesAreCompiledAgainAndReplaced) {
  const std::string genuine = Get().image->sha256();
  std::string entry = ReadFile(entry_);
  entry[entry.size() / 2] ^= 0x01;  // the recorded digest stays
  WriteFile(entry_, entry);
  HostLibrary again = Get();
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.image->sha256(), genuine);
  EXPECT_NE(ReadFile(entry_), entry);
  EXPECT_TRUE(Get().from_cache);
}

TEST_F(CachedHostLibraryTest, AnEntryOwnedByAnotherUserIsNotUsed) {
  const std::string genuine = Get().image->sha256();
  ASSERT_EQ(chown(entry_.c_str(), kOtherUser, kOtherUser), 0);
  HostLibrary again = Get();
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.image->sha256(), genuine);
}

TEST_F(CachedHostLibraryTest, WithoutACacheEveryLoadCompiles) {
  for (int i = 0; i < 2; ++i) {
    Result<HostLibrary> library = CachedHostLibrary(nullptr, kFiles, kSources, HostBuildConfig{});
    ASSERT_TRUE(library.ok()) << library.status().ToString();
    EXPECT_FALSE(library->from_cache);
  }
}

}  // namespace
}  // namespace mlf
