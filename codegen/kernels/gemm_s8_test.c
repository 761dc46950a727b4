/* gemm_s8 against a naive integer reference, bit for bit: every variant this
 * CPU runs; Gemm and convolution at sizes around the tile edges (rows
 * around 4, columns around 16 and 32, depth around the quads of 4), int8
 * and uint8 activations with zero points, per-row multipliers and shifts
 * (including a left shift and a tiny multiplier), int32 output, a clamp,
 * output strides, and split into tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_util.h"
#include "mlf_kernel_gemm_s8.h"

static unsigned next(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

/* TFLite's rounding, written independently of the kernel: the doubling
 * high multiply rounds half up (floor of p + 2^30 over 2^31), the right
 * shift rounds half away from zero. */
/* Exact equality of integers (float would hide int32 differences). */
static void expect_int(const char* what, size_t index, int64_t got, int64_t want) {
  if (got != want) {
    if (mlfk_test_failures < 20) {
      printf("FAIL %s element %lu: got %lld, want %lld\n", what, (unsigned long)index, (long long)got,
             (long long)want);
    }
    ++mlfk_test_failures;
  }
}

/* The single-rounding rule written another way: n = acc * mult exactly
 * (|n| <= 2^62), floor((n + d/2) / d) for d = 2^(31 - shift) by division
 * (C truncates, so negative quotients are floored by hand; every term stays
 * below 2^63), then the int32 saturation. */
static int32_t ref_fixmul(int32_t acc, int32_t mult, int32_t shift) {
  const int64_t n = (int64_t)acc * mult;
  const int t = 31 - shift;
  int64_t q = n;
  if (t > 0) {
    const int64_t d = (int64_t)1 << t, x = n + d / 2;
    q = x >= 0 ? x / d : -((-x + d - 1) / d);
  }
  if (q > INT32_MAX) q = INT32_MAX;
  if (q < INT32_MIN) q = INT32_MIN;
  return (int32_t)q;
}

typedef struct {
  int m, k, is_signed, zx, int32_out, lo, hi, zy;
  int8_t* w;
  int32_t *bias, *mult, *shift;
} problem;

/* 0: every row right-shifting with a positive multiplier, as the export
 * writes for scale ratios below 1/2 (the rows the AVX-512 VNNI tile
 * requantises in its registers); 1: row 0 left-shifting (the others' path). */
static int left_shift_row = 1;
/* Whether check_conv's threads must split the work (at least 2 tasks). */
static int expect_split = 0;

static void make_problem(problem* p, int m, int k, int is_signed, int int32_out, unsigned seed) {
  int i;
  p->m = m;
  p->k = k;
  p->is_signed = is_signed;
  p->int32_out = int32_out;
  p->zx = is_signed ? (int)(next(&seed) % 21) - 10 : 100 + (int)(next(&seed) % 50);
  p->zy = is_signed ? -5 : 120;
  p->lo = is_signed ? -128 : 0;
  p->hi = is_signed ? 127 : 255;
  if (seed % 3 == 0) p->lo = p->zy; /* a folded Relu */
  p->w = malloc((size_t)m * k + 1);
  p->bias = malloc(sizeof(int32_t) * (size_t)m);
  p->mult = malloc(sizeof(int32_t) * (size_t)m);
  p->shift = malloc(sizeof(int32_t) * (size_t)m);
  for (i = 0; i < m * k; ++i) p->w[i] = (int8_t)((int)(next(&seed) % 256) - 128);
  for (i = 0; i < m; ++i) {
    p->bias[i] = (int32_t)(next(&seed) % 20001) - 10000;
    p->mult[i] = (int32_t)((1u << 30) + next(&seed) % (1u << 24) * 64u);
    p->shift[i] = -8 - (int32_t)(next(&seed) % 8);
  }
  if (left_shift_row) p->shift[0] = 1; /* a multiplier above 1: left shift, saturating */
  /* A tiny multiplier, nearly everything to the zero point (a row the
   * AVX-512 tile leaves to the scalar code, so only with the left shift). */
  if (m > 2 && left_shift_row) p->shift[2] = -31;
  if (m > 2 && !left_shift_row) p->shift[2] = -22; /* the smallest the tile takes */
}

