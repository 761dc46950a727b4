/* mlfkit kernel family depthwise_f32 (codegen/kernels/README.md): 2-D
 * depthwise convolution of NCHW float tensors (group = channels, one output
 * channel per input channel), weights W[C][1][KH][KW] as exported (already
 * one contiguous block per channel: nothing to pack).
 *
 * Stride 1: bands of output rows, each one flat loop over a zero-padded copy
 * of its input rows (the band path below). Other strides, per output row:
 * the row starts as the bias, then each input row inside the
 * image adds its taps over the output columns whose input lies inside it
 * (ranges computed once, so the inner loops have no test; a 3-wide kernel
 * adds its three taps in one pass), then the clamp. Taps are added in
 * (ky, kx) order, as the naive reference does. The x86-64 variants are the same C compiled for AVX2+FMA
 * and AVX-512F by target attributes (the compiler vectorises the row loops);
 * a * b + c is never contracted into an FMA here (MLFK_NO_CONTRACT), so every
 * variant gives the portable results bit for bit.
 */
#ifndef MLF_KERNEL_DEPTHWISE_F32_H_
#define MLF_KERNEL_DEPTHWISE_F32_H_

#include <math.h>
#include <stddef.h>

#include "mlf_kernel_common.h"

typedef struct {
  int n, c, h, w;        /* input; output channels = c */
  int oh, ow;            /* output size */
  int kh, kw;            /* taps */
  int sh, sw, dh, dw;    /* strides, dilations */
  int pad_top, pad_left; /* padding before */
} mlfk_depthwise2d_f32_shape;

/* One output row of a kernel with kw == 3: per input row inside the image,
 * one pass adding its three taps (kx = 0, 1, 2, in that order) over the
 * interior columns, where every tap lies inside the row; the few border
 * columns add the taps that do. 3 passes per row instead of 9. */
#define MLFK_DEPTHWISE_ROW3                                                                   \
  {                                                                                           \
    const int i0 = ox_lo * s->sw - s->pad_left;                                               \
    const float w0 = wr[0], w1 = wr[1], w2 = wr[2];                                           \
    const float* MLFK_RESTRICT xq = xr + i0;                                                  \
    float* MLFK_RESTRICT yq = yr + ox_lo;                                                     \
    const int count = ox_hi - ox_lo;                                                          \
    if (s->sw == 1 && s->dw == 1) {                                                           \
      for (ox = 0; ox < count; ++ox) yq[ox] = yq[ox] + w0 * xq[ox] + w1 * xq[ox + 1] + w2 * xq[ox + 2]; \
    } else if (s->sw == 2 && s->dw == 1) {                                                    \
      for (ox = 0; ox < count; ++ox)                                                          \
        yq[ox] = yq[ox] + w0 * xq[2 * ox] + w1 * xq[2 * ox + 1] + w2 * xq[2 * ox + 2];        \
    } else {                                                                                  \
      const int d = s->dw, st = s->sw;                                                        \
      for (ox = 0; ox < count; ++ox)                                                          \
        yq[ox] = yq[ox] + w0 * xq[st * ox] + w1 * xq[st * ox + d] + w2 * xq[st * ox + 2 * d]; \
    }                                                                                         \
    for (ox = 0; ox < s->ow; ++ox) {                                                          \
      if (ox == ox_lo) ox = ox_hi;                                                            \
      if (ox >= s->ow) break;                                                                 \
      for (kx = 0; kx < 3; ++kx) {                                                            \
        const int ix = ox * s->sw - s->pad_left + kx * s->dw;                                 \
        if (ix >= 0 && ix < s->w) yr[ox] += wr[kx] * xr[ix];                                  \
      }                                                                                       \
    }                                                                                         \
  }

/* A 3x3 kernel whose three input rows are all inside the image: the whole
 * output row in one pass over the interior columns (bias, the nine taps in
 * (ky, kx) order, the clamp), the border columns tap by tap. */
