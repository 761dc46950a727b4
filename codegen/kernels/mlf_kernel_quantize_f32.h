/* mlfkit kernels: QuantizeLinear of float32 to int8 or uint8, one scale and
 * zero point for a run of elements (issue 14; codegen/kernels/README.md).
 *
 *   y[i] = clamp(round_half_even(x[i] / scale) + zp, lo, hi)
 *
 * with the rule of codegen/ops/requantize.h (EmitQuantizeFloat): the
 * quotient in float32 (a true IEEE division in every variant, never a
 * multiplication by the reciprocal), NaN giving the zero point, infinities
 * saturating, and [lo, hi] the output dtype's range (-128..127 for int8,
 * 0..255 for uint8). The quotient is clamped to [-1024, 1024] first (every
 * value beyond saturates); within it, rounding half to even is exact in
 * every variant: the portable C writes it out (truncate, floor, test the
 * tie) so that no rounding mode matters; the x86 variants use the round
 * instruction with round-to-nearest-even in its immediate operand, which
 * ignores MXCSR. So every variant gives the same bytes.
 *
 * Where the time went before this family: the input QuantizeLinear of an
 * int8 MobileNetV2 (150,528 values) ran as a branchy scalar loop, about a
 * fifth of the whole inference on AVX-512.
 */
#ifndef MLF_KERNEL_QUANTIZE_F32_H_
#define MLF_KERNEL_QUANTIZE_F32_H_

#include <stddef.h>
#include <stdint.h>

#include "mlf_kernel_common.h"

/* One value into the int32 lvalue R: the reference, and every variant's
 * tail. A macro, so that each loop has it inline with its own constant
 * range (arm-none-eabi-gcc -O2 kept a function of two callers out of line:
 * 47 instructions a value on a Cortex-M4 instead of 34). */
#define MLFK_QUANTIZE_F32_ONE(R, X, SCALE, ZP, LO, HI)                     \
  do {                                                                     \
    float v_ = (X) / (SCALE);                                              \
    int32_t r_;                                                            \
    if (v_ != v_) v_ = 0.0f; /* NaN: the zero point */                     \
    v_ = v_ < -1024.0f ? -1024.0f : (v_ > 1024.0f ? 1024.0f : v_);         \
    r_ = (int32_t)v_;                                                      \
    if ((float)r_ > v_) r_ -= 1; /* floor */                               \
    {                                                                      \
      const float f_ = v_ - (float)r_;                                     \
      if (f_ > 0.5f || (f_ == 0.5f && (r_ & 1) != 0)) r_ += 1;             \
    }                                                                      \
    r_ += (ZP);                                                            \
    (R) = r_ < (LO) ? (LO) : (r_ > (HI) ? (HI) : r_);                      \
  } while (0)

/* Values [0, n), the range as constants in each loop: the steps of the
 * loop the generated code had before this family. */
MLFK_FN void mlfk_quantize_f32_portable(const float* MLFK_RESTRICT x, size_t n, float scale, int32_t zp,
                                        int is_signed, uint8_t* MLFK_RESTRICT y) {
  size_t i;
  int32_t q;
  if (is_signed) {
    for (i = 0; i < n; ++i) {
      MLFK_QUANTIZE_F32_ONE(q, x[i], scale, zp, -128, 127);
      y[i] = (uint8_t)q;
    }
  } else {
    for (i = 0; i < n; ++i) {
      MLFK_QUANTIZE_F32_ONE(q, x[i], scale, zp, 0, 255);
      y[i] = (uint8_t)q;
    }
  }
}

#if MLFK_X86

/* 8 values a step: divide, NaN to 0, clamp, round to nearest even, add the
 * zero point, clamp to the range, narrow. */
MLFK_TARGET("avx2")
MLFK_FN void mlfk_quantize_f32_avx2(const float* MLFK_RESTRICT x, size_t n, float scale, int32_t zp,
                                    int is_signed, uint8_t* MLFK_RESTRICT y) {
  const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const __m256 s = _mm256_set1_ps(scale), vmin = _mm256_set1_ps(-1024.0f), vmax = _mm256_set1_ps(1024.0f);
  const __m256i z = _mm256_set1_epi32(zp), ilo = _mm256_set1_epi32(lo), ihi = _mm256_set1_epi32(hi);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_div_ps(_mm256_loadu_ps(x + i), s);
    __m256i q;
    __m128i w;
    v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
    v = _mm256_min_ps(_mm256_max_ps(v, vmin), vmax);
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q = _mm256_add_epi32(_mm256_cvtps_epi32(v), z);
    q = _mm256_min_epi32(_mm256_max_epi32(q, ilo), ihi);
    /* Every lane is in [lo, hi] now: keep its low byte. */
    w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    w = is_signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64((__m128i*)(y + i), w);
  }
  mlfk_quantize_f32_portable(x + i, n - i, scale, zp, is_signed, y + i);
}