static void free_problem(problem* p) {
  free(p->w);
  free(p->bias);
  free(p->mult);
  free(p->shift);
}

/* The kernel's bias: B - zx_u * sum_k w (zx_u the zero point as uint8). */
static int32_t* folded_bias(const problem* p) {
  int32_t* b = malloc(sizeof(int32_t) * (size_t)p->m);
  const int zx_u = p->is_signed ? p->zx + 128 : p->zx;
  int i, kk;
  for (i = 0; i < p->m; ++i) {
    uint32_t s = (uint32_t)p->bias[i];
    for (kk = 0; kk < p->k; ++kk) s -= (uint32_t)(zx_u * p->w[i * p->k + kk]);
    b[i] = (int32_t)s;
  }
  return b;
}

static int activation(const problem* p, const uint8_t* x, size_t i) {
  return p->is_signed ? (int)(int8_t)x[i] : (int)x[i];
}

/* The reference output of row r from its plain accumulator. */
static int32_t ref_out(const problem* p, int r, int32_t acc) {
  int32_t q;
  if (p->int32_out) return acc;
  q = ref_fixmul(acc, p->mult[r], p->shift[r]) + p->zy;
  return q < p->lo ? p->lo : (q > p->hi ? p->hi : q);
}

static int32_t got_at(const problem* p, const void* out, size_t i) {
  if (p->int32_out) return ((const int32_t*)out)[i];
  return p->is_signed ? (int32_t)((const int8_t*)out)[i] : (int32_t)((const uint8_t*)out)[i];
}

static void fill_args(const problem* p, const int32_t* bias, void* out, mlfk_gemm_s8_args* a) {
  a->m = p->m;
  a->k = p->k;
  a->w = p->w;
  a->ldw = p->k;
  a->bias = bias;
  a->mult = p->int32_out ? NULL : p->mult;
  a->shift = p->shift;
  a->zy = p->zy;
  a->lo = p->lo;
  a->hi = p->hi;
  a->out = out;
}

/* Gemm: n activation rows of k (row stride k + 2), out[c][r] (row stride m + 1). */
static void check_gemm(int isa, int m, int n, int k, int is_signed, int int32_out, int threads) {
  problem p;
  const int lda = k + 2, ldo = m + 1;
  const size_t esz = int32_out ? 4 : 1;
  uint8_t* act;
  uint8_t *out, *scratch;
  int32_t* bias;
  mlfk_gemm_s8_args a;
  char what[160];
  unsigned seed = 11u + (unsigned)(m * 131 + n * 17 + k);
  int r, c, kk, tasks = 0;
  make_problem(&p, m, k, is_signed, int32_out, seed);
  bias = folded_bias(&p);
  act = malloc((size_t)n * lda + 1);
  out = malloc((size_t)n * ldo * esz + 1);
  scratch = malloc(mlfk_gemm_s8_scratch(n, k) + 1);
  for (r = 0; r < n * lda; ++r) act[r] = (uint8_t)next(&seed);
  memset(out, 0x5A, (size_t)n * ldo * esz);
  fill_args(&p, bias, out, &a);
  a.ors = 1;
  a.ocs = ldo;
  if (threads > 1) {
    mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    mlfk_gemm_s8_exec(&ex, &a, act, lda, is_signed, n, scratch);
  } else {
    mlfk_gemm_s8_with(isa, &a, act, lda, is_signed, n, scratch);
  }
  snprintf(what, sizeof what, "gemm_s8 [%s] m=%d n=%d k=%d signed=%d int32=%d threads=%d",
           mlfk_test_isa_name(isa), m, n, k, is_signed, int32_out, threads);
  for (c = 0; c < n; ++c) {
    for (r = 0; r < ldo; ++r) {
      int32_t want, got = got_at(&p, out, (size_t)c * ldo + r);
      if (r == m) { /* the stride's gap is untouched */
        want = int32_out ? 0x5A5A5A5A : (is_signed ? 0x5A : 0x5A);
      } else {
        uint32_t acc = (uint32_t)p.bias[r];
        for (kk = 0; kk < k; ++kk) {
          acc += (uint32_t)((activation(&p, act, (size_t)c * lda + kk) - p.zx) * p.w[r * k + kk]);
        }
        want = ref_out(&p, r, (int32_t)acc);
      }
      expect_int(what, (size_t)c * ldo + r, got, want);
    }
  }
  free(act);
  free(out);
  free(scratch);
  free(bias);
  free_problem(&p);
}