#define MLFK_DEPTHWISE_ROW33                                                                  \
  {                                                                                           \
    const float* MLFK_RESTRICT r0 = xp + (size_t)iy0 * s->w + ox_lo * s->sw - s->pad_left;    \
    const float* MLFK_RESTRICT r1 = r0 + (size_t)s->dh * s->w;                                \
    const float* MLFK_RESTRICT r2 = r1 + (size_t)s->dh * s->w;                                \
    const float a0 = wp[0], a1 = wp[1], a2 = wp[2], b0 = wp[3], b1 = wp[4], b2 = wp[5];       \
    const float c0 = wp[6], c1 = wp[7], c2 = wp[8];                                           \
    float* MLFK_RESTRICT yq = yr + ox_lo;                                                     \
    const int count = ox_hi - ox_lo;                                                          \
    if (s->sw == 1 && s->dw == 1) {                                                           \
      for (ox = 0; ox < count; ++ox)                                                          \
        yq[ox] = b + a0 * r0[ox] + a1 * r0[ox + 1] + a2 * r0[ox + 2] + b0 * r1[ox] +          \
                 b1 * r1[ox + 1] + b2 * r1[ox + 2] + c0 * r2[ox] + c1 * r2[ox + 1] +          \
                 c2 * r2[ox + 2];                                                             \
    } else if (s->sw == 2 && s->dw == 1) {                                                    \
      for (ox = 0; ox < count; ++ox)                                                          \
        yq[ox] = b + a0 * r0[2 * ox] + a1 * r0[2 * ox + 1] + a2 * r0[2 * ox + 2] +            \
                 b0 * r1[2 * ox] + b1 * r1[2 * ox + 1] + b2 * r1[2 * ox + 2] +                \
                 c0 * r2[2 * ox] + c1 * r2[2 * ox + 1] + c2 * r2[2 * ox + 2];                 \
    } else {                                                                                  \
      const int d = s->dw, st = s->sw;                                                        \
      for (ox = 0; ox < count; ++ox)                                                          \
        yq[ox] = b + a0 * r0[st * ox] + a1 * r0[st * ox + d] + a2 * r0[st * ox + 2 * d] +     \
                 b0 * r1[st * ox] + b1 * r1[st * ox + d] + b2 * r1[st * ox + 2 * d] +         \
                 c0 * r2[st * ox] + c1 * r2[st * ox + d] + c2 * r2[st * ox + 2 * d];          \
    }                                                                                         \
    for (ox = 0; ox < s->ow; ++ox) {                                                          \
      float v = b;                                                                            \
      if (ox == ox_lo) ox = ox_hi;                                                            \
      if (ox >= s->ow) break;                                                                 \
      for (ky = 0; ky < 3; ++ky) {                                                            \
        const float* xr = xp + (size_t)(iy0 + ky * s->dh) * s->w;                             \
        for (kx = 0; kx < 3; ++kx) {                                                          \
          const int ix = ox * s->sw - s->pad_left + kx * s->dw;                               \
          if (ix >= 0 && ix < s->w) v += wp[ky * 3 + kx] * xr[ix];                            \
        }                                                                                     \
      }                                                                                       \
      yr[ox] = v;                                                                             \
    }                                                                                         \
    if (clamp) {                                                                              \
      for (ox = 0; ox < s->ow; ++ox) yr[ox] = mlfk_clamp(yr[ox], lo, hi);                     \
    }                                                                                         \
  }

/* Any other kernel width: one pass per tap over the columns it reaches. */
#define MLFK_DEPTHWISE_ROW_ANY                                                                \
  for (kx = 0; kx < s->kw; ++kx) {                                                            \
    const int off = kx * s->dw - s->pad_left;                                                 \
    const float wv = wr[kx];                                                                  \
    const float* MLFK_RESTRICT xq = xr + off;                                                 \
    int lo_x = off >= 0 ? 0 : (-off + s->sw - 1) / s->sw;                                     \
    int hi_x = s->w - 1 - off >= 0 ? (s->w - 1 - off) / s->sw + 1 : 0;                        \
    if (hi_x > s->ow) hi_x = s->ow;                                                           \
    if (s->sw == 1) {                                                                         \
      for (ox = lo_x; ox < hi_x; ++ox) yr[ox] += wv * xq[ox];                                 \
    } else {                                                                                  \
      for (ox = lo_x; ox < hi_x; ++ox) yr[ox] += wv * xq[ox * s->sw];                         \
    }                                                                                         \
  }

