/* Shared by the kernel tests (C99): deterministic data, the variants to
 * run, and a tolerance check against a naive double-precision reference. */
#ifndef MLF_KERNEL_TEST_UTIL_H_
#define MLF_KERNEL_TEST_UTIL_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlf_kernel_common.h"

MLFK_FN int mlfk_test_failures = 0;

/* Values in [-1, 1) from a fixed linear congruential sequence. */
MLFK_FN float mlfk_test_value(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

MLFK_FN void mlfk_test_fill(float* v, size_t n, unsigned seed) {
  size_t i;
  for (i = 0; i < n; ++i) v[i] = mlfk_test_value(&seed);
}

/* The packed weight layout of mlf_kernel_gemm_f32.h (panels of 8 rows,
 * k-major; the rows after the last whole panel as they are), written out
 * independently of the kernels' own packing: m x k `w` into `out`. */
MLFK_FN void mlfk_test_pack(const float* w, int m, int k, float* out) {
  const int panels = m / 8;
  int p, r, kk;
  for (p = 0; p < panels; ++p) {
    for (kk = 0; kk < k; ++kk) {
      for (r = 0; r < 8; ++r) out[(p * k + kk) * 8 + r] = w[(p * 8 + r) * k + kk];
    }
  }
  memcpy(out + panels * 8 * k, w + panels * 8 * k, sizeof(float) * (size_t)(m - panels * 8) * k);
}

MLFK_FN const char* mlfk_test_isa_name(int isa) {
  return isa == MLFK_ISA_AVX512 ? "avx512" : isa == MLFK_ISA_AVX2 ? "avx2" : "portable";
}

/* |got - want| <= 1e-5 * scale + 1e-6, where scale is the sum of the
 * magnitudes of the products (the rounding error of any summation order is
 * below 2^-24 * K * scale); NaN only where the reference is NaN. */
MLFK_FN void mlfk_test_expect_close(const char* what, int isa, size_t index, float got, double want,
                                   double scale) {
  const int ok = isnan(want) ? isnan(got) : fabs((double)got - want) <= 1e-5 * scale + 1e-6;
  if (!ok) {
    if (mlfk_test_failures < 20) {
      printf("FAIL %s [%s] element %lu: got %.9g, want %.9g\n", what, mlfk_test_isa_name(isa),
             (unsigned long)index, (double)got, want);
    }
    ++mlfk_test_failures;
  }
}

/* Exact equality, for integer logic (layouts, what is copied where). */
MLFK_FN void mlfk_test_expect_eq(const char* what, size_t index, float got, float want) {
  if (!(got == want) && !(isnan(got) && isnan(want))) {
    if (mlfk_test_failures < 20) {
      printf("FAIL %s element %lu: got %.9g, want %.9g\n", what, (unsigned long)index, (double)got,
             (double)want);
    }
    ++mlfk_test_failures;
  }
}

/* `floats` zeroed floats starting a cache line, as the workspace's buffers
 * do (kernels cut outputs at line starts only in such buffers); free
 * *block when done. */
MLFK_FN float* mlfk_test_line_alloc(size_t floats, void** block) {
  *block = calloc(floats + MLFK_LINE_FLOATS, sizeof(float));
  return (float*)(((uintptr_t)*block + 63u) & ~(uintptr_t)63u);
}

/* A parallel-for for the split tests, serial but out of order: the tasks
 * run last to first, so a task that depended on another's output, or wrote
 * outside its part, would show in the results. Counts the tasks it ran. */
MLFK_FN void mlfk_test_parallel_for(void* pool, mlfk_task_fn fn, void* arg, int32_t n) {
  int32_t i;
  for (i = n - 1; i >= 0; --i) fn(arg, i);
  *(int*)pool += (int)n;
}

/* An executor of variant `isa` with `threads` tasks through
 * mlfk_test_parallel_for, counting into *tasks. */
MLFK_FN mlfk_exec mlfk_test_exec(int isa, int threads, int* tasks) {
  mlfk_exec ex;
  ex.isa = isa;
  ex.threads = threads;
  ex.parallel_for = mlfk_test_parallel_for;
  ex.pool = tasks;
  return ex;
}

/* The same n floats bit for bit (a split must not change a single bit). */
MLFK_FN void mlfk_test_expect_same_bits(const char* what, const float* got, const float* want,
                                        size_t n) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      if (mlfk_test_failures < 20) {
        printf("FAIL %s element %lu: got %.9g, serial %.9g\n", what, (unsigned long)i,
               (double)got[i], (double)want[i]);
      }
      ++mlfk_test_failures;
      return;
    }
  }
}

/* Prints which variants ran and which this CPU lacks (skipped, not passed). */
MLFK_FN void mlfk_test_report_isas(void) {
  int isa;
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    printf("variant %s: %s\n", mlfk_test_isa_name(isa),
           mlfk_isa_supported(isa) ? "tested" : "SKIPPED (this CPU lacks it)");
  }
}

MLFK_FN int mlfk_test_finish(const char* name) {
  if (mlfk_test_failures) {
    printf("%s: %d failure(s)\n", name, mlfk_test_failures);
    return 1;
  }
  printf("%s: all passed\n", name);
  return 0;
}

#endif /* MLF_KERNEL_TEST_UTIL_H_ */
