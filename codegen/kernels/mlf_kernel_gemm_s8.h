/* mlfkit kernels: int8 GEMM and convolution with int32 accumulation and
 * fixed-point requantisation (issue 14; codegen/kernels/README.md).
 *
 *   out[r][c] = clamp(zy + fixmul(bias[r] + sum_k w[r][k] * x[k][c],
 *                                 mult[r], shift[r]), lo, hi)
 *
 * r runs over the weight's rows (output channels), c over the columns
 * (output pixels of a convolution, rows of a Gemm's activation). The
 * weight w is int8, row-major with a row stride (the ONNX layout of Conv's
 * W and of Gemm's W with transB = 1, as exported). The activation enters as
 * uint8: a uint8 tensor as it is, an int8 one shifted by +128 (x ^ 0x80)
 * while it is packed; the caller folds every zero-point term into bias at
 * export: with x_u the unsigned activation and zx_u its zero point,
 *   sum_k (x - zx) * w = sum_k x_u * w - zx_u * sum_k w,
 * so bias[r] = B[r] - zx_u * sum_k w[r][k] (wrapping int32). The weight's
 * zero point must be 0 (symmetric int8 weights, what PyTorch and ONNX
 * Runtime's quantizers write; the operator keeps its reference code
 * otherwise). Padding of a convolution is zx_u, which adds 0.
 *
 * Packed activation layout ("quads"): x[kq][c][j] = x_u[4kq + j][c] for
 * kq < ceil(K / 4), j < 4, 0 beyond K: four consecutive k of one column are
 * one 32-bit word, which is what vpdpbusd (AVX-512 VNNI) multiplies with
 * four weights and what __smlad (Cortex-M DSP) takes in two halves. The
 * packing is done here, per chunk of columns, into the caller's scratch.
 *
 * fixmul is TFLite's multiplier-and-shift requantisation in its
 * single-rounding form: with t = 31 - shift, the 64-bit product
 * acc * mult, plus 2^(t - 1), shifted right by t (ties round up),
 * saturated to int32. One rounding, as PyTorch's and ONNX's real-valued
 * rules round once (the double-rounding form, a rounding doubling high
 * multiply then a rounding shift, can move a value up to 2^-(e+1) of a
 * step across a boundary and so differs from them on ~0.4% of outputs).
 * mult == NULL leaves the int32
 * accumulator as the output (ConvInteger, MatMulInteger). The multiplier and
 * shift are computed at export by codegen/ops/requantize.h
 * QuantizeMultiplier; requantize.h says how this relates to ONNX's
 * double-precision rule.
 *
 * Variants: portable C (the reference; on Cortex-M with the DSP extension,
 * __ARM_FEATURE_DSP, x expanded to 16-bit halves per block of columns and
 * 2x2 blocks of __smlad in assembly, mlfk_s8_dsp_block; with Helium, __ARM_FEATURE_MVE, VMLADAVA dot products and
 * vector requantisation instead); on x86-64 AVX2 (vpmaddwd on 16-bit widened bytes) and
 * AVX-512 with VNNI (vpdpbusd). The avx512 variant of a CPU without VNNI
 * runs the AVX2 code. Sums are in int32 that wraps in every variant, so
 * all variants give the same bits.
 */
#ifndef MLF_KERNEL_GEMM_S8_H_
#define MLF_KERNEL_GEMM_S8_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mlf_kernel_common.h"

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#define MLFK_S8_DSP 1
#else
#define MLFK_S8_DSP 0
#endif

/* Helium (M-profile Vector Extension, integer: Cortex-M55 and later) takes
 * the MVE blocks below instead of the DSP ones, same bits. */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define MLFK_S8_MVE 1
#else
#define MLFK_S8_MVE 0
#endif

/* Rows and columns of one tile. */
#define MLFK_S8_TR 4
#define MLFK_S8_TC 32

/* What every column block shares: the weight side and the output. */
typedef struct {
  int m, k;               /* rows (output channels), depth */
  const int8_t* w;        /* row r at w + r * ldw, k bytes */
  ptrdiff_t ldw;
  const int32_t* bias;    /* [m], the zero-point terms folded in */
  const int32_t* mult;    /* [m] Q31 multipliers, or NULL: int32 output */
  const int32_t* shift;   /* [m] */
  int32_t zy, lo, hi;     /* output zero point and clamp (output integers) */
  void* out;              /* uint8_t/int8_t bytes, or int32_t when mult == NULL */
  ptrdiff_t ors, ocs;     /* element (r, c) at out + r * ors + c * ocs */
} mlfk_gemm_s8_args;

/* ---- Fixed-point requantisation (TFLite's int8 scheme) ---- */

/* acc times the real multiplier mult * 2^(shift - 31), rounded once (ties
 * up) and saturated to int32: floor((acc * mult + 2^(t-1)) / 2^t) for
 * t = 31 - shift in [1, 62] (shift in [-31, 30]; a larger shift, t = 0,
 * takes the product as it is). |acc * mult| <= 2^62, so the sum fits int64.
 * The right shift of a negative int64 is arithmetic (what gcc, clang and
 * arm-none-eabi-gcc do). */
MLFK_FN int32_t mlfk_s8_fixmul(int32_t acc, int32_t mult, int32_t shift) {
  const int t = shift > 31 ? 0 : (shift < -31 ? 62 : 31 - shift);
  int64_t p = (int64_t)acc * (int64_t)mult;
  if (t > 0) p = (p + ((int64_t)1 << (t - 1))) >> t;
  return p > INT32_MAX ? INT32_MAX : (p < INT32_MIN ? INT32_MIN : (int32_t)p);
}

/* The output integer of accumulator acc of row r. */
MLFK_FN int32_t mlfk_s8_output(const mlfk_gemm_s8_args* a, int r, int32_t acc) {
  int32_t q = mlfk_s8_fixmul(acc, a->mult[r], a->shift[r]);
  q = q > INT32_MAX - 255 ? INT32_MAX - 255 : (q < INT32_MIN + 255 ? INT32_MIN + 255 : q);
  q += a->zy;
  return q < a->lo ? a->lo : (q > a->hi ? a->hi : q);
}

#if MLFK_S8_MVE
/* mlfk_s8_store_rows for byte outputs with contiguous columns, four
 * outputs a step. mlfk_s8_fixmul on vectors: for a right shift (e = -shift
 * >= 1) the doubling high multiply without rounding (VQDMULH: floor(acc *
 * mult / 2^31), saturating only INT32_MIN * INT32_MIN, where fixmul's
 * result is the same) and the rounding shift by e (VRSHL: + 2^(e-1), then
 * >> e, computed without overflow): nested floor divisions compose, so
 * this is floor((acc * mult + 2^(30+e)) / 2^(31+e)), fixmul's one
 * rounding. For shift >= 0 the saturating left shift (VQSHL) and the
 * rounding doubling high multiply (VQRDMULH: floor((v * mult + 2^30) /
 * 2^31)), fixmul's rounding where v does not saturate; where it does, both
 * saturate the output. Then + zy saturating and the clamp: lo and hi are in
 * a byte's range, so saturation decides nothing mlfk_s8_output's clamp would
 * not. */
MLFK_FN void mlfk_s8_store_rows_mve(const mlfk_gemm_s8_args* a, int r, int c0, int n, int rows,
                                    const int32_t* acc, ptrdiff_t apitch, ptrdiff_t opitch) {
  const int32_t mult = a->mult[r], shift = a->shift[r];
  const int32_t left = shift > 0 ? (shift > 31 ? 31 : shift) : 0;
  const int32_t e = shift < 0 ? (shift < -31 ? 31 : -shift) : 0;
  const int32x4_t lo = vdupq_n_s32(a->lo), hi = vdupq_n_s32(a->hi);
  int8_t* o0 = (int8_t*)a->out + (ptrdiff_t)r * a->ors + c0;
  int j, t;
#define MLFK_S8_MVE_OUT(SCALED) vmaxq_s32(vminq_s32(vqaddq_n_s32(SCALED, a->zy), hi), lo)
#define MLFK_S8_MVE_LOOP(SCALE)                                                                  \
  for (t = 0; t < rows; ++t) {                                                                   \
    const int32_t* at = acc + t * apitch;                                                        \
    int8_t* o = o0 + t * opitch;                                                                 \
    /* Whole steps unpredicated (each predicated instruction needs a VPST). */                    \
    for (j = 0; j + 4 <= n; j += 4) vstrbq_s32(o + j, MLFK_S8_MVE_OUT(SCALE(vld1q_s32(at + j)))); \
    if (j < n) {                                                                                 \
      const mve_pred16_t p = vctp32q((uint32_t)(n - j));                                         \
      vstrbq_p_s32(o + j, MLFK_S8_MVE_OUT(SCALE(vld1q_z_s32(at + j, p))), p);                    \
    }                                                                                            \
  }
#define MLFK_S8_MVE_RIGHT(V) vrshlq_n_s32(vqdmulhq_n_s32(V, mult), -e)
#define MLFK_S8_MVE_LEFT(V) vqrdmulhq_n_s32(vqshlq_r_s32(V, left), mult)
  if (e > 0) {
    MLFK_S8_MVE_LOOP(MLFK_S8_MVE_RIGHT)
  } else {
    MLFK_S8_MVE_LOOP(MLFK_S8_MVE_LEFT)
  }
#undef MLFK_S8_MVE_LEFT
#undef MLFK_S8_MVE_RIGHT
#undef MLFK_S8_MVE_LOOP
#undef MLFK_S8_MVE_OUT
}
#endif

#if MLFK_S8_DSP
/* Whether mlfk_s8_dsp_requant computes a's outputs for a row with this
 * multiplier and shift: the full uint8 or int8 range, |zy| <= 256 and a
 * right shift e = -shift in [2, 22]. */
MLFK_FN int mlfk_s8_dsp_rq_args_ok(const mlfk_gemm_s8_args* a) {
  return a->mult != NULL && a->zy >= -256 && a->zy <= 256 &&
         ((a->lo == 0 && a->hi == 255) || (a->lo == -128 && a->hi == 127));
}
MLFK_FN int mlfk_s8_dsp_rq_row_ok(int32_t shift) { return shift <= -2 && shift >= -22; }

