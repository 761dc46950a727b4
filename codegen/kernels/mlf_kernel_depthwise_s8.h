/* mlfkit kernels: int8 depthwise 2-D NCHW convolution (one input and one
 * output channel per group; issue 14, codegen/kernels/README.md).
 *
 *   out[c][oy][ox] = clamp(zy + fixmul(bias[c] + sum_taps (x - zx) * w[c][t],
 *                                      mult[c], shift[c]), lo, hi)
 *
 * x is uint8 or int8 (`is_signed`) with its zero point zx in its own
 * domain; padded taps add nothing. w is int8 [C][kh][kw] as exported, with
 * zero point 0; bias, mult, shift, zy, lo, hi and the int32 output
 * (mult == NULL) as in mlf_kernel_gemm_s8.h, whose mlfk_gemm_s8_args
 * (m = channels, k = kh * kw, ldw = k) and requantisation this family uses.
 * In bands of output rows over a padded int16 copy of their input window
 * (below), int32 sums that wrap, each output requantised once. The x86
 * variants are the same C compiled for AVX2 and AVX-512 (vectorised by the
 * compiler); the sums are exact integers, so every variant, band shape and
 * task split gives the same bits.
 */
#ifndef MLF_KERNEL_DEPTHWISE_S8_H_
#define MLF_KERNEL_DEPTHWISE_S8_H_

#include "mlf_kernel_gemm_s8.h"

/* The band path. A band is `rows` output rows x `n` output columns of one
 * plane. Its input window (the rows and columns its taps read, padding
 * included) is copied into a stack buffer of int16 with pitch wp =
 * (n - 1) * sw + (kw - 1) * dw + 1, each value as it is (x, not x - zx) and
 * the padding as zx, and zx * sum(w) is taken from the bias once per band:
 * sum_taps (x - zx) * w = sum_taps x * w - zx * sum(w) in int32 that wraps,
 * and a padded tap adds zx * w - zx * w = 0, so the sums are exactly those
 * of the definition and no tap needs a bounds test. Stride 1 (both ways):
 * output (t, j) of the band is flat element t * wp + j and tap (ky, kx) of
 * flat element i is buffer element i + ky * dh * wp + kx * dw, so one flat
 * loop of (rows - 1) * wp + n elements covers the band (the wp - n elements
 * between rows are computed and dropped). Other strides, one loop per output
 * row. A 3x3 kernel (dw 1, sw 1 or 2) takes its nine taps in one pass; on a
 * Cortex-M with DSP through __smlad on (x[i], x[i + 1]) pairs. Then each
 * output row is requantised once (gemm_s8's row store).
 *
 * MLFK_DW_S8_BAND is the buffer in int16 elements, MLFK_DW_S8_ACC the
 * sums in int32 (stack on top of the call's frame: 8 + 4 KiB on x86-64,
 * 1 + 1 KiB elsewhere, which holds DS-CNN's 25x5 planes whole: 522k
 * instructions a layer on mps2-an386 against 556k in two bands; a build may
 * define them). A shape whose window of one output does not fit takes
 * mlfk_dw_s8_direct. */
#ifndef MLFK_DW_S8_BAND
#if MLFK_X86
#define MLFK_DW_S8_BAND 4096
#else
#define MLFK_DW_S8_BAND 512
#endif
#endif
#ifndef MLFK_DW_S8_ACC
#if MLFK_X86
#define MLFK_DW_S8_ACC 1024
#else
#define MLFK_DW_S8_ACC 256
#endif
#endif

/* Whether the band path takes sw == sh == 1 as one flat loop. */
MLFK_FN int mlfk_dw_s8_flat(const mlfk_conv_s8_geom* g) { return g->sh == 1 && g->sw == 1; }

/* The band of `g`: *cols output columns and *rows output rows; 0 when even
 * one output's window does not fit (then mlfk_dw_s8_direct). */
MLFK_FN int mlfk_dw_s8_band_shape(const mlfk_conv_s8_geom* g, int* cols, int* rows) {
  const int rin1 = (g->kh - 1) * g->dh + 1, span = (g->kw - 1) * g->dw + 1;
  int n, r, wp, by_acc, by_buf;
  *cols = *rows = 0;
  if (g->oh <= 0 || g->ow <= 0 || MLFK_DW_S8_BAND / rin1 < span || MLFK_DW_S8_ACC < 1) return 0;
  n = (MLFK_DW_S8_BAND / rin1 - span) / g->sw + 1;
  n = n < g->ow ? n : g->ow;
  n = n < MLFK_DW_S8_ACC ? n : MLFK_DW_S8_ACC;
  wp = (n - 1) * g->sw + span;
  by_buf = (MLFK_DW_S8_BAND / wp - rin1) / g->sh + 1;
  by_acc = mlfk_dw_s8_flat(g) ? (MLFK_DW_S8_ACC - n) / wp + 1 : g->oh;
  r = by_buf < by_acc ? by_buf : by_acc;
  *cols = n;
  *rows = r < g->oh ? r : g->oh;
  return 1;
}

/* The window: rin rows of wp values from input rows iy0.. and columns
 * ix0.. of `plane` (h x w), zx outside the image. */
