/* mlfkit kernel family gemm_f32 (codegen/kernels/README.md).
 *
 *   C[m][n] = clamp(bias[m] + sum_k A[m][k] * B[k][n] + R[m][n], lo, hi)
 *
 * for 0 <= m < M, 0 <= n < N, with A constant and packed at export
 * (codegen/kernels/packing.h): the first M / 8 * 8 rows as panels of 8 rows,
 * k-major inside a panel (element (8p + r, k) at A[p * 8 * K + k * 8 + r]),
 * then the M % 8 remaining rows row-major (element (8P + r, k) at
 * A[8P * K + r * K + k]). The packed form has exactly the bytes of the
 * original. B and C are row-major with row strides ldb and ldc; bias may be
 * NULL (zero); R, a residual added after the sum (a fused Add), is NULL
 * (zero) or row-major with C's stride ldc. Sums run over k in ascending order in every variant, so the
 * variants differ only by FMA rounding.
 *
 * Variants: portable C (the reference, and what firmware builds), AVX2+FMA
 * and AVX-512F, compiled with function target attributes so that a plain
 * `cc -O2` builds them, and chosen per call by CPUID (mlfk_isa), so one
 * host library runs on any x86-64. No state, no heap: reentrant.
 */
#ifndef MLF_KERNEL_GEMM_F32_H_
#define MLF_KERNEL_GEMM_F32_H_

#include <math.h>
#include <stddef.h>

#include "mlf_kernel_common.h"

/* Panels of this many rows of A (fixed: the packed layout depends on it). */
#define MLFK_GEMM_MR 8
/* Blocking of K (a panel slice of 8 x KC floats stays in L1) and of N (a
 * KC x NC block of B stays in L2 while every panel passes over it). */
#define MLFK_GEMM_KC 256
#define MLFK_GEMM_NC 512

/* One 8-row panel slice times columns [0, nr) of B (nr <= 8): the portable tile. */
MLFK_FN void mlfk_gemm_f32_tile_portable(int kc, const float* MLFK_RESTRICT a,
                                         const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                         float* MLFK_RESTRICT c, ptrdiff_t ldc, int nr,
                                         int first, int last, const float* bias, float lo,
                                         float hi) {
  float acc[8][8];
  int r, j, k;
  for (r = 0; r < 8; ++r) {
    for (j = 0; j < 8; ++j) {
      if (first) acc[r][j] = bias ? bias[r] : 0.0f;
      else acc[r][j] = j < nr ? c[r * ldc + j] : 0.0f;
    }
  }
  if (nr == 8) {
    for (k = 0; k < kc; ++k) {
      const float* bk = b + k * ldb;
      for (r = 0; r < 8; ++r) {
        const float av = a[k * 8 + r];
        for (j = 0; j < 8; ++j) acc[r][j] += av * bk[j];
      }
    }
  } else {
    for (k = 0; k < kc; ++k) {
      const float* bk = b + k * ldb;
      for (r = 0; r < 8; ++r) {
        const float av = a[k * 8 + r];
        for (j = 0; j < nr; ++j) acc[r][j] += av * bk[j];
      }
    }
  }
  for (r = 0; r < 8; ++r) {
    for (j = 0; j < nr; ++j) {
      float v = acc[r][j];
      if (last == MLFK_LAST_CLAMP) v = mlfk_clamp(v, lo, hi);
      c[r * ldc + j] = v;
    }
  }
}

#if MLFK_F32_MVE
/* Helium: the 8 x nr tile as blocks of 4 rows x 4 columns (MVE has 8 q
 * registers: 4 accumulators, the row of B, and room for the clamp). Per k a
 * block loads 4 columns of B as one vector and multiplies it by each row's
 * value of A, a scalar operand of VFMA: acc = fma(a, b, acc), k ascending
 * from the bias or C, the portable tile's sum with fused steps (as the x86
 * tiles form it). `cols` < 4 (the row's last columns) loads and stores under
 * a predicate, never touching B or C past the tile. Per k 12 instructions
 * for 16 MACs (a vector load of B, a scalar load of A per row, 4 VFMA, two
 * pointer steps and the loop's LE). Vectorised over the rows instead (A's 8
 * values two vector loads, 3 columns of B as scalars, 6 accumulators) GCC 12
 * spilled an accumulator: 18 instructions per 24 MACs, no better. */
#define MLFK_GEMM_F32_MVE_BLOCK(LOAD, STORE)                                               \
  {                                                                                        \
    float32x4_t c0, c1, c2, c3;                                                            \
    int k;                                                                                 \
    if (first) {                                                                           \
      c0 = vdupq_n_f32(bias ? bias[0] : 0.0f);                                             \
      c1 = vdupq_n_f32(bias ? bias[1] : 0.0f);                                             \
      c2 = vdupq_n_f32(bias ? bias[2] : 0.0f);                                             \
      c3 = vdupq_n_f32(bias ? bias[3] : 0.0f);                                             \
    } else {                                                                               \
      c0 = LOAD(c);                                                                        \
      c1 = LOAD(c + ldc);                                                                  \
      c2 = LOAD(c + 2 * ldc);                                                              \
      c3 = LOAD(c + 3 * ldc);                                                              \
    }                                                                                      \
    for (k = 0; k < kc; ++k) {                                                             \
      const float32x4_t bv = LOAD(b);                                                      \
      c0 = vfmaq_n_f32(c0, bv, a[0]);                                                      \
      c1 = vfmaq_n_f32(c1, bv, a[1]);                                                      \
      c2 = vfmaq_n_f32(c2, bv, a[2]);                                                      \
      c3 = vfmaq_n_f32(c3, bv, a[3]);                                                      \
      a += MLFK_GEMM_MR;                                                                   \
      b += ldb;                                                                            \
    }                                                                                      \
    if (last == MLFK_LAST_CLAMP) {                                                         \
      c0 = mlfk_clamp_mve(c0, lo, hi);                                                     \
      c1 = mlfk_clamp_mve(c1, lo, hi);                                                     \
      c2 = mlfk_clamp_mve(c2, lo, hi);                                                     \
      c3 = mlfk_clamp_mve(c3, lo, hi);                                                     \
    }                                                                                      \
    STORE(c, c0);                                                                          \
    STORE(c + ldc, c1);                                                                    \
    STORE(c + 2 * ldc, c2);                                                                \
    STORE(c + 3 * ldc, c3);                                                                \
  }

MLFK_FN void mlfk_gemm_f32_block4_mve(int kc, const float* MLFK_RESTRICT a,
                                      const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                      float* MLFK_RESTRICT c, ptrdiff_t ldc, int first, int last,
                                      const float* bias, float lo, float hi)
    MLFK_GEMM_F32_MVE_BLOCK(vld1q_f32, vst1q_f32)

#define MLFK_GEMM_F32_MVE_LOAD_P(P) vldrwq_z_f32(P, p)
#define MLFK_GEMM_F32_MVE_STORE_P(P, V) vstrwq_p_f32(P, V, p)
MLFK_FN void mlfk_gemm_f32_block_edge_mve(int kc, const float* MLFK_RESTRICT a,
                                          const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                          float* MLFK_RESTRICT c, ptrdiff_t ldc, int cols,
                                          int first, int last, const float* bias, float lo,
                                          float hi) {
  const mve_pred16_t p = vctp32q((uint32_t)cols);
  MLFK_GEMM_F32_MVE_BLOCK(MLFK_GEMM_F32_MVE_LOAD_P, MLFK_GEMM_F32_MVE_STORE_P)
}
#undef MLFK_GEMM_F32_MVE_LOAD_P
#undef MLFK_GEMM_F32_MVE_STORE_P
#undef MLFK_GEMM_F32_MVE_BLOCK

/* The portable tile's job (8 rows x nr <= 8 columns) by 4 x 4 blocks. */
MLFK_FN void mlfk_gemm_f32_tile_mve(int kc, const float* a, const float* b, ptrdiff_t ldb, float* c,
                                    ptrdiff_t ldc, int nr, int first, int last, const float* bias,
                                    float lo, float hi) {
  int h, j;
  for (h = 0; h < MLFK_GEMM_MR; h += 4) {
    const float* bh = bias ? bias + h : NULL;
    float* ch = c + h * ldc;
    for (j = 0; j + 4 <= nr; j += 4)
      mlfk_gemm_f32_block4_mve(kc, a + h, b + j, ldb, ch + j, ldc, first, last, bh, lo, hi);
    if (j < nr)
      mlfk_gemm_f32_block_edge_mve(kc, a + h, b + j, ldb, ch + j, ldc, nr - j, first, last, bh,
                                   lo, hi);
  }
}
#endif /* MLFK_F32_MVE */

