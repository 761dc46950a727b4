/* gemm_f32 against a naive reference: every variant this CPU runs, sizes
 * around the tile edges (M around 8, N around 8 and 32, K across the K
 * block), bias or not, a residual or not, clamp or not, row strides wider
 * than the rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "mlf_kernel_gemm_f32.h"

static void check(int isa, int m, int n, int k, int with_bias, int with_res, float lo, float hi) {
  const int ldb = n + 3, ldc = n + 5;
  float* a = calloc((size_t)(m * k + 1), sizeof(float));
  float* packed = calloc((size_t)(m * k + 1), sizeof(float));
  float* b = calloc((size_t)(k * ldb + 1), sizeof(float));
  float* bias = calloc((size_t)(m + 1), sizeof(float));
  float* c = calloc((size_t)(m * ldc + 1), sizeof(float));
  float* res = calloc((size_t)(m * ldc + 1), sizeof(float));
  char what[128];
  int i, j, kk;
  mlfk_test_fill(a, (size_t)m * k, 1u + (unsigned)(m * 31 + k));
  mlfk_test_fill(b, (size_t)k * ldb, 7u + (unsigned)n);
  mlfk_test_fill(bias, (size_t)m, 3u);
  mlfk_test_fill(res, (size_t)m * ldc, 5u);
  /* A sentinel in the padding columns of C shows writes past n. */
  for (i = 0; i < m * ldc; ++i) c[i] = 1234.5f;
  mlfk_test_pack(a, m, k, packed);
  mlfk_gemm_f32_with(isa, m, n, k, packed, b, ldb, with_bias ? bias : NULL, with_res ? res : NULL,
                     c, ldc, lo, hi);
  snprintf(what, sizeof what, "gemm m=%d n=%d k=%d bias=%d res=%d lo=%g hi=%g", m, n, k,
           with_bias, with_res, (double)lo, (double)hi);
  for (i = 0; i < m; ++i) {
    for (j = 0; j < ldc; ++j) {
      double sum = with_bias ? bias[i] : 0.0, scale = fabs(sum);
      if (j >= n) {
        mlfk_test_expect_eq(what, (size_t)(i * ldc + j), c[i * ldc + j], 1234.5f);
        continue;
      }
      for (kk = 0; kk < k; ++kk) {
        sum += (double)a[i * k + kk] * b[kk * ldb + j];
        scale += fabs((double)a[i * k + kk] * b[kk * ldb + j]);
      }
      if (with_res) {
        sum += res[i * ldc + j];
        scale += fabs((double)res[i * ldc + j]);
      }
      if (lo > -HUGE_VALF || hi < HUGE_VALF) sum = sum > lo ? (sum < hi ? sum : hi) : lo;
      mlfk_test_expect_close(what, isa, (size_t)(i * ldc + j), c[i * ldc + j], sum, scale);
    }
  }
  free(a);
  free(packed);
  free(b);
  free(bias);
  free(c);
  free(res);
}

/* Which tile computes a column never changes a bit: the first n columns of
 * a 128-column product (AVX-512: 48 + 48 + 32) equal an n-column product
 * for n ending in each kind of tile (AVX-512: 48 + 1-2 for 49 and 50, a
 * masked 48 for 41, 48 + 17-32, 48 + 48 + 1-16, 48 + 33-47). */
static void check_tile_bits(int isa) {
  enum { M = 16, K = 300, LD = 128 };
  static float a[M * K], packed[M * K], b[K * LD], bias[M], wide[M * LD], narrow[M * LD];
  static const int widths[] = {49, 50, 41, 70, 97, 111, 83};
  char what[96];
  int wi, r;
  mlfk_test_fill(a, M * K, 21u);
  mlfk_test_fill(b, K * LD, 22u);
  mlfk_test_fill(bias, M, 23u);
  mlfk_test_pack(a, M, K, packed);
  mlfk_gemm_f32_with(isa, M, LD, K, packed, b, LD, bias, NULL, wide, LD, -0.5f, 0.75f);
  for (wi = 0; wi < (int)(sizeof widths / sizeof widths[0]); ++wi) {
    const int n = widths[wi];
    mlfk_gemm_f32_with(isa, M, n, K, packed, b, LD, bias, NULL, narrow, LD, -0.5f, 0.75f);
    for (r = 0; r < M; ++r) {
      snprintf(what, sizeof what, "gemm tile bits n=%d row %d [%s]", n, r, mlfk_test_isa_name(isa));
      mlfk_test_expect_same_bits(what, narrow + r * LD, wide + r * LD, (size_t)n);
    }
  }
}

