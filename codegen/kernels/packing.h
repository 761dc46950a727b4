// Weight layouts of the kernel layer, applied at export to constant weights
// so that the archive holds them in the form the kernels read (never both).
#ifndef MLFKIT_CODEGEN_KERNELS_PACKING_H_
#define MLFKIT_CODEGEN_KERNELS_PACKING_H_

#include <cstdint>
#include <vector>

namespace mlf::kernels {

// Rows per panel of gemm_f32's A (MLFK_GEMM_MR in mlf_kernel_gemm_f32.h).
inline constexpr int64_t kGemmPanelRows = 8;

// Row-major A (m x k floats) in gemm_f32's packed layout: the first m / 8 * 8
// rows as panels of 8 rows, k-major inside a panel (row 8p + r, column c at
// p * 8 * k + c * 8 + r), then the m % 8 remaining rows unchanged. Exactly
// m * k floats: packing never grows the weights.
std::vector<float> PackGemmA(const float* a, int64_t m, int64_t k);

}  // namespace mlf::kernels

#endif  // MLFKIT_CODEGEN_KERNELS_PACKING_H_
