#include "loader/host/shared_object.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "artifact/base/digest.h"
#include "artifact/base/testing/test_files.h"
#include "artifact/toolchain/host_build.h"

namespace mlf {
namespace {

using testutil::Exists;
using testutil::FreshDir;
using testutil::ListDir;
using testutil::ReadFile;

// A small library whose constructor writes `marker` and that exports answer().
std::string BuildLibrary(const std::string& dir, const std::string& marker) {
  const std::vector<StagedFile> files = {
      {"lib.c", "#include <stdio.h>\n"
                "__attribute__((constructor)) static void mark(void) {\n"
                "  FILE* f = fopen(\"" + marker + "\", \"w\");\n"
                "  if (f) fclose(f);\n}\n"
                "int answer(void) { return 42; }\n"}};
  const std::string out = dir + "/lib.so";
  Status built = BuildHostLibrary(files, {"lib.c"}, out, HostBuildConfig{});
  EXPECT_TRUE(built.ok()) << built.ToString();
  return ReadFile(out);
}

std::unique_ptr<CodeImage> ImageOf(const std::string& bytes) {
  Result<std::unique_ptr<CodeImage>> image = CodeImage::Create("test library");
  EXPECT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_TRUE((*image)->Append(bytes.data(), bytes.size()).ok());
  return std::move(*image);
}

TEST(CodeImageTest, BytesWithAnotherDigestAreNeverSealedNorLoaded) {
  std::unique_ptr<CodeImage> image = ImageOf("abc");
  Status s = image->Seal(Sha256Hex("abd"), "member 'lib.so'");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "member 'lib.so': SHA-256 mismatch (the bytes to load have " +
                             Sha256Hex("abc") + ", expected " + Sha256Hex("abd") + ")");
  EXPECT_FALSE(image->sealed());
  EXPECT_EQ(image->sha256(), "");
  Result<std::unique_ptr<SharedObject>> loaded = SharedObject::Load(*image, "'lib.so'");
  EXPECT_EQ(loaded.status().message(), "host library 'lib.so' loaded before sealing");
  EXPECT_EQ(SharedObject::LoadPrivateCopy(*image, "'lib.so'").status().message(),
            "host library 'lib.so' loaded before sealing");
}

TEST(CodeImageTest, ASealedImageCannotChange) {
  std::unique_ptr<CodeImage> image = ImageOf("abc");
  ASSERT_TRUE(image->Seal(Sha256Hex("abc"), "x").ok());
  EXPECT_EQ(image->sha256(), Sha256Hex("abc"));
  EXPECT_EQ(image->Append("d", 1).message(), "host library image appended to after sealing");
  // Not even through the descriptor itself, nor by another open of it.
  EXPECT_EQ(pwrite(image->fd(), "x", 1, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(ftruncate(image->fd(), 1), 0);
  const int again = open(("/proc/self/fd/" + std::to_string(image->fd())).c_str(), O_RDWR);
  ASSERT_GE(again, 0);
  EXPECT_EQ(write(again, "x", 1), -1);
  EXPECT_EQ(errno, EPERM);
  close(again);
}

TEST(SharedObjectTest, LoadsTheSealedBytes) {
  const std::string dir = FreshDir("shared_object_loads");
  const std::string bytes = BuildLibrary(dir, dir + "/loaded");
  std::unique_ptr<CodeImage> image = ImageOf(bytes);
  ASSERT_TRUE(image->Seal(Sha256Hex(bytes), "x").ok());
  Result<std::unique_ptr<SharedObject>> object = SharedObject::Load(*image, "'test'");
  ASSERT_TRUE(object.ok()) << object.status().ToString();
  EXPECT_TRUE(Exists(dir + "/loaded"));
  Result<void*> answer = (*object)->Symbol("answer");
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(reinterpret_cast<int (*)()>(*answer)(), 42);
  EXPECT_EQ((*object)->Symbol("question").status().message(),
            "host library 'test' has no symbol 'question'");
}

// Where memfds cannot be mapped executable: a private copy, removed after.
TEST(SharedObjectTest, APrivateCopyLoadsTheSameBytesAndLeavesNothing) {
  const std::string dir = FreshDir("shared_object_copy");
  const std::string tmp = FreshDir("shared_object_copy_tmp");
  const std::string bytes = BuildLibrary(dir, dir + "/loaded");
  std::unique_ptr<CodeImage> image = ImageOf(bytes);
  ASSERT_TRUE(image->Seal(Sha256Hex(bytes), "x").ok());
  const char* saved = std::getenv("TMPDIR");
  const std::string restore = saved ? saved : "";
  setenv("TMPDIR", tmp.c_str(), 1);
  Result<std::unique_ptr<SharedObject>> object = SharedObject::LoadPrivateCopy(*image, "'test'");
  if (saved) setenv("TMPDIR", restore.c_str(), 1); else unsetenv("TMPDIR");
  ASSERT_TRUE(object.ok()) << object.status().ToString();
  EXPECT_TRUE(Exists(dir + "/loaded"));
  Result<void*> answer = (*object)->Symbol("answer");
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(reinterpret_cast<int (*)()>(*answer)(), 42);
  EXPECT_EQ(ListDir(tmp), std::vector<std::string>{});
}

}  // namespace
}  // namespace mlf