static void check_conv(int isa, int batch, int cin, int h, int wd, int m, int kh, int kw, int s, int pad, int dil,
                       int is_signed, int int32_out, int threads) {
  problem p;
  mlfk_conv_s8_geom g;
  const int k = cin * kh * kw;
  const size_t esz = int32_out ? 4 : 1;
  uint8_t *x, *out, *scratch;
  int32_t* bias;
  mlfk_gemm_s8_args a;
  char what[200];
  unsigned seed = 5u + (unsigned)(cin * 7 + h * 3 + m + kh);
  int pixels, b, r, y, xo, ci, ty, tx, tasks = 0;
  g.c = cin;
  g.h = h;
  g.w = wd;
  g.kh = kh;
  g.kw = kw;
  g.sh = s;
  g.sw = s;
  g.ph = pad;
  g.pw = pad;
  g.dh = dil;
  g.dw = dil;
  g.oh = (h + 2 * pad - dil * (kh - 1) - 1) / s + 1;
  g.ow = (wd + 2 * pad - dil * (kw - 1) - 1) / s + 1;
  pixels = g.oh * g.ow;
  make_problem(&p, m, k, is_signed, int32_out, seed);
  bias = folded_bias(&p);
  x = malloc((size_t)batch * cin * h * wd + 1);
  out = malloc((size_t)batch * m * pixels * esz + 1);
  scratch = malloc(mlfk_conv_s8_scratch(&g) + 1);
  for (r = 0; r < batch * cin * h * wd; ++r) x[r] = (uint8_t)next(&seed);
  fill_args(&p, bias, out, &a);
  {
    const int zx_u = is_signed ? p.zx + 128 : p.zx;
    if (threads > 1) {
      mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
      mlfk_conv_s8_exec(&ex, &g, &a, x, is_signed, zx_u, batch, scratch);
      if (expect_split && tasks < 2) {
        printf("FAIL conv_s8 %dx%d m=%d threads=%d: %d task, want a split\n", h, wd, m, threads, tasks);
        ++mlfk_test_failures;
      }
    } else {
      mlfk_conv_s8_with(isa, &g, &a, x, is_signed, zx_u, batch, scratch);
    }
  }
  snprintf(what, sizeof what,
           "conv_s8 [%s] n=%d c=%d %dx%d m=%d k=%dx%d s=%d pad=%d dil=%d signed=%d int32=%d threads=%d",
           mlfk_test_isa_name(isa), batch, cin, h, wd, m, kh, kw, s, pad, dil, is_signed, int32_out, threads);
  for (b = 0; b < batch; ++b) {
    for (r = 0; r < m; ++r) {
      for (y = 0; y < g.oh; ++y) {
        for (xo = 0; xo < g.ow; ++xo) {
          const size_t at = ((size_t)(b * m + r) * g.oh + y) * g.ow + xo;
          uint32_t acc = (uint32_t)p.bias[r];
          for (ci = 0; ci < cin; ++ci) {
            for (ty = 0; ty < kh; ++ty) {
              for (tx = 0; tx < kw; ++tx) {
                const int iy = y * s - pad + ty * dil, ix = xo * s - pad + tx * dil;
                int v;
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                v = activation(&p, x, ((size_t)(b * cin + ci) * h + iy) * wd + ix);
                acc += (uint32_t)((v - p.zx) * p.w[(r * cin + ci) * kh * kw + ty * kw + tx]);
              }
            }
          }
          expect_int(what, at, got_at(&p, out, at), ref_out(&p, r, (int32_t)acc));
        }
      }
    }
  }
  free(x);
  free(out);
  free(scratch);
  free(bias);
  free_problem(&p);
}

