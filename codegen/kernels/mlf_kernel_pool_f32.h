/* mlfkit kernel family pool_f32 (codegen/kernels/README.md): MaxPool and
 * AveragePool over 2-D NCHW float tensors, and GlobalAveragePool /
 * GlobalMaxPool over float planes, split over the run's threads.
 *
 * Window pools, per output row: the row starts as the starting value
 * (-FLT_MAX for MaxPool, 0 for AveragePool), then each window row inside the
 * image adds its taps over the output columns whose taps all lie inside the
 * input row (one pass, no test: the compiler vectorises it), the few border
 * columns tap by tap; AveragePool then divides by the taps counted (inside
 * the input, or with count_include_pad inside the padded input). Each output
 * takes its taps in (ky, kx) order, as the generated loops of
 * codegen/ops/pool.cc do, so the results are theirs bit for bit: a max is
 * `v > acc ? v : acc` (NaN never wins), a sum adds left to right.
 *
 * Global pools: 16 partial results per plane (lane l takes elements
 * i = l mod 16 of the whole 16-element blocks), combined in lane order,
 * then the remaining elements, as pool.cc's generated loops.
 *
 * The x86-64 variants are the same C compiled for AVX2 and AVX-512F by
 * target attributes (no multiply-add to contract), bit-identical to the
 * portable one. Threads cut by output rows of every plane (the rows the
 * convolution before wrote on the same core), by planes when the image has
 * fewer rows than tasks; global pools by planes.
 */
#ifndef MLF_KERNEL_POOL_F32_H_
#define MLF_KERNEL_POOL_F32_H_

#include <float.h>
#include <stddef.h>

#include "mlf_kernel_common.h"

typedef struct {
  int n, c, h, w;              /* input */
  int oh, ow;                  /* output size */
  int kh, kw;                  /* window */
  int sh, sw, dh, dw;          /* strides, dilations */
  int pad_top, pad_left;       /* padding before */
  int pad_bottom, pad_right;   /* padding after (what count_include_pad counts) */
  int average;                 /* 0: MaxPool, 1: AveragePool */
  int count_include_pad;       /* AveragePool: divide by the taps inside the padded input */
} mlfk_pool2d_f32_shape;

/* acc = v > acc ? v : acc (MaxPool: NaN never wins) or acc + v (AveragePool);
 * each body is compiled once per pool kind, so its loops hold no test. */
#define MLFK_POOL_MAX(acc, v) ((v) > (acc) ? (v) : (acc))
#define MLFK_POOL_SUM(acc, v) ((acc) + (v))
#define MLFK_POOL_ACC(acc, v) (avg ? MLFK_POOL_SUM(acc, v) : MLFK_POOL_MAX(acc, v))