MLFK_FN void mlfk_dw_s8_copy(int16_t* MLFK_RESTRICT d, const uint8_t* plane, int is_signed, int iy0, int rin,
                             int ix0, int wp, int h, int w, int16_t zx) {
  int j, t, lo, hi;
  lo = ix0 < 0 ? (-ix0 < wp ? -ix0 : wp) : 0;
  hi = w - ix0 < wp ? w - ix0 : wp;
  hi = hi > lo ? hi : lo;
  for (t = 0; t < rin; ++t, d += wp) {
    const int iy = iy0 + t;
    if (iy < 0 || iy >= h) {
      for (j = 0; j < wp; ++j) d[j] = zx;
      continue;
    }
    for (j = 0; j < lo; ++j) d[j] = zx;
    if (is_signed) {
      const int8_t* s = (const int8_t*)plane + (ptrdiff_t)iy * w + ix0;
      for (j = lo; j < hi; ++j) d[j] = s[j];
    } else {
      const uint8_t* s = plane + (ptrdiff_t)iy * w + ix0;
      for (j = lo; j < hi; ++j) d[j] = s[j];
    }
    for (j = hi; j < wp; ++j) d[j] = zx;
  }
}

#if MLFK_S8_DSP
/* (lo, hi) as one int16 pair. */
MLFK_FN int32_t mlfk_dw_s8_pair(int32_t lo, int32_t hi) {
  return (int32_t)(((uint32_t)hi << 16) | ((uint32_t)lo & 0xFFFFu));
}

#if !MLFK_S8_MVE
/* One kernel row R of the 3x3 step below: pa = (x[j], x[j+1]) with the
 * row pointer post-incremented, then (x[j+1], x[j+2]) and pb = (x[j+2],
 * x[j+3]) (unaligned word loads), two smlad by the row's (w0, w1) pair and
 * two halfword MACs by its w2 (half H of register W2). */
#define MLFK_DW_S8_DSP_ROW(P, W01, W2, H)                 \
  "ldr    %[pa], [%[" P "]], #4\n\t"                    \
  "smlad  %[s0], %[pa], %[" W01 "], %[s0]\n\t"          \
  "ldr    %[pa], [%[" P "], #-2]\n\t"                   \
  "smlad  %[s1], %[pa], %[" W01 "], %[s1]\n\t"          \
  "ldr    %[pb], [%[" P "]]\n\t"                        \
  "smlab" H " %[s0], %[pb], %[" W2 "], %[s0]\n\t"      \
  "smlat" H " %[s1], %[pb], %[" W2 "], %[s1]\n\t"

/* Stride 1, outputs acc[0 .. 2 * pairs) (pairs >= 1) of rows r0, r1, r2
 * (the window's rows, flat): two outputs a step, per kernel row three
 * loads and four DSP MACs, 26 instructions a step. In assembly with the
 * registers pinned (13 of them; r7, the frame pointer of unoptimised
 * Thumb code, stays out; the bias pair and the end are read from the
 * stack): GCC 12 kept a third of the weights on the stack, 36 a step. */
__attribute__((noinline)) MLFK_FN void mlfk_dw_s8_dsp_3x3(const int16_t* r0, const int16_t* r1, const int16_t* r2,
                                                         const int8_t* wt, uint32_t bias, int pairs,
                                                         int32_t* acc) {
  const int32_t bb[2] = {(int32_t)bias, (int32_t)bias};
  const int32_t* const end = acc + 2 * (ptrdiff_t)pairs;
  register int32_t w01 __asm__("r0") = mlfk_dw_s8_pair(wt[0], wt[1]);
  register int32_t w34 __asm__("r1") = mlfk_dw_s8_pair(wt[3], wt[4]);
  register int32_t w67 __asm__("r2") = mlfk_dw_s8_pair(wt[6], wt[7]);
  register int32_t w25 __asm__("r3") = mlfk_dw_s8_pair(wt[2], wt[5]);
  register int32_t w8 __asm__("r4") = wt[8];
  register int32_t s0 __asm__("r5"), s1 __asm__("r6");
  register uint32_t pa __asm__("r8"), pb __asm__("r9");
  register const int16_t* p0 __asm__("r10") = r0;
  register const int16_t* p1 __asm__("r11") = r1;
  register const int16_t* p2 __asm__("r12") = r2;
  register int32_t* ap __asm__("lr") = acc;
  __asm__ volatile(
      "1:\n\t"
      "ldrd   %[s0], %[s1], %[bb]\n\t"
      MLFK_DW_S8_DSP_ROW("p0", "w01", "w25", "b")
      MLFK_DW_S8_DSP_ROW("p1", "w34", "w25", "t")
      MLFK_DW_S8_DSP_ROW("p2", "w67", "w8", "b")
      "strd   %[s0], %[s1], [%[ap]], #8\n\t"
      "ldr    %[s0], %[end]\n\t"
      "cmp    %[ap], %[s0]\n\t"
      "bne    1b\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [pa] "=&r"(pa), [pb] "=&r"(pb), [p0] "+r"(p0), [p1] "+r"(p1),
        [p2] "+r"(p2), [ap] "+r"(ap)
      : [w01] "r"(w01), [w34] "r"(w34), [w67] "r"(w67), [w25] "r"(w25), [w8] "r"(w8), [bb] "m"(bb[0]),
        [end] "m"(end)
      : "cc", "memory");
}
#undef MLFK_DW_S8_DSP_ROW
#endif
#endif

/* acc[j] = bias + sum_taps wt[tap] * src[j * s + ky * dh * wp + kx * dw],
 * j < n, in int32 that wraps. */