/* Stride 1 (MobileNetV2's depthwise layers but the four of stride 2): the
 * row paths above run 5-56 columns per pass on most of them and spend their
 * time on per-row and border code. Instead a band of output rows is
 * computed as one flat vector loop over a zero-padded copy of its input
 * rows in a stack buffer: with the copy's row pitch wp = ow + (kw - 1) * dw,
 * output (t, ox) of the band is flat element t * wp + ox, and tap (ky, kx)
 * of flat element i is copy element i + ky * dh * wp + kx * dw, so no
 * element needs a bounds test and the loop runs (rows - 1) * wp + ow
 * elements long (the wp - ow elements between rows are computed and
 * dropped). Each output is the sum the row paths form, in the same order
 * (bias, then the taps in (ky, kx) order); a tap in the padding adds w * 0,
 * which changes nothing but the sign of an exact zero. Measured on
 * MobileNetV2's stride-1 layers (AVX-512, one thread): 2-5x the row paths
 * (960 channels of 7x7: 2.4 -> 5.7 GMAC/s; 576 of 14x14: 2.4 -> 10.5;
 * 192 of 28x28: 8.6 -> 16.5).
 *
 * MLFK_DEPTHWISE_BAND_FLOATS is the buffer (stack a call needs on top of
 * its frame): 4 KiB on x86-64, 1 KiB elsewhere (firmware stacks are small);
 * a build may define it (0 turns the path off). A shape whose band would
 * not hold one output row takes the row paths. */
#ifndef MLFK_DEPTHWISE_BAND_FLOATS
#if MLFK_X86
#define MLFK_DEPTHWISE_BAND_FLOATS 1024
#else
#define MLFK_DEPTHWISE_BAND_FLOATS 256
#endif
#endif

/* Output rows per band for `s`, 0 when the band path does not apply. */
MLFK_FN int mlfk_depthwise2d_f32_band_rows(const mlfk_depthwise2d_f32_shape* s) {
  const int wp = s->ow + (s->kw - 1) * s->dw, extra = (s->kh - 1) * s->dh;
  int rows;
  if (s->sh != 1 || s->sw != 1 || wp <= 0 || wp > MLFK_DEPTHWISE_BAND_FLOATS) return 0;
  /* (rows + extra) * wp floats of input copy, rows * wp of output. */
  rows = (MLFK_DEPTHWISE_BAND_FLOATS / wp - extra) / 2;
  return rows > 0 ? rows : 0;
}

/* Row copies of the band path: short (5-34 floats), so not through a
 * memcpy call (what the compiler makes of a plain loop) on x86. */
MLFK_FN void mlfk_depthwise_copy_portable(float* MLFK_RESTRICT d, const float* MLFK_RESTRICT s,
                                          int n) {
  int i;
  for (i = 0; i < n; ++i) d[i] = s[i];
}

#if MLFK_F32_MVE
/* Helium: the band's row copies (5-34 floats; GCC makes a memcpy call of
 * the portable loop), four floats a step, the last n % 4 under a
 * predicate. */
MLFK_FN void mlfk_depthwise_copy_mve(float* MLFK_RESTRICT d, const float* MLFK_RESTRICT s, int n) {
  int i;
  for (i = 0; i + 4 <= n; i += 4) vst1q_f32(d + i, vld1q_f32(s + i));
  if (i < n) {
    const mve_pred16_t p = vctp32q((uint32_t)(n - i));
    vstrwq_p_f32(d + i, vldrwq_z_f32(s + i, p), p);
  }
}
#endif

#if MLFK_X86
MLFK_TARGET("avx2,fma")
MLFK_FN void mlfk_depthwise_copy_avx2(float* MLFK_RESTRICT d, const float* MLFK_RESTRICT s,
                                      int n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int i;
  for (i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, _mm256_loadu_ps(s + i));
  if (i < n) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - i), lane);
    _mm256_maskstore_ps(d + i, mask, _mm256_maskload_ps(s + i, mask));
  }
}

MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_depthwise_copy_avx512(float* MLFK_RESTRICT d, const float* MLFK_RESTRICT s,
                                        int n) {
  int i;
  for (i = 0; i + 16 <= n; i += 16) _mm512_storeu_ps(d + i, _mm512_loadu_ps(s + i));
  if (i < n) {
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(d + i, m, _mm512_maskz_loadu_ps(m, s + i));
  }
}
#endif

#if MLFK_F32_MVE
/* Helium, the band's 3x3 flat loop: four outputs a step, each tap one
 * vector load, a VMUL by the tap's weight and a VADD, from the bias, taps in
 * (ky, kx) order: the portable loop's sum, uncontracted as everywhere in
 * this family, so the same bits (a VFMA per tap would save 9 of ~30
 * instructions a step but round differently from every other variant).
 * When VMAXNM and VMINNM clamp to mlfk_clamp's bits (mlfk_clamp_mve_nm_exact:
 * Relu, ReLU6) the sums are clamped in registers and the band's rows copied
 * out as they are (the clamp per row of 5 outputs cost more than the sums).
 * Whole steps unpredicated, the last n % 4 outputs under a predicate (a
 * step of four reads up to two floats past its last output's window, which
 * the band's buffer holds: its rows are wp >= ow + 2 long). */
#define MLFK_DEPTHWISE_MVE_TAP(X, W) t = vaddq_f32(t, vmulq_n_f32(X, W));
#define MLFK_DEPTHWISE_MVE_STEP(LOAD, STORE)                                                  \
  {                                                                                           \
    float32x4_t t = vb;                                                                       \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r0 + i), a0)                                                  \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r0 + i + 1), a1)                                              \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r0 + i + 2), a2)                                              \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r1 + i), b0)                                                  \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r1 + i + 1), b1)                                              \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r1 + i + 2), b2)                                              \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r2 + i), c0)                                                  \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r2 + i + 1), c1)                                              \
    MLFK_DEPTHWISE_MVE_TAP(LOAD(r2 + i + 2), c2)                                              \
    if (clamp) t = vminnmq_f32(vmaxnmq_f32(t, vlo), vhi);                                     \
    STORE(out + i, t);                                                                        \
  }
#define MLFK_DEPTHWISE_MVE_LOAD_P(P) vldrwq_z_f32(P, p)
#define MLFK_DEPTHWISE_MVE_STORE_P(P, V) vstrwq_p_f32(P, V, p)
static inline __attribute__((always_inline)) void mlfk_depthwise_band3x3_mve_body(
    float* MLFK_RESTRICT out, const float* MLFK_RESTRICT in, int wp, int n, float b,
    const float* wt, const int clamp, float lo, float hi) {
  const float a0 = wt[0], a1 = wt[1], a2 = wt[2], b0 = wt[3], b1 = wt[4], b2 = wt[5];
  const float c0 = wt[6], c1 = wt[7], c2 = wt[8];
  const float* MLFK_RESTRICT r0 = in;
  const float* MLFK_RESTRICT r1 = in + wp;
  const float* MLFK_RESTRICT r2 = in + 2 * wp;
  const float32x4_t vb = vdupq_n_f32(b), vlo = vdupq_n_f32(lo), vhi = vdupq_n_f32(hi);
  int i;
  for (i = 0; i + 4 <= n; i += 4) MLFK_DEPTHWISE_MVE_STEP(vld1q_f32, vst1q_f32)
  if (i < n) {
    const mve_pred16_t p = vctp32q((uint32_t)(n - i));
    MLFK_DEPTHWISE_MVE_STEP(MLFK_DEPTHWISE_MVE_LOAD_P, MLFK_DEPTHWISE_MVE_STORE_P)
  }
}
#undef MLFK_DEPTHWISE_MVE_LOAD_P
#undef MLFK_DEPTHWISE_MVE_STORE_P
#undef MLFK_DEPTHWISE_MVE_STEP
#undef MLFK_DEPTHWISE_MVE_TAP

