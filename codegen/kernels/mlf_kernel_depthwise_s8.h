/* mlfkit kernels: int8 depthwise 2-D NCHW convolution (one input and one
 * output channel per group; issue 14, codegen/kernels/README.md).
 *
 *   out[c][oy][ox] = clamp(zy + fixmul(bias[c] + sum_taps (x - zx) * w[c][t],
 *                                      mult[c], shift[c]), lo, hi)
 *
 * x is uint8 or int8 (`is_signed`) with its zero point zx in its own
 * domain; padded taps add nothing. w is int8 [C][kh][kw] as exported, with
 * zero point 0; bias, mult, shift, zy, lo, hi and the int32 output
 * (mult == NULL) as in mlf_kernel_gemm_s8.h, whose mlfk_gemm_s8_args
 * (m = channels, k = kh * kw, ldw = k) and requantisation this family uses.
 * Per output row: the sums of a block of columns in int32 that wraps, one
 * pass per tap over the columns inside the image, then the requantisation.
 * The x86 variants are the same C compiled for AVX2 and AVX-512 (vectorised
 * by the compiler), bit-identical to portable.
 */
#ifndef MLF_KERNEL_DEPTHWISE_S8_H_
#define MLF_KERNEL_DEPTHWISE_S8_H_

#include "mlf_kernel_gemm_s8.h"

/* Output columns per block of sums (on the stack). */
#define MLFK_DW_S8_COLS 128

/* Output row oy of channel ch of one image, columns [x0, x0 + n). */
#define MLFK_DW_S8_ROW(NAME, T)                                                                          \
  MLFK_FN void NAME(const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a, const T* MLFK_RESTRICT plane, \
                    int32_t zx, int ch, int oy, int x0, int n, uint32_t* MLFK_RESTRICT acc) {              \
    const int8_t* w = a->w + (ptrdiff_t)ch * a->ldw;                                                     \
    int ty, tx, j;                                                                                       \
    for (j = 0; j < n; ++j) acc[j] = (uint32_t)a->bias[ch];                                              \
    for (ty = 0; ty < g->kh; ++ty) {                                                                     \
      const int iy = oy * g->sh - g->ph + ty * g->dh;                                                    \
      if (iy < 0 || iy >= g->h) continue;                                                                \
      for (tx = 0; tx < g->kw; ++tx) {                                                                   \
        const int dx = tx * g->dw - g->pw;                                                               \
        const int32_t wt = w[ty * g->kw + tx];                                                           \
        const T* row = plane + (ptrdiff_t)iy * g->w;                                                     \
        /* Columns whose tap is inside: 0 <= (x0 + j) * sw + dx < w. */                                  \
        int jb = 0, je = n;                                                                              \
        while (jb < n && (x0 + jb) * g->sw + dx < 0) ++jb;                                               \
        while (je > jb && (x0 + je - 1) * g->sw + dx >= g->w) --je;                                      \
        if (g->sw == 1) {                                                                                \
          const T* src = row + x0 + dx;                                                                  \
          for (j = jb; j < je; ++j) acc[j] += (uint32_t)(((int32_t)src[j] - zx) * wt);                   \
        } else {                                                                                         \
          for (j = jb; j < je; ++j) {                                                                    \
            acc[j] += (uint32_t)(((int32_t)row[(x0 + j) * g->sw + dx] - zx) * wt);                       \
          }                                                                                              \
        }                                                                                                \
      }                                                                                                  \
    }                                                                                                    \
  }

MLFK_DW_S8_ROW(mlfk_dw_s8_row_u8_portable, uint8_t)
MLFK_DW_S8_ROW(mlfk_dw_s8_row_s8_portable, int8_t)
#if MLFK_X86
MLFK_TARGET("avx2") MLFK_DW_S8_ROW(mlfk_dw_s8_row_u8_avx2, uint8_t)
MLFK_TARGET("avx2") MLFK_DW_S8_ROW(mlfk_dw_s8_row_s8_avx2, int8_t)
MLFK_TARGET("avx512f,avx512bw,avx2") MLFK_DW_S8_ROW(mlfk_dw_s8_row_u8_avx512, uint8_t)
MLFK_TARGET("avx512f,avx512bw,avx2") MLFK_DW_S8_ROW(mlfk_dw_s8_row_s8_avx512, int8_t)
#endif

