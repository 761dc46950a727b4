/* mlfkit kernel family conv_f32 (codegen/kernels/README.md): 2-D
 * convolution of NCHW float tensors, one group, through gemm_f32.
 *
 * The weights W[M][C][KH][KW] are constant and packed at export as gemm_f32's
 * A (M x K, K = C * KH * KW). Per image, the output Y[M][OH * OW] is
 * A * cols, where cols[K][P] holds the input pixel under each tap of each
 * output pixel (zero where the tap falls in the padding):
 *
 *   - a 1x1, stride-1, unpadded convolution multiplies X[C][H * W] directly;
 *   - otherwise cols are built (im2col) `chunk` output pixels at a time in the
 *     caller's scratch of K * chunk floats and multiplied before the next
 *     chunk, so the scratch stays small while each chunk is long enough for
 *     the GEMM to reuse each weight panel.
 */
#ifndef MLF_KERNEL_CONV_F32_H_
#define MLF_KERNEL_CONV_F32_H_

#include <stddef.h>

#include "mlf_kernel_common.h"
#include "mlf_kernel_gemm_f32.h"

typedef struct {
  int n, c, h, w;        /* input */
  int m, oh, ow;         /* output channels and size */
  int kh, kw;            /* taps */
  int sh, sw, dh, dw;    /* strides, dilations */
  int pad_top, pad_left; /* padding before (after follows from the sizes) */
  int chunk;             /* output pixels per im2col chunk (> 0) */
} mlfk_conv2d_f32_shape;

/* One row of the columns of a stride-1 window whose output is as wide as
 * its input (ResNet's 3x3 pad 1): tap (dy, dx) of output pixel p is input
 * element p + dy * w + dx of the plane, so the row is one contiguous copy
 * of the plane shifted by that offset, then zeros over the pixels whose
 * input row lies in the padding and over the |dx| columns at the row ends
 * whose input column does (the copy wrapped them into the next or previous
 * row). Per row of columns that is one long copy and a few stores, where
 * the segment loop below pays its setup per output row: on 7x7 and 14x14
 * images (segments of 7 and 14 pixels) it ran at 4-8 GB/s. */
MLFK_FN void mlfk_im2col_f32_shift_row(const mlfk_conv2d_f32_shape* s,
                                       const float* MLFK_RESTRICT xc, int dy, int dx, int p0,
                                       int count, float* MLFK_RESTRICT row) {
  const int w = s->w, plane = s->h * s->w, p1 = p0 + count, shift = dy * w + dx;
  /* Pixels whose input row is inside: [va, vb); of those, whose shifted
   * index is inside the plane: [ca, cb). */
  const int va = p0 > -dy * w ? p0 : -dy * w;
  const int vb = p1 < (s->h - dy) * w ? p1 : (s->h - dy) * w;
  int ca = va > -shift ? va : -shift;
  int cb = vb < plane - shift ? vb : plane - shift;
  int p;
  if (cb < ca) ca = cb = p0; /* nothing to copy: all zeros */
  for (p = p0; p < ca; ++p) row[p - p0] = 0.0f;
  for (p = ca; p < cb; ++p) row[p - p0] = xc[p + shift];
  for (p = cb > p0 ? cb : p0; p < p1; ++p) row[p - p0] = 0.0f;
  if (dx != 0 && va < vb) {
    /* Columns [x0, x1) of every output row read the padding. */
    const int x0 = dx < 0 ? 0 : w - dx, x1 = dx < 0 ? -dx : w;
    int oy;
    for (oy = va / w; oy * w < vb; ++oy) {
      int ox;
      for (ox = x0; ox < x1; ++ox) {
        const int q = oy * w + ox;
        if (q >= va && q < vb) row[q - p0] = 0.0f;
      }
    }
  }
}

/* Rows [r0, r1) of cols[K][count] (row r is channel r / (KH * KW), tap
 * r % (KH * KW)) for output pixels [p0, p0 + count) of one image x[C][H][W]. */