/* The band's sums into out[0, n), clamped to [lo, hi] when `clamp`. */
MLFK_FN void mlfk_depthwise_band3x3_mve(float* MLFK_RESTRICT out, const float* MLFK_RESTRICT in,
                                        int wp, int n, float b, const float* wt, int clamp,
                                        float lo, float hi) {
  if (clamp) {
    mlfk_depthwise_band3x3_mve_body(out, in, wp, n, b, wt, 1, lo, hi);
  } else {
    mlfk_depthwise_band3x3_mve_body(out, in, wp, n, b, wt, 0, lo, hi);
  }
}
#define MLFK_DEPTHWISE_BAND3X3 mlfk_depthwise_band3x3_mve(out, in, wp, n, b, wt, clamped, lo, hi);
/* Whether the band's sums come out clamped. */
#define MLFK_DEPTHWISE_CLAMPED \
  (clamp && s->kh == 3 && s->kw == 3 && s->dh == 1 && s->dw == 1 && mlfk_clamp_mve_nm_exact(lo, hi))
#else
#define MLFK_DEPTHWISE_CLAMPED 0
#define MLFK_DEPTHWISE_BAND3X3                                                                \
  {                                                                                           \
    const float a0 = wt[0], a1 = wt[1], a2 = wt[2], b0 = wt[3], b1 = wt[4], b2 = wt[5];       \
    const float c0 = wt[6], c1 = wt[7], c2 = wt[8];                                           \
    const float* MLFK_RESTRICT r0 = in;                                                       \
    const float* MLFK_RESTRICT r1 = in + wp;                                                  \
    const float* MLFK_RESTRICT r2 = in + 2 * wp;                                              \
    for (i = 0; i < n; ++i)                                                                   \
      out[i] = b + a0 * r0[i] + a1 * r0[i + 1] + a2 * r0[i + 2] + b0 * r1[i] +                \
               b1 * r1[i + 1] + b2 * r1[i + 2] + c0 * r2[i] + c1 * r2[i + 1] + c2 * r2[i + 2]; \
  }
#endif