/* 16 values a step, the tail by a masked load and store. */
MLFK_TARGET("avx512f")
MLFK_FN void mlfk_quantize_f32_avx512(const float* MLFK_RESTRICT x, size_t n, float scale, int32_t zp,
                                      int is_signed, uint8_t* MLFK_RESTRICT y) {
  const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const __m512 s = _mm512_set1_ps(scale), vmin = _mm512_set1_ps(-1024.0f), vmax = _mm512_set1_ps(1024.0f);
  const __m512i z = _mm512_set1_epi32(zp), ilo = _mm512_set1_epi32(lo), ihi = _mm512_set1_epi32(hi);
  size_t i;
  for (i = 0; i < n; i += 16) {
    const __mmask16 k = (__mmask16)(n - i >= 16 ? 0xFFFF : (1u << (n - i)) - 1u);
    __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(k, x + i), s);
    __m512i q;
    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);
    v = _mm512_min_ps(_mm512_max_ps(v, vmin), vmax);
    v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q = _mm512_add_epi32(_mm512_cvtps_epi32(v), z);
    q = _mm512_min_epi32(_mm512_max_epi32(q, ilo), ihi);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, k, q);
  }
}

#endif /* MLFK_X86 */

/* Variant `isa` (one this CPU runs). */
MLFK_FN void mlfk_quantize_f32_with(int isa, const float* x, size_t n, float scale, int32_t zp, int is_signed,
                                    void* y) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512) {
    mlfk_quantize_f32_avx512(x, n, scale, zp, is_signed, (uint8_t*)y);
    return;
  }
  if (isa == MLFK_ISA_AVX2) {
    mlfk_quantize_f32_avx2(x, n, scale, zp, is_signed, (uint8_t*)y);
    return;
  }
#endif
  (void)isa;
  mlfk_quantize_f32_portable(x, n, scale, zp, is_signed, (uint8_t*)y);
}

typedef struct {
  int isa, tasks;
  const float* x;
  size_t n;
  float scale;
  int32_t zp;
  int is_signed;
  uint8_t* y;
} mlfk_quantize_f32_job;

MLFK_FN void mlfk_quantize_f32_task(void* arg, int32_t task) {
  const mlfk_quantize_f32_job* j = (const mlfk_quantize_f32_job*)arg;
  /* In blocks of 64 values, so that no two tasks write one cache line. */
  const int blocks = (int)((j->n + 63) / 64);
  int b, e;
  size_t from, to;
  mlfk_split(blocks, j->tasks, (int)task, &b, &e);
  from = (size_t)b * 64;
  to = (size_t)e * 64 < j->n ? (size_t)e * 64 : j->n;
  if (to > from) mlfk_quantize_f32_with(j->isa, j->x + from, to - from, j->scale, j->zp, j->is_signed, j->y + from);
}

/* For generated code: n values of x into y (int8 when is_signed, else
 * uint8), the run's variant, split over its threads when n is large. */
MLFK_FN void mlfk_quantize_f32_exec(const mlfk_exec* ex, const float* x, size_t n, float scale, int32_t zp,
                                    int is_signed, void* y) {
  mlfk_quantize_f32_job j;
  j.isa = mlfk_exec_isa(ex);
  j.tasks = mlfk_exec_tasks(ex, n > ((size_t)1 << 30) ? 1 << 24 : (int)(n / 16384));
  if (j.tasks <= 1) { /* one call, no job (firmware: the serial context) */
    mlfk_quantize_f32_with(j.isa, x, n, scale, zp, is_signed, y);
    return;
  }
  j.x = x;
  j.n = n;
  j.scale = scale;
  j.zp = zp;
  j.is_signed = is_signed;
  j.y = (uint8_t*)y;
  mlfk_exec_run(ex, mlfk_quantize_f32_task, &j, j.tasks);
}

#endif /* MLF_KERNEL_QUANTIZE_F32_H_ */