MLFK_FN void mlfk_im2col_f32_rows(const mlfk_conv2d_f32_shape* s, const float* MLFK_RESTRICT x,
                                  int p0, int count, int r0, int r1, float* MLFK_RESTRICT cols) {
  const int taps = s->kh * s->kw;
  /* Stride 1 along rows and columns, output as wide as the input, every
   * column tap within one row's reach of the output column. */
  const int shifted = s->sw == 1 && s->sh == 1 && s->ow == s->w && s->pad_left < s->w &&
                      (s->kw - 1) * s->dw - s->pad_left < s->w;
  int r;
  for (r = r0; r < r1; ++r) {
    const int ci = r / taps, ky = r % taps / s->kw, kx = r % s->kw;
    const float* xc = x + (ptrdiff_t)ci * s->h * s->w;
    float* row = cols + (ptrdiff_t)r * count;
    if (shifted) {
      mlfk_im2col_f32_shift_row(s, xc, ky * s->dh - s->pad_top, kx * s->dw - s->pad_left, p0,
                                count, row);
      continue;
    }
    /* Output columns whose tap kx lands inside the input: [lo, hi). */
    const int off = kx * s->dw - s->pad_left;
    int lo = off >= 0 ? 0 : (-off + s->sw - 1) / s->sw;
    int hi = (s->w - 1 - off) >= 0 ? (s->w - 1 - off) / s->sw + 1 : 0;
    int p = p0, i = 0;
    if (lo > s->ow) lo = s->ow;
    if (hi > s->ow) hi = s->ow;
    if (hi < lo) hi = lo;
    while (i < count) {
      const int oy = p / s->ow, ox0 = p % s->ow;
      const int run = s->ow - ox0 < count - i ? s->ow - ox0 : count - i;
      const int iy = oy * s->sh - s->pad_top + ky * s->dh;
      float* out = row + i;
      int ox;
      if (iy < 0 || iy >= s->h) {
        for (ox = 0; ox < run; ++ox) out[ox] = 0.0f;
      } else {
        const float* xr = xc + (ptrdiff_t)iy * s->w + off;
        const int a = lo > ox0 ? lo : ox0, b = hi < ox0 + run ? hi : ox0 + run;
        for (ox = ox0; ox < a && ox < ox0 + run; ++ox) out[ox - ox0] = 0.0f;
        if (s->sw == 1) {
          for (ox = a; ox < b; ++ox) out[ox - ox0] = xr[ox];
        } else if (s->sw == 2) {
          /* A constant stride the compiler vectorises (ResNet's stem and
           * downsampling layers, MobileNetV2's stem). */
          for (ox = a; ox < b; ++ox) out[ox - ox0] = xr[ox * 2];
        } else {
          for (ox = a; ox < b; ++ox) out[ox - ox0] = xr[ox * s->sw];
        }
        for (ox = b > a ? b : a; ox < ox0 + run; ++ox) out[ox - ox0] = 0.0f;
      }
      i += run;
      p += run;
    }
  }
}

/* cols[K][count] for output pixels [p0, p0 + count) of one image x[C][H][W]. */
MLFK_FN void mlfk_im2col_f32(const mlfk_conv2d_f32_shape* s, const float* MLFK_RESTRICT x, int p0,
                             int count, float* MLFK_RESTRICT cols) {
  mlfk_im2col_f32_rows(s, x, p0, count, 0, s->c * s->kh * s->kw, cols);
}

/* One chunk's im2col cut into `parts` tasks by rows of cols. */
typedef struct {
  const mlfk_conv2d_f32_shape* s;
  const float* x;
  int p0, count, parts;
  float* cols;
} mlfk_im2col_f32_job;

