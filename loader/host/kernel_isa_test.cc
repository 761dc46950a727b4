#include "loader/host/kernel_isa.h"

#include <gtest/gtest.h>

#include "mlf/model_abi.h"

namespace mlf {
namespace {

TEST(KernelIsaTest, NamesRoundTrip) {
  for (int32_t isa : {MLF_KERNEL_ISA_PORTABLE, MLF_KERNEL_ISA_AVX2, MLF_KERNEL_ISA_AVX512}) {
    Result<int32_t> parsed = ParseKernelIsa(KernelIsaName(isa));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, isa);
  }
  EXPECT_EQ(KernelIsaName(MLF_KERNEL_ISA_AUTO), "auto");
}

TEST(KernelIsaTest, UnknownNamesAreRefused) {
  for (const char* name : {"", "AVX2", "auto", "sse4", "avx512f"}) {
    Result<int32_t> parsed = ParseKernelIsa(name);
    ASSERT_FALSE(parsed.ok()) << name;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(),
              "unknown kernel variant '" + std::string(name) + "' (known: portable, avx2, avx512)");
  }
}

// What this CPU runs is what __builtin_cpu_supports says, listed in order;
// a variant it lacks is refused naming the variant and what it has.
TEST(KernelIsaTest, CpuVariantsFollowCpuid) {
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  EXPECT_TRUE(CpuRunsKernelIsa(MLF_KERNEL_ISA_PORTABLE));
  EXPECT_EQ(CpuRunsKernelIsa(MLF_KERNEL_ISA_AVX2), avx2);
  EXPECT_EQ(CpuRunsKernelIsa(MLF_KERNEL_ISA_AVX512), avx512);
  EXPECT_FALSE(CpuRunsKernelIsa(7));
  const std::string has = std::string("portable") + (avx2 ? ", avx2" : "") + (avx512 ? ", avx512" : "");
  EXPECT_EQ(CpuKernelIsas(), has);
  for (const char* name : {"portable", "avx2", "avx512"}) {
    Result<int32_t> checked = CheckedKernelIsa(name);
    if (CpuRunsKernelIsa(*ParseKernelIsa(name))) {
      EXPECT_TRUE(checked.ok()) << name;
      continue;
    }
    ASSERT_FALSE(checked.ok()) << name;
    EXPECT_EQ(checked.status().message(),
              "kernel variant " + std::string(name) + " is not supported by this CPU (it runs " + has + ")");
  }
}

}  // namespace
}  // namespace mlf
