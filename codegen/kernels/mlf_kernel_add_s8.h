/* mlfkit kernels: the integer addition of two int8/uint8 tensors of one
 * shape (QLinearAdd, what the QDQ lowering makes of a residual connection;
 * issue 14, codegen/kernels/README.md).
 *
 *   y[i] = clamp(((ma * (a[i] - za) + mb * (b[i] - zb) + half) >> shift) + zy, lo, hi)
 *
 * with half = 2^(shift - 1) (0 for shift 0), the shift arithmetic, and the
 * constants of codegen/ops/requantize.h's AddRule (ma, mb <= 2^21, so
 * every term fits in int32). [lo, hi] lies within y's dtype (int8 or
 * uint8), so the low byte of the clamped value is the output. Portable C
 * (the reference), AVX2 (8 values a step) and AVX-512 (16, masked tail):
 * the same integer operations on every value, so the same bytes.
 */
#ifndef MLF_KERNEL_ADD_S8_H_
#define MLF_KERNEL_ADD_S8_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mlf_kernel_common.h"

typedef struct {
  const void* a;         /* int8 when a_signed, else uint8 */
  const void* b;
  void* y;
  int a_signed, b_signed;
  int32_t za, zb, ma, mb; /* zero points and multipliers of a and b */
  int32_t shift, zy, lo, hi;
} mlfk_add_s8_args;

MLFK_FN int32_t mlfk_add_s8_in(const void* p, int is_signed, size_t i) {
  return is_signed ? (int32_t)((const int8_t*)p)[i] : (int32_t)((const uint8_t*)p)[i];
}

/* Values [from, to). */
MLFK_FN void mlfk_add_s8_portable(const mlfk_add_s8_args* g, size_t from, size_t to) {
  const int32_t half = g->shift > 0 ? (int32_t)1 << (g->shift - 1) : 0;
  uint8_t* y = (uint8_t*)g->y;
  size_t i;
  for (i = from; i < to; ++i) {
    const int32_t s = (g->ma * (mlfk_add_s8_in(g->a, g->a_signed, i) - g->za) +
                       g->mb * (mlfk_add_s8_in(g->b, g->b_signed, i) - g->zb) + half) >> g->shift;
    const int32_t q = s + g->zy;
    y[i] = (uint8_t)(q < g->lo ? g->lo : (q > g->hi ? g->hi : q));
  }
}

#if MLFK_X86

MLFK_TARGET("avx2")
MLFK_FN __m256i mlfk_add_s8_load8(const void* p, int is_signed, size_t i) {
  const __m128i v = _mm_loadl_epi64((const __m128i*)((const uint8_t*)p + i));
  return is_signed ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v);
}

MLFK_TARGET("avx2")
MLFK_FN void mlfk_add_s8_avx2(const mlfk_add_s8_args* g, size_t from, size_t to) {
  const __m256i za = _mm256_set1_epi32(g->za), zb = _mm256_set1_epi32(g->zb);
  const __m256i ma = _mm256_set1_epi32(g->ma), mb = _mm256_set1_epi32(g->mb);
  const __m256i half = _mm256_set1_epi32(g->shift > 0 ? (int32_t)1 << (g->shift - 1) : 0);
  const __m256i zy = _mm256_set1_epi32(g->zy), lo = _mm256_set1_epi32(g->lo), hi = _mm256_set1_epi32(g->hi);
  const __m128i n = _mm_cvtsi32_si128(g->shift);
  const __m256i bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8,
                                         12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  uint8_t* y = (uint8_t*)g->y;
  size_t i = from;
  for (; i + 8 <= to; i += 8) {
    const __m256i da = _mm256_sub_epi32(mlfk_add_s8_load8(g->a, g->a_signed, i), za);
    const __m256i db = _mm256_sub_epi32(mlfk_add_s8_load8(g->b, g->b_signed, i), zb);
    __m256i s = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(da, ma), _mm256_mullo_epi32(db, mb)), half);
    s = _mm256_add_epi32(_mm256_sra_epi32(s, n), zy);
    s = _mm256_min_epi32(_mm256_max_epi32(s, lo), hi);
    /* The low byte of each lane, in order: 4 from each 128-bit half. */
    s = _mm256_shuffle_epi8(s, bytes);
    {
      const uint32_t w0 = (uint32_t)_mm256_extract_epi32(s, 0), w1 = (uint32_t)_mm256_extract_epi32(s, 4);
      memcpy(y + i, &w0, 4);
      memcpy(y + i + 4, &w1, 4);
    }
  }
  mlfk_add_s8_portable(g, i, to);
}

