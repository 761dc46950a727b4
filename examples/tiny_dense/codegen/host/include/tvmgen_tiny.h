/* C interface of module "tiny" (mlfkit generated-code ABI, version 1). Hand-written. */
#ifndef TVMGEN_TINY_H_
#define TVMGEN_TINY_H_

#include <stdint.h>

#include "mlf/model_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TVMGEN_TINY_X_SIZE 16
#define TVMGEN_TINY_Y_SIZE 12
#define TVMGEN_TINY_WORKSPACE_SIZE 0
#define TVMGEN_TINY_CONSTANTS_SIZE 0

struct tvmgen_tiny_inputs { void* x; };
struct tvmgen_tiny_outputs { void* y; };
struct tvmgen_tiny_workspace_pools { void* workspace; const void* constants; };

int32_t tvmgen_tiny_run(struct tvmgen_tiny_inputs* inputs, struct tvmgen_tiny_outputs* outputs,
                        struct tvmgen_tiny_workspace_pools* pools);

const struct mlf_model_metadata* tvmgen_tiny_metadata(void);

#ifdef __cplusplus
}
#endif

#endif /* TVMGEN_TINY_H_ */