#define MLFK_DW_S8_SUMS(NAME)                                                                            \
  MLFK_FN void NAME(const int16_t* MLFK_RESTRICT src, ptrdiff_t wp, const mlfk_conv_s8_geom* g,          \
                    const int8_t* wt, uint32_t bias, int s, int n, int32_t* MLFK_RESTRICT acc) {         \
    int j, ky, kx;                                                                                       \
    if (g->kh == 3 && g->kw == 3 && g->dw == 1 && (s == 1 || s == 2)) {                                  \
      const int16_t* MLFK_RESTRICT r0 = src;                                                             \
      const int16_t* MLFK_RESTRICT r1 = src + g->dh * wp;                                                \
      const int16_t* MLFK_RESTRICT r2 = src + 2 * g->dh * wp;                                            \
      MLFK_DW_S8_3X3                                                                                     \
      return;                                                                                            \
    }                                                                                                    \
    for (j = 0; j < n; ++j) acc[j] = (int32_t)bias;                                                      \
    for (ky = 0; ky < g->kh; ++ky) {                                                                     \
      for (kx = 0; kx < g->kw; ++kx) {                                                                   \
        const int16_t* MLFK_RESTRICT p = src + ky * g->dh * wp + kx * g->dw;                             \
        const int32_t wv = wt[ky * g->kw + kx];                                                          \
        if (s == 1) {                                                                                    \
          for (j = 0; j < n; ++j) acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)(wv * p[j]));          \
        } else {                                                                                         \
          for (j = 0; j < n; ++j) acc[j] = (int32_t)((uint32_t)acc[j] + (uint32_t)(wv * p[j * s]));      \
        }                                                                                                \
      }                                                                                                  \
    }                                                                                                    \
  }

/* The nine taps in one pass (their sum is below 2^19 in magnitude: no
 * overflow before the bias is added in uint32). */
#define MLFK_DW_S8_3X3_C                                                                                 \
  {                                                                                                      \
    const int32_t w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[3], w4 = wt[4], w5 = wt[5];                \
    const int32_t w6 = wt[6], w7 = wt[7], w8 = wt[8];                                                    \
    if (s == 1) {                                                                                        \
      for (j = 0; j < n; ++j) {                                                                          \
        const int32_t t = w0 * r0[j] + w1 * r0[j + 1] + w2 * r0[j + 2] + w3 * r1[j] + w4 * r1[j + 1] +   \
                          w5 * r1[j + 2] + w6 * r2[j] + w7 * r2[j + 1] + w8 * r2[j + 2];                 \
        acc[j] = (int32_t)(bias + (uint32_t)t);                                                          \
      }                                                                                                  \
    } else {                                                                                             \
      for (j = 0; j < n; ++j) {                                                                          \
        const int32_t t = w0 * r0[2 * j] + w1 * r0[2 * j + 1] + w2 * r0[2 * j + 2] + w3 * r1[2 * j] +    \
                          w4 * r1[2 * j + 1] + w5 * r1[2 * j + 2] + w6 * r2[2 * j] +                     \
                          w7 * r2[2 * j + 1] + w8 * r2[2 * j + 2];                                       \
        acc[j] = (int32_t)(bias + (uint32_t)t);                                                          \
      }                                                                                                  \
    }                                                                                                    \
  }

#if MLFK_S8_MVE
/* Helium, stride 1: four outputs a step in int32 lanes, each tap one
 * widening load of four int16 (VLDRH.S32) and one multiply-accumulate by
 * the tap's weight (VMLA, wrapping); whole steps unpredicated (a predicated
 * load needs a VPST of its own), the last n % 4 outputs predicated. A step
 * of four reads at most two values beyond its last output's window, which
 * the flat band's buffer holds (its last row is wp > n_cols + 1 long).
 * Stride 2 as the C above. */
#define MLFK_DW_S8_MVE_STEP(LOAD, STORE)                                                                \
  {                                                                                                      \
    int32x4_t t = vdupq_n_s32((int32_t)bias);                                                            \
    t = vmlaq_n_s32(t, LOAD(r0 + j), w0);                                                                \
    t = vmlaq_n_s32(t, LOAD(r0 + j + 1), w1);                                                            \
    t = vmlaq_n_s32(t, LOAD(r0 + j + 2), w2);                                                            \
    t = vmlaq_n_s32(t, LOAD(r1 + j), w3);                                                                \
    t = vmlaq_n_s32(t, LOAD(r1 + j + 1), w4);                                                            \
    t = vmlaq_n_s32(t, LOAD(r1 + j + 2), w5);                                                            \
    t = vmlaq_n_s32(t, LOAD(r2 + j), w6);                                                                \
    t = vmlaq_n_s32(t, LOAD(r2 + j + 1), w7);                                                            \
    t = vmlaq_n_s32(t, LOAD(r2 + j + 2), w8);                                                            \
    STORE(acc + j, t);                                                                                   \
  }
#define MLFK_DW_S8_MVE_TAIL_LOAD(P) vldrhq_z_s32(P, p)
#define MLFK_DW_S8_MVE_TAIL_STORE(P, V) vst1q_p_s32(P, V, p)
#define MLFK_DW_S8_3X3                                                                                   \
  if (s == 1) {                                                                                          \
    const int32_t w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[3], w4 = wt[4], w5 = wt[5];                \
    const int32_t w6 = wt[6], w7 = wt[7], w8 = wt[8];                                                    \
    for (j = 0; j + 4 <= n; j += 4) MLFK_DW_S8_MVE_STEP(vldrhq_s32, vst1q_s32)                           \
    if (j < n) {                                                                                         \
      const mve_pred16_t p = vctp32q((uint32_t)(n - j));                                                 \
      MLFK_DW_S8_MVE_STEP(MLFK_DW_S8_MVE_TAIL_LOAD, MLFK_DW_S8_MVE_TAIL_STORE)                           \
    }                                                                                                    \
  } else                                                                                                 \
    MLFK_DW_S8_3X3_C