/* NaN passes through without an activation and becomes lo with one (as the
 * generated Relu and Clip make it). */
static void check_nan(int isa) {
  float a[8], packed[8], b[32], c[32];
  int i;
  for (i = 0; i < 8; ++i) a[i] = 1.0f;
  for (i = 0; i < 32; ++i) b[i] = i == 5 ? NAN : 1.0f;
  mlfk_test_pack(a, 8, 1, packed);
  mlfk_gemm_f32_with(isa, 8, 4, 1, packed, b + 4, 4, NULL, NULL, c, 4, -HUGE_VALF, HUGE_VALF);
  mlfk_test_expect_close("nan, no clamp", isa, 1, c[1], NAN, 0);
  mlfk_gemm_f32_with(isa, 8, 4, 1, packed, b + 4, 4, NULL, NULL, c, 4, 0.0f, HUGE_VALF);
  mlfk_test_expect_eq("nan, relu", 1, c[1], 0.0f);
  mlfk_test_expect_eq("nan, relu", 2, c[2], 1.0f);
}

/* Intra-op threads: 2-4 tasks give the serial result bit for bit, whether
 * the split falls on rows (fewer than 32 columns) or on columns, with the
 * M % 8 rows, ragged column ranges and a residual. */
static void check_threads(int isa, int m, int n, int k) {
  const size_t cn = (size_t)m * n;
  float* a = calloc((size_t)(m * k + 1), sizeof(float));
  float* b = calloc((size_t)(k * n + 1), sizeof(float));
  float* bias = calloc((size_t)(m + 1), sizeof(float));
  float* serial = calloc(cn + 1, sizeof(float));
  /* Rows of a multiple of 16 columns are cut by columns at line starts. */
  void* split_mem;
  float* split = mlfk_test_line_alloc(cn + 1, &split_mem);
  float* res = calloc(cn + 1, sizeof(float));
  char what[128];
  int threads;
  mlfk_test_fill(a, (size_t)m * k, 11u);
  mlfk_test_fill(b, (size_t)k * n, 12u);
  mlfk_test_fill(bias, (size_t)m, 13u);
  mlfk_test_fill(res, cn, 14u);
  mlfk_gemm_f32_with(isa, m, n, k, a, b, n, bias, res, serial, n, 0.0f, 6.0f);
  for (threads = 2; threads <= 4; ++threads) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    memset(split, 0, cn * sizeof(float));
    mlfk_gemm_f32_exec(&ex, m, n, k, a, b, n, bias, res, split, n, 0.0f, 6.0f);
    snprintf(what, sizeof what, "gemm threads=%d m=%d n=%d k=%d [%s]", threads, m, n, k,
             mlfk_test_isa_name(isa));
    mlfk_test_expect_same_bits(what, split, serial, cn);
    if (tasks < 2) {
      printf("FAIL %s: %d task, want a split\n", what, tasks);
      ++mlfk_test_failures;
    }
  }
  free(a);
  free(b);
  free(bias);
  free(serial);
  free(split_mem);
  free(res);
}

/* The cut's arithmetic (mlf_kernel_common.h): units of a stride that span
 * whole lines, and parts in whole blocks. */
static void check_line_cuts(void) {
  int b, e;
  mlfk_test_expect_eq("line units 49", 0, (float)mlfk_line_units(49), 16.0f);
  mlfk_test_expect_eq("line units 196", 0, (float)mlfk_line_units(196), 4.0f);
  mlfk_test_expect_eq("line units 56", 0, (float)mlfk_line_units(56), 2.0f);
  mlfk_test_expect_eq("line units 784", 0, (float)mlfk_line_units(784), 1.0f);
  mlfk_split_blocks(784, 16, 2, 0, &b, &e);
  mlfk_test_expect_eq("784 in 2, part 0", 0, (float)b, 0.0f);
  mlfk_test_expect_eq("784 in 2, part 0", 1, (float)e, 400.0f);
  mlfk_split_blocks(784, 16, 2, 1, &b, &e);
  mlfk_test_expect_eq("784 in 2, part 1", 0, (float)b, 400.0f);
  mlfk_test_expect_eq("784 in 2, part 1", 1, (float)e, 784.0f);
  mlfk_split_blocks(49, 16, 3, 2, &b, &e);
  mlfk_test_expect_eq("49 in 3, part 2", 0, (float)b, 48.0f);
  mlfk_test_expect_eq("49 in 3, part 2", 1, (float)e, 49.0f);
}