/* Outputs o0[(t * opitch + j) * ocs] of sums acc[t * apitch + j], j < n,
 * t < rows, as mlfk_s8_output computes them, where mlfk_s8_dsp_rq_args_ok
 * and _row_ok hold (e = -shift): one SMMLA, w = hk + floor(acc * mult /
 * 2^32), then w >> (e - 1), saturated. With hk = 2^(e-2) + zy * 2^(e-1)
 * that is floor((acc * mult + 2^(30+e) + zy * 2^(31+e)) / 2^(31+e)) (nested
 * floor divisions compose): fixmul's one rounding, and + zy exactly. |w| <
 * 2^30 + 2^29 + 2^20: no overflow. Five instructions an output with its
 * load and store. */
/* Always inlined: called once per row and block of columns, its setup
 * then folds into the caller's loop (as a call it cost ~14k instructions
 * a DS-CNN pointwise layer more). */
static __inline__ __attribute__((always_inline, unused)) void mlfk_s8_dsp_requant(
    const mlfk_gemm_s8_args* a, const int32_t* acc, int n, int rows, ptrdiff_t apitch, int32_t mult, int e,
    uint8_t* o0, ptrdiff_t ocs, ptrdiff_t opitch) {
  const int32_t hk = ((int32_t)1 << (e - 2)) + a->zy * ((int32_t)1 << (e - 1));
  const int sh = e - 1;
  int j, t;
#define MLFK_S8_SMMLA_LOOP(SAT)                                                   \
  for (t = 0; t < rows; ++t) {                                                    \
    const int32_t* at = acc + t * apitch;                                         \
    uint8_t* o = o0 + t * opitch * ocs;                                           \
    for (j = 0; j < n; ++j) {                                                     \
      int32_t w;                                                                  \
      __asm__("smmla %0, %1, %2, %3" : "=r"(w) : "r"(at[j]), "r"(mult), "r"(hk)); \
      o[(ptrdiff_t)j * ocs] = (uint8_t)SAT(w >> sh, 8);                           \
    }                                                                             \
  }
  if (a->lo == 0) {
    MLFK_S8_SMMLA_LOOP(__usat)
  } else {
    MLFK_S8_SMMLA_LOOP(__ssat)
  }
#undef MLFK_S8_SMMLA_LOOP
}
#endif

/* Stores `rows` runs of accumulators acc[t * apitch + j], j < n, of row r
 * to columns c0 + t * opitch + j (scalar; the depthwise band's output rows
 * under one setup). A row with a right shift (shift < 0, e = -shift >= 1;
 * every row the export writes for a scale ratio below 1/2) takes one 64-bit
 * multiply-add and a shift: fixmul's floor((acc * mult + 2^(30+e)) /
 * 2^(31+e)) as the high word of the sum shifted right by e - 1 (nested
 * floor divisions compose); |acc * mult| <= 2^62, so nothing overflows and
 * |q| <= 2^30. The clamp to [lo - zy, hi - zy] before adding zy is
 * mlfk_s8_output's (its int32 guard cannot bind with lo, hi and zy in a
 * byte's range). Other rows take mlfk_s8_output. */
MLFK_FN void mlfk_s8_store_rows(const mlfk_gemm_s8_args* a, int r, int c0, int n, int rows,
                                const int32_t* acc, ptrdiff_t apitch, ptrdiff_t opitch) {
  const ptrdiff_t base = (ptrdiff_t)r * a->ors + (ptrdiff_t)c0 * a->ocs, ocs = a->ocs;
  int j, t;
  if (a->mult == NULL) {
    for (t = 0; t < rows; ++t) {
      int32_t* o = (int32_t*)a->out + base + t * opitch * ocs;
      for (j = 0; j < n; ++j) o[(ptrdiff_t)j * ocs] = acc[t * apitch + j];
    }
    return;
  }
#if MLFK_S8_MVE
  if (ocs == 1) {
    mlfk_s8_store_rows_mve(a, r, c0, n, rows, acc, apitch, opitch);
    return;
  }
#endif
  {
    uint8_t* o0 = (uint8_t*)a->out + base;
    const int32_t mult = a->mult[r], shift = a->shift[r];
    if (shift < 0) {
      const int e = shift < -31 ? 31 : -shift;
      const int64_t k = (int64_t)1 << (30 + e);
      const int32_t qlo = a->lo - a->zy, qhi = a->hi - a->zy, zy = a->zy;
#define MLFK_S8_REQUANT_LOOP(OUT)                                               \
  for (t = 0; t < rows; ++t) {                                                  \
    const int32_t* at = acc + t * apitch;                                       \
    uint8_t* o = o0 + t * opitch * ocs;                                         \
    for (j = 0; j < n; ++j) {                                                   \
      const int64_t p = (int64_t)at[j] * mult + k;                              \
      const int32_t q = (int32_t)(p >> 32) >> (e - 1);                          \
      o[(ptrdiff_t)j * ocs] = (uint8_t)(OUT);                                   \
    }                                                                           \
  }
#if MLFK_S8_DSP
      if (mlfk_s8_dsp_rq_args_ok(a) && mlfk_s8_dsp_rq_row_ok(shift)) {
        mlfk_s8_dsp_requant(a, acc, n, rows, apitch, mult, e, o0, ocs, opitch);
        return;
      }
      /* A full uint8 or int8 range: one saturating instruction (|q| < 2^31
       * - 255, so q + zy does not overflow). */
      if (a->lo == 0 && a->hi == 255) {
        MLFK_S8_REQUANT_LOOP(__usat(q + zy, 8))
        return;
      }
      if (a->lo == -128 && a->hi == 127) {
        MLFK_S8_REQUANT_LOOP(__ssat(q + zy, 8))
        return;
      }
#endif
      MLFK_S8_REQUANT_LOOP((q < qlo ? qlo : (q > qhi ? qhi : q)) + zy)
#undef MLFK_S8_REQUANT_LOOP
      return;
    }
    for (t = 0; t < rows; ++t) {
      for (j = 0; j < n; ++j) o0[(t * opitch + j) * ocs] = (uint8_t)mlfk_s8_output(a, r, acc[t * apitch + j]);
    }
  }
}

/* One row: acc[0..n) to columns c0.. of row r. */
MLFK_FN void mlfk_s8_store_row(const mlfk_gemm_s8_args* a, int r, int c0, int n, const int32_t* acc) {
  mlfk_s8_store_rows(a, r, c0, n, 1, acc, 0, 0);
}

/* Stores a tile's accumulators acc[i][j] (rows r0.., columns c0..). */
MLFK_FN void mlfk_s8_store(const mlfk_gemm_s8_args* a, int r0, int rows, int c0, int cols,
                           const int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  int i;
  for (i = 0; i < rows; ++i) mlfk_s8_store_row(a, r0 + i, c0, cols, acc[i]);
}

/* Weights 4kq..4kq+3 of row w (k long) as a little-endian word, 0 beyond k. */
MLFK_FN uint32_t mlfk_s8_wquad(const int8_t* w, int k, int kq) {
  uint32_t v = 0;
  int j;
  if (kq * 4 + 4 <= k) {
    memcpy(&v, w + kq * 4, 4);
    return v;
  }
  for (j = 0; kq * 4 + j < k; ++j) v |= (uint32_t)(uint8_t)w[kq * 4 + j] << (8 * j);
  return v;
}

/* ---- Tiles: acc[i][j] = bias[r0+i] + sum_k w[r0+i][k] * x[k][j] for
 * i < rows <= 4, j < cols <= 32, x the packed quads of the tile's first
 * column with ldx columns per quad row. ---- */

#if MLFK_S8_MVE
/* The sum of row w's k weights. */
MLFK_FN int32_t mlfk_s8_mve_wsum(const int8_t* w, int k) {
  int32_t s = 0;
  int kk;
  for (kk = 0; kk < k; kk += 16) {
    const mve_pred16_t p = vctp8q((uint32_t)(k - kk));
    s = vaddvaq_p_s8(s, vld1q_z_s8(w + kk, p), p);
  }
  return s;
}

/* Helium: each of the tile's (row, column) sums as dot products of 16 k at
 * a time, one VMLADAVA each (16 int8 x int8 products added to a scalar,
 * wrapping). The column's 16 bytes are four of its quads, ldx * 4 bytes
 * apart: one word gather. VMLADAVA multiplies like types only, so x_u
 * enters as the int8 x_u - 128 (x_u ^ 0x80) and each row's sum starts from
 * bias + 128 * sum_k w (wrapping, as the portable sums). The last, partial
 * 16 of k: loads and products predicated to the k that remain (x's bytes
 * beyond k meet weights of 0). Four rows per column share the gather. */
MLFK_FN void mlfk_s8_tile_portable(const mlfk_gemm_s8_args* a, int r0, int rows,
                                   const uint8_t* MLFK_RESTRICT x, int ldx, int cols,
                                   int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  const int k = a->k, kfull = k & ~15;
  const ptrdiff_t step = (ptrdiff_t)ldx * 16;
  const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0u, 1), (uint32_t)ldx * 4u);
  const uint8x16_t flip = vdupq_n_u8(0x80);
  const mve_pred16_t pw = vctp8q((uint32_t)(k - kfull)), px = vctp32q((uint32_t)(k - kfull + 3) / 4u);
  const int8_t *w0, *w1, *w2, *w3;
  uint32_t start[MLFK_S8_TR];
  int i, j, kk;
  for (i = 0; i < MLFK_S8_TR; ++i) {
    const int r = r0 + (i < rows ? i : rows - 1);
    start[i] = (uint32_t)a->bias[r] + 128u * (uint32_t)mlfk_s8_mve_wsum(a->w + (ptrdiff_t)r * a->ldw, k);
  }
  w0 = a->w + (ptrdiff_t)r0 * a->ldw;
  w1 = a->w + (ptrdiff_t)(r0 + (rows > 1 ? 1 : 0)) * a->ldw;
  w2 = a->w + (ptrdiff_t)(r0 + (rows > 2 ? 2 : rows - 1)) * a->ldw;
  w3 = a->w + (ptrdiff_t)(r0 + (rows > 3 ? 3 : rows - 1)) * a->ldw;
  for (j = 0; j < cols; ++j) {
    const uint8_t* xc = x + (ptrdiff_t)j * 4;
    int32_t s0 = (int32_t)start[0], s1 = (int32_t)start[1], s2 = (int32_t)start[2], s3 = (int32_t)start[3];
    int8x16_t xv;
    for (kk = 0; kk < kfull; kk += 16, xc += step) {
      xv = vreinterpretq_s8_u8(veorq_u8(vreinterpretq_u8_u32(vldrwq_gather_offset_u32((const uint32_t*)xc, offsets)), flip));
      s0 = vmladavaq_s8(s0, xv, vld1q_s8(w0 + kk));
      s1 = vmladavaq_s8(s1, xv, vld1q_s8(w1 + kk));
      s2 = vmladavaq_s8(s2, xv, vld1q_s8(w2 + kk));
      s3 = vmladavaq_s8(s3, xv, vld1q_s8(w3 + kk));
    }
    if (kfull < k) {
      xv = vreinterpretq_s8_u8(
          veorq_u8(vreinterpretq_u8_u32(vldrwq_gather_offset_z_u32((const uint32_t*)xc, offsets, px)), flip));
      s0 = vmladavaq_p_s8(s0, xv, vld1q_z_s8(w0 + kfull, pw), pw);
      s1 = vmladavaq_p_s8(s1, xv, vld1q_z_s8(w1 + kfull, pw), pw);
      s2 = vmladavaq_p_s8(s2, xv, vld1q_z_s8(w2 + kfull, pw), pw);
      s3 = vmladavaq_p_s8(s3, xv, vld1q_z_s8(w3 + kfull, pw), pw);
    }
    acc[0][j] = s0;
    acc[1][j] = s1;
    acc[2][j] = s2;
    acc[3][j] = s3;
  }
}
#elif MLFK_S8_DSP
/* Bytes 1 and 3 of a word as two 16-bit halves, sign- or zero-extended: one
 * sxtb16/uxtb16 with its rotation operand (ACLE has no form with the
 * rotation, and GCC 12 emits a separate ror for __sxtb16(v >> 8)). */
