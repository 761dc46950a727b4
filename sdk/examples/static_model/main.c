/* static_model: runs module "default" once, with every input element k set to
 * (k % 17) * 0.125 - 1, and prints every output element ("%.9g", one per
 * line). Only float32 models; the generated code is linked in statically
 * (mlfkit_add_model with LINK_PARAMS), so there are no constants to pass. */
#include <stdio.h>
#include <stdlib.h>

#include "mlf/model_abi.h"
#include "tvmgen_default.h"

int main(void) {
  const struct mlf_model_metadata* meta = tvmgen_default_metadata();
  void* inputs[64];
  void* outputs[64];
  if (meta->num_inputs > 64 || meta->num_outputs > 64) return 2;
  for (uint32_t i = 0; i < meta->num_inputs; ++i) {
    const struct mlf_tensor_info* t = &meta->inputs[i];
    if (t->dtype_code != MLF_DTYPE_FLOAT || t->dtype_bits != 32) return 2;
    float* data = malloc(t->size_bytes);
    if (data == NULL) return 2;
    for (uint64_t k = 0; k < t->size_bytes / 4; ++k) data[k] = (float)(k % 17) * 0.125f - 1.0f;
    inputs[i] = data;
  }
  for (uint32_t i = 0; i < meta->num_outputs; ++i) outputs[i] = malloc(meta->outputs[i].size_bytes);
  void* workspace = aligned_alloc(MLF_WORKSPACE_ALIGNMENT,
                                  (TVMGEN_DEFAULT_WORKSPACE_SIZE + MLF_WORKSPACE_ALIGNMENT - 1) /
                                      MLF_WORKSPACE_ALIGNMENT * MLF_WORKSPACE_ALIGNMENT +
                                      MLF_WORKSPACE_ALIGNMENT);
  struct tvmgen_default_workspace_pools pools = {workspace, NULL};
  int32_t status = tvmgen_default_run((struct tvmgen_default_inputs*)inputs,
                                      (struct tvmgen_default_outputs*)outputs, &pools);
  for (uint32_t i = 0; i < meta->num_outputs && status == 0; ++i) {
    const float* data = outputs[i];
    for (uint64_t k = 0; k < meta->outputs[i].size_bytes / 4; ++k) printf("%.9g\n", data[k]);
  }
  if (status != 0) fprintf(stderr, "static_model: tvmgen_default_run returned %d\n", (int)status);
  for (uint32_t i = 0; i < meta->num_inputs; ++i) free(inputs[i]);
  for (uint32_t i = 0; i < meta->num_outputs; ++i) free(outputs[i]);
  free(workspace);
  return status == 0 ? 0 : 1;
}