MLFK_FN void mlfk_im2col_f32_task(void* arg, int32_t task) {
  const mlfk_im2col_f32_job* j = (const mlfk_im2col_f32_job*)arg;
  int r0, r1;
  mlfk_split(j->s->c * j->s->kh * j->s->kw, j->parts, task, &r0, &r1);
  mlfk_im2col_f32_rows(j->s, j->x, j->p0, j->count, r0, r1, j->cols);
}

/* Scratch floats mlfk_conv2d_f32 needs for `s` (0 for the direct 1x1 case). */
MLFK_FN size_t mlfk_conv2d_f32_scratch(const mlfk_conv2d_f32_shape* s) {
  const int direct = s->kh == 1 && s->kw == 1 && s->sh == 1 && s->sw == 1 && s->pad_top == 0 &&
                     s->pad_left == 0 && s->oh == s->h && s->ow == s->w;
  return direct ? 0 : (size_t)s->c * s->kh * s->kw * (size_t)s->chunk;
}

/* The serial path of one image, pixels [p0, p1): chunks of at most `chunk`
 * pixels, each built in `scratch` (K x chunk floats) and multiplied. */
MLFK_FN void mlfk_conv2d_f32_pixels(int isa, const mlfk_conv2d_f32_shape* s, const float* xn,
                                    const float* packed_w, const float* bias, const float* rn,
                                    float* yn, float* scratch, int p0, int p1, int chunk,
                                    float lo, float hi) {
  const int k = s->c * s->kh * s->kw, pixels = s->oh * s->ow;
  int p;
  for (p = p0; p < p1; p += chunk) {
    const int count = p1 - p < chunk ? p1 - p : chunk;
    mlfk_im2col_f32(s, xn, p, count, scratch);
    mlfk_gemm_f32_with(isa, s->m, count, k, packed_w, scratch, count, bias, rn ? rn + p : NULL,
                       yn + p, pixels, lo, hi);
  }
}

/* Intra-op threads on an image of many pixels: task t takes the t-th range
 * of output pixels and works through it alone, in chunks of chunk / tasks
 * pixels built in its own slice of the scratch. One parallel region per
 * image, and the columns a task builds are multiplied on the core that
 * built them (splitting the columns' rows and the GEMM's rows instead moves
 * every chunk between cores and costs two regions per chunk). A column's
 * result does not depend on which chunk or tile holds it, so the bits are
 * those of the serial path. */
typedef struct {
  int isa, tasks, sub, block;
  const mlfk_conv2d_f32_shape* s;
  const float* xn;
  const float* packed_w;
  const float* bias;
  const float* rn;
  float* yn;
  float* scratch;
  float lo, hi;
} mlfk_conv2d_f32_job;

MLFK_FN void mlfk_conv2d_f32_task(void* arg, int32_t task) {
  const mlfk_conv2d_f32_job* j = (const mlfk_conv2d_f32_job*)arg;
  const int k = j->s->c * j->s->kh * j->s->kw;
  int p0, p1;
  mlfk_split_blocks(j->s->oh * j->s->ow, j->block, j->tasks, task, &p0, &p1);
  mlfk_conv2d_f32_pixels(j->isa, j->s, j->xn, j->packed_w, j->bias, j->rn, j->yn,
                         j->scratch + (size_t)task * k * j->sub, p0, p1, j->sub, j->lo, j->hi);
}

/* Output pixels per task below which an image is not cut by pixels (the
 * tasks' chunks would be too narrow for the GEMM tiles). */
#define MLFK_CONV_MIN_TASK_PIXELS 16

/* y = clamp(conv(x, w) + bias + res, lo, hi) as run `ex` says (NULL: the
 * best variant, serial); res, a residual shaped like y (a fused Add), may be
 * NULL; `scratch` holds mlfk_conv2d_f32_scratch(s) floats. With
 * threads, an image of many pixels is cut by output pixels (see the job
 * above); a small one (whose tasks would share a cache line in every
 * output row, MLFK_LINE_FLOATS), or one whose weight is large for its
 * pixels (mlfk_gemm_f32_panel_cut: ResNet18's 3x3 layers on 14x14 and 7x7 images), builds
 * its one chunk's columns with all threads (rows of cols) before all of
 * them multiply (rows of the output). Either way the scratch stays what the
 * memory plan sized. */
