// The kernel layer (codegen/kernels/README.md): hand-written C99 kernels,
// one family per header mlf_kernel_<family>.h, embedded into the compiler and
// written into each archive's source directory beside the generated code
// that includes them, only the families a model uses.
#ifndef MLFKIT_CODEGEN_KERNELS_KERNELS_H_
#define MLFKIT_CODEGEN_KERNELS_KERNELS_H_

#include <set>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/toolchain/host_build.h"

namespace mlf::kernels {

// The family's header as generated code includes it and as the archive
// holds it: "mlf_kernel_<family>.h".
std::string KernelFileName(const std::string& family);

// The headers of `families` and of every kernel header they include
// (followed through their `#include "mlf_kernel_...h"` lines), sorted by
// name; paths are bare file names. An unknown family is kNotFound naming it.
Result<std::vector<StagedFile>> KernelFiles(const std::set<std::string>& families);

// The families the compiler carries, sorted ("common" included).
std::vector<std::string> KernelFamilies();

// The instruction-set variants the kernel layer's code carries, as the ABI
// names them (MLF_KERNEL_ISA_* in mlf/model_abi.h, `mlf run --isa`):
// "portable", "avx2", "avx512". Every family answers to each (a family with
// no code of its own for a variant runs its portable C there); a build for
// anything but x86-64 with GCC or Clang compiles the portable one only.
std::vector<std::string> KernelVariants();

}  // namespace mlf::kernels

#endif  // MLFKIT_CODEGEN_KERNELS_KERNELS_H_