#if MLFK_X86
/* AVX2+FMA: 8 rows x 8 columns, one ymm accumulator per row. */
MLFK_TARGET("avx2,fma")
MLFK_FN void mlfk_gemm_f32_tile_avx2(int kc, const float* MLFK_RESTRICT a,
                                     const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                     float* MLFK_RESTRICT c, ptrdiff_t ldc, int nr, int first,
                                     int last, const float* bias, float lo, float hi) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lane);
  __m256 c0, c1, c2, c3, c4, c5, c6, c7;
  int k;
  if (first) {
#define MLFK_INIT(r) c##r = _mm256_set1_ps(bias ? bias[r] : 0.0f);
    MLFK_ROWS8(MLFK_INIT)
#undef MLFK_INIT
  } else {
#define MLFK_LOAD(r) c##r = _mm256_maskload_ps(c + (r) * ldc, mask);
    MLFK_ROWS8(MLFK_LOAD)
#undef MLFK_LOAD
  }
  for (k = 0; k < kc; ++k) {
    const __m256 bv = _mm256_maskload_ps(b, mask);
#define MLFK_FMA(r) c##r = _mm256_fmadd_ps(_mm256_broadcast_ss(a + (r)), bv, c##r);
    MLFK_ROWS8(MLFK_FMA)
#undef MLFK_FMA
    a += 8;
    b += ldb;
  }
  if (last == MLFK_LAST_CLAMP) {
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
#define MLFK_CLAMP(r) c##r = _mm256_min_ps(_mm256_max_ps(c##r, vlo), vhi);
    MLFK_ROWS8(MLFK_CLAMP)
#undef MLFK_CLAMP
  }
#define MLFK_STORE(r) _mm256_maskstore_ps(c + (r) * ldc, mask, c##r);
  MLFK_ROWS8(MLFK_STORE)
#undef MLFK_STORE
}

/* AVX-512F: 8 rows x 32 columns, two zmm accumulators per row; partial
 * tiles use masked loads and stores. */
MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_gemm_f32_tile_avx512(int kc, const float* MLFK_RESTRICT a,
                                       const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                       float* MLFK_RESTRICT c, ptrdiff_t ldc, int nr, int first,
                                       int last, const float* bias, float lo, float hi) {
  const __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xFFFFu : (1u << nr) - 1u);
  const __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xFFFFu : nr <= 16 ? 0u : (1u << (nr - 16)) - 1u);
  __m512 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;
  int k;
  if (first) {
#define MLFK_INIT(r)                                         \
  c##r##0 = _mm512_set1_ps(bias ? bias[r] : 0.0f);           \
  c##r##1 = c##r##0;
    MLFK_ROWS8(MLFK_INIT)
#undef MLFK_INIT
  } else {
#define MLFK_LOAD(r)                                         \
  c##r##0 = _mm512_maskz_loadu_ps(m0, c + (r) * ldc);        \
  c##r##1 = _mm512_maskz_loadu_ps(m1, c + (r) * ldc + 16);
    MLFK_ROWS8(MLFK_LOAD)
#undef MLFK_LOAD
  }
  for (k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
    const __m512 b1 = _mm512_maskz_loadu_ps(m1, b + 16);
#define MLFK_FMA(r)                                          \
  {                                                          \
    const __m512 av = _mm512_set1_ps(a[r]);                  \
    c##r##0 = _mm512_fmadd_ps(av, b0, c##r##0);              \
    c##r##1 = _mm512_fmadd_ps(av, b1, c##r##1);              \
  }
    MLFK_ROWS8(MLFK_FMA)
#undef MLFK_FMA
    a += 8;
    b += ldb;
  }
  if (last == MLFK_LAST_CLAMP) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#define MLFK_CLAMP(r)                                        \
  c##r##0 = _mm512_min_ps(_mm512_max_ps(c##r##0, vlo), vhi); \
  c##r##1 = _mm512_min_ps(_mm512_max_ps(c##r##1, vlo), vhi);
    MLFK_ROWS8(MLFK_CLAMP)
#undef MLFK_CLAMP
  }
#define MLFK_STORE(r)                                        \
  _mm512_mask_storeu_ps(c + (r) * ldc, m0, c##r##0);         \
  _mm512_mask_storeu_ps(c + (r) * ldc + 16, m1, c##r##1);
  MLFK_ROWS8(MLFK_STORE)
#undef MLFK_STORE
}
/* AVX-512F, the last 9-16 columns of a row of tiles: 8 rows x 16 columns,
 * one zmm per row (masked when nr < 16), where the 32-column tile would
 * compute a second vector of zeros. Each element takes the same steps as in
 * the 32-column tile. */
MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_gemm_f32_tile16_avx512(int kc, const float* MLFK_RESTRICT a,
                                         const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                         float* MLFK_RESTRICT c, ptrdiff_t ldc, int nr,
                                         int first, int last, const float* bias, float lo,
                                         float hi) {
  const __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xFFFFu : (1u << nr) - 1u);
  __m512 c0, c1, c2, c3, c4, c5, c6, c7;
  int k;
  if (first) {
#define MLFK_INIT(r) c##r = _mm512_set1_ps(bias ? bias[r] : 0.0f);
    MLFK_ROWS8(MLFK_INIT)
#undef MLFK_INIT
  } else {
#define MLFK_LOAD(r) c##r = _mm512_maskz_loadu_ps(m0, c + (r) * ldc);
    MLFK_ROWS8(MLFK_LOAD)
#undef MLFK_LOAD
  }
  for (k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, b);
#define MLFK_FMA(r) c##r = _mm512_fmadd_ps(_mm512_set1_ps(a[r]), b0, c##r);
    MLFK_ROWS8(MLFK_FMA)
#undef MLFK_FMA
    a += 8;
    b += ldb;
  }
  if (last == MLFK_LAST_CLAMP) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
#define MLFK_CLAMP(r) c##r = _mm512_min_ps(_mm512_max_ps(c##r, vlo), vhi);
    MLFK_ROWS8(MLFK_CLAMP)
#undef MLFK_CLAMP
  }
#define MLFK_STORE(r) _mm512_mask_storeu_ps(c + (r) * ldc, m0, c##r);
  MLFK_ROWS8(MLFK_STORE)
#undef MLFK_STORE
}

/* The last few columns (at most MLFK_GEMM_FEW_COLUMNS) of a row of tiles,
 * vectorised over the panel's 8 rows instead of over columns: one ymm
 * accumulator per column, the packed A's 8 values of a k as one load, each
 * B element broadcast: w columns cost w ymm FMAs per k where a column tile
 * pays a whole zmm per row. Element (r, j) is a[r] * b[j] + acc, fused, k ascending,
 * from the same start and clamped the same way as in the column tiles, so
 * which tile computes a column never changes a bit. Only AVX2+FMA
 * instructions (`ncols` accumulators, A and a broadcast in 16 ymm registers). */
#define MLFK_GEMM_FEW_COLUMNS 8

MLFK_TARGET("avx2,fma")
static inline __attribute__((always_inline)) void mlfk_gemm_f32_cols_body(
    int kc, const float* MLFK_RESTRICT a, const float* MLFK_RESTRICT b, ptrdiff_t ldb,
    float* MLFK_RESTRICT c, ptrdiff_t ldc, const int ncols, int first, int last,
    const float* bias, float lo, float hi) {
  __m256 acc[MLFK_GEMM_FEW_COLUMNS];
  float tmp[8];
  int j, k, r;
  for (j = 0; j < ncols; ++j) {
    if (first) {
      acc[j] = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    } else {
      acc[j] = _mm256_setr_ps(c[j], c[ldc + j], c[2 * ldc + j], c[3 * ldc + j], c[4 * ldc + j],
                              c[5 * ldc + j], c[6 * ldc + j], c[7 * ldc + j]);
    }
  }
  for (k = 0; k < kc; ++k) {
    const __m256 av = _mm256_loadu_ps(a);
    for (j = 0; j < ncols; ++j) acc[j] = _mm256_fmadd_ps(av, _mm256_set1_ps(b[j]), acc[j]);
    a += 8;
    b += ldb;
  }
  for (j = 0; j < ncols; ++j) {
    __m256 v = acc[j];
    if (last == MLFK_LAST_CLAMP) v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
    _mm256_storeu_ps(tmp, v);
    for (r = 0; r < 8; ++r) c[r * ldc + j] = tmp[r];
  }
}

