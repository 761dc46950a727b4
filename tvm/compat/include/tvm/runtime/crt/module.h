/*
 * tvm/runtime/crt/module.h - mlfkit's compatibility header: the module a
 * TVM system library hands out through TVMSystemLibEntryPoint.
 *
 * Written for mlfkit (not copied from TVM). Generated graph-executor code
 * built with -system-lib defines
 *     static const TVMModule _tvm_system_lib = { &_tvm_func_registry };
 *     const TVMModule* TVMSystemLibEntryPoint(void);
 * A module is one pointer to its function registry (func_registry.h).
 * mlfkit's loaders build such code but call its operators directly, so
 * nothing here is implemented by mlfkit's runtime.
 */
#ifndef TVM_RUNTIME_CRT_MODULE_H_
#define TVM_RUNTIME_CRT_MODULE_H_

#include "tvm/runtime/c_backend_api.h"
#include "tvm/runtime/crt/func_registry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TVMModule {
  const TVMFuncRegistry* registry;
} TVMModule;

/* Defined by the generated code of a system library (not by mlfkit). */
const TVMModule* TVMSystemLibEntryPoint(void);

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_MODULE_H_ */