/* The fixed-point rule on its own: edge values against the reference. */
static void check_fixmul(void) {
  static const int32_t accs[] = {0, 1, -1, 2, -2, 3, -3, 12345, -12345, INT32_MAX, INT32_MIN, 1 << 30, -(1 << 30)};
  static const int32_t mults[] = {1 << 30, (1 << 30) + 1, INT32_MAX, INT32_MIN, 1518500250, -1518500250};
  static const int32_t shifts[] = {-31, -20, -9, -1, 0, 1, 5, 31};
  size_t i, j, s, at = 0;
  for (i = 0; i < sizeof accs / sizeof accs[0]; ++i) {
    for (j = 0; j < sizeof mults / sizeof mults[0]; ++j) {
      for (s = 0; s < sizeof shifts / sizeof shifts[0]; ++s, ++at) {
        expect_int("fixmul", at, mlfk_s8_fixmul(accs[i], mults[j], shifts[s]),
                            ref_fixmul(accs[i], mults[j], shifts[s]));
      }
    }
  }
  /* Hand-computed, one rounding with ties up: 3 * 0.5 = 1.5 -> 2,
   * -3 * 0.5 = -1.5 -> -1, -6 * 0.5 / 2 = -1.5 -> -1 (two roundings, the
   * double-rounding form's, gave -2), 5 * 0.75 = 3.75 -> 4; and a value
   * the double-rounding form moved across a boundary (MobileNetV2's first
   * convolution: its multiplier 0.0088043627 as 1210062389 * 2^(-6-31)):
   * 8461 * m = 74.4937 -> 74, where the rounding high multiply's +0.5 at
   * 2^-31 lifts it past 74.5 for the shift's rounding (75). */
  expect_int("fixmul 3*0.5", 0, mlfk_s8_fixmul(3, 1 << 30, 0), 2);
  expect_int("fixmul -3*0.5", 0, mlfk_s8_fixmul(-3, 1 << 30, 0), -1);
  expect_int("fixmul -6*0.5/2", 0, mlfk_s8_fixmul(-6, 1 << 30, -1), -1);
  expect_int("fixmul 5*0.75", 0, mlfk_s8_fixmul(5, 3 << 29, 0), 4);
  expect_int("fixmul 1*0.5", 0, mlfk_s8_fixmul(1, 1 << 30, 0), 1);
  expect_int("fixmul 100*0.25", 0, mlfk_s8_fixmul(100, 1 << 30, -1), 25);
  expect_int("fixmul 8461*0.0088", 0, mlfk_s8_fixmul(8461, 1210062389, -6), 74);
}

/* Every variant's requantisation (the scalar row store's 32-bit steps, the
 * AVX-512 vectors) against the reference on edge accumulators (ties, the
 * int32 limits), every shift, both output signs. */