#define MLFK_DEPTHWISE_BAND_BODY(copy)                                                        \
  {                                                                                           \
    MLFK_NO_CONTRACT                                                                          \
    float buf[MLFK_DEPTHWISE_BAND_FLOATS > 0 ? MLFK_DEPTHWISE_BAND_FLOATS : 1];               \
    const int clamp = lo > -HUGE_VALF || hi < HUGE_VALF;                                      \
    const int clamped = MLFK_DEPTHWISE_CLAMPED;                                               \
    const int wp = s->ow + (s->kw - 1) * s->dw, extra = (s->kh - 1) * s->dh;                  \
    /* Copy columns [c_lo, c_hi) hold input columns c - pad_left. */                          \
    int c_lo = s->pad_left < wp ? s->pad_left : wp;                                           \
    int c_hi = s->w + s->pad_left < wp ? s->w + s->pad_left : wp;                             \
    const size_t in_plane = (size_t)s->h * s->w, out_plane = (size_t)s->oh * s->ow;           \
    int plane, band, q, i, ky, kx;                                                            \
    if (c_lo < 0) c_lo = 0;                                                                   \
    if (c_hi < c_lo) c_hi = c_lo;                                                             \
    /* The padding columns stay zero: rows only ever copy [c_lo, c_hi). */                    \
    for (i = 0; i < (rows + extra) * wp; ++i) buf[i] = 0.0f;                                  \
    for (plane = plane0; plane < plane1; ++plane) {                                           \
      const int ch = plane % s->c;                                                            \
      const float* xp = x + plane * in_plane;                                                 \
      const float* wt = w + (size_t)ch * s->kh * s->kw;                                       \
      float* yp = y + plane * out_plane;                                                      \
      const float b = bias ? bias[ch] : 0.0f;                                                 \
      for (band = oy0; band < oy1; band += rows) {                                            \
        const int r = oy1 - band < rows ? oy1 - band : rows;                                  \
        const int n = (r - 1) * wp + s->ow;                                                   \
        float* MLFK_RESTRICT in = buf;                                                        \
        float* MLFK_RESTRICT out = buf + (size_t)(rows + extra) * wp;                         \
        for (q = 0; q < r + extra; ++q) {                                                     \
          const int iy = band - s->pad_top + q;                                               \
          float* row = in + (size_t)q * wp;                                                   \
          if (iy < 0 || iy >= s->h) {                                                         \
            for (i = c_lo; i < c_hi; ++i) row[i] = 0.0f;                                      \
          } else {                                                                            \
            copy(row + c_lo, xp + (size_t)iy * s->w + (c_lo - s->pad_left), c_hi - c_lo);     \
          }                                                                                   \
        }                                                                                     \
        if (s->kh == 3 && s->kw == 3 && s->dh == 1 && s->dw == 1) {                           \
          MLFK_DEPTHWISE_BAND3X3                                                              \
        } else {                                                                              \
          for (i = 0; i < n; ++i) out[i] = b;                                                 \
          for (ky = 0; ky < s->kh; ++ky) {                                                    \
            for (kx = 0; kx < s->kw; ++kx) {                                                  \
              const float wv = wt[ky * s->kw + kx];                                           \
              const float* MLFK_RESTRICT src = in + (size_t)ky * s->dh * wp + kx * s->dw;     \
              for (i = 0; i < n; ++i) out[i] = out[i] + wv * src[i];                          \
            }                                                                                 \
          }                                                                                   \
        }                                                                                     \
        for (q = 0; q < r; ++q) {                                                             \
          float* MLFK_RESTRICT yr = yp + (size_t)(band + q) * s->ow;                          \
          const float* o = out + (size_t)q * wp;                                              \
          if (clamp && !clamped) {                                                            \
            for (i = 0; i < s->ow; ++i) yr[i] = mlfk_clamp(o[i], lo, hi);                     \
          } else {                                                                            \
            copy(yr, o, s->ow);                                                               \
          }                                                                                   \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }

#define MLFK_DEPTHWISE_BODY                                                                   \
  {                                                                                           \
    MLFK_NO_CONTRACT                                                                          \
    const int clamp = lo > -HUGE_VALF || hi < HUGE_VALF;                                      \
    const size_t in_plane = (size_t)s->h * s->w, out_plane = (size_t)s->oh * s->ow;           \
    int plane, oy, ky, kx, ox;                                                                \
    /* Columns where all three taps of a 3-wide kernel lie inside the row. */                 \
    int ox_lo = s->pad_left > 0 ? (s->pad_left + s->sw - 1) / s->sw : 0;                     \
    int ox_hi = s->w - 1 - 2 * s->dw + s->pad_left >= 0                                       \
                    ? (s->w - 1 - 2 * s->dw + s->pad_left) / s->sw + 1                        \
                    : 0;                                                                      \
    if (ox_lo > s->ow) ox_lo = s->ow;                                                         \
    if (ox_hi > s->ow) ox_hi = s->ow;                                                         \
    if (ox_hi < ox_lo) ox_hi = ox_lo;                                                         \
    for (plane = plane0; plane < plane1; ++plane) {                                           \
      const int ch = plane % s->c;                                                            \
      const float* xp = x + plane * in_plane;                                                 \
      const float* wp = w + (size_t)ch * s->kh * s->kw;                                       \
      float* yp = y + plane * out_plane;                                                      \
      const float b = bias ? bias[ch] : 0.0f;                                                 \
      for (oy = oy0; oy < oy1; ++oy) {                                                        \
        float* MLFK_RESTRICT yr = yp + (size_t)oy * s->ow;                                    \
        const int iy0 = oy * s->sh - s->pad_top;                                              \
        if (s->kh == 3 && s->kw == 3 && iy0 >= 0 && iy0 + 2 * s->dh < s->h) {                 \
          MLFK_DEPTHWISE_ROW33                                                                \
          continue;                                                                           \
        }                                                                                     \
        for (ox = 0; ox < s->ow; ++ox) yr[ox] = b;                                            \
        for (ky = 0; ky < s->kh; ++ky) {                                                      \
          const int iy = oy * s->sh - s->pad_top + ky * s->dh;                                \
          const float* MLFK_RESTRICT xr = xp + (size_t)iy * s->w;                             \
          const float* wr = wp + ky * s->kw;                                                  \
          if (iy < 0 || iy >= s->h) continue;                                                 \
          if (s->kw == 3) MLFK_DEPTHWISE_ROW3 else { MLFK_DEPTHWISE_ROW_ANY }                 \
        }                                                                                     \
        if (clamp) {                                                                          \
          for (ox = 0; ox < s->ow; ++ox) yr[ox] = mlfk_clamp(yr[ox], lo, hi);                 \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }

MLFK_FN void mlfk_depthwise2d_f32_portable(const mlfk_depthwise2d_f32_shape* s, const float* x,
                                           const float* w, const float* bias, float* y, float lo,
                                           float hi, int plane0, int plane1, int oy0, int oy1) MLFK_DEPTHWISE_BODY

#if MLFK_X86
MLFK_TARGET("avx2,fma")
MLFK_FN void mlfk_depthwise2d_f32_avx2(const mlfk_depthwise2d_f32_shape* s, const float* x,
                                       const float* w, const float* bias, float* y, float lo,
                                       float hi, int plane0, int plane1, int oy0, int oy1) MLFK_DEPTHWISE_BODY

MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_depthwise2d_f32_avx512(const mlfk_depthwise2d_f32_shape* s, const float* x,
                                         const float* w, const float* bias, float* y, float lo,
                                         float hi, int plane0, int plane1, int oy0, int oy1) MLFK_DEPTHWISE_BODY
#endif

MLFK_FN void mlfk_depthwise2d_f32_band_portable(const mlfk_depthwise2d_f32_shape* s,
                                                const float* x, const float* w, const float* bias,
                                                float* y, float lo, float hi, int plane0,
                                                int plane1, int oy0, int oy1,
                                                int rows)
#if MLFK_F32_MVE
    MLFK_DEPTHWISE_BAND_BODY(mlfk_depthwise_copy_mve)
#else
    MLFK_DEPTHWISE_BAND_BODY(mlfk_depthwise_copy_portable)
#endif

#if MLFK_X86
MLFK_TARGET("avx2,fma")
MLFK_FN void mlfk_depthwise2d_f32_band_avx2(const mlfk_depthwise2d_f32_shape* s, const float* x,
                                            const float* w, const float* bias, float* y, float lo,
                                            float hi, int plane0, int plane1, int oy0, int oy1,
                                            int rows)
    MLFK_DEPTHWISE_BAND_BODY(mlfk_depthwise_copy_avx2)

MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_depthwise2d_f32_band_avx512(const mlfk_depthwise2d_f32_shape* s,
                                              const float* x, const float* w, const float* bias,
                                              float* y, float lo, float hi, int plane0,
                                              int plane1, int oy0, int oy1,
                                              int rows)
    MLFK_DEPTHWISE_BAND_BODY(mlfk_depthwise_copy_avx512)
#endif

#undef MLFK_DEPTHWISE_BODY
#undef MLFK_DEPTHWISE_BAND_BODY
#undef MLFK_DEPTHWISE_BAND3X3
#undef MLFK_DEPTHWISE_CLAMPED
#undef MLFK_DEPTHWISE_ROW3
#undef MLFK_DEPTHWISE_ROW33
#undef MLFK_DEPTHWISE_ROW_ANY

/* Output rows [oy0, oy1) of planes [plane0, plane1) (image n, channel c is
 * plane n * C + c) of y = clamp(depthwise(x, w) + bias, lo, hi) with the
 * variant `isa`. */
MLFK_FN void mlfk_depthwise2d_f32_part(int isa, const mlfk_depthwise2d_f32_shape* s,
                                       const float* x, const float* w, const float* bias,
                                       float* y, float lo, float hi, int plane0, int plane1,
                                       int oy0, int oy1) {
  const int rows = mlfk_depthwise2d_f32_band_rows(s);
  if (rows > 0) {
#if MLFK_X86
    if (isa == MLFK_ISA_AVX512) {
      mlfk_depthwise2d_f32_band_avx512(s, x, w, bias, y, lo, hi, plane0, plane1, oy0, oy1, rows);
      return;
    }
    if (isa == MLFK_ISA_AVX2) {
      mlfk_depthwise2d_f32_band_avx2(s, x, w, bias, y, lo, hi, plane0, plane1, oy0, oy1, rows);
      return;
    }
#endif
    mlfk_depthwise2d_f32_band_portable(s, x, w, bias, y, lo, hi, plane0, plane1, oy0, oy1, rows);
    return;
  }
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512) {
    mlfk_depthwise2d_f32_avx512(s, x, w, bias, y, lo, hi, plane0, plane1, oy0, oy1);
    return;
  }
  if (isa == MLFK_ISA_AVX2) {
    mlfk_depthwise2d_f32_avx2(s, x, w, bias, y, lo, hi, plane0, plane1, oy0, oy1);
    return;
  }
#endif
  (void)isa;
  mlfk_depthwise2d_f32_portable(s, x, w, bias, y, lo, hi, plane0, plane1, oy0, oy1);
}

/* Intra-op threads: the output rows of every plane cut into contiguous
 * ranges, one per task, so a task reads and writes the same pixels as the
 * convolutions around it (which cut by pixels); images of fewer rows than
 * tasks are cut by planes. Each row is computed as the serial code computes
 * it. */
typedef struct {
  int isa, parts, by_rows, plane_block;
  const mlfk_depthwise2d_f32_shape* s;
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  float lo, hi;
} mlfk_depthwise2d_f32_job;

MLFK_FN void mlfk_depthwise2d_f32_task(void* arg, int32_t task) {
  const mlfk_depthwise2d_f32_job* j = (const mlfk_depthwise2d_f32_job*)arg;
  const int planes = j->s->n * j->s->c;
  int b, e;
  if (j->by_rows) {
    mlfk_split(j->s->oh, j->parts, task, &b, &e);
    mlfk_depthwise2d_f32_part(j->isa, j->s, j->x, j->w, j->bias, j->y, j->lo, j->hi, 0, planes, b,
                              e);
  } else {
    mlfk_split_blocks(planes, j->plane_block, j->parts, task, &b, &e);
    mlfk_depthwise2d_f32_part(j->isa, j->s, j->x, j->w, j->bias, j->y, j->lo, j->hi, b, e, 0,
                              j->s->oh);
  }
}

/* y = clamp(depthwise(x, w) + bias, lo, hi) as run `ex` says (NULL: the
 * best variant, serial). */
MLFK_FN void mlfk_depthwise2d_f32_exec(const mlfk_exec* ex, const mlfk_depthwise2d_f32_shape* s,
                                       const float* x, const float* w, const float* bias,
                                       float* y, float lo, float hi) {
  mlfk_depthwise2d_f32_job j;
  const int row_tasks = mlfk_exec_tasks(ex, s->oh);
  const int planes = s->n * s->c, plane = s->oh * s->ow;
  j.isa = mlfk_exec_isa(ex);
  j.by_rows = row_tasks == mlfk_exec_tasks(ex, planes * s->oh) &&
              s->oh / row_tasks * s->ow >= MLFK_LINE_CUT_MIN;
  j.plane_block = mlfk_line_aligned(y) ? mlfk_line_units(plane) : 1;
  j.parts = j.by_rows ? row_tasks
                      : mlfk_exec_tasks(ex, (planes + j.plane_block - 1) / j.plane_block);
  j.s = s;
  j.x = x;
  j.w = w;
  j.bias = bias;
  j.y = y;
  j.lo = lo;
  j.hi = hi;
  mlfk_exec_run(ex, mlfk_depthwise2d_f32_task, &j, j.parts);
}

/* The same with the variant `isa`, serial. */
MLFK_FN void mlfk_depthwise2d_f32_with(int isa, const mlfk_depthwise2d_f32_shape* s, const float* x,
                                       const float* w, const float* bias, float* y, float lo,
                                       float hi) {
  mlfk_depthwise2d_f32_part(isa, s, x, w, bias, y, lo, hi, 0, s->n * s->c, 0, s->oh);
}

MLFK_FN void mlfk_depthwise2d_f32(const mlfk_depthwise2d_f32_shape* s, const float* x,
                                  const float* w, const float* bias, float* y, float lo,
                                  float hi) {
  mlfk_depthwise2d_f32_exec(NULL, s, x, w, bias, y, lo, hi);
}

#endif /* MLF_KERNEL_DEPTHWISE_F32_H_ */