MLFK_TARGET("avx512f,avx512bw,avx512vl")
MLFK_FN __m512i mlfk_add_s8_load16(__mmask16 k, const void* p, int is_signed, size_t i) {
  const __m128i v = _mm_maskz_loadu_epi8(k, (const uint8_t*)p + i);
  return is_signed ? _mm512_cvtepi8_epi32(v) : _mm512_cvtepu8_epi32(v);
}

MLFK_TARGET("avx512f,avx512bw,avx512vl")
MLFK_FN void mlfk_add_s8_avx512(const mlfk_add_s8_args* g, size_t from, size_t to) {
  const __m512i za = _mm512_set1_epi32(g->za), zb = _mm512_set1_epi32(g->zb);
  const __m512i ma = _mm512_set1_epi32(g->ma), mb = _mm512_set1_epi32(g->mb);
  const __m512i half = _mm512_set1_epi32(g->shift > 0 ? (int32_t)1 << (g->shift - 1) : 0);
  const __m512i zy = _mm512_set1_epi32(g->zy), lo = _mm512_set1_epi32(g->lo), hi = _mm512_set1_epi32(g->hi);
  const __m128i n = _mm_cvtsi32_si128(g->shift);
  uint8_t* y = (uint8_t*)g->y;
  size_t i;
  for (i = from; i < to; i += 16) {
    const __mmask16 k = (__mmask16)(to - i >= 16 ? 0xFFFF : (1u << (to - i)) - 1u);
    const __m512i da = _mm512_sub_epi32(mlfk_add_s8_load16(k, g->a, g->a_signed, i), za);
    const __m512i db = _mm512_sub_epi32(mlfk_add_s8_load16(k, g->b, g->b_signed, i), zb);
    __m512i s = _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(da, ma), _mm512_mullo_epi32(db, mb)), half);
    s = _mm512_add_epi32(_mm512_sra_epi32(s, n), zy);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, k, _mm512_min_epi32(_mm512_max_epi32(s, lo), hi));
  }
}

#endif /* MLFK_X86 */

/* Values [from, to) with variant isa (one this CPU runs). */
MLFK_FN void mlfk_add_s8_with(int isa, const mlfk_add_s8_args* g, size_t from, size_t to) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    mlfk_add_s8_avx512(g, from, to);
    return;
  }
  if (isa != MLFK_ISA_PORTABLE) {
    mlfk_add_s8_avx2(g, from, to);
    return;
  }
#endif
  (void)isa;
  mlfk_add_s8_portable(g, from, to);
}

typedef struct {
  int isa, tasks;
  size_t n;
  const mlfk_add_s8_args* g;
} mlfk_add_s8_job;

MLFK_FN void mlfk_add_s8_task(void* arg, int32_t task) {
  const mlfk_add_s8_job* j = (const mlfk_add_s8_job*)arg;
  /* In blocks of 64 values, so that no two tasks write one cache line. */
  const int blocks = (int)((j->n + 63) / 64);
  int b, e;
  size_t from, to;
  mlfk_split(blocks, j->tasks, (int)task, &b, &e);
  from = (size_t)b * 64;
  to = (size_t)e * 64 < j->n ? (size_t)e * 64 : j->n;
  if (to > from) mlfk_add_s8_with(j->isa, j->g, from, to);
}

/* For generated code: n values, the run's variant, split over its threads
 * when n is large. */
MLFK_FN void mlfk_add_s8_exec(const mlfk_exec* ex, const mlfk_add_s8_args* g, size_t n) {
  mlfk_add_s8_job j;
  j.isa = mlfk_exec_isa(ex);
  j.tasks = mlfk_exec_tasks(ex, n > ((size_t)1 << 30) ? 1 << 24 : (int)(n / 16384));
  if (j.tasks <= 1) { /* one call, no job (firmware: the serial context) */
    mlfk_add_s8_with(j.isa, g, 0, n);
    return;
  }
  j.n = n;
  j.g = g;
  mlfk_exec_run(ex, mlfk_add_s8_task, &j, j.tasks);
}

#endif /* MLF_KERNEL_ADD_S8_H_ */
