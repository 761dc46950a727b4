/* add_s8 against a reference written from the rule in 64-bit integers
 * (a floor division by 2^shift), byte for byte: every variant this CPU
 * runs, each input int8 or uint8, int8 and uint8 outputs with and without a
 * narrower clamp, shifts 0 to 30 with multipliers up to 2^21, lengths
 * around the vector widths, and splits over tasks. */
#include "kernel_test_util.h"
#include "mlf_kernel_add_s8.h"

static unsigned next(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static int64_t floor_div(int64_t v, int64_t d) { return v >= 0 ? v / d : -((-v + d - 1) / d); }

static void check(int isa, size_t n, int a_signed, int b_signed, int y_signed, int shift, int narrow, int threads) {
  static uint8_t a[3000], b[3000], y[3001], want[3000];
  mlfk_add_s8_args g;
  unsigned seed = (unsigned)(n * 31u + (unsigned)shift * 7u + (unsigned)(a_signed * 4 + b_signed * 2 + y_signed));
  size_t i;
  int tasks = 0;
  for (i = 0; i < n; ++i) {
    a[i] = (uint8_t)next(&seed);
    b[i] = (uint8_t)next(&seed);
  }
  g.a = a;
  g.b = b;
  g.y = y;
  g.a_signed = a_signed;
  g.b_signed = b_signed;
  g.za = a_signed ? (int32_t)(next(&seed) % 256) - 128 : (int32_t)(next(&seed) % 256);
  g.zb = b_signed ? (int32_t)(next(&seed) % 256) - 128 : (int32_t)(next(&seed) % 256);
  g.ma = (int32_t)(next(&seed) % (1u << 21)) + 1;
  g.mb = (int32_t)(next(&seed) % (1u << 21)) + 1;
  g.shift = shift;
  g.zy = y_signed ? (int32_t)(next(&seed) % 256) - 128 : (int32_t)(next(&seed) % 256);
  g.lo = y_signed ? -128 : 0;
  g.hi = y_signed ? 127 : 255;
  if (narrow) g.lo = g.zy; /* a folded Relu */
  for (i = 0; i < n; ++i) {
    const int64_t da = (a_signed ? (int8_t)a[i] : a[i]) - g.za, db = (b_signed ? (int8_t)b[i] : b[i]) - g.zb;
    const int64_t half = shift > 0 ? (int64_t)1 << (shift - 1) : 0;
    int64_t q = floor_div(g.ma * da + g.mb * db + half, (int64_t)1 << shift) + g.zy;
    q = q < g.lo ? g.lo : (q > g.hi ? g.hi : q);
    want[i] = (uint8_t)q;
  }
  memset(y, 0xA5, sizeof y);
  if (threads > 1) {
    mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
    mlfk_add_s8_exec(&ex, &g, n);
  } else {
    mlfk_add_s8_with(isa, &g, 0, n);
  }
  for (i = 0; i < n; ++i) {
    if (y[i] != want[i]) {
      if (mlfk_test_failures < 20) {
        printf("FAIL add_s8 [%s] n %lu signed %d%d%d shift %d narrow %d threads %d element %lu: got %d, want %d\n",
               mlfk_test_isa_name(isa), (unsigned long)n, a_signed, b_signed, y_signed, shift, narrow, threads,
               (unsigned long)i, y[i], want[i]);
      }
      ++mlfk_test_failures;
    }
  }
  if (y[n] != 0xA5) {
    printf("FAIL add_s8 [%s] n %lu: wrote past the end\n", mlfk_test_isa_name(isa), (unsigned long)n);
    ++mlfk_test_failures;
  }
}

int main(void) {
  static const size_t ns[] = {1, 7, 8, 15, 16, 17, 33, 100, 2999};
  int isa, kinds, shift;
  size_t i;
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    for (i = 0; i < sizeof ns / sizeof ns[0]; ++i) {
      for (kinds = 0; kinds < 8; ++kinds) {
        check(isa, ns[i], kinds & 1, (kinds >> 1) & 1, (kinds >> 2) & 1, 20, kinds == 3, 1);
      }
    }
    for (shift = 0; shift <= 30; ++shift) check(isa, 100, shift & 1, 0, (shift >> 1) & 1, shift, 0, 1);
  }
  {
    /* A split over tasks (one per 16384 values, at most the threads), run
     * out of order, against one call. */
    static uint8_t a[40001], b[40001], serial[40001], split[40001];
    mlfk_add_s8_args g = {0};
    int tasks = 0;
    mlfk_exec ex = mlfk_test_exec(mlfk_isa(), 3, &tasks);
    unsigned seed = 5;
    for (i = 0; i < 40001; ++i) {
      a[i] = (uint8_t)next(&seed);
      b[i] = (uint8_t)next(&seed);
    }
    g.a = a;
    g.b = b;
    g.za = 120;
    g.zb = 130;
    g.ma = 900000;
    g.mb = 1200000;
    g.shift = 21;
    g.zy = 128;
    g.lo = 0;
    g.hi = 255;
    g.y = serial;
    mlfk_add_s8_with(mlfk_isa(), &g, 0, 40001);
    g.y = split;
    mlfk_add_s8_exec(&ex, &g, 40001);
    if (tasks != 2) {
      printf("FAIL split: %d tasks, want 2\n", tasks);
      ++mlfk_test_failures;
    }
    if (memcmp(serial, split, sizeof serial) != 0) {
      printf("FAIL split: not the bytes of one call\n");
      ++mlfk_test_failures;
    }
  }
  mlfk_test_report_isas();
  return mlfk_test_finish("add_s8_test");
}