MLFK_FN int32_t mlfk_s8_sxtb16_ror8(uint32_t v) {
  int32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}
MLFK_FN int32_t mlfk_s8_uxtb16_ror8(uint32_t v) {
  int32_t r;
  __asm__("uxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}

/* The tiles' DSP path, for K too deep for mlfk_s8_dsp_block's buffer.
 * Rows w and w + ldw (acc0, acc1, starting from b0, b1) of columns [0,
 * cols) of x over `quads` whole quads of k (x's quad rows xs bytes apart),
 * in 2 x 2 blocks: per quad the bytes 0 and 2, then 1 and 3, of each word
 * as 16-bit halves (__sxtb16 for the weights, __uxtb16 for x) and eight
 * dual MACs (__smlad), 20 instructions for 16 MACs plus ~4 GCC spills; an
 * odd last column alone. Not inlined: in its own frame the inner loop's
 * values nearly all stay in registers (inlined into the tile, GCC spilled
 * half of them). */
__attribute__((noinline)) MLFK_FN void mlfk_s8_dsp_rows(const int8_t* w, ptrdiff_t ldw, const uint8_t* x,
                                                       ptrdiff_t xs, int quads, int cols, int32_t b0, int32_t b1,
                                                       int32_t* acc0, int32_t* acc1) {
  const int8_t* end = w + (ptrdiff_t)quads * 4;
  int j;
  for (j = 0; j + 1 < cols; j += 2) {
    int32_t s00 = b0, s01 = b0, s10 = b1, s11 = b1;
    const int8_t* p = w;
    const uint8_t* xq = x + (ptrdiff_t)j * 4;
    for (; p != end; p += 4, xq += xs) {
      uint32_t q, v;
      int32_t a02, a13, b02, b13, x02, x13;
      memcpy(&q, p, 4);
      a02 = __sxtb16((int32_t)q);
      a13 = mlfk_s8_sxtb16_ror8(q);
      memcpy(&q, p + ldw, 4);
      b02 = __sxtb16((int32_t)q);
      b13 = mlfk_s8_sxtb16_ror8(q);
      memcpy(&v, xq, 4);
      x02 = (int32_t)__uxtb16(v);
      x13 = mlfk_s8_uxtb16_ror8(v);
      s00 = __smlad(x13, a13, __smlad(x02, a02, s00));
      s10 = __smlad(x13, b13, __smlad(x02, b02, s10));
      memcpy(&v, xq + 4, 4);
      x02 = (int32_t)__uxtb16(v);
      x13 = mlfk_s8_uxtb16_ror8(v);
      s01 = __smlad(x13, a13, __smlad(x02, a02, s01));
      s11 = __smlad(x13, b13, __smlad(x02, b02, s11));
    }
    acc0[j] = s00;
    acc0[j + 1] = s01;
    acc1[j] = s10;
    acc1[j + 1] = s11;
  }
  if (j < cols) {
    int32_t s00 = b0, s10 = b1;
    const int8_t* p = w;
    const uint8_t* xq = x + (ptrdiff_t)j * 4;
    for (; p != end; p += 4, xq += xs) {
      uint32_t q, v;
      int32_t x02, x13;
      memcpy(&v, xq, 4);
      x02 = (int32_t)__uxtb16(v);
      x13 = mlfk_s8_uxtb16_ror8(v);
      memcpy(&q, p, 4);
      s00 = __smlad(x13, mlfk_s8_sxtb16_ror8(q), __smlad(x02, __sxtb16((int32_t)q), s00));
      memcpy(&q, p + ldw, 4);
      s10 = __smlad(x13, mlfk_s8_sxtb16_ror8(q), __smlad(x02, __sxtb16((int32_t)q), s10));
    }
    acc0[j] = s00;
    acc1[j] = s10;
  }
}

/* Cortex-M with DSP: the tile by pairs of rows (mlfk_s8_dsp_rows; an odd
 * last row is computed twice into one row of acc); the last, partial quad
 * of k (x is 0 beyond k, and so is its weight word) added scalar. */
MLFK_FN void mlfk_s8_tile_portable(const mlfk_gemm_s8_args* a, int r0, int rows,
                                   const uint8_t* MLFK_RESTRICT x, int ldx, int cols,
                                   int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  const int kfull = a->k / 4, kqn = (a->k + 3) / 4;
  const ptrdiff_t xs = (ptrdiff_t)ldx * 4;
  int i, j;
  for (i = 0; i < rows; i += 2) {
    const int i1 = i + 1 < rows ? i + 1 : i;
    const int8_t* wa = a->w + (ptrdiff_t)(r0 + i) * a->ldw;
    mlfk_s8_dsp_rows(wa, (ptrdiff_t)(i1 - i) * a->ldw, x, xs, kfull, cols, a->bias[r0 + i], a->bias[r0 + i1],
                     acc[i], acc[i1]);
  }
  if (kqn > kfull) {
    const uint8_t* xq = x + (ptrdiff_t)kfull * xs;
    for (i = 0; i < rows; ++i) {
      const uint32_t q = mlfk_s8_wquad(a->w + (ptrdiff_t)(r0 + i) * a->ldw, a->k, kfull);
      const int32_t w0 = (int8_t)q, w1 = (int8_t)(q >> 8), w2 = (int8_t)(q >> 16), w3 = (int8_t)(q >> 24);
      for (j = 0; j < cols; ++j) {
        const uint8_t* p = xq + j * 4;
        acc[i][j] = (int32_t)((uint32_t)acc[i][j] + (uint32_t)(p[0] * w0 + p[1] * w1 + p[2] * w2 + p[3] * w3));
      }
    }
  }
}

/* ---- Cortex-M with DSP, whole blocks: x expanded to 16-bit halves once
 * per block of columns, shared by every pair of rows. ---- */

/* Bytes of the expanded columns (on the stack of mlfk_s8_dsp_block). */
#define MLFK_S8_DSP_XBUF 2048

/* Columns [0, cols) of x's first `quads` quads (quad rows xs bytes apart)
 * as 16-bit halves, by pairs of columns (an odd last column paired with
 * itself): pair p, quad q is the four words at xe + (p * quads + q) * 4,
 * uxtb16 of column 2p's word, its bytes 1 and 3 likewise, then the same of
 * column 2p + 1. One pass here saves each pair of weight rows its own
 * four extractions a quad. */
MLFK_FN void mlfk_s8_dsp_expand(const uint8_t* x, ptrdiff_t xs, int quads, int cols, uint32_t* xe) {
  int j, q;
  for (j = 0; j < cols; j += 2) {
    const uint8_t* p = x + (ptrdiff_t)j * 4;
    const ptrdiff_t next = j + 1 < cols ? 4 : 0;
    for (q = 0; q < quads; ++q, p += xs, xe += 4) {
      uint32_t v0, v1;
      memcpy(&v0, p, 4);
      memcpy(&v1, p + next, 4);
      xe[0] = __uxtb16(v0);
      xe[1] = (uint32_t)mlfk_s8_uxtb16_ror8(v0);
      xe[2] = __uxtb16(v1);
      xe[3] = (uint32_t)mlfk_s8_uxtb16_ror8(v1);
    }
  }
}

/* One quad of the 2 x 2 block: the pair's four words by one LDM, row
 * w + ldw's weight word then row w's (post-incremented), each as two
 * sxtb16 halves, eight smlad. */
#define MLFK_S8_DSP_QUAD                              \
  "ldmia  %[xp]!, {%[x0], %[x1], %[x2], %[x3]}\n\t" \
  "ldr    %[wv], [%[p], %[d]]\n\t"                  \
  "sxtb16 %[t], %[wv], ror #8\n\t"                  \
  "sxtb16 %[wv], %[wv]\n\t"                         \
  "smlad  %[s10], %[x0], %[wv], %[s10]\n\t"         \
  "smlad  %[s10], %[x1], %[t], %[s10]\n\t"          \
  "smlad  %[s11], %[x2], %[wv], %[s11]\n\t"         \
  "smlad  %[s11], %[x3], %[t], %[s11]\n\t"          \
  "ldr    %[wv], [%[p]], #4\n\t"                    \
  "sxtb16 %[t], %[wv], ror #8\n\t"                  \
  "sxtb16 %[wv], %[wv]\n\t"                         \
  "smlad  %[s00], %[x0], %[wv], %[s00]\n\t"         \
  "smlad  %[s00], %[x1], %[t], %[s00]\n\t"          \
  "smlad  %[s01], %[x2], %[wv], %[s01]\n\t"         \
  "smlad  %[s01], %[x3], %[t], %[s01]\n\t"

/* Distance of the second row's sums from the first's in
 * mlfk_s8_dsp_pairs's acc (an odd count's partner column included). */
#define MLFK_S8_DSP_ACC1 (MLFK_S8_TC + 1)

/* Rows w and w + ldw (acc[j] and acc[MLFK_S8_DSP_ACC1 + j], from b0 and b1)
 * of columns [0, cols) over `quads` >= 1 whole quads, from the pairs of
 * mlfk_s8_dsp_expand; cols rounded up to even are written (an odd last
 * column's partner is its copy). Per quad and 2 x 2 block (16 MACs) 15
 * instructions, the end test once per two quads (an odd first quad before
 * the loop); per pair of columns 13 to 16 more. One assembly block with
 * the registers pinned: the loop needs 13 of them (r7, the frame pointer
 * of unoptimised Thumb code, stays out), more than GCC 12 kept without
 * spilling; what changes once per pair lives on the stack ("m" operands). */
__attribute__((noinline)) MLFK_FN void mlfk_s8_dsp_pairs(const int8_t* w, ptrdiff_t ldw, const uint32_t* xe,
                                                        int quads, int cols, int32_t b0, int32_t b1,
                                                        int32_t* acc) {
  const int8_t* const end = w + (ptrdiff_t)quads * 4;
  const uint32_t* const xend = xe + (ptrdiff_t)((cols + 1) / 2) * quads * 4;
  const int32_t odd = quads & 1;
  const int32_t bb[4] = {b0, b0, b1, b1};
  int32_t* accp = acc;
  register uint32_t x0 __asm__("r0"), x1 __asm__("r1"), x2 __asm__("r2"), x3 __asm__("r3");
  register int32_t s00 __asm__("r4"), s01 __asm__("r5"), s10 __asm__("r6"), s11 __asm__("r8");
  register uint32_t wv __asm__("r9"), t __asm__("r10");
  register const int8_t* p __asm__("r11");
  register ptrdiff_t d __asm__("r12") = ldw;
  register const uint32_t* xp __asm__("lr") = xe;
  __asm__ volatile(
      "2:\n\t"
      "ldrd   %[s00], %[s01], %[bb0]\n\t"
      "ldrd   %[s10], %[s11], %[bb1]\n\t"
      "ldr    %[p], %[w]\n\t"
      "ldr    %[t], %[odd]\n\t"
      "cmp    %[t], #0\n\t"
      "beq    1f\n\t" MLFK_S8_DSP_QUAD
      "ldr    %[t], %[end]\n\t"
      "cmp    %[p], %[t]\n\t"
      "beq    3f\n\t"
      "1:\n\t" MLFK_S8_DSP_QUAD MLFK_S8_DSP_QUAD
      "ldr    %[t], %[end]\n\t"
      "cmp    %[p], %[t]\n\t"
      "bne    1b\n\t"
      "3:\n\t"
      "ldr    %[t], %[accp]\n\t"
      "strd   %[s10], %[s11], [%[t], %[off1]]\n\t"
      "strd   %[s00], %[s01], [%[t]], #8\n\t"
      "str    %[t], %[accp]\n\t"
      "ldr    %[t], %[xend]\n\t"
      "cmp    %[xp], %[t]\n\t"
      "bne    2b\n\t"
      : [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3), [s00] "=&r"(s00), [s01] "=&r"(s01),
        [s10] "=&r"(s10), [s11] "=&r"(s11), [wv] "=&r"(wv), [t] "=&r"(t), [p] "=&r"(p), [xp] "+r"(xp),
        [accp] "+m"(accp)
      : [d] "r"(d), [end] "m"(end), [xend] "m"(xend), [w] "m"(w), [odd] "m"(odd), [bb0] "m"(bb[0]),
        [bb1] "m"(bb[2]), [off1] "i"(MLFK_S8_DSP_ACC1 * 4)
      : "cc", "memory");
}
#undef MLFK_S8_DSP_QUAD

/* The block of mlfk_gemm_s8_block on a DSP core, when x's whole quads of
 * at least two columns fit MLFK_S8_DSP_XBUF (else 0: the tiles do it):
 * columns in blocks, each expanded once, then every pair of rows over it
 * (an odd last row computed twice), the partial quad of k added scalar,
 * the rows stored. */
MLFK_FN int mlfk_s8_dsp_block(const mlfk_gemm_s8_args* a, const uint8_t* x, int ldx, int c0, int n) {
  uint32_t xe[MLFK_S8_DSP_XBUF / 4];
  int32_t acc[2][MLFK_S8_DSP_ACC1];
  const int kfull = a->k / 4, kqn = (a->k + 3) / 4;
  const ptrdiff_t xs = (ptrdiff_t)ldx * 4;
  const int fast = mlfk_s8_dsp_rq_args_ok(a); /* the rows' own test below */
  int cb, c, r, i, j;
  if (kfull == 0) return 0;
  cb = (MLFK_S8_DSP_XBUF / (kfull * 16)) * 2;
  cb = cb < MLFK_S8_TC ? cb : MLFK_S8_TC;
  if (cb < 2) return 0;
  for (c = 0; c < n; c += cb) {
    const int cols = n - c < cb ? n - c : cb;
    mlfk_s8_dsp_expand(x + (ptrdiff_t)c * 4, xs, kfull, cols, xe);
    for (r = 0; r < a->m; r += 2) {
      const int r1 = r + 1 < a->m ? r + 1 : r;
      const int8_t* w = a->w + (ptrdiff_t)r * a->ldw;
      mlfk_s8_dsp_pairs(w, (ptrdiff_t)(r1 - r) * a->ldw, xe, kfull, cols, a->bias[r], a->bias[r1], acc[0]);
      if (kqn > kfull) {
        const uint8_t* xq = x + (ptrdiff_t)kfull * xs + (ptrdiff_t)c * 4;
        for (i = 0; i < 2; ++i) {
          const uint32_t q = mlfk_s8_wquad(a->w + (ptrdiff_t)(i == 0 ? r : r1) * a->ldw, a->k, kfull);
          const int32_t w0 = (int8_t)q, w1 = (int8_t)(q >> 8), w2 = (int8_t)(q >> 16), w3 = (int8_t)(q >> 24);
          for (j = 0; j < cols; ++j) {
            const uint8_t* p = xq + j * 4;
            acc[i][j] = (int32_t)((uint32_t)acc[i][j] + (uint32_t)(p[0] * w0 + p[1] * w1 + p[2] * w2 + p[3] * w3));
          }
        }
      }
      for (i = 0; i < (r1 != r ? 2 : 1); ++i) {
        const int row = r + i;
        if (fast && mlfk_s8_dsp_rq_row_ok(a->shift[row])) {
          mlfk_s8_dsp_requant(a, acc[i], cols, 1, 0, a->mult[row], -a->shift[row],
                              (uint8_t*)a->out + (ptrdiff_t)row * a->ors + (ptrdiff_t)(c0 + c) * a->ocs, a->ocs, 0);
        } else {
          mlfk_s8_store_row(a, row, c0 + c, cols, acc[i]);
        }
      }
    }
  }
  return 1;
}
#else
MLFK_FN void mlfk_s8_tile_portable(const mlfk_gemm_s8_args* a, int r0, int rows,
                                   const uint8_t* MLFK_RESTRICT x, int ldx, int cols,
                                   int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  const int kqn = (a->k + 3) / 4;
  int i, j, kq;
  for (i = 0; i < rows; ++i) {
    const int8_t* w = a->w + (ptrdiff_t)(r0 + i) * a->ldw;
    uint32_t s[MLFK_S8_TC];
    for (j = 0; j < cols; ++j) s[j] = (uint32_t)a->bias[r0 + i];
    for (kq = 0; kq < kqn; ++kq) {
      const uint32_t wq = mlfk_s8_wquad(w, a->k, kq);
      const uint8_t* xq = x + (ptrdiff_t)kq * ldx * 4;
      const int32_t w0 = (int8_t)(wq & 0xFF), w1 = (int8_t)((wq >> 8) & 0xFF);
      const int32_t w2 = (int8_t)((wq >> 16) & 0xFF), w3 = (int8_t)(wq >> 24);
      for (j = 0; j < cols; ++j) {
        const uint8_t* p = xq + j * 4;
        s[j] += (uint32_t)(p[0] * w0 + p[1] * w1 + p[2] * w2 + p[3] * w3);
      }
    }
    for (j = 0; j < cols; ++j) acc[i][j] = (int32_t)s[j];
  }
}
#endif

#if MLFK_X86

/* 8 columns per step: two 128-bit halves of 4 columns widened to 16 bits,
 * vpmaddwd with the row's 4 weights repeated: each column's sum lands in
 * two int32 lanes, added at the end. */
MLFK_TARGET("avx2")
MLFK_FN void mlfk_s8_tile_avx2(const mlfk_gemm_s8_args* a, int r0, int rows,
                               const uint8_t* MLFK_RESTRICT x, int ldx, int cols,
                               int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  const int kqn = (a->k + 3) / 4;
  const int8_t* w[MLFK_S8_TR];
  int i, j, kq, c0;
  for (i = 0; i < MLFK_S8_TR; ++i) w[i] = a->w + (ptrdiff_t)(r0 + (i < rows ? i : rows - 1)) * a->ldw;
  for (c0 = 0; c0 < cols; c0 += 8) {
    const int n = cols - c0 < 8 ? cols - c0 : 8;
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
    __m256i s[MLFK_S8_TR][2];
    int32_t t[16];
    for (i = 0; i < MLFK_S8_TR; ++i) s[i][0] = s[i][1] = _mm256_setzero_si256();
    for (kq = 0; kq < kqn; ++kq) {
      const __m256i xv = _mm256_maskload_epi32((const int*)(x + ((ptrdiff_t)kq * ldx + c0) * 4), mask);
      const __m256i x0 = _mm256_cvtepu8_epi16(_mm256_castsi256_si128(xv));
      const __m256i x1 = _mm256_cvtepu8_epi16(_mm256_extracti128_si256(xv, 1));
      for (i = 0; i < MLFK_S8_TR; ++i) {
        const __m256i wv =
            _mm256_cvtepi8_epi16(_mm_set1_epi32((int)mlfk_s8_wquad(w[i], a->k, kq)));
        s[i][0] = _mm256_add_epi32(s[i][0], _mm256_madd_epi16(x0, wv));
        s[i][1] = _mm256_add_epi32(s[i][1], _mm256_madd_epi16(x1, wv));
      }
    }
    for (i = 0; i < rows; ++i) {
      _mm256_storeu_si256((__m256i*)t, s[i][0]);
      _mm256_storeu_si256((__m256i*)(t + 8), s[i][1]);
      for (j = 0; j < n; ++j) {
        acc[i][c0 + j] = (int32_t)((uint32_t)a->bias[r0 + i] + (uint32_t)t[2 * j] + (uint32_t)t[2 * j + 1]);
      }
    }
  }
}

MLFK_FN int mlfk_s8_has_vnni(void) {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

/* 4 rows x 32 columns: two zmm of 16 columns' quads, vpdpbusd with the
 * row's 4 weights broadcast; the edges by masked loads. */
MLFK_TARGET("avx512f,avx512bw,avx512vnni")
MLFK_FN void mlfk_s8_tile_vnni(const mlfk_gemm_s8_args* a, int r0, int rows,
                               const uint8_t* MLFK_RESTRICT x, int ldx, int cols,
                               int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  const int kqn = (a->k + 3) / 4, kfull = a->k / 4;
  const __mmask16 m0 = (__mmask16)(cols >= 16 ? 0xFFFF : (1u << cols) - 1u);
  const __mmask16 m1 = (__mmask16)(cols >= 32 ? 0xFFFF : (cols > 16 ? (1u << (cols - 16)) - 1u : 0u));
  const int8_t* w[MLFK_S8_TR];
  __m512i s[MLFK_S8_TR][2];
  int i, kq;
  for (i = 0; i < MLFK_S8_TR; ++i) {
    w[i] = a->w + (ptrdiff_t)(r0 + (i < rows ? i : rows - 1)) * a->ldw;
    s[i][0] = s[i][1] = _mm512_set1_epi32(a->bias[r0 + (i < rows ? i : rows - 1)]);
  }
  for (kq = 0; kq < kqn; ++kq) {
    const uint8_t* xq = x + (ptrdiff_t)kq * ldx * 4;
    const __m512i x0 = _mm512_maskz_loadu_epi32(m0, xq);
    const __m512i x1 = _mm512_maskz_loadu_epi32(m1, xq + 64);
    for (i = 0; i < MLFK_S8_TR; ++i) {
      int32_t wq;
      __m512i wv;
      if (kq < kfull) {
        memcpy(&wq, w[i] + kq * 4, 4);
      } else {
        wq = (int32_t)mlfk_s8_wquad(w[i], a->k, kq);
      }
      wv = _mm512_set1_epi32(wq);
      s[i][0] = _mm512_dpbusd_epi32(s[i][0], x0, wv);
      s[i][1] = _mm512_dpbusd_epi32(s[i][1], x1, wv);
    }
  }
  for (i = 0; i < rows; ++i) {
    _mm512_storeu_si512((void*)acc[i], s[i][0]);
    _mm512_storeu_si512((void*)(acc[i] + 16), s[i][1]);
  }
}

/* The requantisation of 16 accumulators of a row whose shift is negative
 * (e = -shift, 1 <= e <= 22): mlfk_s8_store_rows' one rounding with the
 * zero point folded in, q + zy = (acc * mult + K) >> (31 + e) with K =
 * 2^(30+e) + zy * 2^(31+e): adding zy times the divisor before the floor is
 * adding zy after it, and |acc * mult| + |K| < 2^63 for e <= 22 and |zy| <=
 * 256, so the 64-bit sum cannot overflow. In 64-bit lanes (the even and the
 * odd accumulators apart, joined again by one permute), then the clamp to
 * [lo, hi]. m = mult and k = K in every 64-bit lane, n = 31 + e; the
 * result's lanes are in [lo, hi]. */
MLFK_TARGET("avx512f")
MLFK_FN __m512i mlfk_s8_requant16_avx512(__m512i acc, __m512i m, __m512i k, __m128i n, __m512i lo, __m512i hi) {
  /* Lane 2i of the result from lane 2i of ev, lane 2i + 1 from lane 2i of od. */
  const __m512i join = _mm512_set_epi32(30, 14, 28, 12, 26, 10, 24, 8, 22, 6, 20, 4, 18, 2, 16, 0);
  __m512i ev = _mm512_add_epi64(_mm512_mul_epi32(acc, m), k);
  __m512i od = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(acc, 32), m), k);
  /* Each quotient fits its 64-bit lane's low half. */
  ev = _mm512_sra_epi64(ev, n);
  od = _mm512_sra_epi64(od, n);
  acc = _mm512_permutex2var_epi32(ev, join, od);
  return _mm512_min_epi32(_mm512_max_epi32(acc, lo), hi);
}

/* The constants of mlfk_s8_requant16_avx512 for row r (shift < 0). */
typedef struct {
  __m512i m, k;
  __m128i n;
} mlfk_s8_rq512;

MLFK_TARGET("avx512f")
MLFK_FN mlfk_s8_rq512 mlfk_s8_rq512_of(const mlfk_gemm_s8_args* a, int r) {
  const int e = a->shift[r] < -31 ? 31 : -a->shift[r];
  mlfk_s8_rq512 q;
  q.m = _mm512_set1_epi64(a->mult[r]);
  q.k = _mm512_set1_epi64(((int64_t)1 << (30 + e)) + (int64_t)a->zy * ((int64_t)1 << (31 + e)));
  q.n = _mm_cvtsi32_si128(31 + e);
  return q;
}

/* Whether row r takes the vector requantisation: every row the export
 * writes for a positive scale ratio in [2^-23, 1/2) does (smaller ratios
 * send nearly every output to the zero point; they take the scalar code). */
MLFK_FN int mlfk_s8_rq_fast(const mlfk_gemm_s8_args* a, int r) {
  return a->shift[r] < 0 && a->shift[r] >= -22 && a->mult[r] > 0;
}

/* mlfk_s8_store for int8/uint8 outputs with contiguous columns (ocs == 1),
 * 16 columns per step through mlfk_s8_requant16_avx512, a masked narrowing
 * store. Other rows (a left shift, shift 0, a negative multiplier) and any
 * other layout go through the scalar code. */
MLFK_TARGET("avx512f")
MLFK_FN void mlfk_s8_store_avx512(const mlfk_gemm_s8_args* a, int r0, int rows, int c0, int cols,
                                  const int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
  int i, j;
  if (a->mult == NULL || a->ocs != 1) {
    mlfk_s8_store(a, r0, rows, c0, cols, acc);
    return;
  }
  for (i = 0; i < rows; ++i) {
    const int r = r0 + i;
    uint8_t* o = (uint8_t*)a->out + (ptrdiff_t)r * a->ors + c0;
    if (!mlfk_s8_rq_fast(a, r)) {
      mlfk_s8_store(a, r, 1, c0, cols, (const int32_t(*)[MLFK_S8_TC])acc[i]);
      continue;
    }
    {
      const mlfk_s8_rq512 q = mlfk_s8_rq512_of(a, r);
      const __m512i lo = _mm512_set1_epi32(a->lo), hi = _mm512_set1_epi32(a->hi);
      for (j = 0; j < cols; j += 16) {
        const __mmask16 k = (__mmask16)(cols - j >= 16 ? 0xFFFF : (1u << (cols - j)) - 1u);
        const __m512i v = _mm512_maskz_loadu_epi32(k, acc[i] + j);
        _mm512_mask_cvtepi32_storeu_epi8(o + j, k, mlfk_s8_requant16_avx512(v, q.m, q.k, q.n, lo, hi));
      }
    }
  }
}

/* acc += x . (the 4 weights at p broadcast), vpdpbusd with its broadcast
 * memory operand, the accumulator updated in place. Written out because
 * GCC 12 gives _mm512_dpbusd_epi32 an accumulator it copies before and
 * after each use: two register moves per multiply in the 8-row tile. */
typedef int32_t mlfk_s8_word __attribute__((may_alias, aligned(1)));
#define MLFK_S8_DPBUSD_B(acc, x, p) \
  __asm__("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(x), "m"(*(const mlfk_s8_word*)(p)))

/* Rows of the VNNI tile that stores bytes (mlfk_s8_tile_vnni_out). */
#define MLFK_S8_VR 8

/* The VNNI tile and its requantisation in one: 8 rows x 32 columns at a
 * time over columns [0, n) of x (column c of x is output column c0 + c),
 * the rows' requantisation constants made once for all of them. The sums
 * stay in sixteen named registers (an array of vectors indexed in a loop,
 * GCC kept in memory) and leave as output bytes (rows r0.., a layout with
 * ocs == 1 whose rows all take the vector requantisation; the caller
 * checks, mlfk_s8_fused_ok). Rows past `rows` repeat the last row's sums
 * and are not stored. The same bits as mlfk_s8_tile_vnni + mlfk_s8_store. */
MLFK_TARGET("avx512f,avx512bw,avx512vnni")
MLFK_FN void mlfk_s8_tile_vnni_out(const mlfk_gemm_s8_args* a, int r0, int rows, const uint8_t* MLFK_RESTRICT x,
                                   int ldx, int c0, int n) {
  const int kqn = (a->k + 3) / 4, kfull = a->k / 4;
  const ptrdiff_t xs = (ptrdiff_t)ldx * 4;
  const __m512i lo = _mm512_set1_epi32(a->lo), hi = _mm512_set1_epi32(a->hi);
  mlfk_s8_rq512 q[MLFK_S8_VR];
  int i, c, kq;
  for (i = 0; i < rows; ++i) q[i] = mlfk_s8_rq512_of(a, r0 + i);
#define MLFK_S8_VROW(i) (r0 + ((i) < rows ? (i) : rows - 1))
#define MLFK_S8_VW(i) const int8_t* w##i = a->w + (ptrdiff_t)MLFK_S8_VROW(i) * a->ldw;
#define MLFK_S8_VDECL(i) __m512i s##i##0 = _mm512_set1_epi32(a->bias[MLFK_S8_VROW(i)]), s##i##1 = s##i##0;
#define MLFK_S8_VSTEP(i)                                                   \
  MLFK_S8_DPBUSD_B(s##i##0, x0, w##i + kq * 4);                            \
  MLFK_S8_DPBUSD_B(s##i##1, x1, w##i + kq * 4);
#define MLFK_S8_VLAST(i)                                                   \
  {                                                                        \
    const __m512i wv_ = _mm512_set1_epi32((int32_t)mlfk_s8_wquad(w##i, a->k, kfull)); \
    s##i##0 = _mm512_dpbusd_epi32(s##i##0, x0, wv_);                      \
    s##i##1 = _mm512_dpbusd_epi32(s##i##1, x1, wv_);                      \
  }
#define MLFK_S8_VOUT(i)                                                    \
  if ((i) < rows) {                                                        \
    uint8_t* o_ = (uint8_t*)a->out + (ptrdiff_t)(r0 + (i)) * a->ors + c0 + c; \
    _mm512_mask_cvtepi32_storeu_epi8(o_, m0, mlfk_s8_requant16_avx512(s##i##0, q[i].m, q[i].k, q[i].n, lo, hi)); \
    if (m1) {                                                              \
      _mm512_mask_cvtepi32_storeu_epi8(o_ + 16, m1,                        \
                                       mlfk_s8_requant16_avx512(s##i##1, q[i].m, q[i].k, q[i].n, lo, hi)); \
    }                                                                      \
  }
  MLFK_ROWS8(MLFK_S8_VW)
  for (c = 0; c < n; c += 32) {
    const int cols = n - c;
    const __mmask16 m0 = (__mmask16)(cols >= 16 ? 0xFFFF : (1u << cols) - 1u);
    const __mmask16 m1 = (__mmask16)(cols >= 32 ? 0xFFFF : (cols > 16 ? (1u << (cols - 16)) - 1u : 0u));
    const uint8_t* xq = x + (ptrdiff_t)c * 4;
    MLFK_ROWS8(MLFK_S8_VDECL)
    for (kq = 0; kq < kfull; ++kq, xq += xs) {
      const __m512i x0 = _mm512_maskz_loadu_epi32(m0, xq);
      const __m512i x1 = _mm512_maskz_loadu_epi32(m1, xq + 64);
      MLFK_ROWS8(MLFK_S8_VSTEP)
    }
    if (kqn > kfull) {
      const __m512i x0 = _mm512_maskz_loadu_epi32(m0, xq);
      const __m512i x1 = _mm512_maskz_loadu_epi32(m1, xq + 64);
      MLFK_ROWS8(MLFK_S8_VLAST)
    }
    MLFK_ROWS8(MLFK_S8_VOUT)
  }
#undef MLFK_S8_VROW
#undef MLFK_S8_VW
#undef MLFK_S8_VDECL
#undef MLFK_S8_VSTEP
#undef MLFK_S8_VLAST
#undef MLFK_S8_VOUT
}

/* One column (a Gemm of one activation row, as a classifier's last layer):
 * each output row's dot product with x along k, 64 bytes per vpdpbusd
 * (instead of a 32-column tile with one useful column), four rows at a
 * time, the 16 partial sums added in wrapping int32 (any order gives the
 * same bits), then the scalar store. x is the column's ceil(k / 4) quads,
 * contiguous (ldx == 1), 0 beyond k. */
MLFK_TARGET("avx512f,avx512bw,avx512vnni")
MLFK_FN void mlfk_s8_gemv_vnni(const mlfk_gemm_s8_args* a, const uint8_t* MLFK_RESTRICT x, int c0) {
  const int k = a->k;
  int r, i, kk;
  for (r = 0; r < a->m; r += 4) {
    const int rows = a->m - r < 4 ? a->m - r : 4;
    __m512i s[4];
    int32_t acc[4];
    for (i = 0; i < 4; ++i) s[i] = _mm512_setzero_si512();
    for (kk = 0; kk < k; kk += 64) {
      const __mmask64 m = k - kk >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (k - kk)) - 1);
      const __m512i xv = _mm512_maskz_loadu_epi8(m, x + kk);
      for (i = 0; i < 4; ++i) {
        const int8_t* w = a->w + (ptrdiff_t)(r + (i < rows ? i : rows - 1)) * a->ldw + kk;
        s[i] = _mm512_dpbusd_epi32(s[i], xv, _mm512_maskz_loadu_epi8(m, w));
      }
    }
    for (i = 0; i < rows; ++i) {
      acc[i] = (int32_t)((uint32_t)a->bias[r + i] + (uint32_t)_mm512_reduce_add_epi32(s[i]));
      mlfk_s8_store_row(a, r + i, c0, 1, acc + i);
    }
  }
}

#endif /* MLFK_X86 */

/* Stores a tile as variant `isa` does (the same bits as mlfk_s8_store). */
MLFK_FN void mlfk_s8_store_isa(int isa, const mlfk_gemm_s8_args* a, int r0, int rows, int c0, int cols,
                               const int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && __builtin_cpu_supports("avx512f")) {
    mlfk_s8_store_avx512(a, r0, rows, c0, cols, acc);
    return;
  }
#endif
  (void)isa;
  mlfk_s8_store(a, r0, rows, c0, cols, acc);
}

/* Whether this CPU runs variant `isa` of this family (as mlfk_isa_supported;
 * avx512 without VNNI runs the AVX2 tile). */
MLFK_FN void mlfk_s8_tile(int isa, const mlfk_gemm_s8_args* a, int r0, int rows, const uint8_t* x,
                          int ldx, int cols, int32_t acc[MLFK_S8_TR][MLFK_S8_TC]) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && mlfk_s8_has_vnni()) {
    mlfk_s8_tile_vnni(a, r0, rows, x, ldx, cols, acc);
    return;
  }
  if (isa != MLFK_ISA_PORTABLE) {
    mlfk_s8_tile_avx2(a, r0, rows, x, ldx, cols, acc);
    return;
  }
#endif
  (void)isa;
  mlfk_s8_tile_portable(a, r0, rows, x, ldx, cols, acc);
}

#if MLFK_X86
/* Whether mlfk_s8_tile_vnni_out stores this operator's outputs: bytes with
 * contiguous columns, every row with the vector requantisation. */
MLFK_FN int mlfk_s8_fused_ok(const mlfk_gemm_s8_args* a) {
  int r;
  if (a->mult == NULL || a->ocs != 1) return 0;
  for (r = 0; r < a->m; ++r) {
    if (!mlfk_s8_rq_fast(a, r)) return 0;
  }
  return 1;
}
#endif

/* Columns [c0, c0 + n) of the output from their packed quads x (ldx
 * columns per quad row, x's column 0 being output column c0). */
MLFK_FN void mlfk_gemm_s8_block(int isa, const mlfk_gemm_s8_args* a, const uint8_t* x, int ldx, int c0, int n) {
  int32_t acc[MLFK_S8_TR][MLFK_S8_TC];
  int r, c;
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && n == 1 && ldx == 1 && mlfk_s8_has_vnni()) {
    mlfk_s8_gemv_vnni(a, x, c0);
    return;
  }
  if (isa == MLFK_ISA_AVX512 && mlfk_s8_has_vnni() && mlfk_s8_fused_ok(a)) {
    /* Rows outer (each group's constants made once, its weights kept in
     * L1) while the block's quads fit in 32 KiB: the expansions of
     * MobileNetV2, k <= 128; else columns outer, so that the quads of 32
     * columns stay in L1 while the weights stream by. */
    if ((size_t)((a->k + 3) / 4) * 4 * (size_t)n <= 32768) {
      for (r = 0; r < a->m; r += MLFK_S8_VR) {
        mlfk_s8_tile_vnni_out(a, r, a->m - r < MLFK_S8_VR ? a->m - r : MLFK_S8_VR, x, ldx, c0, n);
      }
      return;
    }
    for (c = 0; c < n; c += MLFK_S8_TC) {
      const int cols = n - c < MLFK_S8_TC ? n - c : MLFK_S8_TC;
      for (r = 0; r < a->m; r += MLFK_S8_VR) {
        mlfk_s8_tile_vnni_out(a, r, a->m - r < MLFK_S8_VR ? a->m - r : MLFK_S8_VR, x + (ptrdiff_t)c * 4, ldx,
                              c0 + c, cols);
      }
    }
    return;
  }
#endif
#if MLFK_S8_DSP && !MLFK_S8_MVE
  if (mlfk_s8_dsp_block(a, x, ldx, c0, n)) return;
#endif
  for (c = 0; c < n; c += MLFK_S8_TC) {
    const int cols = n - c < MLFK_S8_TC ? n - c : MLFK_S8_TC;
    for (r = 0; r < a->m; r += MLFK_S8_TR) {
      const int rows = a->m - r < MLFK_S8_TR ? a->m - r : MLFK_S8_TR;
      mlfk_s8_tile(isa, a, r, rows, x + (ptrdiff_t)c * 4, ldx, cols, acc);
      mlfk_s8_store_isa(isa, a, r, rows, c0 + c, cols, (const int32_t(*)[MLFK_S8_TC])acc);
    }
  }
}

/* ---- Gemm: out[r][c] over the rows c of a row-major activation ---- */

/* Packs rows [c0, c0 + n) of the activation act (k bytes each, row stride
 * lda; `is_signed`: int8, shifted to uint8) into quads with n columns. */
MLFK_FN void mlfk_s8_pack_rows(const uint8_t* act, ptrdiff_t lda, int is_signed, int k, int c0, int n,
                               uint8_t* MLFK_RESTRICT x) {
  const int kqn = (k + 3) / 4;
  const uint8_t flip = is_signed ? 0x80 : 0x00;
  int c, kk;
  for (c = 0; c < n; ++c) {
    const uint8_t* row = act + (ptrdiff_t)(c0 + c) * lda;
    for (kk = 0; kk < kqn * 4; ++kk) {
      x[((ptrdiff_t)(kk >> 2) * n + c) * 4 + (kk & 3)] = kk < k ? (uint8_t)(row[kk] ^ flip) : 0;
    }
  }
}

typedef struct {
  int isa, tasks, n;
  const mlfk_gemm_s8_args* a;
  const uint8_t* act;
  ptrdiff_t lda;
  int is_signed;
  uint8_t* scratch;
} mlfk_gemm_s8_job;

MLFK_FN void mlfk_gemm_s8_task(void* arg, int32_t task) {
  const mlfk_gemm_s8_job* j = (const mlfk_gemm_s8_job*)arg;
  const ptrdiff_t kq4 = (ptrdiff_t)((j->a->k + 3) / 4) * 4;
  int b, e;
  mlfk_split(j->n, j->tasks, (int)task, &b, &e);
  if (e <= b) return;
  mlfk_s8_pack_rows(j->act, j->lda, j->is_signed, j->a->k, b, e - b, j->scratch + kq4 * b);
  mlfk_gemm_s8_block(j->isa, j->a, j->scratch + kq4 * b, e - b, b, e - b);
}

/* Scratch bytes of mlfk_gemm_s8_exec: the activation's n rows as quads. */
MLFK_FN size_t mlfk_gemm_s8_scratch(int n, int k) { return (size_t)n * (size_t)((k + 3) / 4) * 4; }

/* The whole Gemm, n activation rows, variant `isa`, over `tasks` tasks. */
MLFK_FN void mlfk_gemm_s8_run(int isa, const mlfk_exec* ex, int tasks, const mlfk_gemm_s8_args* a,
                              const void* act, ptrdiff_t lda, int is_signed, int n, void* scratch) {
  mlfk_gemm_s8_job j;
  j.isa = isa;
  j.tasks = tasks;
  j.n = n;
  j.a = a;
  j.act = (const uint8_t*)act;
  j.lda = lda;
  j.is_signed = is_signed;
  j.scratch = (uint8_t*)scratch;
  mlfk_exec_run(ex, mlfk_gemm_s8_task, &j, tasks);
}

MLFK_FN void mlfk_gemm_s8_with(int isa, const mlfk_gemm_s8_args* a, const void* act, ptrdiff_t lda,
                               int is_signed, int n, void* scratch) {
  mlfk_gemm_s8_run(isa, NULL, 1, a, act, lda, is_signed, n, scratch);
}

/* For generated code: the run's variant, split by activation rows. */
MLFK_FN void mlfk_gemm_s8_exec(const mlfk_exec* ex, const mlfk_gemm_s8_args* a, const void* act, ptrdiff_t lda,
                               int is_signed, int n, void* scratch) {
  mlfk_gemm_s8_run(mlfk_exec_isa(ex), ex, mlfk_exec_tasks(ex, (n + 7) / 8), a, act, lda, is_signed, n, scratch);
}

/* ---- 2-D NCHW convolution, one group, through im2col into quads ---- */

typedef struct {
  int c, h, w;        /* input channels, height, width */
  int kh, kw, sh, sw, ph, pw, dh, dw;
  int oh, ow;         /* output height, width */
} mlfk_conv_s8_geom;

/* Output pixels per im2col chunk (fewer when the image has fewer). */
#define MLFK_CONV_S8_CHUNK 256

/* Scratch bytes of mlfk_conv_s8_exec. */
MLFK_FN size_t mlfk_conv_s8_scratch(const mlfk_conv_s8_geom* g) {
  const int p = g->oh * g->ow;
  const int chunk = p < MLFK_CONV_S8_CHUNK ? p : MLFK_CONV_S8_CHUNK;
  return (size_t)chunk * (size_t)((g->c * g->kh * g->kw + 3) / 4) * 4;
}

#if MLFK_X86
/* Four runs of n bytes (c0..c3) interleaved into n quads at d, each byte
 * xor flip, 64 quads a step: bytes then 16-bit pairs unpacked within
 * 128-bit lanes, then the lanes put in order by two rounds of 128-bit
 * shuffles; the tail by masked loads and stores. */
MLFK_TARGET("avx512f,avx512bw")
MLFK_FN void mlfk_s8_interleave4_avx512(const uint8_t* c0, const uint8_t* c1, const uint8_t* c2, const uint8_t* c3,
                                        int n, uint8_t flip, uint8_t* MLFK_RESTRICT d) {
  const __m512i f = _mm512_set1_epi8((char)flip);
  int i, j;
  for (i = 0; i < n; i += 64) {
    const int left = n - i;
    const __mmask64 m = left >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << left) - 1);
    const __m512i a = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, c0 + i), f);
    const __m512i b = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, c1 + i), f);
    const __m512i c = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, c2 + i), f);
    const __m512i e = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, c3 + i), f);
    const __m512i ab0 = _mm512_unpacklo_epi8(a, b), ab1 = _mm512_unpackhi_epi8(a, b);
    const __m512i ce0 = _mm512_unpacklo_epi8(c, e), ce1 = _mm512_unpackhi_epi8(c, e);
    /* Lane L of q0..q3: the quads of pixels 16L..16L+3, +4..7, +8..11, +12..15. */
    const __m512i q0 = _mm512_unpacklo_epi16(ab0, ce0), q1 = _mm512_unpackhi_epi16(ab0, ce0);
    const __m512i q2 = _mm512_unpacklo_epi16(ab1, ce1), q3 = _mm512_unpackhi_epi16(ab1, ce1);
    const __m512i t0 = _mm512_shuffle_i32x4(q0, q1, 0x44), t1 = _mm512_shuffle_i32x4(q0, q1, 0xEE);
    const __m512i t2 = _mm512_shuffle_i32x4(q2, q3, 0x44), t3 = _mm512_shuffle_i32x4(q2, q3, 0xEE);
    __m512i o[4];
    o[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
    o[1] = _mm512_shuffle_i32x4(t0, t2, 0xDD);
    o[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
    o[3] = _mm512_shuffle_i32x4(t1, t3, 0xDD);
    for (j = 0; j < 4; ++j) {
      const int bytes = 4 * left - 64 * j;
      if (bytes <= 0) break;
      _mm512_mask_storeu_epi8(d + 4 * i + 64 * j, bytes >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << bytes) - 1), o[j]);
    }
  }
}
#endif

