/*
 * tvm/runtime/crt/func_registry.h - mlfkit's compatibility header: the
 * function table of a TVM system library, as generated graph-executor code
 * (the system-lib registry in <module>_lib0.c) initialises it.
 *
 * Written for mlfkit (not copied from TVM), from the layout generated code
 * relies on: two pointers, the packed name blob and the function array.
 * `names` starts with the number of functions (two bytes, little-endian, in
 * TVM 0.9 and later; one byte in TVM 0.8), then each name NUL-terminated,
 * then one more NUL; funcs[i] is the function named i-th.
 *
 * Declared for compilation only: mlfkit's loaders call a graph module's
 * operators directly (tvm/compat/graph_source.h) and never look a function
 * up by name, so no lookup functions are declared here.
 */
#ifndef TVM_RUNTIME_CRT_FUNC_REGISTRY_H_
#define TVM_RUNTIME_CRT_FUNC_REGISTRY_H_

#include <stdint.h>

#include "tvm/runtime/c_backend_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint16_t tvm_function_index_t;
typedef uint16_t tvm_module_index_t;

typedef struct TVMFuncRegistry {
  const char* names;
  const TVMBackendPackedCFunc* funcs;
} TVMFuncRegistry;

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_CRT_FUNC_REGISTRY_H_ */
