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

// Rows per block of gemm_f32's packed GEMV weight (MLFK_GEMV_BLOCK).
inline constexpr int64_t kGemvBlockRows = 16;

// Row-major W (n x k floats: a Gemm's B with transB = 1) in the layout
// mlfk_gemv_f32_packed reads: rows in blocks of 16 from row 0, the last block
// holding the n % 16 remaining rows if any; a block of r rows starting at row
// j sits at j * k and holds first the k / 16 steps of 16 elements, each
// r x 16 (row j + c, elements 16s .. 16s + 15 at 16 r s + 16 c), then the
// k % 16 last elements of each row, row after row. Exactly n * k floats.
std::vector<float> PackGemvW(const float* w, int64_t n, int64_t k);

}  // namespace mlf::kernels

#endif  // MLFKIT_CODEGEN_KERNELS_PACKING_H_
