/* depthwise_s8 against a naive integer reference, bit for bit: every
 * variant this CPU runs; uint8 and int8 inputs with zero points, padding,
 * strides, dilations, kernels of 1 to 5 taps a side, rows wider than a
 * column block, per-channel multipliers, a clamp, int32 output, batches,
 * and split into tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "mlf_kernel_depthwise_s8.h"

static unsigned next(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static void expect_int(const char* what, size_t index, int64_t got, int64_t want) {
  if (got != want) {
    if (mlfk_test_failures < 20) {
      printf("FAIL %s element %lu: got %lld, want %lld\n", what, (unsigned long)index, (long long)got,
             (long long)want);
    }
    ++mlfk_test_failures;
  }
}

static void check(int isa, int batch, int c, int h, int w, int k, int s, int pad, int dil, int is_signed,
                  int int32_out, int threads) {
  mlfk_conv_s8_geom g;
  mlfk_gemm_s8_args a;
  unsigned seed = 3u + (unsigned)(c * 11 + h * 5 + w + k * 7 + s + is_signed);
  const int zx = is_signed ? -7 : 131, zy = is_signed ? 4 : 120;
  const int lo = is_signed ? -100 : 0, hi = is_signed ? 127 : 250;
  int8_t* wt;
  uint8_t *x, *out;
  int32_t *bias, *mult, *shift;
  char what[200];
  int i, b, ch, oy, ox, ty, tx, pixels, tasks = 0;
  g.c = c;
  g.h = h;
  g.w = w;
  g.kh = k;
  g.kw = k;
  g.sh = s;
  g.sw = s;
  g.ph = pad;
  g.pw = pad;
  g.dh = dil;
  g.dw = dil;
  g.oh = (h + 2 * pad - dil * (k - 1) - 1) / s + 1;
  g.ow = (w + 2 * pad - dil * (k - 1) - 1) / s + 1;
  pixels = g.oh * g.ow;
  wt = malloc((size_t)c * k * k);
  x = malloc((size_t)batch * c * h * w);
  out = malloc((size_t)batch * c * pixels * 4);
  bias = malloc(sizeof(int32_t) * (size_t)c);
  mult = malloc(sizeof(int32_t) * (size_t)c);
  shift = malloc(sizeof(int32_t) * (size_t)c);
  for (i = 0; i < c * k * k; ++i) wt[i] = (int8_t)((int)(next(&seed) % 256) - 128);
  for (i = 0; i < batch * c * h * w; ++i) x[i] = (uint8_t)next(&seed);
  for (i = 0; i < c; ++i) {
    bias[i] = (int32_t)(next(&seed) % 4001) - 2000;
    mult[i] = (int32_t)((1u << 30) + next(&seed) % (1u << 24) * 64u);
    shift[i] = -6 - (int32_t)(next(&seed) % 6);
  }
  /* With five channels or more, one whose multiplier exceeds 1 (a left
   * shift): the other requantisation path next to the vector one. */
  if (c >= 5) shift[1] = 1;
  a.m = c;
  a.k = k * k;
  a.w = wt;
  a.ldw = k * k;
  a.bias = bias;
  a.mult = int32_out ? NULL : mult;
  a.shift = shift;
  a.zy = zy;
  a.lo = lo;
  a.hi = hi;
  a.out = out;
  a.ors = 0;
  a.ocs = 0;
  if (threads > 1) {
    mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    mlfk_depthwise_s8_exec(&ex, &g, &a, x, is_signed, zx, batch);
  } else {
    mlfk_depthwise_s8_with(isa, &g, &a, x, is_signed, zx, batch);
  }
  snprintf(what, sizeof what, "depthwise_s8 [%s] n=%d c=%d %dx%d k=%d s=%d pad=%d dil=%d signed=%d int32=%d threads=%d",
           mlfk_test_isa_name(isa), batch, c, h, w, k, s, pad, dil, is_signed, int32_out, threads);
  for (b = 0; b < batch; ++b) {
    for (ch = 0; ch < c; ++ch) {
      for (oy = 0; oy < g.oh; ++oy) {
        for (ox = 0; ox < g.ow; ++ox) {
          const size_t at = ((size_t)(b * c + ch) * g.oh + oy) * g.ow + ox;
          uint32_t acc = (uint32_t)bias[ch];
          int64_t want, got;
          for (ty = 0; ty < k; ++ty) {
            for (tx = 0; tx < k; ++tx) {
              const int iy = oy * s - pad + ty * dil, ix = ox * s - pad + tx * dil;
              const size_t xi = ((size_t)(b * c + ch) * h + iy) * w + ix;
              int v;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              v = is_signed ? (int)(int8_t)x[xi] : (int)x[xi];
              acc += (uint32_t)((v - zx) * wt[(ch * k + ty) * k + tx]);
            }
          }
          if (int32_out) {
            want = (int32_t)acc;
            got = ((int32_t*)out)[at];
          } else {
            /* gemm_s8's fixmul is tested against its own reference there. */
            int64_t q = (int64_t)mlfk_s8_fixmul((int32_t)acc, mult[ch], shift[ch]) + zy;
            want = q < lo ? lo : (q > hi ? hi : q);
            got = is_signed ? (int64_t)(int8_t)out[at] : (int64_t)out[at];
          }
          expect_int(what, at, got, want);
        }
      }
    }
  }
  free(wt);
  free(x);
  free(out);
  free(bias);
  free(mult);
  free(shift);
}

