/* ---- module "{{MODULE}}" ---- */

{{BUFFERS}}
static int run_{{MOD}}(void) {
  struct tvmgen_{{MOD}}_inputs inputs = {0};
  struct tvmgen_{{MOD}}_outputs outputs = {0};
  struct tvmgen_{{MOD}}_workspace_pools pools = {0};
  int32_t status;
{{COUNT_DECLARATION}}
{{SET_INPUTS}}{{SET_OUTPUTS}}  pools.workspace = {{WORKSPACE}};
  pools.constants = {{CONSTANTS}};

{{COUNT_BEFORE}}  status = tvmgen_{{MOD}}_run(&inputs, &outputs, &pools);
{{COUNT_AFTER}}  if (status != 0) {
    mlf_print_failure("{{MOD}}", status);
    return 1;
  }
{{PRINTS}}{{COUNT_PRINT}}  return 0;
}

