/* pool_f32 against a naive reference: every variant this CPU runs, MaxPool
 * (exact) and AveragePool (both divisor rules), strides 1-3, dilation,
 * asymmetric and oversized padding, ceil_mode windows past the end padding,
 * rows of odd widths, batch 2, a NaN in the input; the global pools over
 * planes shorter and longer than 16; 2-4 tasks give the serial bits and
 * the variants agree bit for bit. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "mlf_kernel_pool_f32.h"

/* Output size with ceil_mode 0 or 1 (a last window that would start in the
 * end padding is dropped, as ONNX says). */
static int out_size(int in, int k, int s, int d, int pb, int pe, int ceil_mode) {
  const int extent = (k - 1) * d + 1, span = in + pb + pe - extent;
  int o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + pb) --o;
  return o;
}

/* Tasks through the parallel-for for `threads` over `units` pieces of work
 * (a single task runs on the caller). */
static int expected_tasks(int threads, int units) {
  const int t = threads < units ? threads : units;
  return t > 1 ? t : 0;
}

/* Tasks mlfk_pool2d_f32_exec cuts `s` into for `threads` writing to y: rows
 * of every plane when each task's rows hold MLFK_LINE_CUT_MIN floats of a
 * plane, otherwise planes, in blocks that span whole cache lines when y
 * starts one. */
static int expected_pool_tasks(const mlfk_pool2d_f32_shape* s, int threads, const float* y) {
  const int planes = s->n * s->c;
  int q, blocks;
  if (s->oh >= threads && s->oh / threads * s->ow >= MLFK_LINE_CUT_MIN) return threads;
  q = mlfk_line_aligned(y) ? mlfk_line_units((long)s->oh * s->ow) : 1;
  blocks = (planes + q - 1) / q;
  return expected_tasks(threads, blocks);
}

static void check_threads(int isa, const mlfk_pool2d_f32_shape* s, const float* x,
                          const float* serial, size_t ysize, const char* what) {
  void* split_mem;
  float* split = mlfk_test_line_alloc(ysize + 1, &split_mem);
  char split_what[260];
  int threads;
  for (threads = 2; threads <= 4; ++threads) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    memset(split, 0, ysize * sizeof(float));
    mlfk_pool2d_f32_exec(&ex, s, x, split);
    snprintf(split_what, sizeof split_what, "%s threads=%d [%s]", what, threads,
             mlfk_test_isa_name(isa));
    mlfk_test_expect_same_bits(split_what, split, serial, ysize);
    if (tasks != expected_pool_tasks(s, threads, split)) {
      printf("FAIL %s: %d tasks ran\n", split_what, tasks);
      ++mlfk_test_failures;
    }
  }
  free(split_mem);
}

static void check(int average, int cip, int n, int c, int h, int w, int kh, int kw, int sh, int sw,
                  int dh, int dw, int pt, int pl, int pb, int pr, int ceil_mode, int nan_at) {
  mlfk_pool2d_f32_shape s;
  float *x, *y, *first;
  size_t ysize, xsize;
  char what[200];
  int isa, plane, oy, ox;
  s.n = n; s.c = c; s.h = h; s.w = w; s.kh = kh; s.kw = kw; s.sh = sh; s.sw = sw; s.dh = dh;
  s.dw = dw; s.pad_top = pt; s.pad_left = pl; s.pad_bottom = pb; s.pad_right = pr;
  s.average = average; s.count_include_pad = cip;
  s.oh = out_size(h, kh, sh, dh, pt, pb, ceil_mode);
  s.ow = out_size(w, kw, sw, dw, pl, pr, ceil_mode);
  ysize = (size_t)n * c * s.oh * s.ow;
  xsize = (size_t)n * c * h * w;
  x = calloc(xsize, sizeof(float));
  y = calloc(ysize, sizeof(float));
  first = calloc(ysize, sizeof(float));
  mlfk_test_fill(x, xsize, 43u);
  if (nan_at >= 0) x[nan_at] = NAN;
  snprintf(what, sizeof what,
           "%s%s n=%d c=%d %dx%d k=%dx%d s=%d,%d d=%d,%d pads=%d,%d,%d,%d ceil=%d",
           average ? "AveragePool" : "MaxPool", cip ? " count_include_pad" : "", n, c, h, w, kh,
           kw, sh, sw, dh, dw, pt, pl, pb, pr, ceil_mode);
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    size_t i;
    if (!mlfk_isa_supported(isa)) continue;
    mlfk_pool2d_f32_with(isa, &s, x, y);
    for (plane = 0; plane < n * c; ++plane) {
      for (oy = 0; oy < s.oh; ++oy) {
        for (ox = 0; ox < s.ow; ++ox) {
          const size_t at = ((size_t)plane * s.oh + oy) * s.ow + ox;
          float best = -FLT_MAX;
          double sum = 0.0, scale = 0.0;
          int ky, kx, count = 0;
          for (ky = 0; ky < kh; ++ky) {
            for (kx = 0; kx < kw; ++kx) {
              const int iy = oy * sh - pt + ky * dh, ix = ox * sw - pl + kx * dw;
              const int inside = iy >= 0 && iy < h && ix >= 0 && ix < w;
              const int padded = iy >= -pt && iy < h + pb && ix >= -pl && ix < w + pr;
              float v;
              if (cip ? padded : inside) ++count;
              if (!inside) continue;
              v = x[((size_t)plane * h + iy) * w + ix];
              best = v > best ? v : best;
              sum += v;
              scale += fabs(v);
            }
          }
          if (average) {
            mlfk_test_expect_close(what, isa, at, y[at], sum / count, scale / count);
          } else {
            mlfk_test_expect_eq(what, at, y[at], best);
          }
        }
      }
    }
    check_threads(isa, &s, x, y, ysize, what);
    if (isa == MLFK_ISA_PORTABLE) {
      memcpy(first, y, ysize * sizeof(float));
    } else {
      for (i = 0; i < ysize; ++i) mlfk_test_expect_eq(what, i, y[i], first[i]);
    }
  }
  free(x); free(y); free(first);
}