#if MLFK_X86
/* n bytes of value v at d by masked stores. */
MLFK_TARGET("avx512f,avx512bw")
MLFK_FN void mlfk_s8_fill_avx512(uint8_t* d, int n, uint8_t v) {
  const __m512i b = _mm512_set1_epi8((char)v);
  int c;
  for (c = 0; c < n; c += 64) {
    _mm512_mask_storeu_epi8(d + c, n - c >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - c)) - 1), b);
  }
}

/* Tap kk's bytes of output pixels (oy, ox..ox + run - 1) into out, as the
 * generic im2col writes them (0 past k, pad outside the image, x ^ flip
 * inside): the columns inside found once, then copied 64 a step at
 * stride 1, 32 a step at stride 2 (the even bytes of 64, by the word to
 * byte narrowing), one by one at other strides. */
MLFK_TARGET("avx512f,avx512bw")
MLFK_FN void mlfk_s8_tap_run_avx512(const mlfk_conv_s8_geom* g, const uint8_t* img, uint8_t flip, uint8_t pad,
                                    int kk, int k, int oy, int ox, int run, uint8_t* MLFK_RESTRICT out) {
  const __m512i f = _mm512_set1_epi8((char)flip);
  int ci, t, iy, ix0, jlo, jhi, j;
  const uint8_t* src;
  if (kk >= k) {
    mlfk_s8_fill_avx512(out, run, 0);
    return;
  }
  ci = kk / (g->kh * g->kw);
  t = kk % (g->kh * g->kw);
  iy = oy * g->sh + (t / g->kw) * g->dh - g->ph;
  ix0 = ox * g->sw + (t % g->kw) * g->dw - g->pw;
  if (iy < 0 || iy >= g->h) {
    mlfk_s8_fill_avx512(out, run, pad);
    return;
  }
  /* Output j reads column ix0 + j * sw: inside for jlo <= j < jhi. */
  jlo = ix0 < 0 ? (-ix0 + g->sw - 1) / g->sw : 0;
  jlo = jlo < run ? jlo : run;
  jhi = ix0 < g->w ? (g->w - ix0 + g->sw - 1) / g->sw : 0;
  jhi = jhi < run ? jhi : run;
  jhi = jhi > jlo ? jhi : jlo;
  mlfk_s8_fill_avx512(out, jlo, pad);
  mlfk_s8_fill_avx512(out + jhi, run - jhi, pad);
  src = img + ((ptrdiff_t)ci * g->h + iy) * g->w + ix0 + (ptrdiff_t)jlo * g->sw;
  if (g->sw == 1) {
    for (j = jlo; j < jhi; j += 64) {
      const __mmask64 m = jhi - j >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (jhi - j)) - 1);
      _mm512_mask_storeu_epi8(out + j, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + (j - jlo)), f));
    }
  } else if (g->sw == 2) {
    for (j = jlo; j < jhi; j += 32) {
      const int cnt = jhi - j < 32 ? jhi - j : 32;
      /* 2 cnt - 1 bytes: the last pair's odd byte may lie past the row. */
      const __mmask64 m = cnt == 32 ? (~(__mmask64)0 >> 1) : (((__mmask64)1 << (2 * cnt - 1)) - 1);
      const __m256i even = _mm512_cvtepi16_epi8(_mm512_maskz_loadu_epi8(m, src + 2 * (j - jlo)));
      _mm512_mask_storeu_epi8(out + j, ((__mmask64)1 << cnt) - 1,
                              _mm512_xor_si512(_mm512_castsi256_si512(even), f));
    }
  } else {
    for (j = jlo; j < jhi; ++j) out[j] = (uint8_t)(src[(ptrdiff_t)(j - jlo) * g->sw] ^ flip);
  }
}

