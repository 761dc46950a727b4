#include "codegen/kernels/kernels.h"

#include "gtest/gtest.h"

namespace mlf::kernels {
namespace {

std::vector<std::string> Names(const std::vector<StagedFile>& files) {
  std::vector<std::string> out;
  for (const StagedFile& f : files) out.push_back(f.path);
  return out;
}

TEST(KernelsTest, FileNameOfAFamily) { EXPECT_EQ(KernelFileName("gemm_f32"), "mlf_kernel_gemm_f32.h"); }

TEST(KernelsTest, EveryFamilyIsCarried) {
  EXPECT_EQ(KernelFamilies(), (std::vector<std::string>{"add_s8", "common", "conv_f32", "depthwise_f32", "depthwise_s8",
                                                      "gemm_f32", "gemm_s8", "pool_f32", "quantize_f32"}));
}

TEST(KernelsTest, AFamilyBringsWhatItIncludes) {
  auto files = KernelFiles({"conv_f32"});
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(Names(*files), (std::vector<std::string>{"mlf_kernel_common.h", "mlf_kernel_conv_f32.h",
                                                     "mlf_kernel_gemm_f32.h"}));
  EXPECT_NE(files->at(1).content.find("mlfk_conv2d_f32("), std::string::npos);
  auto gemm = KernelFiles({"gemm_f32"});
  ASSERT_TRUE(gemm.ok());
  EXPECT_EQ(Names(*gemm), (std::vector<std::string>{"mlf_kernel_common.h", "mlf_kernel_gemm_f32.h"}));
}

TEST(KernelsTest, NoFamiliesNoFiles) {
  auto files = KernelFiles({});
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
}

TEST(KernelsTest, UnknownFamilyIsNamed) {
  auto files = KernelFiles({"winograd_f64"});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().message(), "no kernel file mlf_kernel_winograd_f64.h in this mlfkit");
}

}  // namespace
}  // namespace mlf::kernels