#define MLFK_POOL_BODY(avg, MLFK_POOL_ACC)                                                    \
  {                                                                                           \
    const float init = avg ? 0.0f : -FLT_MAX;                                                 \
    const size_t in_plane = (size_t)s->h * s->w, out_plane = (size_t)s->oh * s->ow;           \
    const int span = (s->kw - 1) * s->dw;                                                     \
    /* Columns whose kw taps all lie inside the input row. */                                 \
    int ox_lo = s->pad_left > 0 ? (s->pad_left + s->sw - 1) / s->sw : 0;                     \
    int ox_hi = s->w - 1 - span + s->pad_left >= 0 ? (s->w - 1 - span + s->pad_left) / s->sw + 1 \
                                                   : 0;                                       \
    int plane, oy, ky, kx, ox;                                                                \
    if (ox_lo > s->ow) ox_lo = s->ow;                                                         \
    if (ox_hi > s->ow) ox_hi = s->ow;                                                         \
    if (ox_hi < ox_lo) ox_hi = ox_lo;                                                         \
    for (plane = plane0; plane < plane1; ++plane) {                                           \
      const float* xp = x + plane * in_plane;                                                 \
      float* yp = y + plane * out_plane;                                                      \
      for (oy = oy0; oy < oy1; ++oy) {                                                        \
        float* MLFK_RESTRICT yr = yp + (size_t)oy * s->ow;                                    \
        float* MLFK_RESTRICT yq = yr + ox_lo;                                                 \
        const int count = ox_hi - ox_lo;                                                      \
        const int iy0 = oy * s->sh - s->pad_top;                                              \
        int rows = 0;                                                                         \
        for (ox = 0; ox < s->ow; ++ox) yr[ox] = init;                                         \
        for (ky = 0; ky < s->kh; ++ky) {                                                      \
          const int iy = iy0 + ky * s->dh;                                                    \
          const float* MLFK_RESTRICT xr;                                                      \
          const float* MLFK_RESTRICT xq;                                                      \
          if (s->count_include_pad ? iy >= -s->pad_top && iy < s->h + s->pad_bottom           \
                                   : iy >= 0 && iy < s->h)                                    \
            ++rows;                                                                           \
          if (iy < 0 || iy >= s->h) continue;                                                 \
          xr = xp + (size_t)iy * s->w;                                                        \
          xq = xr + ox_lo * s->sw - s->pad_left;                                              \
          if (s->kw == 3 && s->dw == 1 && s->sw == 2) {                                       \
            for (ox = 0; ox < count; ++ox) {                                                  \
              float a = yq[ox];                                                               \
              a = MLFK_POOL_ACC(a, xq[2 * ox]);                                               \
              a = MLFK_POOL_ACC(a, xq[2 * ox + 1]);                                           \
              a = MLFK_POOL_ACC(a, xq[2 * ox + 2]);                                           \
              yq[ox] = a;                                                                     \
            }                                                                                 \
          } else if (s->kw == 3 && s->dw == 1 && s->sw == 1) {                                \
            for (ox = 0; ox < count; ++ox) {                                                  \
              float a = yq[ox];                                                               \
              a = MLFK_POOL_ACC(a, xq[ox]);                                                   \
              a = MLFK_POOL_ACC(a, xq[ox + 1]);                                               \
              a = MLFK_POOL_ACC(a, xq[ox + 2]);                                               \
              yq[ox] = a;                                                                     \
            }                                                                                 \
          } else if (s->kw == 2 && s->dw == 1 && s->sw == 2) {                                \
            for (ox = 0; ox < count; ++ox) {                                                  \
              float a = yq[ox];                                                               \
              a = MLFK_POOL_ACC(a, xq[2 * ox]);                                               \
              a = MLFK_POOL_ACC(a, xq[2 * ox + 1]);                                           \
              yq[ox] = a;                                                                     \
            }                                                                                 \
          } else {                                                                            \
            /* One pass per tap: each output still takes its taps in kx order. */             \
            for (kx = 0; kx < s->kw; ++kx) {                                                  \
              const float* MLFK_RESTRICT xk = xq + kx * s->dw;                                \
              if (s->sw == 1) {                                                               \
                for (ox = 0; ox < count; ++ox) yq[ox] = MLFK_POOL_ACC(yq[ox], xk[ox]);       \
              } else {                                                                        \
                for (ox = 0; ox < count; ++ox)                                                \
                  yq[ox] = MLFK_POOL_ACC(yq[ox], xk[ox * s->sw]);                             \
              }                                                                               \
            }                                                                                 \
          }                                                                                   \
          for (ox = 0; ox < s->ow; ++ox) {                                                    \
            if (ox == ox_lo) ox = ox_hi;                                                      \
            if (ox >= s->ow) break;                                                           \
            for (kx = 0; kx < s->kw; ++kx) {                                                  \
              const int ix = ox * s->sw - s->pad_left + kx * s->dw;                           \
              if (ix >= 0 && ix < s->w) yr[ox] = MLFK_POOL_ACC(yr[ox], xr[ix]);               \
            }                                                                                 \
          }                                                                                   \
        }                                                                                     \
        if (avg) {                                                                            \
          const int lo = s->count_include_pad ? -s->pad_left : 0;                            \
          const int hi = s->count_include_pad ? s->w + s->pad_right : s->w;                   \
          const float d = (float)(rows * s->kw);                                              \
          for (ox = 0; ox < count; ++ox) yq[ox] = yq[ox] / d;                                 \
          for (ox = 0; ox < s->ow; ++ox) {                                                    \
            int cols = 0;                                                                     \
            if (ox == ox_lo) ox = ox_hi;                                                      \
            if (ox >= s->ow) break;                                                           \
            for (kx = 0; kx < s->kw; ++kx) {                                                  \
              const int ix = ox * s->sw - s->pad_left + kx * s->dw;                           \
              cols += ix >= lo && ix < hi;                                                    \
            }                                                                                 \
            yr[ox] = yr[ox] / (float)(rows * cols);                                           \
          }                                                                                   \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }

#define MLFK_POOL_VARIANT(name, kind, avg, acc)                                               \
  MLFK_FN void mlfk_pool2d_f32_##kind##_##name(const mlfk_pool2d_f32_shape* s, const float* x,   \
                                               float* y, int plane0, int plane1, int oy0,       \
                                               int oy1) MLFK_POOL_BODY(avg, acc)

MLFK_POOL_VARIANT(portable, max, 0, MLFK_POOL_MAX)
MLFK_POOL_VARIANT(portable, avg, 1, MLFK_POOL_SUM)

#if MLFK_X86
MLFK_TARGET("avx2,fma") MLFK_POOL_VARIANT(avx2, max, 0, MLFK_POOL_MAX)
MLFK_TARGET("avx2,fma") MLFK_POOL_VARIANT(avx2, avg, 1, MLFK_POOL_SUM)
MLFK_TARGET("avx512f,avx2,fma") MLFK_POOL_VARIANT(avx512, max, 0, MLFK_POOL_MAX)
MLFK_TARGET("avx512f,avx2,fma") MLFK_POOL_VARIANT(avx512, avg, 1, MLFK_POOL_SUM)
#endif

#undef MLFK_POOL_VARIANT
#undef MLFK_POOL_BODY

/* Planes [plane0, plane1) of `size` elements each: 16 partial results per
 * plane, as the generated global pool loops of codegen/ops/pool.cc. */
#define MLFK_GLOBAL_POOL_BODY                                                                 \
  {                                                                                           \
    const int full = size / 16 * 16;                                                          \
    int plane, i, l;                                                                          \
    for (plane = plane0; plane < plane1; ++plane) {                                           \
      const float* MLFK_RESTRICT xp = x + (size_t)plane * size;                               \
      float v = avg ? 0.0f : xp[0];                                                           \
      if (full > 0) {                                                                         \
        float part[16];                                                                       \
        for (l = 0; l < 16; ++l) part[l] = avg ? 0.0f : xp[l];                                \
        for (i = 0; i < full; i += 16) {                                                      \
          for (l = 0; l < 16; ++l) part[l] = MLFK_POOL_ACC(part[l], xp[i + l]);               \
        }                                                                                     \
        for (l = 0; l < 16; ++l) v = MLFK_POOL_ACC(v, part[l]);                               \
      }                                                                                       \
      for (i = full; i < size; ++i) v = MLFK_POOL_ACC(v, xp[i]);                              \
      y[plane] = avg ? v / (float)size : v;                                                   \
    }                                                                                         \
  }

#define MLFK_GLOBAL_POOL_VARIANT(name)                                                        \
  MLFK_FN void mlfk_global_pool_f32_##name(int avg, int size, const float* x, float* y,         \
                                           int plane0, int plane1) MLFK_GLOBAL_POOL_BODY

MLFK_GLOBAL_POOL_VARIANT(portable)
#if MLFK_X86
MLFK_TARGET("avx2,fma") MLFK_GLOBAL_POOL_VARIANT(avx2)
MLFK_TARGET("avx512f,avx2,fma") MLFK_GLOBAL_POOL_VARIANT(avx512)
#endif
#undef MLFK_GLOBAL_POOL_VARIANT

#undef MLFK_GLOBAL_POOL_BODY
#undef MLFK_POOL_ACC
#undef MLFK_POOL_MAX
#undef MLFK_POOL_SUM

/* Output rows [oy0, oy1) of planes [plane0, plane1) (image n, channel c is
 * plane n * C + c) with the variant `isa`. */
MLFK_FN void mlfk_pool2d_f32_part(int isa, const mlfk_pool2d_f32_shape* s, const float* x,
                                  float* y, int plane0, int plane1, int oy0, int oy1) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512) {
    if (s->average) mlfk_pool2d_f32_avg_avx512(s, x, y, plane0, plane1, oy0, oy1);
    else mlfk_pool2d_f32_max_avx512(s, x, y, plane0, plane1, oy0, oy1);
    return;
  }
  if (isa == MLFK_ISA_AVX2) {
    if (s->average) mlfk_pool2d_f32_avg_avx2(s, x, y, plane0, plane1, oy0, oy1);
    else mlfk_pool2d_f32_max_avx2(s, x, y, plane0, plane1, oy0, oy1);
    return;
  }
