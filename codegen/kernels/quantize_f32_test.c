/* quantize_f32 against a naive reference written from the rule (float32
 * quotient, round half to even in double, saturate), byte for byte: every
 * variant this CPU runs, int8 and uint8, ties of both parities, values
 * beyond the range, infinities, NaN and negative zero, lengths around the
 * vector widths, and splits over tasks. */
#include "kernel_test_util.h"
#include "mlf_kernel_quantize_f32.h"

static int32_t reference(float x, float scale, int32_t zp, int is_signed) {
  const float v = x / scale; /* float32, as ONNX says */
  const double lo = is_signed ? -128.0 : 0.0, hi = is_signed ? 127.0 : 255.0;
  double r;
  if (isnan(v)) return zp < lo ? (int32_t)lo : (zp > hi ? (int32_t)hi : zp);
  r = floor((double)v);
  if ((double)v - r > 0.5 || ((double)v - r == 0.5 && fmod(r, 2.0) != 0.0)) r += 1.0;
  r += zp;
  return (int32_t)(r < lo ? lo : (r > hi ? hi : r));
}

/* n values: random ones over about +-300 steps, then the special cases. */
static void fill(float* x, size_t n, float scale, unsigned seed) {
  const float special[] = {0.0f, -0.0f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 126.5f, -127.5f, 1e9f, -1e9f,
                           (float)INFINITY, -(float)INFINITY, (float)NAN, 1023.5f, -1024.5f, 0.49999997f};
  size_t i;
  mlfk_test_fill(x, n, seed);
  for (i = 0; i < n; ++i) x[i] *= 300.0f * scale;
  for (i = 0; i < n && i < sizeof special / sizeof special[0]; ++i) {
    /* Ties as quotients: value * scale / scale is the value again for these
     * scales (powers of two); other scales get them as near-ties. */
    x[n - 1 - i] = special[i] * scale;
  }
}

static void check(int isa, size_t n, float scale, int32_t zp, int is_signed, int threads) {
  static float x[2100];
  static uint8_t got[2100], want[2100];
  size_t i;
  int tasks = 0;
  mlfk_exec ex = mlfk_test_exec(isa, threads, &tasks);
  fill(x, n, scale, (unsigned)n * 7u + (unsigned)zp);
  for (i = 0; i < n; ++i) want[i] = (uint8_t)reference(x[i], scale, zp, is_signed);
  memset(got, 0xA5, sizeof got);
  if (threads > 1) {
    mlfk_quantize_f32_exec(&ex, x, n, scale, zp, is_signed, got);
  } else {
    mlfk_quantize_f32_with(isa, x, n, scale, zp, is_signed, got);
  }
  for (i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      if (mlfk_test_failures < 20) {
        printf("FAIL quantize [%s] n %lu scale %g zp %d signed %d threads %d element %lu (x %.9g): got %d, want %d\n",
               mlfk_test_isa_name(isa), (unsigned long)n, (double)scale, (int)zp, is_signed, threads,
               (unsigned long)i, (double)x[i], is_signed ? (int)(int8_t)got[i] : (int)got[i],
               is_signed ? (int)(int8_t)want[i] : (int)want[i]);
      }
      ++mlfk_test_failures;
    }
  }
  if (got[n] != 0xA5) {
    printf("FAIL quantize [%s] n %lu: wrote past the end\n", mlfk_test_isa_name(isa), (unsigned long)n);
    ++mlfk_test_failures;
  }
}

int main(void) {
  int isa;
  for (isa = MLFK_ISA_PORTABLE; isa <= MLFK_ISA_AVX512; ++isa) {
    if (!mlfk_isa_supported(isa)) continue;
    /* isa, n, scale, zero point, signed, threads */
    check(isa, 1, 0.25f, 0, 1, 1);
    check(isa, 7, 0.5f, 3, 0, 1);
    check(isa, 8, 0.125f, 128, 0, 1);
    check(isa, 17, 0.0625f, -5, 1, 1);
    check(isa, 31, 1.0f, 100, 0, 1);
    check(isa, 64, 0.018658f, 114, 0, 1); /* MobileNetV2's input scale class */
    check(isa, 100, 0.0078125f, -128, 1, 1);
    check(isa, 1000, 0.03f, 127, 1, 1);
    check(isa, 2099, 2.0f, 255, 0, 1);
    check(isa, 2099, 0.25f, 7, 1, 8); /* through _exec: too few values to split */
  }
  {
    /* A split over tasks (one per 16384 values, at most the threads), run
     * out of order: the same bytes as one call. */
    static float x[40001];
    static uint8_t serial[40001], split[40001];
    int tasks = 0;
    mlfk_exec ex = mlfk_test_exec(mlfk_isa(), 3, &tasks);
    size_t i;
    fill(x, 40001, 0.02f, 11);
    mlfk_quantize_f32_with(mlfk_isa(), x, 40001, 0.02f, 5, 0, serial);
    mlfk_quantize_f32_exec(&ex, x, 40001, 0.02f, 5, 0, split);
    if (tasks != 2) {
      printf("FAIL split: %d tasks, want 2\n", tasks);
      ++mlfk_test_failures;
    }
    for (i = 0; i < 40001; ++i) {
      if (serial[i] != split[i]) {
        printf("FAIL split element %lu: %d, serial %d\n", (unsigned long)i, serial[i], split[i]);
        ++mlfk_test_failures;
        break;
      }
    }
  }
  mlfk_test_report_isas();
  return mlfk_test_finish("quantize_f32_test");
}