static void check_global(int average, int planes, int size, int nan_at) {
  float *x = calloc((size_t)planes * size, sizeof(float)), *y = calloc((size_t)planes, sizeof(float));
  float *first = calloc((size_t)planes, sizeof(float)), *split = calloc((size_t)planes, sizeof(float));
  char what[120];
  int isa, p, i, threads;
  mlfk_test_fill(x, (size_t)planes * size, 47u);
  if (nan_at >= 0) x[nan_at] = NAN;
  snprintf(what, sizeof what, "%s planes=%d size=%d", average ? "GlobalAveragePool" : "GlobalMaxPool",
           planes, size);
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    mlfk_global_pool_f32_with(isa, average, planes, size, x, y);
    for (p = 0; p < planes; ++p) {
      const float* xp = x + (size_t)p * size;
      float best = xp[0];
      double sum = 0.0, scale = 0.0;
      for (i = 0; i < size; ++i) {
        best = xp[i] > best ? xp[i] : best;
        sum += xp[i];
        scale += fabs(xp[i]);
      }
      if (average) {
        mlfk_test_expect_close(what, isa, (size_t)p, y[p], sum / size, scale / size);
      } else if (!isnan(xp[0])) {
        mlfk_test_expect_eq(what, (size_t)p, y[p], best);
      }
    }
    for (threads = 2; threads <= 4; ++threads) {
      int tasks = 0;
      const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
      memset(split, 0, (size_t)planes * sizeof(float));
      mlfk_global_pool_f32_exec(&ex, average, planes, size, x, split);
      mlfk_test_expect_same_bits(what, split, y, (size_t)planes);
      if (tasks != expected_tasks(threads, planes)) {
        printf("FAIL %s threads=%d: %d tasks ran\n", what, threads, tasks);
        ++mlfk_test_failures;
      }
    }
    if (isa == MLFK_ISA_PORTABLE) {
      memcpy(first, y, (size_t)planes * sizeof(float));
    } else {
      for (p = 0; p < planes; ++p) mlfk_test_expect_eq(what, (size_t)p, y[p], first[p]);
    }
  }
  free(x); free(y); free(first); free(split);
}

int main(void) {
  int average;
  mlfk_test_report_isas();
  for (average = 0; average <= 1; ++average) {
    /* ResNet18's stem pool: 3x3 stride 2 pad 1. */
    check(average, 0, 1, 3, 24, 23, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, -1);
    /* SqueezeNet's: 3x3 stride 2, ceil_mode, no padding, odd sizes (111, 55, 27, 13). */
    check(average, 0, 1, 4, 27, 27, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, -1);
    check(average, 0, 2, 3, 13, 15, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1, 17);
    /* 2x2 stride 2 (LeNet's), 3x3 stride 1, a 1-pixel image. */
    check(average, 0, 1, 3, 16, 41, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, -1);
    check(average, 0, 1, 2, 9, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 40);
    check(average, 0, 1, 2, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, -1);
    /* 5x4 stride 3,2, dilation 2, asymmetric padding; padding beyond the window's reach. */
    check(average, 0, 1, 3, 21, 23, 5, 4, 3, 2, 2, 2, 2, 0, 1, 3, 0, -1);
    check(average, 0, 1, 2, 3, 4, 2, 3, 1, 1, 1, 1, 1, 2, 1, 2, 0, -1);
    /* Wide rows (vector loops and their tails), ceil_mode with padding. */
    check(average, 0, 1, 2, 5, 131, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, -1);
    check(average, 0, 1, 2, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, -1);
    /* Rows long enough to cut every plane by rows (70 x 130 outputs). */
    check(average, 0, 1, 2, 70, 130, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, -1);
    /* 20 planes of 7 x 7 outputs: cut by planes. */
    check(average, 0, 1, 20, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, -1);
  }
  /* AveragePool dividing by the taps in the padded input. */
  check(1, 1, 1, 3, 24, 23, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, -1);
  check(1, 1, 1, 2, 9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, -1);
  check(1, 1, 1, 3, 21, 23, 5, 4, 3, 2, 2, 2, 2, 0, 1, 3, 0, -1);
  check(1, 1, 1, 2, 10, 10, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 1, -1);
  for (average = 0; average <= 1; ++average) {
    /* Planes of 49 (7x7), 169 (13x13), 16, 5 elements; 1 to 37 planes. */
    check_global(average, 37, 49, -1);
    check_global(average, 5, 169, 200);
    check_global(average, 3, 16, -1);
    check_global(average, 1, 5, -1);
    check_global(average, 6, 7, 3);
  }
  return mlfk_test_finish("pool_f32_test");
}