/* W (n x k, row-major) in the packed GEMV layout (mlfk_gemv_f32_packed):
 * blocks of 16 rows (the last one the n % 16 left), each the k / 16 steps
 * of r x 16 elements, then each row's k % 16 last elements. */
static void pack_gemv(const float* w, int n, int k, float* out) {
  const int steps = k / 16, tail = k % 16;
  int j, c, s, l, u;
  for (j = 0; j < n; j += 16) {
    const int r = n - j < 16 ? n - j : 16;
    const float* block = w + (size_t)j * k;
    float* to = out + (size_t)j * k;
    for (s = 0; s < steps; ++s)
      for (c = 0; c < r; ++c)
        for (l = 0; l < 16; ++l) to[(s * r + c) * 16 + l] = block[(size_t)c * k + 16 * s + l];
    for (c = 0; c < r; ++c)
      for (u = 0; u < tail; ++u) to[steps * 16 * r + c * tail + u] = block[(size_t)c * k + 16 * steps + u];
  }
}

/* The GEMV-style product (Gemm with transB = 1), W as exported or packed:
 * against a naive double reference, bit for bit against the generated Gemm
 * loops' order (16 lanes, the K % 16 tail, the lanes in order, the bias),
 * so every variant and both layouts give the same bits, and 2-4 tasks the
 * serial ones. */
static void check_gemv_layout(int isa, int packed, int m, int n, int k, int with_bias, float lo,
                              float hi) {
  float* x = calloc((size_t)m * k + 1, sizeof(float));
  float* w = calloc((size_t)n * k + 1, sizeof(float));
  float* wp = packed ? calloc((size_t)n * k + 1, sizeof(float)) : w;
  float* bias = calloc((size_t)n + 1, sizeof(float));
  float* y = calloc((size_t)m * n + 1, sizeof(float));
  float* split = calloc((size_t)m * n + 1, sizeof(float));
  char what[128];
  int i, j, kk, l, threads;
  mlfk_test_fill(x, (size_t)m * k, 21u);
  mlfk_test_fill(w, (size_t)n * k, 22u);
  mlfk_test_fill(bias, (size_t)n, 23u);
  if (packed) pack_gemv(w, n, k, wp);
  snprintf(what, sizeof what, "gemv%s m=%d n=%d k=%d bias=%d", packed ? " packed" : "", m, n, k,
           with_bias);
  if (packed) {
    mlfk_gemv_f32_packed_with(isa, m, n, k, x, wp, with_bias ? bias : NULL, y, lo, hi);
  } else {
    mlfk_gemv_f32_with(isa, m, n, k, x, w, with_bias ? bias : NULL, y, lo, hi);
  }
  for (i = 0; i < m; ++i) {
    for (j = 0; j < n; ++j) {
      const float* xi = x + (size_t)i * k;
      const float* wj = w + (size_t)j * k;
      float lanes[16] = {0.0f}, v = 0.0f;
      double sum = with_bias ? bias[j] : 0.0, scale = fabs(sum);
      for (kk = 0; kk < k; ++kk) {
        sum += (double)xi[kk] * wj[kk];
        scale += fabs((double)xi[kk] * wj[kk]);
      }
      for (kk = 0; kk + 16 <= k; kk += 16) {
        for (l = 0; l < 16; ++l) lanes[l] += xi[kk + l] * wj[kk + l];
      }
      for (; kk < k; ++kk) v += xi[kk] * wj[kk];
      for (l = 0; l < 16; ++l) v += lanes[l];
      if (with_bias) v = v + bias[j];
      v = mlfk_clamp(v, lo, hi);
      if (lo > -HUGE_VALF || hi < HUGE_VALF) sum = sum > lo ? (sum < hi ? sum : hi) : lo;
      mlfk_test_expect_close(what, isa, (size_t)i * n + j, y[(size_t)i * n + j], sum, scale);
      mlfk_test_expect_eq(what, (size_t)i * n + j, y[(size_t)i * n + j], v);
    }
  }
  for (threads = 2; threads <= 4; ++threads) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    char split_what[160];
    memset(split, 0, (size_t)m * n * sizeof(float));
    if (packed) {
      mlfk_gemv_f32_packed_exec(&ex, m, n, k, x, wp, with_bias ? bias : NULL, split, lo, hi);
    } else {
      mlfk_gemv_f32_exec(&ex, m, n, k, x, w, with_bias ? bias : NULL, split, lo, hi);
    }
    snprintf(split_what, sizeof split_what, "%s threads=%d [%s]", what, threads,
             mlfk_test_isa_name(isa));
    mlfk_test_expect_same_bits(split_what, split, y, (size_t)m * n);
    if ((double)m * n * k >= 4.0 * MLFK_GEMV_MIN_TASK_MACS && tasks != threads &&
        (!packed || (n + 15) / 16 >= threads)) {
      printf("FAIL %s: %d tasks ran\n", split_what, tasks);
      ++mlfk_test_failures;
    }
  }
  free(x);
  free(w);
  if (packed) free(wp);
  free(bias);
  free(y);
  free(split);
}