/* The generic im2col from quad kq0 on: per quad and output row (in pieces
 * of up to 256 columns), its four taps' runs, then interleaved. */
MLFK_TARGET("avx512f,avx512bw")
MLFK_FN void mlfk_s8_im2col_avx512(const mlfk_conv_s8_geom* g, const uint8_t* img, uint8_t flip, uint8_t pad,
                                   int kq0, int p0, int n, uint8_t* MLFK_RESTRICT x) {
  const int k = g->c * g->kh * g->kw, kqn = (k + 3) / 4;
  uint8_t t[4][256];
  int kq, i, j;
  for (kq = kq0; kq < kqn; ++kq) {
    int oy = p0 / g->ow, ox = p0 % g->ow;
    for (i = 0; i < n;) {
      int run = g->ow - ox < n - i ? g->ow - ox : n - i;
      run = run < 256 ? run : 256;
      for (j = 0; j < 4; ++j) mlfk_s8_tap_run_avx512(g, img, flip, pad, kq * 4 + j, k, oy, ox, run, t[j]);
      mlfk_s8_interleave4_avx512(t[0], t[1], t[2], t[3], run, 0, x + ((ptrdiff_t)kq * n + i) * 4);
      i += run;
      ox += run;
      if (ox == g->ow) {
        ox = 0;
        ++oy;
      }
    }
  }
}
#endif