static void check_store(int isa) {
  static const int32_t edges[] = {0, 1, -1, 2, -2, 3, -3, 511, -511, 512, -512, 1 << 20, -(1 << 20),
                                  INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 1 << 30, -(1 << 30),
                                  12345678, -12345678, 1073741823, -1073741823};
  const int n = (int)(sizeof edges / sizeof edges[0]);
  int32_t acc[MLFK_S8_TR][MLFK_S8_TC], bias[MLFK_S8_TR], mult[MLFK_S8_TR], shift[MLFK_S8_TR];
  uint8_t got[MLFK_S8_TR * MLFK_S8_TC], want[MLFK_S8_TR * MLFK_S8_TC];
  mlfk_gemm_s8_args a;
  int s, i, j, sgn;
  memset(&a, 0, sizeof a);
  a.m = MLFK_S8_TR;
  a.bias = bias;
  a.mult = mult;
  a.shift = shift;
  a.ors = MLFK_S8_TC;
  a.ocs = 1;
  for (i = 0; i < MLFK_S8_TR; ++i) {
    for (j = 0; j < MLFK_S8_TC; ++j) {
      acc[i][j] = (int32_t)((uint32_t)edges[(i * MLFK_S8_TC + j) % n] + (uint32_t)(j >= n ? j : 0));
    }
  }
  for (sgn = 0; sgn < 2; ++sgn) {
    for (s = -31; s <= 2; ++s) {
      for (i = 0; i < MLFK_S8_TR; ++i) {
        mult[i] = i == 0 ? (1 << 30) : i == 1 ? INT32_MAX : i == 2 ? 1518500250 : -1518500250;
        shift[i] = s;
      }
      a.zy = sgn ? -3 : 7;
      a.lo = sgn ? -128 : 0;
      a.hi = sgn ? 127 : 255;
      for (i = 0; i < MLFK_S8_TR; ++i) {
        for (j = 0; j < 29; ++j) {
          const int32_t q = ref_fixmul(acc[i][j], mult[i], shift[i]);
          const int64_t v = (int64_t)q + a.zy;
          want[i * MLFK_S8_TC + j] = (uint8_t)(v < a.lo ? a.lo : (v > a.hi ? a.hi : v));
        }
      }
      a.out = got;
      mlfk_s8_store_isa(isa, &a, 0, MLFK_S8_TR, 0, 29, (const int32_t(*)[MLFK_S8_TC])acc);
      for (i = 0; i < MLFK_S8_TR; ++i) {
        for (j = 0; j < 29; ++j) expect_int("store", (size_t)(i * 100 + j), got[i * MLFK_S8_TC + j], want[i * MLFK_S8_TC + j]);
      }
    }
  }
}