/* The shapes above reach every path: several bands per plane, column
 * chunks, the direct path. */
static void check_paths(void) {
  mlfk_conv_s8_geom g;
  int cols, rows;
  memset(&g, 0, sizeof g);
  g.c = 1;
  g.kh = g.kw = 3;
  g.sh = g.sw = g.dh = g.dw = 1;
  g.h = g.oh = 35;
  g.w = g.ow = 33;
  expect_int("band path of 35x33", 0, mlfk_dw_s8_band_shape(&g, &cols, &rows), 1);
  expect_int("columns of 35x33", 0, cols, 33);
  expect_int("rows of 35x33 below the plane's", 0, rows < 35, 1);
  g.h = g.oh = 4;
  g.w = g.ow = 1100;
  expect_int("band path of 4x1100", 0, mlfk_dw_s8_band_shape(&g, &cols, &rows), 1);
  expect_int("columns of 4x1100 below the row's", 0, cols < 1100, 1);
  g.h = g.w = 85;
  g.oh = g.ow = 7;
  g.dh = g.dw = 40;
  expect_int("band path of dilation 40", 0, mlfk_dw_s8_band_shape(&g, &cols, &rows), 0);
}

int main(void) {
  int isa;
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    /* isa, batch, c, h, w, k, stride, pad, dilation, signed, int32, threads */
    check(isa, 1, 3, 7, 9, 3, 1, 1, 1, 0, 0, 1);
    check(isa, 2, 5, 8, 8, 3, 2, 1, 1, 1, 0, 1);
    check(isa, 1, 4, 9, 7, 5, 1, 2, 1, 0, 0, 1);
    check(isa, 1, 2, 10, 11, 3, 1, 2, 2, 1, 0, 1);
    check(isa, 1, 3, 6, 6, 1, 1, 0, 1, 0, 1, 1);
    check(isa, 1, 1, 3, 140, 3, 1, 1, 1, 1, 0, 1); /* a row wider than a column block */
    check(isa, 1, 1, 4, 4, 5, 1, 0, 1, 0, 0, 1);   /* kernel as large as the image */
    check(isa, 2, 6, 9, 9, 3, 1, 1, 1, 0, 0, 3);
    check(isa, 1, 7, 12, 12, 3, 2, 1, 1, 1, 1, 4);
    /* Larger planes, rows around the 32-column tile, MobileNet's 7x7. */
    check(isa, 2, 3, 33, 31, 3, 1, 1, 1, 0, 0, 3);
    check(isa, 1, 2, 35, 33, 3, 1, 1, 1, 1, 0, 2);
    check(isa, 1, 5, 7, 7, 3, 1, 1, 1, 1, 0, 4);
    /* 14-wide rows (a window pitch of 16: on AVX-512 stored straight from
     * the vectors), square and not, split over tasks. */
    check(isa, 1, 6, 14, 14, 3, 1, 1, 1, 0, 0, 1);
    check(isa, 1, 5, 11, 14, 3, 1, 1, 1, 1, 0, 3);
    /* Rows wider than a band (column chunks), stride 2 of one, and a
     * dilation whose window of one output does not fit the band buffer
     * (the direct path). */
    check(isa, 1, 2, 4, 1100, 3, 1, 1, 1, 0, 0, 1);
    check(isa, 1, 1, 5, 2101, 3, 2, 1, 1, 1, 0, 2);
    check(isa, 1, 2, 85, 85, 3, 1, 1, 40, 0, 0, 2);
    check(isa, 1, 1, 9, 9, 1, 2, 0, 1, 1, 0, 1);
  }
  check_paths();
  mlfk_test_report_isas();
  return mlfk_test_finish("depthwise_s8_test");
}
