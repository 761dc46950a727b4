/*
 * mlf/model_abi.h - the generated-code ABI of mlfkit, version 2.
 *
 * Standalone C99 (only <stdint.h>), shared by the code generator, the host
 * loader and the firmware loader; every archive carries a copy at
 * codegen/host/include/mlf/model_abi.h so that it builds on its own.
 *
 * For a module <mod> (C names: every character outside [A-Za-z0-9_] -> '_'),
 * the generated header tvmgen_<mod>.h declares:
 *
 *   struct tvmgen_<mod>_inputs  { void* <c_name>; ... };   one per input, in metadata order
 *   struct tvmgen_<mod>_outputs { void* <c_name>; ... };   one per output, in metadata order
 *   struct tvmgen_<mod>_workspace_pools { void* workspace; const void* constants; };
 *   int32_t tvmgen_<mod>_run(struct tvmgen_<mod>_inputs*, struct tvmgen_<mod>_outputs*,
 *                            struct tvmgen_<mod>_workspace_pools*);      0 = success
 *   int32_t tvmgen_<mod>_run_ctx(..._inputs*, ..._outputs*, ..._workspace_pools*,
 *                                const struct mlf_run_context*);          ABI 2, see below
 *   const struct mlf_model_metadata* tvmgen_<mod>_metadata(void);
 *   #define TVMGEN_<MOD>_<C_NAME>_SIZE   bytes of each input and output
 *   #define TVMGEN_<MOD>_WORKSPACE_SIZE  bytes the caller provides, MLF_WORKSPACE_ALIGNMENT aligned
 *   #define TVMGEN_<MOD>_CONSTANTS_SIZE  0 when parameters are linked into the code
 *
 * Calling convention, relied on by generic loaders: the inputs and outputs
 * structs hold only `void*` members, so they have the layout of an array of
 * `void*` in metadata order. Every buffer is caller-owned, dense, C-order and
 * at least MLF_WORKSPACE_ALIGNMENT-aligned for the workspace, element-aligned
 * for inputs and outputs.
 *
 * Run context (ABI 2): tvmgen_<mod>_run_ctx runs the model as `ctx` says:
 * the kernel variant (MLF_KERNEL_ISA_*) and the intra-op parallel-for, which
 * reach every kernel call through the arguments, never through a global, so
 * callers of one library may run with different settings at once.
 * ctx may be NULL: the serial context (best variant, one thread);
 * tvmgen_<mod>_run is tvmgen_<mod>_run_ctx with it, and is what firmware
 * calls. Code that calls kernels refuses a forced variant this CPU (or this
 * build) does not run before anything runs, with MLF_RUN_ERROR_KERNEL_ISA;
 * code without kernels ignores kernel_isa (loaders check it themselves). Code without kernels or threads (modules
 * upgraded from TVM) may omit tvmgen_<mod>_run_ctx: loaders find it with
 * dlsym and, without it, call tvmgen_<mod>_run. ABI 1 code has only
 * tvmgen_<mod>_run; loaders run it as before (serially, best variant).
 *
 * Reentrancy: generated code has no mutable globals. All scratch memory is
 * the caller's workspace, so one library serves any number of concurrent
 * callers, each with its own workspace and I/O buffers. Constants are only
 * read, so all callers may share one constants buffer.
 */
#ifndef MLF_MODEL_ABI_H_
#define MLF_MODEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLF_ABI_VERSION 2

/* Alignment of the workspace, of every planned offset in it, and of every
 * tensor in a parameter blob. */
#define MLF_WORKSPACE_ALIGNMENT 64

/* Type codes: the numbers of DLPack's DLDataTypeCode. */
#define MLF_DTYPE_INT 0
#define MLF_DTYPE_UINT 1
#define MLF_DTYPE_FLOAT 2
#define MLF_DTYPE_BFLOAT 4
/* bool is described as MLF_DTYPE_UINT with 1 bit, stored in one byte. */

/* Parameter storage, as in metadata.json "parameters.storage". */
#define MLF_PARAMS_NONE 0
#define MLF_PARAMS_LINKED 1
#define MLF_PARAMS_FILE 2

struct mlf_tensor_info {
  const char* name;   /* as in the source model, e.g. "input:0" */
  const char* c_name; /* the struct member name, e.g. "input_0" */
  uint8_t dtype_code; /* MLF_DTYPE_* */
  uint8_t dtype_bits;
  uint16_t dtype_lanes;
  int32_t ndim;
  const int64_t* shape; /* ndim entries; NULL when ndim is 0 */
  uint64_t size_bytes;
};

/* Kernel variants (codegen/kernels): the best this CPU runs, or one forced. */
#define MLF_KERNEL_ISA_AUTO (-1)
#define MLF_KERNEL_ISA_PORTABLE 0
#define MLF_KERNEL_ISA_AVX2 1   /* x86-64 AVX2 + FMA */
#define MLF_KERNEL_ISA_AVX512 2 /* x86-64 AVX-512F + FMA */

/* tvmgen_<mod>_run_ctx's result when ctx->kernel_isa is a variant this CPU or
 * this build does not run (nothing has run). */
#define MLF_RUN_ERROR_KERNEL_ISA 2

/* Runs fn(fn_arg, i) for every i in [0, n) and returns when all have
 * returned; calls may run at the same time on different threads. The code
 * splits work over output elements only (never a sum), so the results are
 * the same bits for any number of threads and any order of the calls. */
typedef void (*mlf_parallel_for_fn)(void* pool, void (*fn)(void* fn_arg, int32_t i),
                                    void* fn_arg, int32_t n);

struct mlf_run_context {
  int32_t kernel_isa;  /* MLF_KERNEL_ISA_* */
  int32_t num_threads; /* >= 1: how many calls parallel_for runs at once */
  mlf_parallel_for_fn parallel_for; /* NULL: serial */
  void* pool;                       /* parallel_for's first argument */
};

struct mlf_model_metadata {
  uint32_t abi_version; /* MLF_ABI_VERSION the code was generated for */
  const char* module_name;
  uint32_t num_inputs;
  const struct mlf_tensor_info* inputs;
  uint32_t num_outputs;
  const struct mlf_tensor_info* outputs;
  uint64_t workspace_size_bytes;
  uint64_t constants_size_bytes;
  uint32_t params_storage; /* MLF_PARAMS_* */
};

#ifdef __cplusplus
}
#endif

#endif /* MLF_MODEL_ABI_H_ */
