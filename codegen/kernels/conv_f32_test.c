/* conv_f32 against a naive direct convolution: every variant this CPU runs,
 * 1x1 direct and im2col paths, strides, dilations, asymmetric padding,
 * chunks that split output rows, padding wider than the kernel, batch 2,
 * the shifted-copy columns of stride-1 windows as wide as their input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "mlf_kernel_conv_f32.h"

static int out_size(int in, int k, int s, int d, int pb, int pe) {
  return (in + pb + pe - ((k - 1) * d + 1)) / s + 1;
}

/* Intra-op threads: 2-4 tasks (images whose rows span whole cache lines,
 * or are long, by output pixels; others with im2col by rows of the columns
 * and the GEMM by rows or columns of the output) give `serial` bit for bit. */
static void check_threads(int isa, const mlfk_conv2d_f32_shape* s, const float* x,
                          const float* packed, const float* bias, const float* res,
                          const float* serial,
                          size_t ysize, float* scratch, float lo, float hi, const char* what) {
  void* split_mem;
  float* split = mlfk_test_line_alloc(ysize + 1, &split_mem);
  char split_what[220];
  int threads;
  for (threads = 2; threads <= 4; ++threads) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    memset(split, 0, ysize * sizeof(float));
    mlfk_conv2d_f32_exec(&ex, s, x, packed, bias, res, split, scratch, lo, hi);
    snprintf(split_what, sizeof split_what, "%s threads=%d [%s]", what, threads,
             mlfk_test_isa_name(isa));
    mlfk_test_expect_same_bits(split_what, split, serial, ysize);
  }
  free(split_mem);
}

/* pad_bottom / pad_right are what the output sizes imply; a negative chunk
 * means chunk -chunk and a residual (a fused Add). */
static void check(int isa, int n, int c, int h, int w, int m, int kh, int kw, int sh, int sw, int dh,
                  int dw, int pt, int pl, int pb, int pr, int chunk, float lo, float hi) {
  const int with_res = chunk < 0;
  mlfk_conv2d_f32_shape s;
  const int k = c * kh * kw;
  float *x, *wt, *packed, *bias, *y, *scratch, *res;
  size_t ysize, scratch_floats;
  char what[160];
  int in, im, oy, ox;
  s.n = n; s.c = c; s.h = h; s.w = w; s.m = m; s.kh = kh; s.kw = kw; s.sh = sh; s.sw = sw;
  s.dh = dh; s.dw = dw; s.pad_top = pt; s.pad_left = pl;
  s.chunk = with_res ? -chunk : chunk;
  s.oh = out_size(h, kh, sh, dh, pt, pb);
  s.ow = out_size(w, kw, sw, dw, pl, pr);
  ysize = (size_t)n * m * s.oh * s.ow;
  x = calloc((size_t)(n * c * h * w), sizeof(float));
  wt = calloc((size_t)(m * k), sizeof(float));
  packed = calloc((size_t)(m * k), sizeof(float));
  bias = calloc((size_t)m, sizeof(float));
  y = calloc(ysize, sizeof(float));
  res = calloc(ysize, sizeof(float));
  scratch_floats = mlfk_conv2d_f32_scratch(&s);
  scratch = calloc((scratch_floats + 1), sizeof(float));
  mlfk_test_fill(x, (size_t)n * c * h * w, 11u);
  mlfk_test_fill(wt, (size_t)m * k, 13u);
  mlfk_test_fill(bias, (size_t)m, 17u);
  mlfk_test_fill(res, ysize, 19u);
  mlfk_test_pack(wt, m, k, packed);
  mlfk_conv2d_f32_with(isa, &s, x, packed, bias, with_res ? res : NULL, y, scratch, lo, hi);
  snprintf(what, sizeof what, "conv n=%d c=%d %dx%d m=%d k=%dx%d s=%d,%d d=%d,%d pads=%d,%d,%d,%d chunk=%d res=%d",
           n, c, h, w, m, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, s.chunk, with_res);
  for (in = 0; in < n; ++in) {
    for (im = 0; im < m; ++im) {
      for (oy = 0; oy < s.oh; ++oy) {
        for (ox = 0; ox < s.ow; ++ox) {
          double sum = bias[im], scale = fabs(sum);
          int ci, ky, kx;
          size_t at = (((size_t)in * m + im) * s.oh + oy) * s.ow + ox;
          for (ci = 0; ci < c; ++ci) {
            for (ky = 0; ky < kh; ++ky) {
              for (kx = 0; kx < kw; ++kx) {
                const int iy = oy * sh - pt + ky * dh, ix = ox * sw - pl + kx * dw;
                double v;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                v = (double)x[((in * c + ci) * h + iy) * w + ix] * wt[((im * c + ci) * kh + ky) * kw + kx];
                sum += v;
                scale += fabs(v);
              }
            }
          }
          if (with_res) {
            sum += res[at];
            scale += fabs((double)res[at]);
          }
          if (lo > -HUGE_VALF || hi < HUGE_VALF) sum = sum > lo ? (sum < hi ? sum : hi) : lo;
          mlfk_test_expect_close(what, isa, at, y[at], sum, scale);
        }
      }
    }
  }
  check_threads(isa, &s, x, packed, bias, with_res ? res : NULL, y, ysize, scratch, lo, hi, what);
  free(x); free(wt); free(packed); free(bias); free(y); free(scratch); free(res);
}