/* The packed GEMV's clamp in registers: a NaN sum passes through without
 * an activation and becomes lo with one, in a whole block and in the last
 * (the 3 columns after 16), as mlfk_clamp makes it. */
static void check_gemv_nan(int isa) {
  float x[20], w[19 * 20], wp[19 * 20], y[19];
  int i;
  for (i = 0; i < 20; ++i) x[i] = 1.0f;
  for (i = 0; i < 19 * 20; ++i) w[i] = i == 20 * 2 + 3 || i == 20 * 17 + 18 ? NAN : 1.0f;
  pack_gemv(w, 19, 20, wp);
  mlfk_gemv_f32_packed_with(isa, 1, 19, 20, x, wp, NULL, y, -HUGE_VALF, HUGE_VALF);
  mlfk_test_expect_close("gemv packed nan, no clamp", isa, 2, y[2], NAN, 0);
  mlfk_test_expect_close("gemv packed nan, no clamp", isa, 17, y[17], NAN, 0);
  mlfk_test_expect_eq("gemv packed nan, no clamp", 16, y[16], 20.0f);
  mlfk_gemv_f32_packed_with(isa, 1, 19, 20, x, wp, NULL, y, -1.0f, 6.0f);
  mlfk_test_expect_eq("gemv packed nan, clip", 2, y[2], -1.0f);
  mlfk_test_expect_eq("gemv packed nan, clip", 17, y[17], -1.0f);
  mlfk_test_expect_eq("gemv packed nan, clip", 3, y[3], 6.0f);
}

/* Both layouts; under QEMU (MLFK_TEST_QUICK) the packed one only where W
 * and its packed copy fit the Cortex-M55's 2 MiB of RAM with room to spare. */
static void check_gemv(int isa, int m, int n, int k, int with_bias, float lo, float hi) {
  check_gemv_layout(isa, 0, m, n, k, with_bias, lo, hi);
#if defined(MLFK_TEST_QUICK)
  if ((size_t)n * k > ((size_t)1 << 17)) return;
#endif
  check_gemv_layout(isa, 1, m, n, k, with_bias, lo, hi);
}