#elif MLFK_S8_DSP
/* Stride 1: two outputs a step (mlfk_dw_s8_dsp_3x3). Stride 2 and an odd
 * last output: taps kx 0 and 1 as one __smlad on (x[i], x[i+1]), tap 2
 * alone. */
#define MLFK_DW_S8_3X3                                                                                   \
  {                                                                                                      \
    const int32_t w01 = mlfk_dw_s8_pair(wt[0], wt[1]), w34 = mlfk_dw_s8_pair(wt[3], wt[4]);             \
    const int32_t w67 = mlfk_dw_s8_pair(wt[6], wt[7]);                                                   \
    const int32_t w2 = wt[2], w5 = wt[5], w8 = wt[8];                                                    \
    j = 0;                                                                                               \
    if (s == 1 && n >= 2) {                                                                              \
      mlfk_dw_s8_dsp_3x3(r0, r1, r2, wt, bias, n / 2, acc);                                              \
      j = n & ~1;                                                                                        \
    }                                                                                                    \
    for (; j < n; ++j) {                                                                                 \
      const int o = j * s;                                                                               \
      int32_t p0, p1, p2, t;                                                                             \
      memcpy(&p0, r0 + o, 4);                                                                            \
      memcpy(&p1, r1 + o, 4);                                                                            \
      memcpy(&p2, r2 + o, 4);                                                                            \
      t = __smlad(p0, w01, (int32_t)bias);                                                               \
      t = __smlad(p1, w34, t);                                                                           \
      t = __smlad(p2, w67, t);                                                                           \
      acc[j] = (int32_t)((uint32_t)t + (uint32_t)(w2 * r0[o + 2] + w5 * r1[o + 2] + w8 * r2[o + 2]));    \
    }                                                                                                    \
  }
#else
#define MLFK_DW_S8_3X3 MLFK_DW_S8_3X3_C
#endif

MLFK_DW_S8_SUMS(mlfk_dw_s8_sums_portable)
#if MLFK_X86
#undef MLFK_DW_S8_3X3
#define MLFK_DW_S8_3X3 MLFK_DW_S8_3X3_C
MLFK_TARGET("avx2") MLFK_DW_S8_SUMS(mlfk_dw_s8_sums_avx2)
MLFK_TARGET("avx512f,avx512bw,avx2") MLFK_DW_S8_SUMS(mlfk_dw_s8_sums_avx512)
#endif

MLFK_FN void mlfk_dw_s8_sums(int isa, const int16_t* src, ptrdiff_t wp, const mlfk_conv_s8_geom* g,
                             const int8_t* wt, uint32_t bias, int s, int n, int32_t* acc) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && __builtin_cpu_supports("avx512bw")) {
    mlfk_dw_s8_sums_avx512(src, wp, g, wt, bias, s, n, acc);
    return;
  }
  if (isa != MLFK_ISA_PORTABLE) {
    mlfk_dw_s8_sums_avx2(src, wp, g, wt, bias, s, n, acc);
    return;
  }
#endif
  (void)isa;
  mlfk_dw_s8_sums_portable(src, wp, g, wt, bias, s, n, acc);
}

/* Requantised output rows of n sums each (row t's sums at acc + t *
 * apitch, its outputs opitch columns after row t - 1's), through gemm_s8's
 * store of variant isa (row ch of the image's [c][oh * ow] view, columns
 * c0..). */
MLFK_FN void mlfk_dw_s8_store(int isa, const mlfk_gemm_s8_args* a, int ch, int c0, int n, int rows,
                              const int32_t* acc, ptrdiff_t apitch, ptrdiff_t opitch) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512) {
    int i, t;
    for (t = 0; t < rows; ++t) {
      for (i = 0; i < n; i += MLFK_S8_TC) {
        const int cols = n - i < MLFK_S8_TC ? n - i : MLFK_S8_TC;
        mlfk_s8_store_isa(isa, a, ch, 1, c0 + (int)(t * opitch) + i, cols,
                          (const int32_t(*)[MLFK_S8_TC])(acc + t * apitch + i));
      }
    }
    return;
  }
#endif
  (void)isa;
  mlfk_s8_store_rows(a, ch, c0, n, rows, acc, apitch, opitch);
}

typedef struct {
  int isa, tasks, is_signed, batch, cols, rows;
  int fast3x3; /* the AVX-512 3x3 band applies (mlfk_dw_s8_fast3x3) */
  int32_t zx;
  const mlfk_conv_s8_geom* g;
  const mlfk_gemm_s8_args* a;
  const void* x;
} mlfk_dw_s8_job;

