/*
 * tvm/runtime/c_backend_api.h - mlfkit's compatibility header: the backend
 * functions TVM's generated C code calls.
 *
 * Written for mlfkit (not copied from TVM). Implemented by mlfkit's
 * compatibility runtime (tvm/compat/src/mlf_tvm_runtime.c):
 *
 *   TVMBackendAllocWorkspace / TVMBackendFreeWorkspace
 *       a LIFO stack allocator over the workspace of the executor that is
 *       running the model on this thread (no heap, no global state; see the
 *       runtime source for how the workspace reaches generated code);
 *   TVMBackendParallelLaunch / TVMBackendParallelBarrier
 *       run the lambda once, serially, as one task of one.
 *
 * Declared for compilation only, NOT provided: TVMBackendGetFuncFromEnv and
 * TVMBackendRegisterSystemLibSymbol (packed-API and system-lib code needs
 * TVM's own runtime; such a library fails to load with "undefined symbol").
 */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_

#include "tvm/runtime/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The signature of a packed function in a generated library. */
typedef int (*TVMBackendPackedCFunc)(TVMValue* args, int* type_codes, int num_args,
                                     TVMValue* out_ret_value, int* out_ret_tcode,
                                     void* resource_handle);

/*
 * Allocates `nbytes` (rounded up to 16 bytes, 16-byte aligned) from the
 * current run's workspace. Returns NULL, with a message for TVMGetLastError,
 * when the workspace is exhausted, when the device is not the CPU
 * (kDLCPU = 1), or when no run is in progress on this thread.
 */
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);

/* Frees the most recent allocation (LIFO). 0 on success; -1, with a message,
 * when `ptr` is not the most recent live allocation. */
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);

typedef struct {
  void* sync_handle;
  int32_t num_task;
} TVMParallelGroupEnv;

typedef int (*FTVMParallelLambda)(int task_id, TVMParallelGroupEnv* penv, void* cdata);

TVM_DLL int TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int num_task);
TVM_DLL int TVMBackendParallelBarrier(int task_id, TVMParallelGroupEnv* penv);

/* Not provided by mlfkit (see above). */
TVM_DLL int TVMBackendGetFuncFromEnv(void* mod_node, const char* func_name,
                                     TVMFunctionHandle* out);
TVM_DLL int TVMBackendRegisterSystemLibSymbol(const char* name, void* ptr);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* TVM_RUNTIME_C_BACKEND_API_H_ */