MLFK_FN void mlfk_conv2d_f32_exec(const mlfk_exec* ex, const mlfk_conv2d_f32_shape* s,
                                  const float* x, const float* packed_w, const float* bias,
                                  const float* res, float* y, float* scratch, float lo,
                                  float hi) {
  const int k = s->c * s->kh * s->kw;
  const int pixels = s->oh * s->ow;
  const size_t in_image = (size_t)s->c * s->h * s->w, out_image = (size_t)s->m * pixels;
  const int isa = mlfk_exec_isa(ex);
  /* At most one task per pixel of a chunk: each needs a slice of it. */
  const int by_pixels = pixels / MLFK_CONV_MIN_TASK_PIXELS;
  const int pixel_tasks = mlfk_exec_tasks(ex, by_pixels < s->chunk ? by_pixels : s->chunk);
  /* Cut by pixels where each task's part of every output row starts a
   * cache line (MLFK_LINE_FLOATS), or where the lines shared at its ends
   * cost less than the columns crossing between the cores would
   * (mlfk_gemm_f32_columns_pay); otherwise by rows (below). */
  const int clean = mlfk_line_aligned(y) && (size_t)pixels % MLFK_LINE_FLOATS == 0;
  const int tasks =
      clean || mlfk_gemm_f32_columns_pay(s->m, pixels, k, pixel_tasks) ? pixel_tasks : 1;
  int n, p0;
  for (n = 0; n < s->n; ++n) {
    const float* xn = x + n * in_image;
    float* yn = y + n * out_image;
    const float* rn = res ? res + n * out_image : NULL;
    if (mlfk_conv2d_f32_scratch(s) == 0) {
      mlfk_gemm_f32_exec(ex, s->m, pixels, k, packed_w, xn, pixels, bias, rn, yn, pixels, lo, hi);
      continue;
    }
    if (tasks > 1 &&
        !mlfk_gemm_f32_panel_cut(s->m, pixels, k, mlfk_exec_tasks(ex, s->m / MLFK_GEMM_MR))) {
      mlfk_conv2d_f32_job j;
      j.isa = isa;
      j.tasks = tasks;
      j.block = clean ? MLFK_LINE_FLOATS : 1;
      j.sub = s->chunk / tasks > 0 ? s->chunk / tasks : 1;
      j.s = s;
      j.xn = xn;
      j.packed_w = packed_w;
      j.bias = bias;
      j.rn = rn;
      j.yn = yn;
      j.scratch = scratch;
      j.lo = lo;
      j.hi = hi;
      mlfk_exec_run(ex, mlfk_conv2d_f32_task, &j, tasks);
      continue;
    }
    for (p0 = 0; p0 < pixels; p0 += s->chunk) {
      mlfk_im2col_f32_job j;
      j.s = s;
      j.x = xn;
      j.p0 = p0;
      j.count = pixels - p0 < s->chunk ? pixels - p0 : s->chunk;
      j.parts = mlfk_exec_tasks(ex, k);
      j.cols = scratch;
      mlfk_exec_run(ex, mlfk_im2col_f32_task, &j, j.parts);
      mlfk_gemm_f32_exec(ex, s->m, j.count, k, packed_w, scratch, j.count, bias,
                         rn ? rn + p0 : NULL, yn + p0, pixels, lo, hi);
    }
  }
}

/* The same with the variant `isa`, serial. */
MLFK_FN void mlfk_conv2d_f32_with(int isa, const mlfk_conv2d_f32_shape* s, const float* x,
                                  const float* packed_w, const float* bias, const float* res,
                                  float* y, float* scratch, float lo, float hi) {
  mlfk_exec ex;
  ex.isa = isa;
  ex.threads = 1;
  ex.parallel_for = NULL;
  ex.pool = NULL;
  mlfk_conv2d_f32_exec(&ex, s, x, packed_w, bias, res, y, scratch, lo, hi);
}

