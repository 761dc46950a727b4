// The one classification of the headers a TVM module's sources include
// (angle or quoted): every header falls in exactly one class, decided here
// and nowhere else. The archive reader (tvm/format) asks which headers come
// from outside the archive; the plan (tvm_plan.h) sorts those into what the
// verdicts refuse or accept.
//
//   C library        the C99/C11 library headers (stdio.h, math.h, ...)
//   compiler         headers every C compiler brings, freestanding ones
//                    (stddef.h, stdint.h, stdarg.h, ...)
//   intrinsics       a compiler's headers for one architecture (arm_acle.h,
//                    immintrin.h, riscv_vector.h, ...): code including them
//                    builds only for that architecture
//   TVM runtime      TVM runtime headers mlfkit supplies: exactly the ones
//                    tvm/compat embeds (tvm_compat::HeaderPaths)
//   TVM runtime, not supplied
//                    tvm/... and dlpack/... headers tvm/compat does not have
//   archive          a member of the archive (the caller says so)
//   vendor           everything else: a library nobody here provides
//                    (arm_nnfunctions.h, esp_kernel.h, esp_heap_caps.h)
#ifndef MLFKIT_TVM_PLAN_HEADER_CLASS_H_
#define MLFKIT_TVM_PLAN_HEADER_CLASS_H_

#include <string>
#include <string_view>
#include <vector>

namespace mlf {

enum class HeaderClass {
  kCLibrary,
  kCompiler,
  kIntrinsics,
  kTvmRuntime,
  kTvmRuntimeNotSupplied,
  kArchive,
  kVendor,
};

// `path` as written in the #include; `archive_member`: the include resolves
// to a member of the archive (the reader's include path decides that).
HeaderClass ClassifyHeader(std::string_view path, bool archive_member = false);

// For an intrinsics header, the architecture its code needs, e.g.
// "Arm Cortex-M with the DSP extension" for arm_acle.h; "" for any other.
std::string_view IntrinsicsArchitecture(std::string_view path);

// The TVM runtime headers mlfkit supplies, relative to the compat include
// directory: tvm_compat::HeaderPaths(), the one list.
const std::vector<std::string>& SuppliedTvmRuntimeHeaders();

// Whether `path` names a TVM runtime header (tvm/... or dlpack/...), supplied or not.
bool IsTvmRuntimePath(std::string_view path);

}  // namespace mlf

#endif  // MLFKIT_TVM_PLAN_HEADER_CLASS_H_
