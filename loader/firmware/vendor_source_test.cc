#include "loader/firmware/vendor_source.h"

#include <filesystem>
#include <fstream>
#include <optional>

#include <gtest/gtest.h>

#include "artifact/base/scratch_dir.h"

namespace mlf::firmware {
namespace {

namespace fs = std::filesystem;

class VendorSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<ScratchDir> dir = ScratchDir::CreateInTemp("mlf-vendor-");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_.emplace(std::move(*dir));
  }
  std::string Write(const std::string& rel, const std::string& text = "x") {
    const fs::path p = fs::path(dir_->path()) / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::optional<ScratchDir> dir_;
};

TEST_F(VendorSourceTest, SourcesSortedHeadersByIncludeNameBothIncludeFolders) {
  Write("lib/src/z.c");
  Write("lib/src/a/b.c");
  Write("lib/Include/arm_nnfunctions.h");
  Write("lib/include/sub/x.h");
  Write("lib/top.h");
  Write("lib/README.md");
  Result<std::vector<VendorLibrary>> libs =
      LoadVendorLibraries({{"cmsis", dir_->path() + "/lib"}});
  ASSERT_TRUE(libs.ok()) << libs.status().ToString();
  ASSERT_EQ(libs->size(), 1u);
  const VendorLibrary& lib = (*libs)[0];
  EXPECT_EQ(lib.sources, (std::vector<std::string>{"vendor/cmsis/src/a/b.c", "vendor/cmsis/src/z.c"}));
  EXPECT_EQ(lib.include_dirs, (std::vector<std::string>{"vendor/cmsis", "vendor/cmsis/Include",
                                                        "vendor/cmsis/include"}));
  EXPECT_EQ(lib.headers, (std::set<std::string>{"Include/arm_nnfunctions.h", "arm_nnfunctions.h",
                                                "include/sub/x.h", "sub/x.h", "top.h"}));
  std::vector<std::string> paths;
  for (const ProjectFile& f : lib.files) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"vendor/cmsis/Include/arm_nnfunctions.h",
                                             "vendor/cmsis/include/sub/x.h", "vendor/cmsis/src/a/b.c",
                                             "vendor/cmsis/src/z.c", "vendor/cmsis/top.h"}));
  EXPECT_EQ(VendorHeaders(*libs).count("arm_nnfunctions.h"), 1u);
  EXPECT_EQ(VendorSourceFlags({{"cmsis", "/d"}, {"esp", "/e"}}),
            "--vendor-source cmsis=/d, --vendor-source esp=/e");
}

TEST_F(VendorSourceTest, PathsAMakefileCannotListAreRefused) {
  Write("lib/bad name.c");
  Result<std::vector<VendorLibrary>> libs = LoadVendorLibraries({{"v", dir_->path() + "/lib"}});
  ASSERT_FALSE(libs.ok());
  EXPECT_EQ(libs.status().message(),
            "--vendor-source v=" + dir_->path() +
                "/lib: 'bad name.c' is not a path a Makefile can list (letters, digits and \"_-+./\" only)");
}

TEST_F(VendorSourceTest, FlagWithoutEquals) {
  EXPECT_EQ(ParseVendorSourceFlag("esp").status().message(), "--vendor-source 'esp': expected NAME=DIR");
  Result<VendorSourceSpec> spec = ParseVendorSourceFlag("esp=/a=b");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "esp");
  EXPECT_EQ(spec->dir, "/a=b");
}

}  // namespace
}  // namespace mlf::firmware
