/*
 * tvm/runtime/crt/platform.h - mlfkit's compatibility header: the platform
 * hook TVM-generated code may call on a fatal error.
 *
 * Written for mlfkit (not copied from TVM). On the host, mlfkit's runtime
 * ends the current run with that error instead of ending the process: the
 * executor's Run() then fails with the code in its message. Called outside a
 * run, it aborts the process.
 */
#ifndef TVM_RUNTIME_CRT_PLATFORM_H_
#define TVM_RUNTIME_CRT_PLATFORM_H_

#include "tvm/runtime/crt/error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
void __attribute__((noreturn)) TVMPlatformAbort(tvm_crt_error_t code);
#else
void TVMPlatformAbort(tvm_crt_error_t code);
#endif

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* TVM_RUNTIME_CRT_PLATFORM_H_ */