/* The quads of output pixels [p0, p0 + n) of one image x (c planes),
 * variant isa (the same bytes in each). */
MLFK_FN void mlfk_s8_im2col(int isa, const mlfk_conv_s8_geom* g, const uint8_t* img, int is_signed, uint8_t pad,
                            int p0, int n, uint8_t* MLFK_RESTRICT x) {
  const int k = g->c * g->kh * g->kw, kqn = (k + 3) / 4;
  const uint8_t flip = is_signed ? 0x80 : 0x00;
  int kk = 0, i;
  (void)isa;
  if (g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0 && g->oh == g->h &&
      g->ow == g->w) {
    /* 1x1, stride 1, unpadded (pointwise): pixel p of every plane is
     * column p, so each quad of channels interleaves four runs of bytes
     * (the generic loop below pays its setup per output row, ~17
     * instructions a byte on DS-CNN's 5-wide rows on a Cortex-M4, this 2). */
    const ptrdiff_t hw = (ptrdiff_t)g->h * g->w;
    for (; kk + 4 <= k; kk += 4) {
      const uint8_t* c0 = img + kk * hw + p0;
      const uint8_t* c1 = c0 + hw;
      const uint8_t* c2 = c1 + hw;
      const uint8_t* c3 = c2 + hw;
      uint8_t* d = x + (ptrdiff_t)(kk >> 2) * n * 4;
#if MLFK_X86
      if (isa == MLFK_ISA_AVX512 && __builtin_cpu_supports("avx512bw")) {
        mlfk_s8_interleave4_avx512(c0, c1, c2, c3, n, flip, d);
        continue;
      }
#endif
      for (i = 0; i < n; ++i) {
        d[i * 4] = (uint8_t)(c0[i] ^ flip);
        d[i * 4 + 1] = (uint8_t)(c1[i] ^ flip);
        d[i * 4 + 2] = (uint8_t)(c2[i] ^ flip);
        d[i * 4 + 3] = (uint8_t)(c3[i] ^ flip);
      }
    }
  }
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && __builtin_cpu_supports("avx512bw")) {
    mlfk_s8_im2col_avx512(g, img, flip, pad, kk / 4, p0, n, x);
    return;
  }
