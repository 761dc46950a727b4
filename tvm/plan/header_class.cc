#include "tvm/plan/header_class.h"

#include <algorithm>

#include "tvm/compat/compat.h"

namespace mlf {
namespace {

// The C99/C11 library headers that are not freestanding (C11 7.1.2).
constexpr std::string_view kCLibrary[] = {
    "assert.h", "complex.h", "ctype.h",  "errno.h",   "fenv.h",  "inttypes.h", "locale.h",
    "math.h",   "setjmp.h",  "signal.h", "stdatomic.h", "stdio.h", "stdlib.h",   "string.h",
    "tgmath.h", "threads.h", "time.h",   "uchar.h",   "wchar.h", "wctype.h",
};

// The freestanding headers (C11 4p6): the compiler provides them, with or
// without a C library (arm-none-eabi-gcc -ffreestanding has them).
constexpr std::string_view kCompiler[] = {
    "float.h",  "iso646.h", "limits.h", "stdalign.h",    "stdarg.h",
    "stdbool.h", "stddef.h", "stdint.h", "stdnoreturn.h",
};

struct Intrinsics {
  std::string_view header;
  std::string_view architecture;
};

// Compiler headers for one architecture (GCC's and Clang's names).
constexpr Intrinsics kIntrinsics[] = {
    // TVM's Cortex-M schedules use the ACLE DSP intrinsics (__smlad, __sxtb16).
    {"arm_acle.h", "Arm Cortex-M with the DSP extension"},
    {"arm_mve.h", "Arm Cortex-M with MVE (Helium)"},
    {"arm_neon.h", "Arm or AArch64 with NEON"},
    {"arm_fp16.h", "Arm or AArch64"},
    {"arm_bf16.h", "Arm or AArch64"},
    {"arm_sve.h", "AArch64 with SVE"},
    {"riscv_vector.h", "RISC-V with the V extension"},
    {"x86intrin.h", "x86"},
    {"immintrin.h", "x86"},
    {"ia32intrin.h", "x86"},
    {"mmintrin.h", "x86"},
    {"xmmintrin.h", "x86"},
    {"emmintrin.h", "x86"},
    {"pmmintrin.h", "x86"},
    {"tmmintrin.h", "x86"},
    {"smmintrin.h", "x86"},
    {"nmmintrin.h", "x86"},
    {"wmmintrin.h", "x86"},
    {"ammintrin.h", "x86"},
    {"avxintrin.h", "x86"},
    {"avx2intrin.h", "x86"},
    {"avx512fintrin.h", "x86"},
    {"fmaintrin.h", "x86"},
    {"f16cintrin.h", "x86"},
};

template <size_t N>
bool In(const std::string_view (&list)[N], std::string_view path) {
  return std::find(std::begin(list), std::end(list), path) != std::end(list);
}

}  // namespace

std::string_view IntrinsicsArchitecture(std::string_view path) {
  for (const Intrinsics& i : kIntrinsics) {
    if (i.header == path) return i.architecture;
  }
  return "";
}

const std::vector<std::string>& SuppliedTvmRuntimeHeaders() {
  static const std::vector<std::string>* headers =
      new std::vector<std::string>(tvm_compat::HeaderPaths());
  return *headers;
}

bool IsTvmRuntimePath(std::string_view path) {
  return path.rfind("tvm/", 0) == 0 || path.rfind("dlpack/", 0) == 0;
}

HeaderClass ClassifyHeader(std::string_view path, bool archive_member) {
  if (archive_member) return HeaderClass::kArchive;
  if (In(kCLibrary, path)) return HeaderClass::kCLibrary;
  if (In(kCompiler, path)) return HeaderClass::kCompiler;
  if (!IntrinsicsArchitecture(path).empty()) return HeaderClass::kIntrinsics;
  const std::vector<std::string>& supplied = SuppliedTvmRuntimeHeaders();
  if (std::find(supplied.begin(), supplied.end(), path) != supplied.end()) return HeaderClass::kTvmRuntime;
  if (IsTvmRuntimePath(path)) return HeaderClass::kTvmRuntimeNotSupplied;
  return HeaderClass::kVendor;
}

}  // namespace mlf