#if MLFK_X86
/* The AVX-512 band of a 3x3 kernel, stride s = 1 or 2 both ways, dilation
 * 1, a channel whose requantisation is the vector one (mlfk_s8_rq_fast).
 *
 * The band's input window is copied as x - zx in int16, the padding 0 (so
 * the bias needs no correction), rin rows of the generic band's pitch P.
 * Each kernel row is two multiply-adds of int16 pairs per 16 outputs:
 * (x[i], x[i+1]) . (w0, w1) and (x[i+2], x[i+3]) . (w2, 0) for the
 * output's first tap i. Stride 1 is computed flat, as the generic flat
 * loop: output (t, j) is flat element f = t * P + j and its tap (ky, kx)
 * window element f + ky * P + kx (the P - n outputs between rows computed
 * and dropped), the even and the odd outputs apart (pairs at even and at
 * odd offsets) and joined by one permute per 16, requantised into bytes of
 * the flat layout whose rows are then copied out: 7- and 14-wide planes
 * (MobileNetV2's last blocks) fill the vectors this way, where one row per
 * vector left half of them or more empty. Stride 2 row by row, the pairs
 * of output c + i at 2 (c + i), stored directly. The sums are those of the
 * definition (bias + sum of (x - zx) * w: exact integers well inside
 * int32, added to the bias in wrapping int32), requantised by the gemm
 * tile's vector step: the bits of the other paths.
 *
 * MAC(acc, x_pointer, w) is acc += (int16 pairs at x_pointer) . w: vpdpwssd
 * with its memory operand on CPUs with AVX-512 VNNI (written out: GCC 12
 * copies the intrinsic's accumulator around each use), vpmaddwd and vpaddd
 * without. The window is at most MLFK_DW_S8_BAND int16 (band_shape), with
 * 64 zeros after it for the last loads' overrun (lanes past n are computed
 * and not stored); the flat bytes at most as many plus a vector. */
#define MLFK_DW_S8_MAC_BW(acc, xp, w) \
  acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_loadu_si512((const void*)(xp)), w))
#define MLFK_DW_S8_MAC_VNNI(acc, xp, w) \
  __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(w), "m"(*(const mlfk_dw_s8_zmm*)(xp)))
typedef int32_t mlfk_dw_s8_zmm __attribute__((vector_size(64), may_alias, aligned(1)));