MLFK_TARGET("avx2,fma")
MLFK_FN void mlfk_gemm_f32_cols_avx2(int kc, const float* MLFK_RESTRICT a,
                                     const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                     float* MLFK_RESTRICT c, ptrdiff_t ldc, int nr, int first,
                                     int last, const float* bias, float lo, float hi) {
  /* A constant count per call, so the accumulators stay in registers. */
  switch (nr) {
#define MLFK_COLS_CASE(n)                                                                   \
  case n:                                                                                   \
    mlfk_gemm_f32_cols_body(kc, a, b, ldb, c, ldc, n, first, last, bias, lo, hi);           \
    return;
    MLFK_COLS_CASE(1) MLFK_COLS_CASE(2) MLFK_COLS_CASE(3) MLFK_COLS_CASE(4)
    MLFK_COLS_CASE(5) MLFK_COLS_CASE(6) MLFK_COLS_CASE(7) MLFK_COLS_CASE(8)
#undef MLFK_COLS_CASE
    default:
      return;
  }
}

/* AVX-512F, the main tile: 8 rows x 48 columns, three zmm accumulators per
 * row (masked when the row of tiles ends with 33-47 columns), and where it
 * ends with 49 or 50 (a 7x7 image's 49 pixels) the last one or two columns
 * vectorised over the panel's 8 rows, a ymm each as in the column-broadcast
 * tile above, in the same loop. Per k three loads of B and eight broadcasts
 * of A feed 24 multiply-adds (the 32-column tile: two and eight for 16):
 * measured in cache, ResNet18's 3x3 layers on 56x56, 28x28 and 14x14 images
 * went from 114-124 to 122-128 GMAC/s and its stem from 108 to 129; a 7x7
 * image's 49 columns from 92 (two 32-column tiles, the second computing 15
 * zeros) to 125. Each element takes the steps it takes in the other tiles
 * (a[r] * b[j] + acc, fused, k ascending, from the same start), so the bits
 * are theirs. `w` is 1-48 (the zmm columns), `extra` 0-2 (then w is 48). */
MLFK_TARGET("avx512f,avx2,fma")
static inline __attribute__((always_inline)) void mlfk_gemm_f32_tile48_body(
    int kc, const float* MLFK_RESTRICT a, const float* MLFK_RESTRICT b, ptrdiff_t ldb,
    float* MLFK_RESTRICT c, ptrdiff_t ldc, int w, const int extra, int first, int last,
    const float* bias, float lo, float hi) {
  const __mmask16 m0 = (__mmask16)(w >= 16 ? 0xFFFFu : (1u << w) - 1u);
  const __mmask16 m1 = (__mmask16)(w >= 32 ? 0xFFFFu : w <= 16 ? 0u : (1u << (w - 16)) - 1u);
  const __mmask16 m2 = (__mmask16)(w >= 48 ? 0xFFFFu : w <= 32 ? 0u : (1u << (w - 32)) - 1u);
  __m512 c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
  __m512 c40, c41, c42, c50, c51, c52, c60, c61, c62, c70, c71, c72;
  __m256 x0 = _mm256_setzero_ps(), x1 = _mm256_setzero_ps();
  float tmp[8];
  int k, r;
  if (first) {
#define MLFK_INIT(r)                                  \
  c##r##0 = _mm512_set1_ps(bias ? bias[r] : 0.0f);    \
  c##r##1 = c##r##0;                                  \
  c##r##2 = c##r##0;
    MLFK_ROWS8(MLFK_INIT)
#undef MLFK_INIT
    if (extra > 0) x0 = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
    x1 = x0;
  } else {
#define MLFK_LOAD(r)                                              \
  c##r##0 = _mm512_maskz_loadu_ps(m0, c + (r) * ldc);             \
  c##r##1 = _mm512_maskz_loadu_ps(m1, c + (r) * ldc + 16);        \
  c##r##2 = _mm512_maskz_loadu_ps(m2, c + (r) * ldc + 32);
    MLFK_ROWS8(MLFK_LOAD)
#undef MLFK_LOAD
#define MLFK_COLUMN(j)                                                                       \
  _mm256_setr_ps(c[j], c[ldc + j], c[2 * ldc + j], c[3 * ldc + j], c[4 * ldc + j],           \
                 c[5 * ldc + j], c[6 * ldc + j], c[7 * ldc + j])
    if (extra > 0) x0 = MLFK_COLUMN(48);
    if (extra > 1) x1 = MLFK_COLUMN(49);
#undef MLFK_COLUMN
  }
  for (k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, b), b1 = _mm512_maskz_loadu_ps(m1, b + 16),
                 b2 = _mm512_maskz_loadu_ps(m2, b + 32);
#define MLFK_FMA(r)                                   \
  {                                                   \
    const __m512 ar = _mm512_set1_ps(a[r]);           \
    c##r##0 = _mm512_fmadd_ps(ar, b0, c##r##0);       \
    c##r##1 = _mm512_fmadd_ps(ar, b1, c##r##1);       \
    c##r##2 = _mm512_fmadd_ps(ar, b2, c##r##2);       \
  }
    MLFK_ROWS8(MLFK_FMA)
#undef MLFK_FMA
    if (extra > 0) {
      const __m256 av = _mm256_loadu_ps(a);
      x0 = _mm256_fmadd_ps(av, _mm256_set1_ps(b[48]), x0);
      if (extra > 1) x1 = _mm256_fmadd_ps(av, _mm256_set1_ps(b[49]), x1);
    }
    a += 8;
    b += ldb;
  }
  if (last == MLFK_LAST_CLAMP) {
    const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    const __m256 ylo = _mm256_set1_ps(lo), yhi = _mm256_set1_ps(hi);
#define MLFK_CLAMP(r)                                           \
  c##r##0 = _mm512_min_ps(_mm512_max_ps(c##r##0, vlo), vhi);    \
  c##r##1 = _mm512_min_ps(_mm512_max_ps(c##r##1, vlo), vhi);    \
  c##r##2 = _mm512_min_ps(_mm512_max_ps(c##r##2, vlo), vhi);
    MLFK_ROWS8(MLFK_CLAMP)
#undef MLFK_CLAMP
    x0 = _mm256_min_ps(_mm256_max_ps(x0, ylo), yhi);
    x1 = _mm256_min_ps(_mm256_max_ps(x1, ylo), yhi);
  }
