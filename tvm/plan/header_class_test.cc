#include "tvm/plan/header_class.h"

#include <gtest/gtest.h>

#include "tvm/compat/compat.h"

namespace mlf {
namespace {

TEST(HeaderClassTest, EveryHeaderRealArchivesIncludeHasItsClass) {
  // The include lists of the archives studied for issue 16.
  for (const char* h : {"inttypes.h", "math.h", "stdio.h", "stdlib.h", "string.h"}) {
    EXPECT_EQ(ClassifyHeader(h), HeaderClass::kCLibrary) << h;
  }
  for (const char* h : {"stdbool.h", "stdint.h", "stddef.h", "stdarg.h", "limits.h", "float.h"}) {
    EXPECT_EQ(ClassifyHeader(h), HeaderClass::kCompiler) << h;
  }
  for (const char* h : {"arm_acle.h", "arm_mve.h", "arm_neon.h", "arm_fp16.h", "immintrin.h",
                        "xmmintrin.h", "x86intrin.h", "riscv_vector.h"}) {
    EXPECT_EQ(ClassifyHeader(h), HeaderClass::kIntrinsics) << h;
  }
  for (const char* h : {"tvm/runtime/c_runtime_api.h", "tvm/runtime/c_backend_api.h",
                        "tvm/runtime/crt/error_codes.h", "tvm/runtime/crt/module.h",
                        "tvm/runtime/metadata_types.h", "dlpack/dlpack.h"}) {
    EXPECT_EQ(ClassifyHeader(h), HeaderClass::kTvmRuntime) << h;
  }
  for (const char* h : {"arm_nnfunctions.h", "arm_nn_types.h", "arm_nn_math_types.h",
                        "arm_nnsupportfunctions.h", "arm_math.h", "esp_kernel.h", "esp_heap_caps.h",
                        "unistd.h", "tvm_ethosu_runtime.h"}) {
    EXPECT_EQ(ClassifyHeader(h), HeaderClass::kVendor) << h;
  }
}

TEST(HeaderClassTest, ArchiveMembersAreTheArchivesWhateverTheirName) {
  EXPECT_EQ(ClassifyHeader("tvmgen_default.h", true), HeaderClass::kArchive);
  EXPECT_EQ(ClassifyHeader("tvm/runtime/crt/module.h", true), HeaderClass::kArchive);
  EXPECT_EQ(ClassifyHeader("tvmgen_default.h"), HeaderClass::kVendor);
}

TEST(HeaderClassTest, TvmRuntimeHeadersAreExactlyTheOnesCompatSupplies) {
  const std::vector<std::string> compat = tvm_compat::HeaderPaths();
  EXPECT_EQ(SuppliedTvmRuntimeHeaders(), compat);
  for (const std::string& h : compat) EXPECT_EQ(ClassifyHeader(h), HeaderClass::kTvmRuntime) << h;
  EXPECT_EQ(ClassifyHeader("tvm/runtime/crt/graph_executor.h"), HeaderClass::kTvmRuntimeNotSupplied);
  EXPECT_EQ(ClassifyHeader("dlpack/other.h"), HeaderClass::kTvmRuntimeNotSupplied);
  EXPECT_TRUE(IsTvmRuntimePath("tvm/x.h"));
  EXPECT_FALSE(IsTvmRuntimePath("tvmgen_default.h"));
}

TEST(HeaderClassTest, IntrinsicsNameTheirArchitecture) {
  EXPECT_EQ(IntrinsicsArchitecture("arm_acle.h"), "Arm Cortex-M with the DSP extension");
  EXPECT_EQ(IntrinsicsArchitecture("arm_mve.h"), "Arm Cortex-M with MVE (Helium)");
  EXPECT_EQ(IntrinsicsArchitecture("arm_neon.h"), "Arm or AArch64 with NEON");
  EXPECT_EQ(IntrinsicsArchitecture("immintrin.h"), "x86");
  EXPECT_EQ(IntrinsicsArchitecture("riscv_vector.h"), "RISC-V with the V extension");
  EXPECT_EQ(IntrinsicsArchitecture("esp_kernel.h"), "");
  EXPECT_EQ(IntrinsicsArchitecture("stdint.h"), "");
}

}  // namespace
}  // namespace mlf