int main(void) {
  static const int ms[] = {1, 7, 8, 9, 16, 21};
#if defined(MLFK_TEST_QUICK)
  /* Under QEMU (cortex_m_kernel_test.sh): without the 600s; K = 257 still
   * crosses the K block, and the 520-column case below the N block. */
  static const int ns[] = {1, 5, 8, 13, 31, 32, 33, 70};
  static const int ks[] = {0, 1, 3, 255, 256, 257};
#else
  static const int ns[] = {1, 5, 8, 13, 31, 32, 33, 70, 600};
  static const int ks[] = {0, 1, 3, 255, 256, 257, 600};
#endif
  int isa;
  size_t mi, ni, ki;
  mlfk_test_report_isas();
  check_line_cuts();
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    for (mi = 0; mi < sizeof ms / sizeof ms[0]; ++mi) {
      for (ni = 0; ni < sizeof ns / sizeof ns[0]; ++ni) {
        for (ki = 0; ki < sizeof ks / sizeof ks[0]; ++ki) {
          check(isa, ms[mi], ns[ni], ks[ki], (int)((mi + ni + ki) % 2), (int)((mi + ni + ki) % 3 == 0),
                -HUGE_VALF, HUGE_VALF);
        }
      }
    }
    check(isa, 16, 40, 300, 1, 0, 0.0f, HUGE_VALF);  /* Relu */
    check(isa, 16, 40, 300, 1, 1, 0.0f, HUGE_VALF);  /* residual, then Relu */
    check(isa, 9, 33, 17, 1, 1, -0.5f, 0.25f);       /* residual, then Clip */
    check(isa, 24, 520, 20, 0, 0, 0.0f, 6.0f);       /* N across the N block */
    /* The AVX-512 row end: 16 columns then the column-broadcast tile (1-12
     * columns) or a masked 16-column one (13-15), across the K block. */
    for (ni = 1; ni <= 63; ni += 2) check(isa, 17, (int)ni, 257, 1, (int)(ni % 4 == 1), 0.0f, 6.0f);
    check(isa, 16, 49, 300, 1, 1, -HUGE_VALF, HUGE_VALF);
    /* Rows of tiles that end with 49 or 50 columns (AVX-512's 48 + 1-2
     * tile), alone and after a 32-column tile, K across blocks. */
    check(isa, 16, 50, 300, 1, 0, 0.0f, 6.0f);
    check(isa, 24, 81, 520, 0, 1, -HUGE_VALF, HUGE_VALF);
    check(isa, 9, 82, 257, 1, 1, 0.0f, HUGE_VALF);
    check(isa, 16, 44, 600, 0, 0, 0.0f, HUGE_VALF);
    check_nan(isa);
    check_tile_bits(isa);
    check_threads(isa, 37, 20, 300);  /* rows: 4 panels and 5 rows */
    check_threads(isa, 16, 31, 20);   /* 2 panels, 31 columns: rows */
    check_threads(isa, 9, 1100, 20);  /* columns alone, ragged, 256+ per task */
    check_threads(isa, 37, 600, 40);  /* columns (2 tasks) or rows, across the N block */
    check_threads(isa, 16, 784, 40);  /* a 28x28 image: columns at line starts, 400 + 384 */
    check_threads(isa, 37, 49, 300);  /* a 7x7 image: rows (its rows share lines) */
    check_threads(isa, 16, 196, 300); /* a 14x14 image: rows */
    /* K = 300 crosses the 256 block; 1100 x 300 floats of B fit the 2 MiB
     * of RAM the kernel tests have on the Cortex-M55 (mps3-an547). */
    check_threads(isa, 8, 1100, 300); /* edges of 28 columns, K across two blocks */
#if !defined(MLFK_TEST_QUICK)
    /* A weight of 2^19 floats on few columns (ResNet18's 7x7 layers): cut
     * by panels of rows, 13 panels and 5 rows. */
    check_threads(isa, 109, 49, 4810);
    /* A weight larger than L2 on few columns runs panels outside, K blocks
     * inside (mlfk_gemm_f32_panel_major): against the reference, with a
     * residual and Relu6, 13 panels and 5 rows. */
    if (!mlfk_gemm_f32_panel_major(109, 49, 2410)) {
      printf("FAIL gemm 109x49x2410 should run panel-major\n");
      ++mlfk_test_failures;
    }
    check(isa, 109, 49, 2410, 1, 1, 0.0f, 6.0f);
    check(isa, 109, 49, 2410, 1, 0, -HUGE_VALF, HUGE_VALF);
#endif
    /* A classifier (ResNet18's is 1 x 1000 x 512), tails of K and of the
     * 4-column groups, no full 16-lane block, Relu6, several rows. */
#if defined(MLFK_TEST_QUICK)
    check_gemv(isa, 1, 203, 1300, 1, -HUGE_VALF, HUGE_VALF);
#else
    check_gemv(isa, 1, 1000, 512, 1, -HUGE_VALF, HUGE_VALF);
#endif
    check_gemv(isa, 1, 37, 45, 1, 0.0f, 6.0f);
    check_gemv(isa, 3, 13, 16, 0, -HUGE_VALF, HUGE_VALF);
    check_gemv(isa, 2, 6, 7, 1, 0.0f, HUGE_VALF);
    check_gemv(isa, 1, 1, 1, 1, -HUGE_VALF, HUGE_VALF);
    /* The MLP's layers (784-256-128-10) and LeNet-5's (400-120-84-10):
     * whole blocks of 16 columns and a last one of 8, 4 or 10; K with and
     * without a tail. More rows than one, a block of 16 and one of 3, K
     * below one step, and a NaN through the clamp (check_gemv_nan). */
    check_gemv(isa, 1, 256, 784, 1, 0.0f, HUGE_VALF);
    check_gemv(isa, 1, 128, 256, 1, 0.0f, HUGE_VALF);
    check_gemv(isa, 1, 10, 128, 1, -HUGE_VALF, HUGE_VALF);
    check_gemv(isa, 1, 120, 400, 1, 0.0f, HUGE_VALF);
    check_gemv(isa, 1, 84, 120, 1, 0.0f, HUGE_VALF);
    check_gemv(isa, 1, 10, 84, 0, -HUGE_VALF, HUGE_VALF);
    check_gemv(isa, 8, 19, 37, 1, -0.5f, 0.25f);
    check_gemv(isa, 2, 33, 15, 1, 0.0f, HUGE_VALF);
    check_gemv(isa, 1, 16, 16, 0, -HUGE_VALF, HUGE_VALF);
    check_gemv_nan(isa);
  }
  return mlfk_test_finish("gemm_f32_test");
}
