
/* ---- module "{{MODULE}}": TVM AOT executor, C interface ---- */

{{BUFFERS}}
static int32_t call_{{MOD}}(void* inputs, void* outputs) {
  return tvmgen_{{MOD}}_run((struct tvmgen_{{MOD}}_inputs*)inputs,
                            (struct tvmgen_{{MOD}}_outputs*)outputs);
}

static int run_{{MOD}}(void) {
  struct tvmgen_{{MOD}}_inputs inputs;
  struct tvmgen_{{MOD}}_outputs outputs;
  int32_t status;

  memset(&inputs, 0, sizeof inputs);
  memset(&outputs, 0, sizeof outputs);
{{SET_INPUTS}}{{SET_OUTPUTS}}
  status = mlf_tvm_run_with_workspace({{WORKSPACE}}, {{WORKSPACE_SIZE}}, call_{{MOD}}, &inputs,
                                      &outputs);
  if (status != 0) return report_failure("tvmgen_{{MOD}}_run", status);
{{PRINTS}}  return 0;
}
