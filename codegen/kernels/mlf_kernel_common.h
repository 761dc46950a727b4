/* mlfkit kernels: what every family shares (codegen/kernels/README.md).
 *
 * Kernels are static functions in headers that the generated
 * <module>_lib0.c includes, so each module carries its own copy (no symbol
 * can clash between modules linked into one firmware image) and a kernel the
 * model does not call costs nothing. C99 plus, on x86-64 with GCC or Clang,
 * intrinsics in functions with target attributes.
 */
#ifndef MLF_KERNEL_COMMON_H_
#define MLF_KERNEL_COMMON_H_

#if defined(__GNUC__)
#define MLFK_FN static __attribute__((unused))
#define MLFK_RESTRICT __restrict__
#else
#define MLFK_FN static
#define MLFK_RESTRICT
#endif

#include <stdint.h>

/* x86-64 variants: only where the compiler has target attributes and
 * __builtin_cpu_supports; everything else (firmware) builds portable C. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(MLFK_PORTABLE_ONLY)
#define MLFK_X86 1
#define MLFK_TARGET(isa) __attribute__((target(isa)))
#include <immintrin.h>
#else
#define MLFK_X86 0
#endif

/* Helium with floating point (MVE-F: the Cortex-M55 with its FPU) takes
 * the float kernels' MVE blocks in place of their portable loops, each
 * forming every sum in the portable code's order: depthwise_f32's without
 * contraction (the portable bits), gemm_f32's with VFMA (the portable bits
 * but for the FMA's rounding, as its x86 tiles). Helium's float
 * instructions flush denormal inputs and results to zero (so do the loops
 * GCC vectorises for it on its own). */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include <arm_mve.h>
#include <math.h>
#define MLFK_F32_MVE 1
#else
#define MLFK_F32_MVE 0
#endif

/* The same numbers as MLF_KERNEL_ISA_* of mlf/model_abi.h (the generated
 * run function passes the caller's choice on as it is). */
#define MLFK_ISA_PORTABLE 0
#define MLFK_ISA_AVX2 1
#define MLFK_ISA_AVX512 2