#endif
  for (; kk < kqn * 4; ++kk) {
    uint8_t* dst = x + (ptrdiff_t)(kk >> 2) * n * 4 + (kk & 3);
    if (kk >= k) {
      for (i = 0; i < n; ++i) dst[i * 4] = 0;
    } else {
      const int ci = kk / (g->kh * g->kw), t = kk % (g->kh * g->kw);
      const int dy = (t / g->kw) * g->dh - g->ph, dx = (t % g->kw) * g->dw - g->pw;
      const uint8_t* plane = img + (ptrdiff_t)ci * g->h * g->w;
      int oy = p0 / g->ow, ox = p0 % g->ow;
      /* One output row at a time: the tap's input row is inside or not,
       * and a column is inside when (unsigned)ix < w. */
      for (i = 0; i < n;) {
        const int run = g->ow - ox < n - i ? g->ow - ox : n - i;
        const int iy = oy * g->sh + dy;
        uint8_t* d = dst + (ptrdiff_t)i * 4;
        int j;
        if (iy < 0 || iy >= g->h) {
          for (j = 0; j < run; ++j) d[j * 4] = pad;
        } else {
          const uint8_t* row = plane + (ptrdiff_t)iy * g->w;
          int ix = ox * g->sw + dx;
          for (j = 0; j < run; ++j, ix += g->sw) {
            d[j * 4] = (unsigned)ix < (unsigned)g->w ? (uint8_t)(row[ix] ^ flip) : pad;
          }
        }
        i += run;
        ox = 0;
        ++oy;
      }
    }
  }
}