#endif
  (void)isa;
  if (s->average) mlfk_pool2d_f32_avg_portable(s, x, y, plane0, plane1, oy0, oy1);
  else mlfk_pool2d_f32_max_portable(s, x, y, plane0, plane1, oy0, oy1);
}

MLFK_FN void mlfk_global_pool_f32_part(int isa, int avg, int size, const float* x, float* y,
                                       int plane0, int plane1) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512) {
    mlfk_global_pool_f32_avx512(avg, size, x, y, plane0, plane1);
    return;
  }
  if (isa == MLFK_ISA_AVX2) {
    mlfk_global_pool_f32_avx2(avg, size, x, y, plane0, plane1);
    return;
  }
#endif
  (void)isa;
  mlfk_global_pool_f32_portable(avg, size, x, y, plane0, plane1);
}

/* Intra-op threads, as depthwise_f32 cuts: output rows of every plane, or
 * planes when the image has fewer rows than tasks. */
typedef struct {
  int isa, parts, by_rows, plane_block;
  const mlfk_pool2d_f32_shape* s;
  const float* x;
  float* y;
} mlfk_pool2d_f32_job;

MLFK_FN void mlfk_pool2d_f32_task(void* arg, int32_t task) {
  const mlfk_pool2d_f32_job* j = (const mlfk_pool2d_f32_job*)arg;
  const int planes = j->s->n * j->s->c;
  int b, e;
  if (j->by_rows) {
    mlfk_split(j->s->oh, j->parts, task, &b, &e);
    mlfk_pool2d_f32_part(j->isa, j->s, j->x, j->y, 0, planes, b, e);
  } else {
    mlfk_split_blocks(planes, j->plane_block, j->parts, task, &b, &e);
    mlfk_pool2d_f32_part(j->isa, j->s, j->x, j->y, b, e, 0, j->s->oh);
  }
}