/* The direct path for small valid convolutions: AVX-512 only (other
 * variants decline, and the generated loops run); against a naive double
 * reference, bit for bit against the sum in the generated direct loops'
 * order (bias, then (c, ky, kx) ascending, each product added unfused),
 * and 2-4 tasks the serial bits. */
static void check_valid(int isa, int n, int c, int h, int w, int m, int kh, int kw, int with_bias,
                        float lo, float hi) {
  const mlfk_conv2d_f32_valid_shape s = {n, c, h, w, m, kh, kw};
  const int oh = h - kh + 1, ow = w - kw + 1, taps = c * kh * kw;
  const size_t xn = (size_t)n * c * h * w, yn = (size_t)n * m * oh * ow;
  float* x = calloc(xn + 1, sizeof(float));
  float* wt = calloc((size_t)m * taps + 1, sizeof(float));
  float* bias = calloc((size_t)m + 1, sizeof(float));
  float* y = calloc(yn + 1, sizeof(float));
  float* split = calloc(yn + 1, sizeof(float));
  char what[160];
  int i, j, oy, ox, cc, ky, kx, threads;
  mlfk_test_fill(x, xn, 41u);
  mlfk_test_fill(wt, (size_t)m * taps, 42u);
  mlfk_test_fill(bias, (size_t)m, 43u);
  snprintf(what, sizeof what, "valid n=%d c=%d %dx%d m=%d k=%dx%d bias=%d", n, c, h, w, m, kh, kw,
           with_bias);
  if (!mlfk_conv2d_f32_valid_with(isa, &s, x, wt, with_bias ? bias : NULL, y, lo, hi)) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, 2, &tasks);
    if (isa == MLFK_ISA_AVX512 && MLFK_X86) {
      printf("FAIL %s: the AVX-512 direct path declined\n", what);
      ++mlfk_test_failures;
    }
    if (mlfk_conv2d_f32_valid_exec(&ex, &s, x, wt, NULL, y, lo, hi) || tasks != 0) {
      printf("FAIL %s [%s]: the direct path ran for a variant it declines\n", what,
             mlfk_test_isa_name(isa));
      ++mlfk_test_failures;
    }
    goto done;
  }
  for (i = 0; i < n; ++i) {
    for (j = 0; j < m; ++j) {
      for (oy = 0; oy < oh; ++oy) {
        for (ox = 0; ox < ow; ++ox) {
          const size_t at = (((size_t)i * m + j) * oh + oy) * ow + ox;
          float v = with_bias ? bias[j] : 0.0f;
          double sum = v, scale = fabs(sum);
          for (cc = 0; cc < c; ++cc) {
            for (ky = 0; ky < kh; ++ky) {
              for (kx = 0; kx < kw; ++kx) {
                const float wv = wt[((size_t)j * c + cc) * kh * kw + ky * kw + kx];
                const float xv = x[(((size_t)i * c + cc) * h + oy + ky) * w + ox + kx];
                v += wv * xv;
                sum += (double)wv * xv;
                scale += fabs((double)wv * xv);
              }
            }
          }
          v = lo > -HUGE_VALF || hi < HUGE_VALF ? mlfk_clamp(v, lo, hi) : v;
          if (lo > -HUGE_VALF || hi < HUGE_VALF) sum = sum > lo ? (sum < hi ? sum : hi) : lo;
          mlfk_test_expect_close(what, isa, at, y[at], sum, scale);
          mlfk_test_expect_eq(what, at, y[at], v);
        }
      }
    }
  }
  for (threads = 2; threads <= 4; ++threads) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    char split_what[200];
    memset(split, 0, yn * sizeof(float));
    mlfk_conv2d_f32_valid_exec(&ex, &s, x, wt, with_bias ? bias : NULL, split, lo, hi);
    snprintf(split_what, sizeof split_what, "%s threads=%d [%s]", what, threads,
             mlfk_test_isa_name(isa));
    mlfk_test_expect_same_bits(split_what, split, y, yn);
  }
done:
  free(x);
  free(wt);
  free(bias);
  free(y);
  free(split);
}

