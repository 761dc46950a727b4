/*
 * tvm/runtime/crt/error_codes.h - mlfkit's compatibility header: the error
 * code type of TVM's C runtime (CRT), as TVMPlatformAbort takes it.
 *
 * Written for mlfkit (not copied from TVM). Generated model code does not
 * interpret these values; they are passed through to TVMPlatformAbort, whose
 * message (TVMGetLastError) shows the number. The names below are the ones
 * platform code most often uses; 0 is always "no error".
 */
#ifndef TVM_RUNTIME_CRT_ERROR_CODES_H_
#define TVM_RUNTIME_CRT_ERROR_CODES_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  kTvmErrorNoError = 0,
  kTvmErrorPlatformCheckFailure = 0x0201,
  kTvmErrorPlatformMemoryManagerInitialized = 0x0202,
  kTvmErrorPlatformShutdown = 0x0203,
  kTvmErrorPlatformNoMemory = 0x0204,
  kTvmErrorPlatformTimerBadState = 0x0205,
  kTvmErrorPlatformStackAllocBadFree = 0x0206,
  kTvmErrorFunctionCallNumArguments = 0x0401,
  kTvmErrorFunctionCallWrongArgType = 0x0402,
  kTvmErrorFunctionCallNotImplemented = 0x0403,
  kTvmErrorFunctionCallInvalidArg = 0x0404,
  kTvmErrorSystemErrorMask = 0x8000
} tvm_crt_error_t;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* TVM_RUNTIME_CRT_ERROR_CODES_H_ */
