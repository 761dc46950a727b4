/* depthwise_f32 against a naive reference: every variant this CPU runs,
 * strides 1, 2 and 3, dilation, asymmetric and oversized padding, rows of
 * odd widths, batch 2, clamp or not, the stride-1 band path over several
 * bands and the row paths it leaves to wide rows; and the variants agree
 * bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "mlf_kernel_depthwise_f32.h"

static int out_size(int in, int k, int s, int d, int pb, int pe) {
  return (in + pb + pe - ((k - 1) * d + 1)) / s + 1;
}

/* Intra-op threads: 2-4 tasks (output rows of every plane when each task's
 * rows hold MLFK_LINE_CUT_MIN floats, as in the 5 x 700 and 30 x 31 images
 * below, otherwise planes) give `serial` bit for bit. */
static void check_threads(int isa, const mlfk_depthwise2d_f32_shape* s, const float* x,
                          const float* wt, const float* bias, const float* serial, size_t ysize,
                          float lo, float hi, const char* what) {
  void* split_mem;
  float* split = mlfk_test_line_alloc(ysize + 1, &split_mem);
  char split_what[200];
  int threads;
  for (threads = 2; threads <= 4; ++threads) {
    int tasks = 0;
    const mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    memset(split, 0, ysize * sizeof(float));
    mlfk_depthwise2d_f32_exec(&ex, s, x, wt, bias, split, lo, hi);
    snprintf(split_what, sizeof split_what, "%s threads=%d [%s]", what, threads,
             mlfk_test_isa_name(isa));
    mlfk_test_expect_same_bits(split_what, split, serial, ysize);
  }
  free(split_mem);
}

static void check(int n, int c, int h, int w, int kh, int kw, int sh, int sw, int dh, int dw, int pt,
                  int pl, int pb, int pr, int with_bias, float lo, float hi) {
  mlfk_depthwise2d_f32_shape s;
  float *x, *wt, *bias, *y, *first;
  size_t ysize;
  char what[160];
  int isa, in, ic, oy, ox;
  s.n = n; s.c = c; s.h = h; s.w = w; s.kh = kh; s.kw = kw; s.sh = sh; s.sw = sw; s.dh = dh;
  s.dw = dw; s.pad_top = pt; s.pad_left = pl;
  s.oh = out_size(h, kh, sh, dh, pt, pb);
  s.ow = out_size(w, kw, sw, dw, pl, pr);
  ysize = (size_t)n * c * s.oh * s.ow;
  x = calloc((size_t)(n * c * h * w), sizeof(float));
  wt = calloc((size_t)(c * kh * kw), sizeof(float));
  bias = calloc((size_t)c, sizeof(float));
  y = calloc(ysize, sizeof(float));
  first = calloc(ysize, sizeof(float));
  mlfk_test_fill(x, (size_t)n * c * h * w, 31u);
  mlfk_test_fill(wt, (size_t)c * kh * kw, 37u);
  mlfk_test_fill(bias, (size_t)c, 41u);
  snprintf(what, sizeof what, "depthwise n=%d c=%d %dx%d k=%dx%d s=%d,%d d=%d,%d pads=%d,%d,%d,%d",
           n, c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr);
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    size_t i;
    if (!mlfk_isa_supported(isa)) continue;
    mlfk_depthwise2d_f32_with(isa, &s, x, wt, with_bias ? bias : NULL, y, lo, hi);
    for (in = 0; in < n; ++in) {
      for (ic = 0; ic < c; ++ic) {
        for (oy = 0; oy < s.oh; ++oy) {
          for (ox = 0; ox < s.ow; ++ox) {
            double sum = with_bias ? bias[ic] : 0.0, scale = fabs(sum);
            int ky, kx;
            const size_t at = (((size_t)in * c + ic) * s.oh + oy) * s.ow + ox;
            for (ky = 0; ky < kh; ++ky) {
              for (kx = 0; kx < kw; ++kx) {
                const int iy = oy * sh - pt + ky * dh, ix = ox * sw - pl + kx * dw;
                double v;
                if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
                v = (double)x[((in * c + ic) * h + iy) * w + ix] * wt[(ic * kh + ky) * kw + kx];
                sum += v;
                scale += fabs(v);
              }
            }
            if (lo > -HUGE_VALF || hi < HUGE_VALF) sum = sum > lo ? (sum < hi ? sum : hi) : lo;
            mlfk_test_expect_close(what, isa, at, y[at], sum, scale);
          }
        }
      }
    }
    check_threads(isa, &s, x, wt, with_bias ? bias : NULL, y, ysize, lo, hi, what);
    if (isa == MLFK_ISA_PORTABLE) {
      memcpy(first, y, ysize * sizeof(float));
    } else {
      for (i = 0; i < ysize; ++i) mlfk_test_expect_eq(what, i, y[i], first[i]);
    }
  }
  free(x); free(wt); free(bias); free(y); free(first);
}

int main(void) {
  mlfk_test_report_isas();
  /* MobileNetV2's: 3x3 pad 1, stride 1 and 2. */
  check(1, 5, 17, 19, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.0f, 6.0f);
  check(2, 3, 16, 15, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, -HUGE_VALF, HUGE_VALF);
  /* 5x5 stride 3, dilation 2, asymmetric padding, no bias. */
  check(1, 4, 21, 23, 5, 5, 3, 3, 2, 2, 2, 0, 1, 3, 0, -HUGE_VALF, HUGE_VALF);
  /* Padding wider than the kernel reaches; a 1-pixel image. */
  check(1, 2, 3, 4, 2, 3, 1, 1, 1, 1, 3, 4, 3, 4, 1, -HUGE_VALF, HUGE_VALF);
  check(1, 3, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.0f, HUGE_VALF);
  /* Wide rows (vector loops and their tails), stride 2 on odd widths. */
  check(1, 2, 9, 77, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, -HUGE_VALF, HUGE_VALF);
  /* Stride 1 takes the band path: several bands per plane (31 columns:
   * 14 rows a band with the x86 buffer, 2 with the firmware one) over 2
   * images, planes of 7x7 and 14x14 as MobileNetV2's, no padding, padding
   * on one side only, a 5x5 dilated kernel (the tap-by-tap loop), a 1x1. */
  check(2, 3, 30, 31, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.0f, 6.0f);
  check(1, 7, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.0f, 6.0f);
  check(1, 5, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, -HUGE_VALF, HUGE_VALF);
  check(1, 2, 8, 9, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, -HUGE_VALF, HUGE_VALF);
  check(1, 2, 10, 6, 3, 3, 1, 1, 1, 1, 2, 0, 0, 2, 1, 0.0f, HUGE_VALF);
  check(1, 3, 11, 9, 5, 5, 1, 1, 2, 2, 3, 1, 2, 4, 1, -HUGE_VALF, HUGE_VALF);
  check(1, 2, 4, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0.0f, HUGE_VALF);
  /* Rows too wide for one band row (3x3: over 340 columns with the x86
   * buffer): stride 1 through the row paths. */
  check(1, 2, 5, 700, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.0f, 6.0f);
  return mlfk_test_finish("depthwise_f32_test");
}
