/* Module "tiny": y = relu(x W + b), x: float32[1,4], y: float32[1,3]. */
#include "tvmgen_tiny.h"

static const float kWeight[4][3] = {
    {0.5f, -1.0f, 0.25f},
    {1.0f, 0.5f, -0.5f},
    {-0.25f, 2.0f, 1.0f},
    {0.75f, 0.0f, -1.0f},
};
static const float kBias[3] = {0.1f, -0.2f, 0.3f};

int32_t tvmgen_tiny_run(struct tvmgen_tiny_inputs* inputs, struct tvmgen_tiny_outputs* outputs,
                        struct tvmgen_tiny_workspace_pools* pools) {
  const float* x = (const float*)inputs->x;
  float* y = (float*)outputs->y;
  int i, j;
  (void)pools;
  for (j = 0; j < 3; ++j) {
    float acc = kBias[j];
    for (i = 0; i < 4; ++i) acc += x[i] * kWeight[i][j];
    y[j] = acc > 0.0f ? acc : 0.0f;
  }
  return 0;
}

/* What this code was written for; the host loader checks it against metadata.json.
 * ABI version 1 (no tvmgen_tiny_run_ctx), as metadata.json says: the
 * archive that shows loaders still run ABI 1 code. */
static const int64_t kShape[2][2] = {{1, 4}, {1, 3}};
static const struct mlf_tensor_info kInputs[1] = {
    {"x", "x", MLF_DTYPE_FLOAT, 32, 1, 2, kShape[0], 16}};
static const struct mlf_tensor_info kOutputs[1] = {
    {"y", "y", MLF_DTYPE_FLOAT, 32, 1, 2, kShape[1], 12}};
static const struct mlf_model_metadata kMetadata = {
    1, "tiny", 1, kInputs, 1, kOutputs, 0, 0, MLF_PARAMS_LINKED};

const struct mlf_model_metadata* tvmgen_tiny_metadata(void) { return &kMetadata; }
