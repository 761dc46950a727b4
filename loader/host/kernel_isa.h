// Kernel variants on this host: the names users force one by (`mlf run
// --isa`, MLF_KERNEL_ISA, ExecutorOptions::kernel_isa) and what this CPU
// runs. The numbers are MLF_KERNEL_ISA_* of mlf/model_abi.h; the CPU test is
// the one the generated code makes (codegen/kernels/mlf_kernel_common.h,
// mlfk_isa_supported), so a variant the loader accepts is one the code runs.
#ifndef MLFKIT_LOADER_HOST_KERNEL_ISA_H_
#define MLFKIT_LOADER_HOST_KERNEL_ISA_H_

#include <cstdint>
#include <string>

#include "artifact/base/status.h"

namespace mlf {

// The environment variable that forces a variant when the caller sets none.
inline constexpr char kKernelIsaEnv[] = "MLF_KERNEL_ISA";

// "portable", "avx2" or "avx512" as MLF_KERNEL_ISA_*; anything else is
// kInvalidArgument naming the value and the known names.
Result<int32_t> ParseKernelIsa(const std::string& name);
// The name of MLF_KERNEL_ISA_* `isa` ("auto" for MLF_KERNEL_ISA_AUTO).
std::string KernelIsaName(int32_t isa);
// Whether this CPU runs variant `isa`.
bool CpuRunsKernelIsa(int32_t isa);
// The variants this CPU runs, e.g. "portable, avx2, avx512".
std::string CpuKernelIsas();

// The variant `name` (parsed) when this CPU runs it; otherwise
// kFailedPrecondition: "kernel variant avx512 is not supported by this CPU
// (it runs portable, avx2)". Never a silent fallback.
Result<int32_t> CheckedKernelIsa(const std::string& name);

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_KERNEL_ISA_H_