/* y = pool(x) as run `ex` says (NULL: the best variant, serial). */
MLFK_FN void mlfk_pool2d_f32_exec(const mlfk_exec* ex, const mlfk_pool2d_f32_shape* s,
                                  const float* x, float* y) {
  mlfk_pool2d_f32_job j;
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
  j.y = y;
  mlfk_exec_run(ex, mlfk_pool2d_f32_task, &j, j.parts);
}

/* The same with the variant `isa`, serial. */
MLFK_FN void mlfk_pool2d_f32_with(int isa, const mlfk_pool2d_f32_shape* s, const float* x,
                                  float* y) {
  mlfk_pool2d_f32_part(isa, s, x, y, 0, s->n * s->c, 0, s->oh);
}

typedef struct {
  int isa, parts, avg, size, planes;
  const float* x;
  float* y;
} mlfk_global_pool_f32_job;

MLFK_FN void mlfk_global_pool_f32_task(void* arg, int32_t task) {
  const mlfk_global_pool_f32_job* j = (const mlfk_global_pool_f32_job*)arg;
  int b, e;
  mlfk_split(j->planes, j->parts, task, &b, &e);
  mlfk_global_pool_f32_part(j->isa, j->avg, j->size, j->x, j->y, b, e);
}

/* y[p] = mean (avg) or max of the `size` elements of plane p of x, for the
 * `planes` planes, as run `ex` says, cut by planes. */
MLFK_FN void mlfk_global_pool_f32_exec(const mlfk_exec* ex, int avg, int planes, int size,
                                       const float* x, float* y) {
  mlfk_global_pool_f32_job j;
  j.isa = mlfk_exec_isa(ex);
  j.parts = mlfk_exec_tasks(ex, planes);
  j.avg = avg;
  j.size = size;
  j.planes = planes;
  j.x = x;
  j.y = y;
  mlfk_exec_run(ex, mlfk_global_pool_f32_task, &j, j.parts);
}

MLFK_FN void mlfk_global_pool_f32_with(int isa, int avg, int planes, int size, const float* x,
                                       float* y) {
  mlfk_global_pool_f32_part(isa, avg, size, x, y, 0, planes);
}

#endif /* MLF_KERNEL_POOL_F32_H_ */