MLFK_FN void mlfk_conv2d_f32(const mlfk_conv2d_f32_shape* s, const float* x, const float* packed_w,
                             const float* bias, const float* res, float* y, float* scratch,
                             float lo, float hi) {
  mlfk_conv2d_f32_exec(NULL, s, x, packed_w, bias, res, y, scratch, lo, hi);
}

/* Small convolutions (below the size where im2col pays: LeNet-5's) of one
 * group, stride 1, dilation 1 and no padding, directly on the weights as
 * exported (no scratch, nothing packed):
 *
 *   Y[m][oy][ox] = clamp(bias[m] + sum over (c, ky, kx) in ascending order
 *                  of W[m][c][ky][kx] * X[c][oy + ky][ox + kx], lo, hi)
 *
 * each product added as it comes, unfused: the order and bits of the direct
 * convolution codegen/ops/conv.cc emits (bias first, or 0 without one).
 * There is an AVX-512 variant only: mlfk_conv2d_f32_valid_exec returns 0
 * for any other variant (and always in builds without the x86 variants,
 * firmware), and the generated code then runs its own loops, the reference,
 * so those builds run exactly the code and bits they ran before. A portable
 * copy of those loops with runtime sizes ran 2.4-2.7x slower than the
 * emitted ones, whose sizes are constants (LeNet-5's layers, SSE2).
 *
 * The AVX-512 variant goes by output rows and blocks of MLFK_CONV_DIRECT_J
 * output channels, holding a row of up to 32 pixels of 8 channels in 16 zmm
 * accumulators (one load of X per tap and segment shared by the 8 channels,
 * each weight broadcast from memory), where the emitted loops, compiled for
 * SSE2, keep them in memory. Threads cut the output channels by blocks. */
typedef struct {
  int n, c, h, w; /* input */
  int m, kh, kw;  /* output channels, taps; oh = h - kh + 1, ow = w - kw + 1 */
} mlfk_conv2d_f32_valid_shape;

#define MLFK_CONV_DIRECT_J 8

#if MLFK_X86
/* AVX-512F: a row of up to 32 pixels (two 16-lane segments, the second
 * masked or absent) of 8 channels; a block of jn < 8 channels computes its
 * last channel again in place of the missing ones and stores jn. */
