/* read_roof: how fast one core reads a buffer of B bytes again and again,
 * the roof for a kernel that streams as many bytes of weights per run
 * (bench/README.md, "LeNet-5 and the MLP at batch 1": the MLP's 940 KB).
 *
 * Sums the buffer in order with AVX-512 loads into 8 independent
 * accumulators (AVX2 when the CPU lacks AVX-512), 100 untimed passes, then
 * times each of N passes; prints the p50 and the least pass in us and GB/s.
 *
 * Usage: read_roof BYTES [PASSES]   (default 20000 passes). */
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sums of n floats (a multiple of 128), 8 vectors a step, each in its own
 * variable (as an array GCC kept them in memory at -O2: half the speed). */
__attribute__((target("avx512f"), noinline)) static float Sum512(const float* p, size_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  size_t i;
  for (i = 0; i < n; i += 128) {
    a0 = _mm512_add_ps(a0, _mm512_load_ps(p + i));
    a1 = _mm512_add_ps(a1, _mm512_load_ps(p + i + 16));
    a2 = _mm512_add_ps(a2, _mm512_load_ps(p + i + 32));
    a3 = _mm512_add_ps(a3, _mm512_load_ps(p + i + 48));
    a4 = _mm512_add_ps(a4, _mm512_load_ps(p + i + 64));
    a5 = _mm512_add_ps(a5, _mm512_load_ps(p + i + 80));
    a6 = _mm512_add_ps(a6, _mm512_load_ps(p + i + 96));
    a7 = _mm512_add_ps(a7, _mm512_load_ps(p + i + 112));
  }
  a0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                     _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  return _mm512_reduce_add_ps(a0);
}

__attribute__((target("avx2"), noinline)) static float Sum256(const float* p, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  float lanes[8], s = 0.0f;
  size_t i;
  int v;
  for (i = 0; i < n; i += 64) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(p + i + 24));
    a4 = _mm256_add_ps(a4, _mm256_load_ps(p + i + 32));
    a5 = _mm256_add_ps(a5, _mm256_load_ps(p + i + 40));
    a6 = _mm256_add_ps(a6, _mm256_load_ps(p + i + 48));
    a7 = _mm256_add_ps(a7, _mm256_load_ps(p + i + 56));
  }
  a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                     _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  _mm256_storeu_ps(lanes, a0);
  for (v = 0; v < 8; ++v) s += lanes[v];
  return s;
}

static int Less(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  const long bytes = argc > 1 ? atol(argv[1]) : 0;
  const long passes = argc > 2 ? atol(argv[2]) : 20000;
  const int wide = __builtin_cpu_supports("avx512f");
  size_t n, i;
  float* p;
  double* t;
  volatile float sink = 0.0f;
  long r;
  if (argc < 2 || argc > 3 || bytes < 512 || passes < 1 || !__builtin_cpu_supports("avx2")) {
    fprintf(stderr, "usage: read_roof BYTES [PASSES] (BYTES >= 512, an AVX2 CPU)\n");
    return 2;
  }
  n = (size_t)bytes / 512 * 128; /* whole steps of 8 zmm */
  p = aligned_alloc(64, n * sizeof(float));
  t = malloc((size_t)passes * sizeof(double));
  if (p == NULL || t == NULL) {
    fprintf(stderr, "read_roof: out of memory\n");
    return 1;
  }
  for (i = 0; i < n; ++i) p[i] = (float)(i % 7);
  for (r = -100; r < passes; ++r) {
    const double t0 = Now();
    sink += wide ? Sum512(p, n) : Sum256(p, n);
    if (r >= 0) t[r] = Now() - t0;
  }
  qsort(t, (size_t)passes, sizeof(double), Less);
  printf("%zu bytes (%s): p50 %.3f us = %.1f GB/s, least %.3f us = %.1f GB/s\n", n * sizeof(float),
         wide ? "avx512" : "avx2", t[passes / 2] * 1e6, n * sizeof(float) / t[passes / 2] * 1e-9,
         t[0] * 1e6, n * sizeof(float) / t[0] * 1e-9);
  free(p);
  free(t);
  return 0;
}