/* Intra-op threads. An image of at least MLFK_S8_PIXEL_CUT_MIN output
 * pixels per task is cut by pixels, the same range of every plane, in
 * blocks of 64 (one line of uint8 outputs) where a plane is whole lines
 * (112x112, 56x56: no line of the output then holds both tasks' pixels),
 * each task packing its own columns. A smaller image is cut by output
 * channels, in groups of MLFK_S8_ROW_GROUP rows: each task writes whole
 * planes, packs every column for itself (the scratch's slice of chunk /
 * tasks pixels at a time) and multiplies only its rows. Cut by pixels, a
 * 14x14 or 7x7 plane (196 or 49 bytes) gave nearly every line of the output
 * to both tasks, which pass it between their cores as they write it.
 * Measured on int8 MobileNetV2 (bench/README.md), two threads: 2.14 ->
 * 2.01-2.04 ms with the VM's vCPUs far apart, 1.205 -> 1.196 ms close
 * together. Integer sums are exact, so any cut gives the same bytes. */
#define MLFK_S8_PIXEL_CUT_MIN 256
#define MLFK_S8_ROW_GROUP 8

typedef struct {
  int isa, tasks, chunk, by_rows;
  const mlfk_conv_s8_geom* g;
  const mlfk_gemm_s8_args* a; /* ors = pixels per channel, ocs = 1, out at this image */
  const uint8_t* img;
  int is_signed;
  uint8_t pad;
  uint8_t* scratch;
} mlfk_conv_s8_job;

/* Rows [r0, r1) of a as arguments of their own. */
MLFK_FN mlfk_gemm_s8_args mlfk_gemm_s8_rows(const mlfk_gemm_s8_args* a, int r0, int r1) {
  mlfk_gemm_s8_args r = *a;
  const size_t elem = a->mult ? 1 : 4;
  r.m = r1 - r0;
  r.w = a->w + (ptrdiff_t)r0 * a->ldw;
  r.bias = a->bias + r0;
  if (a->mult) r.mult = a->mult + r0;
  if (a->shift) r.shift = a->shift + r0;
  r.out = (uint8_t*)a->out + (ptrdiff_t)r0 * a->ors * (ptrdiff_t)elem;
  return r;
}

MLFK_FN void mlfk_conv_s8_task(void* arg, int32_t task) {
  const mlfk_conv_s8_job* j = (const mlfk_conv_s8_job*)arg;
  const int pixels = j->g->oh * j->g->ow;
  const ptrdiff_t kq4 = (ptrdiff_t)((j->a->k + 3) / 4) * 4;
  const int chunk = j->chunk / j->tasks;
  uint8_t* x = j->scratch + kq4 * (ptrdiff_t)chunk * task;
  mlfk_gemm_s8_args rows = *j->a;
  int b = 0, e = pixels, p;
  if (j->by_rows) {
    int r0, r1;
    mlfk_split_blocks(j->a->m, MLFK_S8_ROW_GROUP, j->tasks, (int)task, &r0, &r1);
    if (r1 <= r0) return;
    rows = mlfk_gemm_s8_rows(j->a, r0, r1);
  } else {
    mlfk_split_blocks(pixels, pixels % 64 == 0 ? 64 : 1, j->tasks, (int)task, &b, &e);
  }
  for (p = b; p < e; p += chunk) {
    const int n = e - p < chunk ? e - p : chunk;
    mlfk_s8_im2col(j->isa, j->g, j->img, j->is_signed, j->pad, p, n, x);
    mlfk_gemm_s8_block(j->isa, &rows, x, n, p, n);
  }
}

/* The convolution of `batch` images x (NCHW) into out (NCHW, a->out); a's
 * m rows are the output channels, k = c * kh * kw; zx_u is the input's zero
 * point as uint8 (the padding value). */
MLFK_FN void mlfk_conv_s8_run(int isa, const mlfk_exec* ex, int threads, const mlfk_conv_s8_geom* g,
                              const mlfk_gemm_s8_args* a, const void* x, int is_signed, int zx_u, int batch,
                              void* scratch) {
  const int pixels = g->oh * g->ow;
  const int chunk = pixels < MLFK_CONV_S8_CHUNK ? pixels : MLFK_CONV_S8_CHUNK;
  /* Each task needs a slice of at least 4 pixels of the chunk, and a block
   * of pixels (by channels, a group of 8 rows). */
  const int by_rows = threads <= 1 || pixels / threads < MLFK_S8_PIXEL_CUT_MIN;
  const int units = by_rows ? (a->m + MLFK_S8_ROW_GROUP - 1) / MLFK_S8_ROW_GROUP
                            : (pixels % 64 == 0 ? pixels / 64 : pixels);
  int tasks = threads < chunk / 4 ? threads : chunk / 4;
  const size_t elem = a->mult ? 1 : 4;
  int i;
  mlfk_gemm_s8_args ai = *a;
  mlfk_conv_s8_job j;
  tasks = tasks < units ? tasks : units;
  if (tasks < 1) tasks = 1;
  j.by_rows = by_rows;
  ai.ors = pixels;
  ai.ocs = 1;
  j.isa = isa;
  j.tasks = tasks;
  j.chunk = chunk;
  j.g = g;
  j.a = &ai;
  j.is_signed = is_signed;
  j.pad = (uint8_t)zx_u;
  j.scratch = (uint8_t*)scratch;
  for (i = 0; i < batch; ++i) {
    j.img = (const uint8_t*)x + (ptrdiff_t)i * g->c * g->h * g->w;
    ai.out = (uint8_t*)a->out + (ptrdiff_t)i * a->m * pixels * (ptrdiff_t)elem;
    mlfk_exec_run(ex, mlfk_conv_s8_task, &j, tasks);
  }
}

MLFK_FN void mlfk_conv_s8_with(int isa, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a, const void* x,
                               int is_signed, int zx_u, int batch, void* scratch) {
  mlfk_conv_s8_run(isa, NULL, 1, g, a, x, is_signed, zx_u, batch, scratch);
}

MLFK_FN void mlfk_conv_s8_exec(const mlfk_exec* ex, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a,
                               const void* x, int is_signed, int zx_u, int batch, void* scratch) {
  mlfk_conv_s8_run(mlfk_exec_isa(ex), ex, mlfk_exec_tasks(ex, 1 << 30), g, a, x, is_signed, zx_u, batch,
                   scratch);
}

#endif /* MLF_KERNEL_GEMM_S8_H_ */