#define MLFK_STORE(r)                                             \
  _mm512_mask_storeu_ps(c + (r) * ldc, m0, c##r##0);              \
  _mm512_mask_storeu_ps(c + (r) * ldc + 16, m1, c##r##1);         \
  _mm512_mask_storeu_ps(c + (r) * ldc + 32, m2, c##r##2);
  MLFK_ROWS8(MLFK_STORE)
#undef MLFK_STORE
  if (extra > 0) {
    _mm256_storeu_ps(tmp, x0);
    for (r = 0; r < 8; ++r) c[r * ldc + 48] = tmp[r];
  }
  if (extra > 1) {
    _mm256_storeu_ps(tmp, x1);
    for (r = 0; r < 8; ++r) c[r * ldc + 49] = tmp[r];
  }
}

/* The 48-column tile for the w columns left of a row of tiles, w in 33-50
 * (49-50 with the row-vector columns). */
MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_gemm_f32_tile48_avx512(int kc, const float* MLFK_RESTRICT a,
                                         const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                         float* MLFK_RESTRICT c, ptrdiff_t ldc, int w, int first,
                                         int last, const float* bias, float lo, float hi) {
  /* Constant counts per call: the extra columns' accumulators stay in
   * registers, the loop has no test for them, and a full tile's loads and
   * stores are unmasked (masked, the full tiles ran 5% slower). */
  if (w == 48) {
    mlfk_gemm_f32_tile48_body(kc, a, b, ldb, c, ldc, 48, 0, first, last, bias, lo, hi);
  } else if (w == 49) {
    mlfk_gemm_f32_tile48_body(kc, a, b, ldb, c, ldc, 48, 1, first, last, bias, lo, hi);
  } else if (w == 50) {
    mlfk_gemm_f32_tile48_body(kc, a, b, ldb, c, ldc, 48, 2, first, last, bias, lo, hi);
  } else {
    mlfk_gemm_f32_tile48_body(kc, a, b, ldb, c, ldc, w, 0, first, last, bias, lo, hi);
  }
}

/* The AVX-512 row of tiles' last w <= 16 columns: the column-broadcast
 * tile for up to MLFK_GEMM_FEW_COLUMNS, a (masked) 16-column tile above.
 * Measured on 256 x w x 1024 (one thread, best of 200), where the 32-column
 * tile takes 66-82 us for any w <= 32: 1 column 19 us, 4 24, 8 52, 9-16
 * (the 16-column tile) 54; a 16-column tile plus a column tile for 17-31
 * columns measured 89-129 us, so those keep the 32-column tile (a 7x7
 * image's 49 columns go to mlfk_gemm_f32_tile48_avx512 instead); a 14x14
 * image's 196 = 6 x 32 + 4 (98 = 3 x 32 + 2 per task with two threads)
 * gains. */
MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_gemm_f32_edge_avx512(int kc, const float* a, const float* b, ptrdiff_t ldb,
                                       float* c, ptrdiff_t ldc, int w, int first, int last,
                                       const float* bias, float lo, float hi) {
  if (w <= MLFK_GEMM_FEW_COLUMNS) {
    mlfk_gemm_f32_cols_avx2(kc, a, b, ldb, c, ldc, w, first, last, bias, lo, hi);
  } else {
    mlfk_gemm_f32_tile16_avx512(kc, a, b, ldb, c, ldc, w, first, last, bias, lo, hi);
  }
}
#endif /* MLFK_X86 */

/* A residual (a fused Add) on a finished 8 x nr tile of C: c = c + res,
 * clamped when `clamp`. A pass of its own over the tile, still in L1: with
 * the residual inside the tiles, GCC spilled a B vector of the AVX-512 inner
 * loop to the stack (ResNet18 20% slower). c + res is what the unfused Add
 * computed from the stored sum, so the bits are the same. */
MLFK_FN void mlfk_gemm_f32_residual(int rows, int nr, float* MLFK_RESTRICT c, ptrdiff_t ldc,
                                    const float* MLFK_RESTRICT res, int clamp, float lo,
                                    float hi) {
  int r, j;
  for (r = 0; r < rows; ++r) {
    float* cr = c + r * ldc;
    const float* rr = res + r * ldc;
    if (clamp) {
      for (j = 0; j < nr; ++j) cr[j] = mlfk_clamp(cr[j] + rr[j], lo, hi);
    } else {
      for (j = 0; j < nr; ++j) cr[j] = cr[j] + rr[j];
    }
  }
}

/* Columns per tile of each variant. */
MLFK_FN int mlfk_gemm_f32_nr(int isa) {
  return isa == MLFK_ISA_AVX512 ? 48 : 8;
}

/* The M % 8 rows after the panels: row-major A, one output row at a time. */
MLFK_FN void mlfk_gemm_f32_rows(int rows, int n, int k, const float* MLFK_RESTRICT a,
                                const float* MLFK_RESTRICT b, ptrdiff_t ldb,
                                const float* bias, const float* res, float* MLFK_RESTRICT c,
                                ptrdiff_t ldc, float lo, float hi, int clamp) {
  int r, j, kk;
  for (r = 0; r < rows; ++r) {
    float* cr = c + r * ldc;
    const float* ar = a + (ptrdiff_t)r * k;
    const float bv = bias ? bias[r] : 0.0f;
    for (j = 0; j < n; ++j) cr[j] = bv;
    for (kk = 0; kk < k; ++kk) {
      const float av = ar[kk];
      const float* bk = b + kk * ldb;
      for (j = 0; j < n; ++j) cr[j] += av * bk[j];
    }
    if (res) {
      for (j = 0; j < n; ++j) cr[j] += res[r * ldc + j];
    }
    if (clamp) {
      for (j = 0; j < n; ++j) cr[j] = mlfk_clamp(cr[j], lo, hi);
    }
  }
}

/* One panel of 8 rows of C times one block of K (kc values from k0) over
 * the columns n0 .. n0 + nc, tile by tile. */
MLFK_FN void mlfk_gemm_f32_panel_block(int isa, int p, int k0, int kc, int n0, int nc, int k,
                                       const float* a, const float* b, ptrdiff_t ldb,
                                       const float* bias, const float* res, float* c,
                                       ptrdiff_t ldc, float lo, float hi, int clamp) {
  const int nr = mlfk_gemm_f32_nr(isa);
  const int first = k0 == 0;
  const int final_block = k0 + kc >= k;
  /* With a residual the tiles leave the clamp to mlfk_gemm_f32_residual. */
  const int last = !final_block ? MLFK_NOT_LAST : clamp && !res ? MLFK_LAST_CLAMP : MLFK_LAST;
  const float* ap = a + (ptrdiff_t)p * MLFK_GEMM_MR * k + (ptrdiff_t)k0 * MLFK_GEMM_MR;
  const float* bp = bias ? bias + p * MLFK_GEMM_MR : NULL;
  int j;
  for (j = n0; j < n0 + nc; j += nr) {
    const int rest = n0 + nc - j;
    int w = rest < nr ? rest : nr;
    const float* bj = b + k0 * ldb + j;
    float* cj = c + (ptrdiff_t)p * MLFK_GEMM_MR * ldc + j;
#if MLFK_X86
    if (isa == MLFK_ISA_AVX512) {
      /* 48-column tiles, then the rest: 49-50 columns (a 7x7 image) and
       * 33-47 in a 48-column tile too, 17-32 in a 32-column one, fewer in
       * the edge tiles. */
      if (rest == 49 || rest == 50) w = rest;
      if (w > 32) {
        mlfk_gemm_f32_tile48_avx512(kc, ap, bj, ldb, cj, ldc, w, first, last, bp, lo, hi);
      } else if (w > 16) {
        mlfk_gemm_f32_tile_avx512(kc, ap, bj, ldb, cj, ldc, w, first, last, bp, lo, hi);
      } else {
        mlfk_gemm_f32_edge_avx512(kc, ap, bj, ldb, cj, ldc, w, first, last, bp, lo, hi);
      }
    } else if (isa == MLFK_ISA_AVX2) {
      mlfk_gemm_f32_tile_avx2(kc, ap, bj, ldb, cj, ldc, w, first, last, bp, lo, hi);
    } else
#endif
    {
#if MLFK_F32_MVE
      mlfk_gemm_f32_tile_mve(kc, ap, bj, ldb, cj, ldc, w, first, last, bp, lo, hi);
#else
      mlfk_gemm_f32_tile_portable(kc, ap, bj, ldb, cj, ldc, w, first, last, bp, lo, hi);
#endif
    }
    if (res && final_block) {
      mlfk_gemm_f32_residual(MLFK_GEMM_MR, w, cj, ldc, res + (ptrdiff_t)p * MLFK_GEMM_MR * ldc + j,
                             clamp, lo, hi);
    }
    if (w > nr) break; /* the 49-50 column tile took the rest */
  }
}

/* Which loop runs outside. Normally the K blocks: B's block (KC x NC) stays
 * in cache while every panel of A passes it. But A is read from memory when
 * it is larger than L2 (MLFK_GEMM_L2_FLOATS), and with few columns (at most
 * MLFK_GEMM_PANEL_MAJOR_N: each value of A feeds so few products that A's
 * stream sets the speed) that order reads it in 8 KiB pieces, one per panel
 * and K block, 147 KiB apart for ResNet18's last layers. Panels outside, each
 * panel's A is one sequential stream, and B, small enough to stay in L2
 * (all of its K rows of the NC columns), is read once per panel from there.
 * Measured with the weight streamed from memory, ResNet18's 3x3 layers on
 * 7x7 images (M 512, N 49, K 4608 / 2304) went from 2.2-2.3 / 1.06-1.11 ms
 * to 1.46-1.52 / 0.91-0.97 ms; its 14x14 ones (N 196) ran 7-10% slower
 * panel-major, so they keep the usual order. The sums are the same either
 * way (each tile still takes K in ascending order). */
#define MLFK_GEMM_L2_FLOATS (1 << 18)
#define MLFK_GEMM_PANEL_MAJOR_N 64
MLFK_FN int mlfk_gemm_f32_panel_major(int m, int nc, int k) {
  return k > MLFK_GEMM_KC && nc <= MLFK_GEMM_PANEL_MAJOR_N &&
         (size_t)m * k > (size_t)MLFK_GEMM_L2_FLOATS &&
         (size_t)k * nc <= (size_t)MLFK_GEMM_L2_FLOATS;
}

/* Prefetches of an A larger than L2 (on x86; measured with the weight
 * streamed from memory). In the usual order A comes in one 8 KiB piece per
 * panel and K block, each a stream of its own that the hardware prefetcher
 * learns too late: the next panel's piece is fetched into L2 (locality 2)
 * while this one is multiplied. ResNet18's 3x3 layers on 14x14 images (M
 * 256, N 196, K 2304) went from 1.34-1.35 to 1.20-1.26 ms, SqueezeNet's
 * conv10 (1000, 169, 512) from 0.90-0.92 to 0.81-0.84; an A that stays in
 * L2 ran 5% slower with it, so it is fetched only when it does not.
 * Panel-major, the next K block of the same stream is fetched into L1
 * (locality 3): left to the hardware, the stream ran at 6 GB/s and pushed B
 * out of L2; ResNet18's 7x7 layers (M 512, N 49, K 4608 / 2304) went from
 * 1.48 / 0.68-0.71 ms to 1.15-1.16 / 0.56-0.57. */
#if MLFK_X86
/* A statement, not a function: GCC takes a function that only prefetches
 * for one without effects and deletes its calls. */
#define MLFK_GEMM_PREFETCH_BLOCK(a, p, k0, k, locality)                                        \
  do {                                                                                       \
    const char* piece_ = (const char*)((a) + (ptrdiff_t)(p) * MLFK_GEMM_MR * (k) +            \
                                       (ptrdiff_t)(k0) * MLFK_GEMM_MR);                      \
    const int bytes_ =                                                                       \
        ((k) - (k0) < MLFK_GEMM_KC ? (k) - (k0) : MLFK_GEMM_KC) * MLFK_GEMM_MR * 4;           \
    int offset_;                                                                             \
    for (offset_ = 0; offset_ < bytes_; offset_ += 64) {                                     \
      __builtin_prefetch(piece_ + offset_, 0, locality);                                     \
    }                                                                                        \
  } while (0)
#else
#define MLFK_GEMM_PREFETCH_BLOCK(a, p, k0, k, locality) ((void)0)
#endif

/* The product with an explicit variant (tests force each one; isa must be
 * one the CPU supports, see mlfk_isa_supported). */
MLFK_FN void mlfk_gemm_f32_with(int isa, int m, int n, int k, const float* a, const float* b,
                                ptrdiff_t ldb, const float* bias, const float* res, float* c,
                                ptrdiff_t ldc, float lo, float hi) {
  const int panels = m / MLFK_GEMM_MR;
  /* lo = -inf, hi = +inf: no activation, and NaN must stay NaN. */
  const int clamp = lo > -HUGE_VALF || hi < HUGE_VALF;
  int n0, k0, p, j;
  if (n <= 0 || m <= 0) return;
  if (k <= 0) {
    /* An empty sum: every element is the clamped bias. */
    for (p = 0; p < m; ++p) {
      for (j = 0; j < n; ++j) {
        const float v = (bias ? bias[p] : 0.0f) + (res ? res[p * ldc + j] : 0.0f);
        c[p * ldc + j] = clamp ? mlfk_clamp(v, lo, hi) : v;
      }
    }
    return;
  }
  for (n0 = 0; n0 < n; n0 += MLFK_GEMM_NC) {
    const int nc = n - n0 < MLFK_GEMM_NC ? n - n0 : MLFK_GEMM_NC;
#define MLFK_GEMM_BLOCK(p, k0)                                                              \
  mlfk_gemm_f32_panel_block(isa, p, k0, k - (k0) < MLFK_GEMM_KC ? k - (k0) : MLFK_GEMM_KC, \
                            n0, nc, k, a, b, ldb, bias, res, c, ldc, lo, hi, clamp)
    if (mlfk_gemm_f32_panel_major(m, nc, k)) {
      for (p = 0; p < panels; ++p) {
        for (k0 = 0; k0 < k; k0 += MLFK_GEMM_KC) {
          if (k0 + MLFK_GEMM_KC < k) {
            MLFK_GEMM_PREFETCH_BLOCK(a, p, k0 + MLFK_GEMM_KC, k, 3);
          } else if (p + 1 < panels) {
            MLFK_GEMM_PREFETCH_BLOCK(a, p + 1, 0, k, 3);
          }
          MLFK_GEMM_BLOCK(p, k0);
        }
      }
    } else {
      const int streamed = (size_t)m * k > (size_t)MLFK_GEMM_L2_FLOATS;
      for (k0 = 0; k0 < k; k0 += MLFK_GEMM_KC) {
        for (p = 0; p < panels; ++p) {
          if (streamed && p + 1 < panels) MLFK_GEMM_PREFETCH_BLOCK(a, p + 1, k0, k, 2);
          MLFK_GEMM_BLOCK(p, k0);
        }
      }
    }
#undef MLFK_GEMM_BLOCK
  }
  if (m % MLFK_GEMM_MR) {
    const int done = panels * MLFK_GEMM_MR;
    mlfk_gemm_f32_rows(m - done, n, k, a + (ptrdiff_t)done * k, b, ldb, bias ? bias + done : NULL,
                       res ? res + (ptrdiff_t)done * ldc : NULL, c + (ptrdiff_t)done * ldc, ldc, lo,
                       hi, clamp);
  }
}

/* Intra-op threads: C is cut into tn ranges of columns (at multiples of
 * MLFK_LINE_FLOATS) or tm ranges of rows at panel boundaries (the M % 8
 * remaining rows go with the last). Every element is still computed by the
 * same tile code over the same K blocks in the same order as in one call, so
 * the cut does not change a bit (a column's result does not depend on the
 * tile that holds it). */
/* Columns per task from which C may be cut by columns. */
#define MLFK_GEMM_MIN_TASK_COLUMNS 16

/* A weight of at least MLFK_GEMM_PANEL_CUT_A floats (1 MiB: the size of
 * L2, so streamed from L3 or memory) times at most MLFK_GEMM_PANEL_CUT_N
 * columns per task is cut by panels even when there are columns enough: cut
 * by columns, every core streams the whole weight for its few columns
 * (ResNet18's 3x3 layers on 7x7 images: 9.4 MB each for 25 or 24 columns;
 * on 14x14 images 2.4 MB for 98); by panels each streams its share, and the
 * image's pixels or columns cross between the cores instead. Measured on
 * ResNet18 at 2 threads (bench/README.md, 2026-11-28): with the limits at
 * 2 MiB and 32 columns its 14x14 layers gained 1.63-1.71x from the second
 * thread, with these 2.0x, and the run went from 11.9-12.2 ms to 11.0-11.1
 * (MobileNetV2's last 1x1 convolution and SqueezeNet's conv10, which now
 * cut by panels too, kept their times). Whether `tasks` tasks cut such a
 * product by panels. */
#define MLFK_GEMM_PANEL_CUT_A MLFK_GEMM_L2_FLOATS
#define MLFK_GEMM_PANEL_CUT_N 100
MLFK_FN int mlfk_gemm_f32_panel_cut(int m, int n, int k, int tasks) {
  return tasks > 1 && m / MLFK_GEMM_MR >= tasks && (size_t)m * k >= (size_t)MLFK_GEMM_PANEL_CUT_A &&
         n <= MLFK_GEMM_PANEL_CUT_N * tasks;
}

/* Whether `tasks` tasks should cut C (m x n, a sum over k) by columns
 * although its rows do not span whole cache lines, so that two lines per
 * row are written by two tasks: when the parts are long enough for those
 * to matter little (MLFK_LINE_CUT_MIN), or when C has few rows for B's
 * size. Cut by panels instead, each task reads all of B, half of it
 * written by the other core. Measured on MobileNetV2 (bench/README.md,
 * "Two threads and the VM's core placement"), a line written by both cost
 * about 8 lines read from the other core: its 14x14 projections (K 192-576 to M 64-96) ran faster cut by
 * columns, its 7x7 ones (960 to 160) and every expansion by panels. */
MLFK_FN int mlfk_gemm_f32_columns_pay(int m, int n, int k, int tasks) {
  return n / tasks >= MLFK_LINE_CUT_MIN || 256.0 * m * tasks < (double)k * n;
}

typedef struct {
  int isa, m, n, k, tm, tn, by_columns;
  const float* a;
  const float* b;
  const float* bias;
  const float* res;
  float* c;
  ptrdiff_t ldb, ldc;
  float lo, hi;
} mlfk_gemm_f32_job;

MLFK_FN void mlfk_gemm_f32_task(void* arg, int32_t task) {
  const mlfk_gemm_f32_job* g = (const mlfk_gemm_f32_job*)arg;
  const int panels = g->m / MLFK_GEMM_MR;
  int pb = 0, pe = panels, m0, m1, n0 = 0, n1 = g->n;
  if (g->by_columns) {
    mlfk_split_blocks(g->n, MLFK_LINE_FLOATS, g->tn, task, &n0, &n1);
  } else {
    mlfk_split(panels > 0 ? panels : 1, g->tm, task, &pb, &pe);
  }
  m0 = panels > 0 ? pb * MLFK_GEMM_MR : 0;
  m1 = panels > 0 && pe < panels ? pe * MLFK_GEMM_MR : g->m;
  /* Rows from a panel boundary on are a packed matrix of their own. */
  mlfk_gemm_f32_with(g->isa, m1 - m0, n1 - n0, g->k, g->a + (ptrdiff_t)m0 * g->k, g->b + n0, g->ldb,
                     g->bias ? g->bias + m0 : NULL,
                     g->res ? g->res + (ptrdiff_t)m0 * g->ldc + n0 : NULL,
                     g->c + (ptrdiff_t)m0 * g->ldc + n0, g->ldc, g->lo, g->hi);
}

/* The product as run `ex` says: its variant, split over its threads (NULL:
 * the best variant, serial). */
MLFK_FN void mlfk_gemm_f32_exec(const mlfk_exec* ex, int m, int n, int k, const float* a,
                                const float* b, ptrdiff_t ldb, const float* bias,
                                const float* res, float* c, ptrdiff_t ldc, float lo, float hi) {
  const int panels = m / MLFK_GEMM_MR;
  const int um = panels > 0 ? panels : 1;
  const int tasks = mlfk_exec_tasks(ex, um);
  /* Columns where every task's part of every row of C starts a cache line
   * (C starts one and its rows span whole lines), or where the lines they
   * share cost less than panels would (mlfk_gemm_f32_columns_pay). */
  const int clean_columns = mlfk_line_aligned(c) && ldc % MLFK_LINE_FLOATS == 0;
  const int column_tasks = mlfk_exec_tasks(ex, n / MLFK_GEMM_MIN_TASK_COLUMNS);
  const int by_columns =
      column_tasks > 1 && (clean_columns || mlfk_gemm_f32_columns_pay(m, n, k, column_tasks));
  mlfk_gemm_f32_job g;
  g.isa = mlfk_exec_isa(ex);
  if ((tasks <= 1 && !by_columns) || m <= 0 || n <= 0) {
    mlfk_gemm_f32_with(g.isa, m, n, k, a, b, ldb, bias, res, c, ldc, lo, hi);
    return;
  }
  /* Columns when there are enough (each task then reads only its part of B,
   * and a convolution's next layer finds its pixels on the core that wrote
   * them), cut at line starts, and the weight is not a large one on few
   * columns (see mlfk_gemm_f32_panel_cut); otherwise panels of rows, each
   * task reading only its panels of A and writing whole rows of C (rows of
   * 7x7 and 14x14 images do not span whole lines: cut by columns, a task
   * would share a line with the other in every row). */
  g.by_columns = by_columns && !mlfk_gemm_f32_panel_cut(m, n, k, tasks);
  g.tm = g.by_columns ? 1 : um < tasks ? um : tasks;
  g.tn = g.by_columns ? column_tasks : 1;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = a;
  g.b = b;
  g.bias = bias;
  g.res = res;
  g.c = c;
  g.ldb = ldb;
  g.ldc = ldc;
  g.lo = lo;
  g.hi = hi;
  mlfk_exec_run(ex, mlfk_gemm_f32_task, &g, g.tm * g.tn);
}

/* The product with the best variant this CPU has. */
MLFK_FN void mlfk_gemm_f32(int m, int n, int k, const float* a, const float* b, ptrdiff_t ldb,
                           const float* bias, const float* res, float* c, ptrdiff_t ldc, float lo,
                           float hi) {
  mlfk_gemm_f32_with(mlfk_isa(), m, n, k, a, b, ldb, bias, res, c, ldc, lo, hi);
}

/* GEMV-style product for a Gemm with transB = 1 and few rows (a
 * classifier: one image, M = 1):
 *
 *   Y[i][j] = clamp(sum_k X[i][k] * W[j][k] + bias[j], lo, hi)
 *
 * X row-major M x K, W row-major N x K as exported (ONNX Gemm's B with
 * transB = 1: each output is a dot product of two contiguous rows, so W
 * needs no packing), bias NULL or one per column. Each dot product runs in
 * 16 lanes (lane l sums the products of k = l mod 16 of the whole 16-wide
 * blocks, k ascending), then the remaining K % 16 products are summed
 * from zero, then the lanes added in order, then the bias: the order of
 * the generated Gemm loops of codegen/ops/matmul.cc, so the bits are
 * theirs. No multiply-add is contracted (MLFK_NO_CONTRACT; the host
 * library is C99), so the variants agree bit for bit. Threads cut N into
 * ranges of columns, each task reading only its rows of W. */
#define MLFK_GEMV_BODY                                                                      \
  {                                                                                         \
    MLFK_NO_CONTRACT                                                                        \
    const int kl = k / 16 * 16;                                                             \
    int i, j, c, kk, l;                                                                     \
    for (i = 0; i < m; ++i) {                                                               \
      const float* MLFK_RESTRICT xi = x + (size_t)i * k;                                    \
      float* yi = y + (size_t)i * n;                                                        \
      for (j = j0; j < j1; j += 4) {                                                        \
        const int cols = j1 - j < 4 ? j1 - j : 4;                                           \
        float acc[4][16];                                                                   \
        for (c = 0; c < 4; ++c)                                                             \
          for (l = 0; l < 16; ++l) acc[c][l] = 0.0f;                                        \
        if (cols == 4) {                                                                    \
          const float* MLFK_RESTRICT w0 = w + (size_t)j * k;                                \
          const float* MLFK_RESTRICT w1 = w0 + k;                                           \
          const float* MLFK_RESTRICT w2 = w1 + k;                                           \
          const float* MLFK_RESTRICT w3 = w2 + k;                                           \
          for (kk = 0; kk < kl; kk += 16) {                                                 \
            for (l = 0; l < 16; ++l) {                                                      \
              const float xv = xi[kk + l];                                                  \
              acc[0][l] += xv * w0[kk + l];                                                 \
              acc[1][l] += xv * w1[kk + l];                                                 \
              acc[2][l] += xv * w2[kk + l];                                                 \
              acc[3][l] += xv * w3[kk + l];                                                 \
            }                                                                               \
          }                                                                                 \
        } else {                                                                            \
          for (c = 0; c < cols; ++c) {                                                      \
            const float* MLFK_RESTRICT wc = w + (size_t)(j + c) * k;                        \
            for (kk = 0; kk < kl; kk += 16)                                                 \
              for (l = 0; l < 16; ++l) acc[c][l] += xi[kk + l] * wc[kk + l];                \
          }                                                                                 \
        }                                                                                   \
        for (c = 0; c < cols; ++c) {                                                        \
          const float* MLFK_RESTRICT wc = w + (size_t)(j + c) * k;                          \
          float v = 0.0f;                                                                   \
          for (kk = kl; kk < k; ++kk) v += xi[kk] * wc[kk];                                 \
          for (l = 0; l < 16; ++l) v += acc[c][l];                                          \
          if (bias) v = v + bias[j + c];                                                    \
          yi[j + c] = clamp ? mlfk_clamp(v, lo, hi) : v;                                    \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }

#define MLFK_GEMV_VARIANT(name)                                                             \
  MLFK_FN void mlfk_gemv_f32_##name(int m, int n, int k, const float* x, const float* w,    \
                                    const float* bias, float* y, float lo, float hi,        \
                                    int clamp, int j0, int j1) MLFK_GEMV_BODY

MLFK_GEMV_VARIANT(portable)
#if MLFK_X86
MLFK_TARGET("avx2,fma") MLFK_GEMV_VARIANT(avx2)
#endif
#undef MLFK_GEMV_VARIANT
#undef MLFK_GEMV_BODY

/* Columns [j0, j1) with the variant `isa`. */
MLFK_FN void mlfk_gemv_f32_part(int isa, int m, int n, int k, const float* x, const float* w,
                                const float* bias, float* y, float lo, float hi, int j0,
                                int j1) {
  const int clamp = lo > -HUGE_VALF || hi < HUGE_VALF;
#if MLFK_X86
  /* AVX-512 runs the AVX2 code (the same bits): compiled for AVX-512 the
   * 16 lanes of a dot product become one zmm whose additions wait on each
   * other; as two ymm they overlap (1 x 1000 x 512: 45 us against 37;
   * x 1280: 106 against 77; SSE2, the portable build: 57 and 104). */
  if (isa == MLFK_ISA_AVX512 || isa == MLFK_ISA_AVX2) {
    mlfk_gemv_f32_avx2(m, n, k, x, w, bias, y, lo, hi, clamp, j0, j1);
    return;
  }
#endif
  (void)isa;
  mlfk_gemv_f32_portable(m, n, k, x, w, bias, y, lo, hi, clamp, j0, j1);
}

/* Products (M x N x K) per task below which a GEMV is not split. */
#define MLFK_GEMV_MIN_TASK_MACS 65536

typedef struct {
  int isa, parts, m, n, k;
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  float lo, hi;
} mlfk_gemv_f32_job;

MLFK_FN void mlfk_gemv_f32_task(void* arg, int32_t task) {
  const mlfk_gemv_f32_job* g = (const mlfk_gemv_f32_job*)arg;
  int j0, j1;
  mlfk_split(g->n, g->parts, task, &j0, &j1);
  mlfk_gemv_f32_part(g->isa, g->m, g->n, g->k, g->x, g->w, g->bias, g->y, g->lo, g->hi, j0, j1);
}

/* Y = clamp(X * W^T + bias, lo, hi) as run `ex` says, cut by ranges of
 * columns (each task reads its rows of W only). */
MLFK_FN void mlfk_gemv_f32_exec(const mlfk_exec* ex, int m, int n, int k, const float* x,
                                const float* w, const float* bias, float* y, float lo,
                                float hi) {
  mlfk_gemv_f32_job g;
  const double macs = (double)m * n * k;
  const double units = macs / MLFK_GEMV_MIN_TASK_MACS;
  g.isa = mlfk_exec_isa(ex);
  g.parts = mlfk_exec_tasks(ex, units < n ? (int)units : n);
  g.m = m;
  g.n = n;
  g.k = k;
  g.x = x;
  g.w = w;
  g.bias = bias;
  g.y = y;
  g.lo = lo;
  g.hi = hi;
  mlfk_exec_run(ex, mlfk_gemv_f32_task, &g, g.parts);
}

/* The same with the variant `isa`, serial. */
MLFK_FN void mlfk_gemv_f32_with(int isa, int m, int n, int k, const float* x, const float* w,
                                const float* bias, float* y, float lo, float hi) {
  mlfk_gemv_f32_part(isa, m, n, k, x, w, bias, y, lo, hi, 0, n);
}

/* The same product with W packed at export (codegen/kernels/packing.h,
 * layout gemv_f32_blocks16), so that a block of 16 columns streams its
 * weights as one contiguous run: rows of W in blocks of 16 from row 0 (the
 * last block holds the N % 16 remaining rows when there are any), block
 * starting at row j with r rows at w + j * K: first the K / 16 steps of 16
 * k, each r x 16 floats (row j + c's elements 16s .. 16s + 15 at s * 16r +
 * 16c), then the K % 16 last elements of each row, row after row (row
 * j + c's at (K / 16) * 16r + c * (K % 16)). Exactly N x K floats. Read
 * row by row, 16 rows of W are 16 streams that the prefetchers follow
 * poorly (the MLP's 784 x 256 in 6.2 us against 3.7 packed, bench/README.md,
 * "LeNet-5 and the MLP at batch 1"). The sums are those of mlfk_gemv_f32
 * (16 lanes, the K % 16 tail, the lanes in order, the bias): the same bits
 * as the generated loops on the unpacked weight. Threads cut N into ranges
 * of whole blocks. */
#define MLFK_GEMV_BLOCK 16

/* Columns [0, r) of y = clamp(x * W^T + bias) for the block of r <= 16
 * rows of W at wb: 4 columns at a time, each 16 lanes. */
#define MLFK_GEMVP_BODY                                                                     \
  {                                                                                         \
    MLFK_NO_CONTRACT                                                                        \
    const int steps = k / 16, kt = k - steps * 16;                                          \
    const float* MLFK_RESTRICT tails = wb + (size_t)steps * 16 * r;                         \
    int g, c, s, l, u;                                                                      \
    for (g = 0; g < r; g += 4) {                                                            \
      const int cols = r - g < 4 ? r - g : 4;                                               \
      float acc[4][16];                                                                     \
      for (c = 0; c < 4; ++c)                                                               \
        for (l = 0; l < 16; ++l) acc[c][l] = 0.0f;                                          \
      if (cols == 4) {                                                                      \
        for (s = 0; s < steps; ++s) {                                                       \
          const float* MLFK_RESTRICT xs = x + 16 * s;                                       \
          const float* MLFK_RESTRICT ws = wb + ((size_t)s * r + g) * 16;                    \
          for (l = 0; l < 16; ++l) {                                                        \
            const float xv = xs[l];                                                         \
            acc[0][l] += xv * ws[l];                                                        \
            acc[1][l] += xv * ws[16 + l];                                                   \
            acc[2][l] += xv * ws[32 + l];                                                   \
            acc[3][l] += xv * ws[48 + l];                                                   \
          }                                                                                 \
        }                                                                                   \
      } else {                                                                              \
        for (s = 0; s < steps; ++s) {                                                       \
          const float* MLFK_RESTRICT xs = x + 16 * s;                                       \
          const float* MLFK_RESTRICT ws = wb + ((size_t)s * r + g) * 16;                    \
          for (c = 0; c < cols; ++c)                                                        \
            for (l = 0; l < 16; ++l) acc[c][l] += xs[l] * ws[16 * c + l];                   \
        }                                                                                   \
      }                                                                                     \
      for (c = 0; c < cols; ++c) {                                                          \
        const float* MLFK_RESTRICT wt = tails + (size_t)(g + c) * kt;                       \
        float v = 0.0f;                                                                     \
        for (u = 0; u < kt; ++u) v += x[16 * steps + u] * wt[u];                            \
        for (l = 0; l < 16; ++l) v += acc[c][l];                                            \
        if (bias) v = v + bias[g + c];                                                      \
        y[g + c] = clamp ? mlfk_clamp(v, lo, hi) : v;                                       \
      }                                                                                     \
    }                                                                                       \
  }

#define MLFK_GEMVP_VARIANT(name)                                                            \
  MLFK_FN void mlfk_gemvp_block_##name(int k, const float* x, const float* wb, int r,        \
                                       const float* bias, float* y, float lo, float hi,     \
                                       int clamp) MLFK_GEMVP_BODY

MLFK_GEMVP_VARIANT(portable)
#if MLFK_X86
MLFK_TARGET("avx2,fma") MLFK_GEMVP_VARIANT(avx2)
#endif
#undef MLFK_GEMVP_VARIANT
#undef MLFK_GEMVP_BODY

#if MLFK_X86
/* AVX-512F: a whole block at once, each column's 16 lanes one zmm (lane l
 * is the portable code's lane l): per step one load of x and 16 contiguous
 * loads of W, 16 independent sums, multiplies and adds as separate
 * instructions (the portable bits). The lanes are then added in order by
 * transposing the 16 accumulators (after it, vector l holds lane l of every
 * column) and adding the 16 vectors to the columns' K % 16 tails: 64
 * two-source permutes and 16 adds per 16 columns instead of 256 scalar
 * adds. A block of r < 16 rows reads its last row again in place of the
 * missing ones and stores r columns. */

/* Rows p and q = p + h of the 16 x 16 matrix t0 .. t15 with bit h of the
 * row index and of the lane index swapped: for row p, the lanes with bit h
 * clear stay and the others come from row q, shifted down by h (lo_idx);
 * for row q the mirror (hi_idx). The four steps h = 1, 2, 4, 8 transpose
 * the matrix. The rows are named variables, not an array: GCC 12 at -O2
 * kept an array of accumulators in memory, storing all 16 each step. */
#define MLFK_GEMVP_SWAP(p, q, lo_idx, hi_idx)                                               \
  {                                                                                         \
    const __m512 r0 = t##p, r1 = t##q;                                                      \
    t##p = _mm512_permutex2var_ps(r0, lo_idx, r1);                                          \
    t##q = _mm512_permutex2var_ps(r0, hi_idx, r1);                                          \
  }
#define MLFK_COLS16(X)                                                                      \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)

/* Inlined with r = 16 (every offset a constant) and with r < 16. */
MLFK_TARGET("avx512f,avx2,fma")
static inline __attribute__((always_inline)) void mlfk_gemvp_block_avx512_body(
    int k, const float* MLFK_RESTRICT x, const float* MLFK_RESTRICT wb, const int r,
    const float* bias, float* y, float lo, float hi, int clamp) {
  const int steps = k / 16, kt = k - steps * 16;
  const float* MLFK_RESTRICT tails = wb + (size_t)steps * 16 * r;
  const __mmask16 m = (__mmask16)(r >= 16 ? 0xFFFFu : (1u << r) - 1u);
  __m512 t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, v;
  float tail[16];
  int c, s, u;
#define MLFK_GEMVP_ZERO(c) t##c = _mm512_setzero_ps();
  MLFK_COLS16(MLFK_GEMVP_ZERO)
#undef MLFK_GEMVP_ZERO
  for (s = 0; s < steps; ++s) {
    const __m512 xv = _mm512_loadu_ps(x + 16 * s);
    const float* MLFK_RESTRICT ws = wb + (size_t)s * 16 * r;
    /* Row c of the block, or its last row again past r. */
#define MLFK_GEMVP_STEP(c)                                                                  \
  t##c = _mm512_add_ps(t##c, _mm512_mul_ps(xv, _mm512_loadu_ps(ws + 16 * ((c) < r ? (c) : r - 1))));
    MLFK_COLS16(MLFK_GEMVP_STEP)
#undef MLFK_GEMVP_STEP
  }
  for (c = 0; c < 16; ++c) {
    const float* MLFK_RESTRICT wt = tails + (size_t)(c < r ? c : r - 1) * kt;
    float sum = 0.0f;
    for (u = 0; u < kt; ++u) sum += x[16 * steps + u] * wt[u];
    tail[c] = sum;
  }
  {
    const __m512i l1 = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
    const __m512i h1 = _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    const __m512i l2 = _mm512_setr_epi32(0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
    const __m512i h2 = _mm512_setr_epi32(2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    const __m512i l4 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
    const __m512i h4 = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
    const __m512i l8 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const __m512i h8 = _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    MLFK_GEMVP_SWAP(0, 1, l1, h1) MLFK_GEMVP_SWAP(2, 3, l1, h1)
    MLFK_GEMVP_SWAP(4, 5, l1, h1) MLFK_GEMVP_SWAP(6, 7, l1, h1)
    MLFK_GEMVP_SWAP(8, 9, l1, h1) MLFK_GEMVP_SWAP(10, 11, l1, h1)
    MLFK_GEMVP_SWAP(12, 13, l1, h1) MLFK_GEMVP_SWAP(14, 15, l1, h1)
    MLFK_GEMVP_SWAP(0, 2, l2, h2) MLFK_GEMVP_SWAP(1, 3, l2, h2)
    MLFK_GEMVP_SWAP(4, 6, l2, h2) MLFK_GEMVP_SWAP(5, 7, l2, h2)
    MLFK_GEMVP_SWAP(8, 10, l2, h2) MLFK_GEMVP_SWAP(9, 11, l2, h2)
    MLFK_GEMVP_SWAP(12, 14, l2, h2) MLFK_GEMVP_SWAP(13, 15, l2, h2)
    MLFK_GEMVP_SWAP(0, 4, l4, h4) MLFK_GEMVP_SWAP(1, 5, l4, h4)
    MLFK_GEMVP_SWAP(2, 6, l4, h4) MLFK_GEMVP_SWAP(3, 7, l4, h4)
    MLFK_GEMVP_SWAP(8, 12, l4, h4) MLFK_GEMVP_SWAP(9, 13, l4, h4)
    MLFK_GEMVP_SWAP(10, 14, l4, h4) MLFK_GEMVP_SWAP(11, 15, l4, h4)
    MLFK_GEMVP_SWAP(0, 8, l8, h8) MLFK_GEMVP_SWAP(1, 9, l8, h8)
    MLFK_GEMVP_SWAP(2, 10, l8, h8) MLFK_GEMVP_SWAP(3, 11, l8, h8)
    MLFK_GEMVP_SWAP(4, 12, l8, h8) MLFK_GEMVP_SWAP(5, 13, l8, h8)
    MLFK_GEMVP_SWAP(6, 14, l8, h8) MLFK_GEMVP_SWAP(7, 15, l8, h8)
  }
  /* t<l> now holds lane l of every column: the tails, then the lanes in
   * order, then the bias, as the portable code adds them. */
  v = _mm512_loadu_ps(tail);
#define MLFK_GEMVP_LANE(l) v = _mm512_add_ps(v, t##l);
  MLFK_COLS16(MLFK_GEMVP_LANE)
#undef MLFK_GEMVP_LANE
  if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, bias));
  /* max then min, as mlfk_clamp (a NaN sum gives lo). */
  if (clamp) v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
  _mm512_mask_storeu_ps(y, m, v);
}
#undef MLFK_COLS16
#undef MLFK_GEMVP_SWAP

MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_gemvp_block_avx512(int k, const float* x, const float* wb, int r,
                                     const float* bias, float* y, float lo, float hi, int clamp) {
  if (r == MLFK_GEMV_BLOCK) {
    mlfk_gemvp_block_avx512_body(k, x, wb, MLFK_GEMV_BLOCK, bias, y, lo, hi, clamp);
  } else {
    mlfk_gemvp_block_avx512_body(k, x, wb, r, bias, y, lo, hi, clamp);
  }
}
#endif

/* Blocks [b0, b1) of every row of X with the variant `isa`. */
MLFK_FN void mlfk_gemvp_blocks(int isa, int m, int n, int k, const float* x, const float* w,
                               const float* bias, float* y, float lo, float hi, int b0, int b1) {
  const int clamp = lo > -HUGE_VALF || hi < HUGE_VALF;
  int b, i;
  for (b = b0; b < b1; ++b) {
    const int j = b * MLFK_GEMV_BLOCK;
    const int r = n - j < MLFK_GEMV_BLOCK ? n - j : MLFK_GEMV_BLOCK;
    const float* wb = w + (size_t)j * k;
    const float* bj = bias ? bias + j : NULL;
    for (i = 0; i < m; ++i) {
      const float* xi = x + (size_t)i * k;
      float* yi = y + (size_t)i * n + j;
#if MLFK_X86
      if (isa == MLFK_ISA_AVX512) {
        mlfk_gemvp_block_avx512(k, xi, wb, r, bj, yi, lo, hi, clamp);
        continue;
      }
      if (isa == MLFK_ISA_AVX2) {
        mlfk_gemvp_block_avx2(k, xi, wb, r, bj, yi, lo, hi, clamp);
        continue;
      }
#endif
      mlfk_gemvp_block_portable(k, xi, wb, r, bj, yi, lo, hi, clamp);
    }
  }
  (void)isa;
}

MLFK_FN void mlfk_gemvp_task(void* arg, int32_t task) {
  const mlfk_gemv_f32_job* g = (const mlfk_gemv_f32_job*)arg;
  int b0, b1;
  mlfk_split((g->n + MLFK_GEMV_BLOCK - 1) / MLFK_GEMV_BLOCK, g->parts, task, &b0, &b1);
  mlfk_gemvp_blocks(g->isa, g->m, g->n, g->k, g->x, g->w, g->bias, g->y, g->lo, g->hi, b0, b1);
}

/* Y = clamp(X * W^T + bias, lo, hi) with W packed, as run `ex` says: X
 * row-major M x K, W N x K in the layout above, bias NULL or N floats, Y
 * row-major M x N; cut by blocks of columns, each task reading only its
 * blocks of W. */
MLFK_FN void mlfk_gemv_f32_packed_exec(const mlfk_exec* ex, int m, int n, int k, const float* x,
                                       const float* w, const float* bias, float* y, float lo,
                                       float hi) {
  mlfk_gemv_f32_job g;
  const int blocks = (n + MLFK_GEMV_BLOCK - 1) / MLFK_GEMV_BLOCK;
  const double units = (double)m * n * k / MLFK_GEMV_MIN_TASK_MACS;
  g.isa = mlfk_exec_isa(ex);
  g.parts = mlfk_exec_tasks(ex, units < blocks ? (int)units : blocks);
  g.m = m;
  g.n = n;
  g.k = k;
  g.x = x;
  g.w = w;
  g.bias = bias;
  g.y = y;
  g.lo = lo;
  g.hi = hi;
  mlfk_exec_run(ex, mlfk_gemvp_task, &g, g.parts);
}

/* The same with the variant `isa`, serial. */
MLFK_FN void mlfk_gemv_f32_packed_with(int isa, int m, int n, int k, const float* x,
                                       const float* w, const float* bias, float* y, float lo,
                                       float hi) {
  mlfk_gemvp_blocks(isa, m, n, k, x, w, bias, y, lo, hi, 0,
                    (n + MLFK_GEMV_BLOCK - 1) / MLFK_GEMV_BLOCK);
}

#endif /* MLF_KERNEL_GEMM_F32_H_ */