/* Sums of row oy of channel ch, by variant and signedness. */
MLFK_FN void mlfk_dw_s8_row(int isa, int is_signed, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a,
                            const void* plane, int32_t zx, int ch, int oy, int x0, int n, uint32_t* acc) {
#if MLFK_X86
  if (isa == MLFK_ISA_AVX512 && __builtin_cpu_supports("avx512bw")) {
    if (is_signed) {
      mlfk_dw_s8_row_s8_avx512(g, a, (const int8_t*)plane, zx, ch, oy, x0, n, acc);
    } else {
      mlfk_dw_s8_row_u8_avx512(g, a, (const uint8_t*)plane, zx, ch, oy, x0, n, acc);
    }
    return;
  }
  if (isa != MLFK_ISA_PORTABLE) {
    if (is_signed) {
      mlfk_dw_s8_row_s8_avx2(g, a, (const int8_t*)plane, zx, ch, oy, x0, n, acc);
    } else {
      mlfk_dw_s8_row_u8_avx2(g, a, (const uint8_t*)plane, zx, ch, oy, x0, n, acc);
    }
    return;
  }
#endif
  (void)isa;
  if (is_signed) {
    mlfk_dw_s8_row_s8_portable(g, a, (const int8_t*)plane, zx, ch, oy, x0, n, acc);
  } else {
    mlfk_dw_s8_row_u8_portable(g, a, (const uint8_t*)plane, zx, ch, oy, x0, n, acc);
  }
}

typedef struct {
  int isa, tasks, is_signed, batch;
  int32_t zx;
  const mlfk_conv_s8_geom* g;
  const mlfk_gemm_s8_args* a;
  const void* x;
} mlfk_dw_s8_job;

/* Task `task` of the job: a range of (image, channel, output row) units. */
MLFK_FN void mlfk_dw_s8_task(void* arg, int32_t task) {
  const mlfk_dw_s8_job* j = (const mlfk_dw_s8_job*)arg;
  const mlfk_conv_s8_geom* g = j->g;
  const int units = j->batch * g->c * g->oh;
  uint32_t acc[MLFK_DW_S8_COLS];
  int32_t tile[MLFK_S8_TR][MLFK_S8_TC];
  int b, e, u;
  mlfk_split(units, j->tasks, (int)task, &b, &e);
  for (u = b; u < e; ++u) {
    const int oy = u % g->oh, plane_index = u / g->oh, ch = plane_index % g->c;
    const void* plane = (const uint8_t*)j->x + (ptrdiff_t)plane_index * g->h * g->w; /* bytes */
    int x0, i;
    for (x0 = 0; x0 < g->ow; x0 += MLFK_DW_S8_COLS) {
      const int n = g->ow - x0 < MLFK_DW_S8_COLS ? g->ow - x0 : MLFK_DW_S8_COLS;
      mlfk_dw_s8_row(j->isa, j->is_signed, g, j->a, plane, j->zx, ch, oy, x0, n, acc);
      /* Through gemm_s8's store: row ch (the channel) of image
       * plane_index / c, columns oy * ow + x0 + i on. */
      for (i = 0; i < n; i += MLFK_S8_TC) {
        const int cols = n - i < MLFK_S8_TC ? n - i : MLFK_S8_TC;
        mlfk_gemm_s8_args at = *j->a;
        int k;
        for (k = 0; k < cols; ++k) tile[0][k] = (int32_t)acc[i + k];
        at.out = (uint8_t*)j->a->out +
                 (ptrdiff_t)(plane_index / g->c) * g->c * g->oh * g->ow * (ptrdiff_t)(j->a->mult ? 1 : 4);
        mlfk_s8_store_isa(j->isa, &at, ch, 1, oy * g->ow + x0 + i, cols, (const int32_t(*)[MLFK_S8_TC])tile);
      }
    }
  }
}

MLFK_FN void mlfk_depthwise_s8_run(int isa, const mlfk_exec* ex, int tasks, const mlfk_conv_s8_geom* g,
                                   const mlfk_gemm_s8_args* a, const void* x, int is_signed, int32_t zx,
                                   int batch) {
  mlfk_dw_s8_job j;
  mlfk_gemm_s8_args ai = *a;
  ai.ors = (ptrdiff_t)g->oh * g->ow;
  ai.ocs = 1;
  j.isa = isa;
  j.tasks = tasks;
  j.is_signed = is_signed;
  j.batch = batch;
  j.zx = zx;
  j.g = g;
  j.a = &ai;
  j.x = x;
  mlfk_exec_run(ex, mlfk_dw_s8_task, &j, tasks);
}

MLFK_FN void mlfk_depthwise_s8_with(int isa, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a,
                                    const void* x, int is_signed, int32_t zx, int batch) {
  mlfk_depthwise_s8_run(isa, NULL, 1, g, a, x, is_signed, zx, batch);
}

/* For generated code: the run's variant, split by output rows. */
MLFK_FN void mlfk_depthwise_s8_exec(const mlfk_exec* ex, const mlfk_conv_s8_geom* g, const mlfk_gemm_s8_args* a,
                                    const void* x, int is_signed, int32_t zx, int batch) {
  mlfk_depthwise_s8_run(mlfk_exec_isa(ex), ex, mlfk_exec_tasks(ex, batch * g->c * g->oh), g, a, x, is_signed, zx,
                        batch);
}

#endif /* MLF_KERNEL_DEPTHWISE_S8_H_ */