int main(void) {
  int isa;
  mlfk_test_report_isas();
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    /* 1x1 direct (no scratch), with and without a tail of rows. */
    check(isa, 1, 16, 7, 7, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 32, -HUGE_VALF, HUGE_VALF);
    check(isa, 2, 5, 9, 11, 11, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 32, 0.0f, HUGE_VALF);
    /* A residual (negative chunk): 1x1 direct with Relu, 3x3 by pixels. */
    check(isa, 2, 5, 9, 11, 11, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, -32, 0.0f, HUGE_VALF);
    check(isa, 2, 3, 20, 20, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, -64, 0.0f, HUGE_VALF);
    /* 1x1 strided: im2col. */
    check(isa, 1, 8, 9, 9, 16, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 64, -HUGE_VALF, HUGE_VALF);
    /* 3x3 pad 1, chunks of 32 splitting rows of 13. */
    check(isa, 2, 3, 13, 13, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32, -HUGE_VALF, HUGE_VALF);
    /* 7x7 stride 2 pad 3 (ResNet's stem, smaller), clip. */
    check(isa, 1, 3, 23, 20, 16, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 40, 0.0f, 6.0f);
    /* Asymmetric padding, dilation, rectangular kernel, odd chunk. */
    check(isa, 1, 4, 10, 12, 9, 3, 2, 1, 2, 2, 1, 2, 0, 1, 3, 7, -HUGE_VALF, HUGE_VALF);
    /* Padding wider than the kernel reaches: rows and columns of zeros only. */
    check(isa, 1, 2, 4, 5, 8, 2, 2, 1, 1, 1, 1, 4, 4, 4, 4, 1000, -HUGE_VALF, HUGE_VALF);
    /* Images that threads cut by output pixels (400 = 25 lines of 16): in
     * chunks of 64 (2-4 tasks of 32, 21 and 16 pixels per chunk) and in
     * chunks of 2 (at most 2 tasks, one pixel each per chunk). */
    check(isa, 1, 5, 20, 20, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64, 0.0f, HUGE_VALF);
    check(isa, 2, 3, 20, 20, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, -HUGE_VALF, HUGE_VALF);
    /* Stride 1 with the output as wide as the input: columns built as
     * shifted copies of the plane. Dilation 2 (shifts of 2 columns), 5x5
     * on a 4x4 image (taps two columns away on a 4-wide row), padding on
     * one side of the rows or the columns only, padding rows only (a
     * 3x1 kernel), more padding rows than the image has (a 1-row image),
     * and chunks that start and end mid-row. */
    check(isa, 1, 3, 11, 10, 9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 24, -HUGE_VALF, HUGE_VALF);
    check(isa, 2, 4, 4, 4, 8, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 5, 0.0f, HUGE_VALF);
    check(isa, 1, 3, 9, 7, 16, 3, 3, 1, 1, 1, 1, 2, 0, 0, 2, 13, -HUGE_VALF, HUGE_VALF);
    check(isa, 1, 3, 9, 7, 16, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, 13, -HUGE_VALF, HUGE_VALF);
    check(isa, 1, 5, 6, 5, 8, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0, 7, -HUGE_VALF, HUGE_VALF);
    check(isa, 1, 6, 1, 3, 8, 3, 3, 1, 1, 1, 1, 2, 1, 0, 1, 3, -HUGE_VALF, HUGE_VALF);
    /* One output pixel per chunk; large K across the K block. */
    check(isa, 1, 40, 6, 6, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, -HUGE_VALF, HUGE_VALF);
#if !defined(MLFK_TEST_QUICK)
    /* A weight of 2^19 floats on a 7x7 image (ResNet18's last layers):
     * threads build the columns by rows, then multiply by panels of rows
     * (114 panels). */
    check(isa, 1, 64, 7, 7, 912, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 56, 0.0f, HUGE_VALF);
#endif
    /* The direct path: LeNet-5's two convolutions (rows of 28 = 16 + 12
     * pixels, 6 channels in a block of 8; rows of 10, two blocks of 8), a
     * row of exactly 32 and one of 33 (a third segment), one pixel, one
     * tap, channels not a multiple of 8 in several blocks, batch 2, clip. */
    check_valid(isa, 1, 1, 32, 32, 6, 5, 5, 1, 0.0f, HUGE_VALF);
    check_valid(isa, 1, 6, 14, 14, 16, 5, 5, 1, 0.0f, HUGE_VALF);
    check_valid(isa, 1, 2, 5, 36, 3, 3, 5, 0, -HUGE_VALF, HUGE_VALF);
    check_valid(isa, 1, 2, 4, 35, 9, 2, 3, 1, -HUGE_VALF, HUGE_VALF);
    check_valid(isa, 2, 3, 3, 3, 19, 3, 3, 1, -0.5f, 0.5f);
    check_valid(isa, 1, 4, 6, 7, 17, 1, 1, 0, 0.0f, 6.0f);
  }
  return mlfk_test_finish("conv_f32_test");
}
