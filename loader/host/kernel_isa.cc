#include "loader/host/kernel_isa.h"

#include "artifact/base/display_text.h"
#include "mlf/model_abi.h"

namespace mlf {
namespace {

constexpr int32_t kVariants[] = {MLF_KERNEL_ISA_PORTABLE, MLF_KERNEL_ISA_AVX2, MLF_KERNEL_ISA_AVX512};

}  // namespace

Result<int32_t> ParseKernelIsa(const std::string& name) {
  for (int32_t isa : kVariants) {
    if (name == KernelIsaName(isa)) return isa;
  }
  return InvalidArgument("unknown kernel variant " + QuoteForMessage(name) +
                         " (known: portable, avx2, avx512)");
}

std::string KernelIsaName(int32_t isa) {
  switch (isa) {
    case MLF_KERNEL_ISA_AUTO: return "auto";
    case MLF_KERNEL_ISA_PORTABLE: return "portable";
    case MLF_KERNEL_ISA_AVX2: return "avx2";
    case MLF_KERNEL_ISA_AVX512: return "avx512";
    default: return "variant " + std::to_string(isa);
  }
}

bool CpuRunsKernelIsa(int32_t isa) {
  if (isa == MLF_KERNEL_ISA_PORTABLE) return true;
#if defined(__x86_64__) && defined(__GNUC__)
  if (isa == MLF_KERNEL_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == MLF_KERNEL_ISA_AVX512) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }
#endif
  return false;
}

std::string CpuKernelIsas() {
  std::string out;
  for (int32_t isa : kVariants) {
    if (CpuRunsKernelIsa(isa)) out += (out.empty() ? "" : ", ") + KernelIsaName(isa);
  }
  return out;
}

Result<int32_t> CheckedKernelIsa(const std::string& name) {
  MLF_ASSIGN_OR_RETURN(int32_t isa, ParseKernelIsa(name));
  if (!CpuRunsKernelIsa(isa)) {
    return FailedPrecondition("kernel variant " + name + " is not supported by this CPU (it runs " +
                              CpuKernelIsas() + ")");
  }
  return isa;
}

}  // namespace mlf