#define MLFK_DW_S8_BAND512(NAME, TARGET, MAC)                                                              \
  MLFK_TARGET(TARGET)                                                                                      \
  MLFK_FN void NAME(const mlfk_dw_s8_job* j, int p, int oy0, int rows, int x0, int n) {                   \
    const mlfk_conv_s8_geom* g = j->g;                                                                     \
    const mlfk_gemm_s8_args* a = j->a;                                                                     \
    const int ch = p % g->c, s = g->sw;                                                                    \
    const int pitch = (n - 1) * s + 3, rin = (rows - 1) * s + 3, flat = (rows - 1) * pitch + n;           \
    const int iy0 = oy0 * s - g->ph, ix0 = x0 * s - g->pw;                                                 \
    const uint8_t* plane = (const uint8_t*)j->x + (ptrdiff_t)p * g->h * g->w;                              \
    const int8_t* wt = a->w + (ptrdiff_t)ch * a->ldw;                                                      \
    uint8_t* out = (uint8_t*)a->out + (ptrdiff_t)(p / g->c) * g->c * g->oh * g->ow + (ptrdiff_t)ch * a->ors; \
    uint8_t* out0 = out + (ptrdiff_t)oy0 * g->ow + x0;                                                     \
    int16_t buf[MLFK_DW_S8_BAND + 64];                                                                     \
    uint8_t bytes[MLFK_DW_S8_BAND + 32];                                                                   \
    const __m512i zx = _mm512_set1_epi16((int16_t)j->zx), zero = _mm512_setzero_si512();                   \
    const __m512i bias = _mm512_set1_epi32(a->bias[ch]);                                                   \
    const __m512i lo = _mm512_set1_epi32(a->lo), hi = _mm512_set1_epi32(a->hi);                            \
    const mlfk_s8_rq512 rq = mlfk_s8_rq512_of(a, ch);                                                      \
    const int lo_col = ix0 < 0 ? (-ix0 < pitch ? -ix0 : pitch) : 0;                                        \
    int hi_col = g->w - ix0 < pitch ? g->w - ix0 : pitch, t, c, f;                                         \
    __m512i w01_0, w01_1, w01_2, w20_0, w20_1, w20_2;                                                      \
    hi_col = hi_col > lo_col ? hi_col : lo_col;                                                            \
    /* (w0, w1) and (w2, 0) of each kernel row as int16 pairs. */                                          \
    w01_0 = _mm512_set1_epi32((int32_t)(((uint32_t)(uint16_t)wt[1] << 16) | (uint16_t)wt[0]));             \
    w01_1 = _mm512_set1_epi32((int32_t)(((uint32_t)(uint16_t)wt[4] << 16) | (uint16_t)wt[3]));             \
    w01_2 = _mm512_set1_epi32((int32_t)(((uint32_t)(uint16_t)wt[7] << 16) | (uint16_t)wt[6]));             \
    w20_0 = _mm512_set1_epi32((int32_t)(uint16_t)wt[2]);                                                   \
    w20_1 = _mm512_set1_epi32((int32_t)(uint16_t)wt[5]);                                                   \
    w20_2 = _mm512_set1_epi32((int32_t)(uint16_t)wt[8]);                                                   \
    /* Each window row in vectors of 32: the image's bytes where lanes    \
     * [lo_col, hi_col) fall (a masked load from the row's column ix0,     \
     * which may lie before the row: masked lanes are not read), x - zx     \
     * there and 0 in the padding; the masks, the same for every row, made \
     * once (pitch <= MLFK_DW_S8_BAND, so at most chunks of them). */       \
    {                                                                                                      \
      __mmask32 inm[MLFK_DW_S8_BAND / 32 + 1], stm[MLFK_DW_S8_BAND / 32 + 1];                              \
      const int chunks = (pitch + 31) / 32;                                                                \
      for (c = 0; c < chunks; ++c) {                                                                       \
        const int a0 = lo_col - 32 * c < 0 ? 0 : (lo_col - 32 * c > 32 ? 32 : lo_col - 32 * c);            \
        const int a1 = hi_col - 32 * c < 0 ? 0 : (hi_col - 32 * c > 32 ? 32 : hi_col - 32 * c);            \
        const int a2 = pitch - 32 * c > 32 ? 32 : pitch - 32 * c;                                          \
        inm[c] = (__mmask32)((a1 >= 32 ? 0xFFFFFFFFu : (1u << a1) - 1u) &                                  \
                             ~(a0 >= 32 ? 0xFFFFFFFFu : (1u << a0) - 1u));                                 \
        stm[c] = (__mmask32)(a2 >= 32 ? 0xFFFFFFFFu : (1u << a2) - 1u);                                    \
      }                                                                                                    \
      for (t = 0; t < rin; ++t) {                                                                          \
        int16_t* d = buf + (ptrdiff_t)t * pitch;                                                           \
        const int iy = iy0 + t;                                                                            \
        const uint8_t* src;                                                                                \
        if (iy < 0 || iy >= g->h) {                                                                        \
          for (c = 0; c < chunks; ++c) _mm512_mask_storeu_epi16(d + 32 * c, stm[c], zero);                 \
          continue;                                                                                        \
        }                                                                                                  \
        src = plane + (ptrdiff_t)iy * g->w + ix0;                                                          \
        for (c = 0; c < chunks; ++c) {                                                                     \
          const __m256i b = _mm256_maskz_loadu_epi8(inm[c], src + 32 * c);                                \
          const __m512i v = j->is_signed ? _mm512_cvtepi8_epi16(b) : _mm512_cvtepu8_epi16(b);              \
          _mm512_mask_storeu_epi16(d + 32 * c, stm[c], _mm512_maskz_sub_epi16(inm[c], v, zx));             \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
    _mm512_storeu_si512((void*)(buf + (ptrdiff_t)rin * pitch), zero);                                      \
    _mm512_storeu_si512((void*)(buf + (ptrdiff_t)rin * pitch + 32), zero);                                \
    if (s == 1) {                                                                                          \
      /* 32 outputs a step: lane i of ev is output f + 2i, of od f + 2i + 1. */                           \
      const __m512i lo_idx = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);     \
      const __m512i hi_idx = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8); \
      const __mmask16 row16 = (__mmask16)(n < 16 ? (1u << n) - 1u : 0xFFFFu); /* pitch 16: n is 14 */        \
      for (f = 0; f < flat; f += 32) {                                                                     \
        const int16_t* r0 = buf + f;                                                                       \
        const int16_t* r1 = r0 + pitch;                                                                    \
        const int16_t* r2 = r1 + pitch;                                                                    \
        __m512i ev = bias, od = bias;                                                                      \
        MAC(ev, r0, w01_0);                                                                                \
        MAC(ev, r0 + 2, w20_0);                                                                            \
        MAC(od, r0 + 1, w01_0);                                                                            \
        MAC(od, r0 + 3, w20_0);                                                                            \
        MAC(ev, r1, w01_1);                                                                                \
        MAC(ev, r1 + 2, w20_1);                                                                            \
        MAC(od, r1 + 1, w01_1);                                                                            \
        MAC(od, r1 + 3, w20_1);                                                                            \
        MAC(ev, r2, w01_2);                                                                                \
        MAC(ev, r2 + 2, w20_2);                                                                            \
        MAC(od, r2 + 1, w01_2);                                                                            \
        MAC(od, r2 + 3, w20_2);                                                                            \
        {                                                                                                  \
          const __m512i q0 = mlfk_s8_requant16_avx512(_mm512_permutex2var_epi32(ev, lo_idx, od), rq.m, rq.k, \
                                                      rq.n, lo, hi);                                   \
          const __m512i q1 = mlfk_s8_requant16_avx512(_mm512_permutex2var_epi32(ev, hi_idx, od), rq.m, rq.k, \
                                                      rq.n, lo, hi);                                   \
          if (pitch == 16) {                                                                               \
            /* 14-wide rows: each 16 flat outputs are one output row. */                                   \
            if (f / 16 < rows) _mm512_mask_cvtepi32_storeu_epi8(out0 + (ptrdiff_t)(f / 16) * g->ow, row16, q0); \
            if (f / 16 + 1 < rows) {                                                                       \
              _mm512_mask_cvtepi32_storeu_epi8(out0 + (ptrdiff_t)(f / 16 + 1) * g->ow, row16, q1);         \
            }                                                                                              \
          } else {                                                                                         \
            _mm512_mask_cvtepi32_storeu_epi8(bytes + f, 0xFFFF, q0);                                       \
            _mm512_mask_cvtepi32_storeu_epi8(bytes + f + 16, 0xFFFF, q1);                                  \
          }                                                                                                \
        }                                                                                                  \
      }                                                                                                    \
      /* The output rows out of the flat bytes (reading back what the      \
       * narrowing stores just wrote costs a store-forwarding stall per     \
       * row: hence the direct stores above where rows and vectors align). */ \
      if (pitch == 16) {                                                                                   \
      } else if (n <= 64) {                                                                                \
        const __mmask64 m = n == 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);                           \
        for (t = 0; t < rows; ++t) {                                                                       \
          _mm512_mask_storeu_epi8(out + (ptrdiff_t)(oy0 + t) * g->ow + x0, m,                              \
                                  _mm512_maskz_loadu_epi8(m, bytes + (ptrdiff_t)t * pitch));               \
        }                                                                                                  \
      } else {                                                                                             \
        for (t = 0; t < rows; ++t) {                                                                       \
          uint8_t* o = out + (ptrdiff_t)(oy0 + t) * g->ow + x0;                                            \
          const uint8_t* b = bytes + (ptrdiff_t)t * pitch;                                                 \
          for (c = 0; c < n; c += 64) {                                                                    \
            const __mmask64 m = n - c >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - c)) - 1);            \
            _mm512_mask_storeu_epi8(o + c, m, _mm512_maskz_loadu_epi8(m, b + c));                          \
          }                                                                                                \
        }                                                                                                  \
      }                                                                                                    \
    } else {                                                                                               \
      /* Row by row, 16 outputs a step: lane i holds the pairs at 2 (c + i) and 2 (c + i) + 2. */         \
      for (t = 0; t < rows; ++t) {                                                                         \
        uint8_t* o = out + (ptrdiff_t)(oy0 + t) * g->ow + x0;                                              \
        for (c = 0; c < n; c += 16) {                                                                      \
          const __mmask16 m = (__mmask16)(n - c >= 16 ? 0xFFFF : (1u << (n - c)) - 1u);                    \
          const int16_t* r0 = buf + (ptrdiff_t)2 * t * pitch + 2 * c;                                      \
          const int16_t* r1 = r0 + pitch;                                                                  \
          const int16_t* r2 = r1 + pitch;                                                                  \
          __m512i acc = bias;                                                                              \
          MAC(acc, r0, w01_0);                                                                             \
          MAC(acc, r0 + 2, w20_0);                                                                         \
          MAC(acc, r1, w01_1);                                                                             \
          MAC(acc, r1 + 2, w20_1);                                                                         \
          MAC(acc, r2, w01_2);                                                                             \
          MAC(acc, r2 + 2, w20_2);                                                                         \
          _mm512_mask_cvtepi32_storeu_epi8(o + c, m, mlfk_s8_requant16_avx512(acc, rq.m, rq.k, rq.n, lo, hi)); \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
  }

MLFK_DW_S8_BAND512(mlfk_dw_s8_band_avx512, "avx512f,avx512bw,avx512vl", MLFK_DW_S8_MAC_BW)
MLFK_DW_S8_BAND512(mlfk_dw_s8_band_vnni, "avx512f,avx512bw,avx512vl,avx512vnni", MLFK_DW_S8_MAC_VNNI)

/* Whether job j's bands go through the AVX-512 3x3 band (its channels
 * still each checked for the vector requantisation): 0 no, 1
 * mlfk_dw_s8_band_avx512, 2 mlfk_dw_s8_band_vnni. */
MLFK_FN int mlfk_dw_s8_fast3x3(int isa, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a) {
  if (isa != MLFK_ISA_AVX512 || !__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl") ||
      a->mult == NULL || g->kh != 3 || g->kw != 3 || g->dh != 1 || g->dw != 1 || g->sh != g->sw ||
      (g->sw != 1 && g->sw != 2)) {
    return 0;
  }
  return mlfk_s8_has_vnni() ? 2 : 1;
}
#endif

/* Output rows [oy0, oy0 + rows) x columns [x0, x0 + n) of plane p. */
MLFK_FN void mlfk_dw_s8_band(const mlfk_dw_s8_job* j, int p, int oy0, int rows, int x0, int n,
                             int16_t* buf, int32_t* acc) {
  const mlfk_conv_s8_geom* g = j->g;
  const int ch = p % g->c, span = (g->kw - 1) * g->dw + 1;
  const int wp = (n - 1) * g->sw + span, rin = (rows - 1) * g->sh + (g->kh - 1) * g->dh + 1;
  const int iy0 = oy0 * g->sh - g->ph, ix0 = x0 * g->sw - g->pw, taps = g->kh * g->kw;
  const uint8_t* plane = (const uint8_t*)j->x + (ptrdiff_t)p * g->h * g->w;
  const int8_t* wt = j->a->w + (ptrdiff_t)ch * j->a->ldw;
  mlfk_gemm_s8_args at = *j->a;
  uint32_t bias = (uint32_t)j->a->bias[ch];
  int t;
#if MLFK_X86
  if (j->fast3x3 && mlfk_s8_rq_fast(j->a, ch)) {
    if (j->fast3x3 == 2) {
      mlfk_dw_s8_band_vnni(j, p, oy0, rows, x0, n);
    } else {
      mlfk_dw_s8_band_avx512(j, p, oy0, rows, x0, n);
    }
    return;
  }
#endif
  mlfk_dw_s8_copy(buf, plane, j->is_signed, iy0, rin, ix0, wp, g->h, g->w, (int16_t)j->zx);
  for (t = 0; t < taps; ++t) bias -= (uint32_t)(j->zx * wt[t]);
  at.out = (uint8_t*)j->a->out + (ptrdiff_t)(p / g->c) * g->c * g->oh * g->ow * (ptrdiff_t)(j->a->mult ? 1 : 4);
  if (mlfk_dw_s8_flat(g)) {
    mlfk_dw_s8_sums(j->isa, buf, wp, g, wt, bias, 1, (rows - 1) * wp + n, acc);
    mlfk_dw_s8_store(j->isa, &at, ch, oy0 * g->ow + x0, n, rows, acc, wp, g->ow);
  } else {
    for (t = 0; t < rows; ++t) {
      mlfk_dw_s8_sums(j->isa, buf + (ptrdiff_t)t * g->sh * wp, wp, g, wt, bias, g->sw, n, acc);
      mlfk_dw_s8_store(j->isa, &at, ch, (oy0 + t) * g->ow + x0, n, 1, acc, 0, 0);
    }
  }
}

/* Output row oy of plane p tap by tap with bounds tests: the shapes whose
 * one-output window does not fit the band buffer (huge dilations). */
MLFK_FN void mlfk_dw_s8_direct(const mlfk_dw_s8_job* j, int p, int oy, int32_t* acc) {
  const mlfk_conv_s8_geom* g = j->g;
  const int ch = p % g->c;
  const uint8_t* plane = (const uint8_t*)j->x + (ptrdiff_t)p * g->h * g->w;
  const int8_t* wt = j->a->w + (ptrdiff_t)ch * j->a->ldw;
  mlfk_gemm_s8_args at = *j->a;
  int x0, i, ty, tx;
  at.out = (uint8_t*)j->a->out + (ptrdiff_t)(p / g->c) * g->c * g->oh * g->ow * (ptrdiff_t)(j->a->mult ? 1 : 4);
  for (x0 = 0; x0 < g->ow; x0 += MLFK_DW_S8_ACC) {
    const int n = g->ow - x0 < MLFK_DW_S8_ACC ? g->ow - x0 : MLFK_DW_S8_ACC;
    for (i = 0; i < n; ++i) {
      uint32_t s = (uint32_t)j->a->bias[ch];
      for (ty = 0; ty < g->kh; ++ty) {
        const int iy = oy * g->sh - g->ph + ty * g->dh;
        if (iy < 0 || iy >= g->h) continue;
        for (tx = 0; tx < g->kw; ++tx) {
          const int ix = (x0 + i) * g->sw - g->pw + tx * g->dw;
          int32_t v;
          if (ix < 0 || ix >= g->w) continue;
          v = j->is_signed ? (int32_t)((const int8_t*)plane)[(ptrdiff_t)iy * g->w + ix]
                           : (int32_t)plane[(ptrdiff_t)iy * g->w + ix];
          s += (uint32_t)((v - j->zx) * wt[ty * g->kw + tx]);
        }
      }
      acc[i] = (int32_t)s;
    }
    mlfk_dw_s8_store(j->isa, &at, ch, oy * g->ow + x0, n, 1, acc, 0, 0);
  }
}

/* Task `task` of the job: a range of (image, channel, output row) units,
 * in bands of up to j->rows rows that stay inside one plane. */
MLFK_FN void mlfk_dw_s8_task(void* arg, int32_t task) {
  const mlfk_dw_s8_job* j = (const mlfk_dw_s8_job*)arg;
  const mlfk_conv_s8_geom* g = j->g;
  const int units = j->batch * g->c * g->oh;
  int16_t buf[MLFK_DW_S8_BAND];
  int32_t acc[MLFK_DW_S8_ACC];
  int b, e, u;
  mlfk_split(units, j->tasks, (int)task, &b, &e);
  for (u = b; u < e;) {
    const int oy = u % g->oh, p = u / g->oh;
    int rows = g->oh - oy < e - u ? g->oh - oy : e - u, x0;
    if (j->rows == 0) {
      mlfk_dw_s8_direct(j, p, oy, acc);
      ++u;
      continue;
    }
    rows = rows < j->rows ? rows : j->rows;
    for (x0 = 0; x0 < g->ow; x0 += j->cols) {
      mlfk_dw_s8_band(j, p, oy, rows, x0, g->ow - x0 < j->cols ? g->ow - x0 : j->cols, buf, acc);
    }
    u += rows;
  }
}

MLFK_FN void mlfk_depthwise_s8_run(int isa, const mlfk_exec* ex, int tasks, const mlfk_conv_s8_geom* g,
                                   const mlfk_gemm_s8_args* a, const void* x, int is_signed, int32_t zx,
                                   int batch) {
  mlfk_dw_s8_job j;
  mlfk_gemm_s8_args ai = *a;
  ai.ors = (ptrdiff_t)g->oh * g->ow;
  ai.ocs = 1;
  j.isa = isa;
  j.tasks = tasks;
  j.is_signed = is_signed;
  j.batch = batch;
  j.zx = zx;
  mlfk_dw_s8_band_shape(g, &j.cols, &j.rows);
#if MLFK_X86
  j.fast3x3 = mlfk_dw_s8_fast3x3(isa, g, &ai);
#else
  j.fast3x3 = 0;
#endif
  j.g = g;
  j.a = &ai;
  j.x = x;
  mlfk_exec_run(ex, mlfk_dw_s8_task, &j, tasks);
}

MLFK_FN void mlfk_depthwise_s8_with(int isa, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a,
                                    const void* x, int is_signed, int32_t zx, int batch) {
  mlfk_depthwise_s8_run(isa, NULL, 1, g, a, x, is_signed, zx, batch);
}

/* For generated code: the run's variant, split by output rows. */
MLFK_FN void mlfk_depthwise_s8_exec(const mlfk_exec* ex, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a,
                                    const void* x, int is_signed, int32_t zx, int batch) {
  mlfk_depthwise_s8_run(mlfk_exec_isa(ex), ex, mlfk_exec_tasks(ex, batch * g->c * g->oh), g, a, x, is_signed, zx,
                        batch);
}

#endif /* MLF_KERNEL_DEPTHWISE_S8_H_ */