int main(void) {
  static const int ms[] = {1, 3, 4, 5, 9, 17};
  static const int ns[] = {1, 7, 8, 16, 17, 31, 32, 33, 70};
  static const int ks[] = {1, 3, 4, 5, 27, 67};
  int isa;
  size_t a, b, c;
  check_fixmul();
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    check_store(isa);
    for (a = 0; a < sizeof ms / sizeof ms[0]; ++a) {
      for (b = 0; b < sizeof ns / sizeof ns[0]; ++b) {
        for (c = 0; c < sizeof ks / sizeof ks[0]; ++c) {
          check_gemm(isa, ms[a], ns[b], ks[c], (int)(c % 2), 0, 1);
        }
      }
    }
    check_gemm(isa, 5, 33, 27, 1, 1, 1);
    check_gemm(isa, 9, 70, 5, 0, 1, 1);
    check_gemm(isa, 9, 70, 67, 0, 0, 3);
    check_gemm(isa, 17, 19, 27, 1, 0, 4);
    /* One activation row (AVX-512 VNNI: dot products along k), k over and
     * under whole 64-byte steps, int32 outputs too. */
    check_gemm(isa, 13, 1, 200, 1, 0, 1);
    check_gemm(isa, 6, 1, 200, 1, 1, 1);
    check_gemm(isa, 9, 1, 67, 0, 1, 1);
    check_gemm(isa, 3, 1, 128, 0, 1, 1);
    /* Whole quads beyond what the Cortex-M DSP block expands at once (it
     * falls back to the tiles), int8 and int32 outputs. */
    check_gemm(isa, 5, 9, 520, 1, 0, 1);
    check_gemm(isa, 4, 3, 530, 0, 1, 1);
    /* An odd number of whole quads above one (the DSP loop takes two a step). */
    check_gemm(isa, 5, 7, 13, 0, 0, 1);
    check_gemm(isa, 2, 4, 20, 1, 0, 1);
    /* isa, batch, c, h, w, m, kh, kw, stride, pad, dilation, signed, int32, threads */
    check_conv(isa, 1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 0, 0, 1);
    check_conv(isa, 2, 2, 8, 7, 4, 3, 3, 2, 1, 1, 1, 0, 1);
    check_conv(isa, 1, 5, 6, 6, 3, 1, 1, 1, 0, 1, 1, 0, 1);
    check_conv(isa, 1, 4, 7, 9, 6, 3, 2, 1, 2, 2, 0, 1, 1);
    check_conv(isa, 1, 1, 5, 5, 1, 5, 5, 1, 2, 1, 1, 0, 1);
#if !defined(MLFK_TEST_QUICK)
    check_conv(isa, 1, 3, 20, 21, 9, 3, 3, 1, 1, 1, 0, 0, 1); /* more than one chunk */
    check_conv(isa, 2, 3, 20, 21, 9, 3, 3, 1, 1, 1, 1, 0, 3);
    check_conv(isa, 1, 16, 17, 17, 33, 1, 1, 1, 0, 1, 0, 0, 2);
#endif
    check_conv(isa, 1, 3, 10, 10, 7, 3, 3, 1, 1, 1, 1, 0, 4);
    /* Threads cut small images by output channels, in groups of 8 rows
     * (7x7: parts of a plane under 256 pixels; 21 rows: 8 + 8 + 5; 24x24
     * over 3 threads, 192 pixels a task: 9 rows, 8 + 1), and larger ones by
     * pixels in blocks of 64 (24x24 over 2 threads: 9 blocks, 5 + 4). */
    expect_split = 1;
    check_conv(isa, 1, 16, 7, 7, 40, 1, 1, 1, 0, 1, 0, 0, 2);
    check_conv(isa, 1, 16, 7, 7, 40, 1, 1, 1, 0, 1, 1, 0, 3);
    check_conv(isa, 1, 8, 14, 14, 21, 3, 3, 2, 1, 1, 0, 1, 2);
    check_conv(isa, 1, 3, 24, 24, 5, 3, 3, 1, 1, 1, 1, 0, 2);
    check_conv(isa, 2, 4, 24, 24, 9, 1, 1, 1, 0, 1, 0, 0, 3);
    expect_split = 0;
    check_conv(isa, 1, 2, 11, 10, 3, 3, 3, 3, 1, 1, 0, 0, 1); /* stride 3 */
    /* Pointwise (1x1, stride 1, unpadded: the interleaving im2col) over two
     * chunks, split, channels past the last whole quad. */
    check_conv(isa, 2, 7, 20, 21, 6, 1, 1, 1, 0, 1, 0, 0, 3);
    check_conv(isa, 1, 9, 3, 5, 4, 1, 1, 1, 0, 1, 1, 0, 1);
    /* Every row right-shifting: on AVX-512 VNNI the tile stores bytes
     * itself; tiles of 1-4 rows and 1-32 columns, k past whole quads. */
    left_shift_row = 0;
    check_conv(isa, 1, 5, 6, 6, 3, 1, 1, 1, 0, 1, 1, 0, 1);
    check_conv(isa, 2, 7, 20, 21, 6, 1, 1, 1, 0, 1, 0, 0, 3);
    check_conv(isa, 1, 3, 9, 11, 5, 3, 3, 1, 1, 1, 0, 0, 1);
    check_conv(isa, 1, 2, 8, 7, 9, 3, 3, 2, 1, 1, 1, 0, 2);
    check_conv(isa, 1, 9, 3, 5, 4, 1, 1, 1, 0, 1, 1, 0, 1);
    check_gemm(isa, 9, 70, 67, 0, 0, 1);
    /* Quads of a chunk over 32 KiB (k 360 x 256 pixels): columns outer. */
    check_conv(isa, 1, 40, 16, 16, 10, 3, 3, 1, 1, 1, 0, 0, 1);
    left_shift_row = 1;
  }
  mlfk_test_report_isas();
#if MLFK_X86
  printf("avx512 tile: %s\n", mlfk_s8_has_vnni() ? "VNNI (vpdpbusd)" : "AVX2 (this CPU lacks VNNI)");
#endif
#if MLFK_S8_MVE
  printf("portable tile: Helium (VMLADAVA), requantisation in MVE\n");
#elif MLFK_S8_DSP
  printf("portable tile: Cortex-M DSP (__smlad)\n");
#endif
  return mlfk_test_finish("gemm_s8_test");
}