/* Whether this CPU runs variant `isa` (portable always). */
MLFK_FN int mlfk_isa_supported(int isa) {
  if (isa == MLFK_ISA_PORTABLE) return 1;
#if MLFK_X86
  if (isa == MLFK_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == MLFK_ISA_AVX512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#endif
  return 0;
}

/* The best variant this CPU runs. __builtin_cpu_supports reads what libgcc
 * (or compiler-rt) found at load time: a load and a test, no state of ours. */
MLFK_FN int mlfk_isa(void) {
  if (mlfk_isa_supported(MLFK_ISA_AVX512)) return MLFK_ISA_AVX512;
  if (mlfk_isa_supported(MLFK_ISA_AVX2)) return MLFK_ISA_AVX2;
  return MLFK_ISA_PORTABLE;
}

/* How one run executes the kernels (docs/design.md, "Generated-code ABI"):
 * the variant and the intra-op parallel-for, handed by the generated
 * tvmgen_<mod>_run_ctx to every kernel call, never kept in a global, so two
 * callers of one library may use different settings at the same time.
 *
 * parallel_for(pool, fn, arg, n) runs fn(arg, i) for every i in [0, n) and
 * returns when all have returned; calls may run at once on different threads.
 * NULL (firmware, the serial context, a NULL mlfk_exec) runs them in order
 * on the caller's thread. Kernels split work over output elements only, each
 * computed exactly as the serial code computes it, so the results are the
 * same bits for every thread count. The signature is mlf_parallel_for_fn of
 * mlf/model_abi.h, so the loader's function is used as it is. */
typedef void (*mlfk_task_fn)(void* arg, int32_t task);
typedef struct {
  int isa;     /* MLFK_ISA_*, one this CPU supports */
  int threads; /* >= 1: tasks worth running at once */
  void (*parallel_for)(void* pool, mlfk_task_fn fn, void* arg, int32_t n);
  void* pool;
} mlfk_exec;

/* The variant of `ex`; the best this CPU has when ex is NULL. */
MLFK_FN int mlfk_exec_isa(const mlfk_exec* ex) {
  return ex ? ex->isa : mlfk_isa();
}

/* How many tasks to cut `units` independent pieces of work into. */
MLFK_FN int mlfk_exec_tasks(const mlfk_exec* ex, int units) {
  const int t = ex && ex->parallel_for && ex->threads > 1 ? ex->threads : 1;
  return units < t ? (units > 0 ? units : 1) : t;
}

/* fn(arg, i) for i in [0, n): through the executor's pool when it has one. */
MLFK_FN void mlfk_exec_run(const mlfk_exec* ex, mlfk_task_fn fn, void* arg, int n) {
  int i;
  if (n > 1 && ex && ex->parallel_for) {
    ex->parallel_for(ex->pool, fn, arg, (int32_t)n);
    return;
  }
  for (i = 0; i < n; ++i) fn(arg, (int32_t)i);
}

/* Part `i` of `parts` of [0, units): [*b, *e), contiguous, in order, sizes
 * differing by at most one. */
MLFK_FN void mlfk_split(int units, int parts, int i, int* b, int* e) {
  const int base = units / parts, extra = units % parts;
  *b = i * base + (i < extra ? i : extra);
  *e = *b + base + (i < extra ? 1 : 0);
}

/* Floats in a 64-byte cache line. Two tasks that write parts of one line
 * ("false sharing") pass it between their cores: on the 2-core VMs issue 13
 * measures on, when the host places the two cores far apart (a line's round
 * trip 360-440 ns, bench/core_latency.c), a 7x7 depthwise layer cut by rows
 * wrote one shared line per plane (960 of them) and ran 2.3x slower on two
 * threads than on one. So a cut's boundaries fall on line starts (below),
 * or the kernel cuts another way. */
#define MLFK_LINE_FLOATS 16

/* Whether p starts a cache line. */
MLFK_FN int mlfk_line_aligned(const void* p) {
  return ((uintptr_t)p & (MLFK_LINE_FLOATS * sizeof(float) - 1)) == 0;
}

/* The fewest units of `stride` floats that span whole cache lines:
 * boundaries at multiples of it, in an array that starts a line, start
 * lines (16 / gcd(stride, 16)). */
MLFK_FN int mlfk_line_units(long stride) {
  int g = MLFK_LINE_FLOATS;
  while (stride % g) g /= 2;
  return MLFK_LINE_FLOATS / g;
}

/* Floats per row part from which a cut that shares lines is still taken:
 * at most two shared lines (one at each end) per 16 written. */
#define MLFK_LINE_CUT_MIN 256

/* Part `i` of `parts` of [0, units) in whole blocks of `q` units (the last
 * may be short): [*b, *e) with b a multiple of q, sizes differing by at most
 * one block. `parts` is at most the number of blocks. */
MLFK_FN void mlfk_split_blocks(int units, int q, int parts, int i, int* b, int* e) {
  mlfk_split((units + q - 1) / q, parts, i, b, e);
  *b *= q;
  *e = *e * q < units ? *e * q : units;
}

/* max(v, lo) then min(., hi) as the vector code does it: NaN gives lo, as the
 * generated Relu and Clip give. */
MLFK_FN float mlfk_clamp(float v, float lo, float hi) {
  v = v > lo ? v : lo;
  return v < hi ? v : hi;
}

/* "Last" argument of the tiles: not the last K block (0), the last one
 * without (1) or with (2) the clamp to [lo, hi]. */
#define MLFK_NOT_LAST 0
#define MLFK_LAST 1
#define MLFK_LAST_CLAMP 2

/* At the start of a block: no contraction of a * b + c into an FMA inside
 * it, so a loop gives the same bits whatever target the compiler builds it
 * for. GCC in ISO C mode (-std=c99) never contracts; Clang does unless told. */
#if defined(__clang__)
#define MLFK_NO_CONTRACT _Pragma("STDC FP_CONTRACT OFF")
#else
#define MLFK_NO_CONTRACT
#endif

#if MLFK_F32_MVE
/* mlfk_clamp on four lanes, NaN and signed zeros included: a compare and a
 * select per bound. */
static inline __attribute__((always_inline)) float32x4_t mlfk_clamp_mve(float32x4_t v, float lo,
                                                                        float hi) {
  v = vpselq_f32(v, vdupq_n_f32(lo), vcmpgtq_n_f32(v, lo));
  return vpselq_f32(v, vdupq_n_f32(hi), vcmpltq_n_f32(v, hi));
}

/* Whether VMAXNM by lo then VMINNM by hi (two instructions; GCC 12 moves
 * each compare's predicate through a core register, three more) gives
 * mlfk_clamp's bits: it does for every v (a NaN becomes lo, as there)
 * unless a bound is NaN, lo is -0 (v = +0 gives -0 there) or hi is +0
 * (v = -0 gives +0 there). */
MLFK_FN int mlfk_clamp_mve_nm_exact(float lo, float hi) {
  return lo == lo && hi == hi && !(lo == 0.0f && signbit(lo)) && !(hi == 0.0f && !signbit(hi));
}
#endif

#define MLFK_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

#endif /* MLF_KERNEL_COMMON_H_ */