MLFK_TARGET("avx512f,avx2,fma")
static inline __attribute__((always_inline)) void mlfk_conv_direct_row_avx512_body(
    const mlfk_conv2d_f32_valid_shape* s, const float* MLFK_RESTRICT x,
    const float* MLFK_RESTRICT w, const float* bias, float* MLFK_RESTRICT y, int m0, int jn,
    int oy, int ox0, const int segs, float lo, float hi, int clamp) {
  const int oh = s->h - s->kh + 1, ow = s->w - s->kw + 1, taps = s->c * s->kh * s->kw;
  const int tn = ow - ox0;
  const __mmask16 m_a = (__mmask16)(tn >= 16 ? 0xFFFFu : (1u << tn) - 1u);
  const __mmask16 m_b = (__mmask16)(tn >= 32 ? 0xFFFFu : tn <= 16 ? 0u : (1u << (tn - 16)) - 1u);
  /* Accumulators a<j>, b<j> and weight rows w<j> as named variables: as
   * arrays, GCC 12 stored all 16 accumulators to the stack on every tap
   * (16 stores a step: 1.5-1.7x the time on LeNet-5's layers). */
  const float *w0, *w1, *w2, *w3, *w4, *w5, *w6, *w7;
  __m512 a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7;
  int j, c, ky, kx;
#define MLFK_DIRECT_INIT(r)                                                                 \
  {                                                                                         \
    const int mj = m0 + ((r) < jn ? (r) : jn - 1);                                          \
    w##r = w + (size_t)mj * taps;                                                           \
    a##r = _mm512_set1_ps(bias ? bias[mj] : 0.0f);                                          \
    b##r = a##r;                                                                            \
  }
  MLFK_ROWS8(MLFK_DIRECT_INIT)
#undef MLFK_DIRECT_INIT
  for (c = 0; c < s->c; ++c) {
    for (ky = 0; ky < s->kh; ++ky) {
      const float* MLFK_RESTRICT xr = x + ((size_t)c * s->h + oy + ky) * s->w + ox0;
      const int wo = (c * s->kh + ky) * s->kw;
      for (kx = 0; kx < s->kw; ++kx) {
        const __m512 xa = _mm512_maskz_loadu_ps(m_a, xr + kx);
        const __m512 xb = segs > 1 ? _mm512_maskz_loadu_ps(m_b, xr + kx + 16) : xa;
#define MLFK_DIRECT_TAP(r)                                                                  \
  {                                                                                         \
    const __m512 wv = _mm512_set1_ps(w##r[wo + kx]);                                        \
    a##r = _mm512_add_ps(a##r, _mm512_mul_ps(wv, xa));                                      \
    if (segs > 1) b##r = _mm512_add_ps(b##r, _mm512_mul_ps(wv, xb));                        \
  }
        MLFK_ROWS8(MLFK_DIRECT_TAP)
#undef MLFK_DIRECT_TAP
      }
    }
  }
  {
    __m512 out_a[MLFK_CONV_DIRECT_J], out_b[MLFK_CONV_DIRECT_J];
#define MLFK_DIRECT_OUT(r)                                                                  \
  out_a[r] = a##r;                                                                          \
  out_b[r] = b##r;
    MLFK_ROWS8(MLFK_DIRECT_OUT)
#undef MLFK_DIRECT_OUT
    for (j = 0; j < jn; ++j) {
      float* yr = y + ((size_t)(m0 + j) * oh + oy) * ow + ox0;
      __m512 va = out_a[j], vb = out_b[j];
      if (clamp) {
        const __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
        va = _mm512_min_ps(_mm512_max_ps(va, vlo), vhi);
        vb = _mm512_min_ps(_mm512_max_ps(vb, vlo), vhi);
      }
      _mm512_mask_storeu_ps(yr, m_a, va);
      if (segs > 1) _mm512_mask_storeu_ps(yr + 16, m_b, vb);
    }
  }
}

MLFK_TARGET("avx512f,avx2,fma")
MLFK_FN void mlfk_conv_direct_rows_avx512(const mlfk_conv2d_f32_valid_shape* s,
                                          const float* MLFK_RESTRICT x,
                                          const float* MLFK_RESTRICT w, const float* bias,
                                          float* MLFK_RESTRICT y, int m0, int jn, float lo,
                                          float hi, int clamp) {
  const int oh = s->h - s->kh + 1, ow = s->w - s->kw + 1;
  int oy, ox0;
  for (oy = 0; oy < oh; ++oy) {
    for (ox0 = 0; ox0 < ow; ox0 += 32) {
      if (ow - ox0 > 16) {
        mlfk_conv_direct_row_avx512_body(s, x, w, bias, y, m0, jn, oy, ox0, 2, lo, hi, clamp);
      } else {
        mlfk_conv_direct_row_avx512_body(s, x, w, bias, y, m0, jn, oy, ox0, 1, lo, hi, clamp);
      }
    }
  }
}

/* Channel blocks [b0, b1) of every image. */
MLFK_FN void mlfk_conv_direct_blocks(const mlfk_conv2d_f32_valid_shape* s, const float* x,
                                     const float* w, const float* bias, float* y, float lo,
                                     float hi, int b0, int b1) {
  const int clamp = lo > -HUGE_VALF || hi < HUGE_VALF;
  const size_t in_image = (size_t)s->c * s->h * s->w;
  const size_t out_image = (size_t)s->m * (s->h - s->kh + 1) * (s->w - s->kw + 1);
  int n, blk;
  for (n = 0; n < s->n; ++n) {
    for (blk = b0; blk < b1; ++blk) {
      const int m0 = blk * MLFK_CONV_DIRECT_J;
      const int jn = s->m - m0 < MLFK_CONV_DIRECT_J ? s->m - m0 : MLFK_CONV_DIRECT_J;
      mlfk_conv_direct_rows_avx512(s, x + n * in_image, w, bias, y + n * out_image, m0, jn, lo,
                                   hi, clamp);
    }
  }
}

/* Multiply-accumulates per task below which the direct path is not split. */
#define MLFK_CONV_DIRECT_MIN_TASK_MACS 65536

typedef struct {
  int parts;
  const mlfk_conv2d_f32_valid_shape* s;
  const float* x;
  const float* w;
  const float* bias;
  float* y;
  float lo, hi;
} mlfk_conv_direct_job;

MLFK_FN void mlfk_conv_direct_task(void* arg, int32_t task) {
  const mlfk_conv_direct_job* g = (const mlfk_conv_direct_job*)arg;
  int b0, b1;
  mlfk_split((g->s->m + MLFK_CONV_DIRECT_J - 1) / MLFK_CONV_DIRECT_J, g->parts, task, &b0, &b1);
  mlfk_conv_direct_blocks(g->s, g->x, g->w, g->bias, g->y, g->lo, g->hi, b0, b1);
}
#endif

/* The convolution as run `ex` says (bias NULL or one per output channel),
 * cut by blocks of output channels: 1 when done, 0 when the run's variant
 * has no direct path (the caller runs its loops). */
MLFK_FN int mlfk_conv2d_f32_valid_exec(const mlfk_exec* ex, const mlfk_conv2d_f32_valid_shape* s,
                                       const float* x, const float* w, const float* bias,
                                       float* y, float lo, float hi) {
#if MLFK_X86
  mlfk_conv_direct_job g;
  const int blocks = (s->m + MLFK_CONV_DIRECT_J - 1) / MLFK_CONV_DIRECT_J;
  const double macs = (double)s->n * s->m * (s->h - s->kh + 1) * (s->w - s->kw + 1) * s->c *
                      s->kh * s->kw;
  const double units = macs / MLFK_CONV_DIRECT_MIN_TASK_MACS;
  if (mlfk_exec_isa(ex) != MLFK_ISA_AVX512) return 0;
  g.parts = mlfk_exec_tasks(ex, units < blocks ? (int)units : blocks);
  g.s = s;
  g.x = x;
  g.w = w;
  g.bias = bias;
  g.y = y;
  g.lo = lo;
  g.hi = hi;
  mlfk_exec_run(ex, mlfk_conv_direct_task, &g, g.parts);
  return 1;
#else
  (void)ex, (void)s, (void)x, (void)w, (void)bias, (void)y, (void)lo, (void)hi;
  return 0;
#endif
}

/* The same with the variant `isa`, serial (0: not done, as above). */
MLFK_FN int mlfk_conv2d_f32_valid_with(int isa, const mlfk_conv2d_f32_valid_shape* s,
                                       const float* x, const float* w, const float* bias,
                                       float* y, float lo, float hi) {
#if MLFK_X86
  if (isa != MLFK_ISA_AVX512) return 0;
  mlfk_conv_direct_blocks(s, x, w, bias, y, lo, hi, 0,
                          (s->m + MLFK_CONV_DIRECT_J - 1) / MLFK_CONV_DIRECT_J);
  return 1;
#else
  (void)isa, (void)s, (void)x, (void)w, (void)bias, (void)y, (void)lo, (void)hi;
  return 0;
#endif
}

#endif /* MLF_KERNEL_CONV_F32_H_ */
