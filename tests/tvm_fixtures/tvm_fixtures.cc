#include "tests/tvm_fixtures/tvm_fixtures.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tvm/format/tvm_params.h"

namespace mlf::tvm_testing {
namespace {

using nlohmann::json;

std::string Params(const std::vector<NamedTensor>& tensors) { return WriteTvmParams(tensors); }

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// The JSON text TVM wrote: json.dump(..., indent=2, sort_keys=True).
std::string Dump(const json& j) { return j.dump(2); }

// ----------------------------------------------------------------- dense --

// W is float32[3,4] (row j: weights of output j), b is float32[3].
const std::vector<float> kW = {0.5f, -1.0f, 0.25f, 2.0f, 1.0f, 1.0f, 1.0f, 1.0f, -1.0f, 0.0f, 2.0f, -4.0f};
const std::vector<float> kB = {0.5f, -3.0f, 1.0f};

const char kDenseHeader[] = R"(#ifndef TVMGEN_DEFAULT_H_
#define TVMGEN_DEFAULT_H_
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief Input tensor serving_default_input_1_0 size (in bytes) for TVM module "default"
 */
#define TVMGEN_DEFAULT_SERVING_DEFAULT_INPUT_1_0_SIZE 16
/*!
 * \brief Output tensor output size (in bytes) for TVM module "default"
 */
#define TVMGEN_DEFAULT_OUTPUT_SIZE 12
/*!
 * \brief Input tensor pointers for TVM module "default"
 */
struct tvmgen_default_inputs {
  void* serving_default_input_1_0;
};

/*!
 * \brief Output tensor pointers for TVM module "default"
 */
struct tvmgen_default_outputs {
  void* output;
};

/*!
 * \brief entrypoint function for TVM module "default"
 * \param inputs Input tensors for the module
 * \param outputs Output tensors for the module
 */
int32_t tvmgen_default_run(
  struct tvmgen_default_inputs* inputs,
  struct tvmgen_default_outputs* outputs
);
/*!
 * \brief Workspace size for TVM module "default"
 */
#define TVMGEN_DEFAULT_WORKSPACE_SIZE 32

#ifdef __cplusplus
}
#endif

#endif // TVMGEN_DEFAULT_H_
)";

const char kDenseLib0[] = R"(#include "tvm/runtime/c_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
#include <tvmgen_default.h>
TVM_DLL int32_t tvmgen_default___tvm_main__(void* serving_default_input_1_0,void* output0);
int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs,struct tvmgen_default_outputs* outputs) {return tvmgen_default___tvm_main__(inputs->serving_default_input_1_0,outputs->output);
}
#ifdef __cplusplus
}
#endif
;)";

// The operators and ___tvm_main__; `prelude` goes after the includes.
std::string DenseLib1(const std::string& prelude) {
  return R"(// tvm target: c -keys=cpu -link-params=1
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
)" + prelude + R"(
#ifdef __cplusplus
extern "C" {
#endif
static const float __attribute__((section(".rodata.tvm"), aligned(16))) fused_constant_0[12] = {
    0x1p-1, -0x1p+0, 0x1p-2, 0x1p+1,
    0x1p+0, 0x1p+0, 0x1p+0, 0x1p+0,
    -0x1p+0, 0x0p+0, 0x1p+1, -0x1p+2
};
#ifdef __cplusplus
}  // extern "C"
#endif

#ifdef __cplusplus
extern "C" {
#endif
static const float __attribute__((section(".rodata.tvm"), aligned(16))) fused_constant_1[3] = {
    0x1p-1, -0x1.8p+1, 0x1p+0
};
#ifdef __cplusplus
}  // extern "C"
#endif

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_nn_dense(float* p0, float* T_matmul_NT) {
  void* T_matmul_NT_global = TVMBackendAllocWorkspace(1, 0, (uint64_t)12, 2, 32);
  if (T_matmul_NT_global == NULL) {
    return -1;
  }
  for (int32_t j = 0; j < 3; ++j) {
    ((float*)T_matmul_NT_global)[j] = 0.000000e+00f;
    for (int32_t k = 0; k < 4; ++k) {
      ((float*)T_matmul_NT_global)[j] = (((float*)T_matmul_NT_global)[j] + (p0[k] * fused_constant_0[((j * 4) + k)]));
    }
  }
  for (int32_t j_1 = 0; j_1 < 3; ++j_1) {
    T_matmul_NT[j_1] = ((float*)T_matmul_NT_global)[j_1];
  }
  if (TVMBackendFreeWorkspace(1, 0, T_matmul_NT_global) != 0) {
    return -1;
  }
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_add_nn_relu(float* p0, float* T_relu) {
  for (int32_t ax1 = 0; ax1 < 3; ++ax1) {
    float v_ = p0[ax1] + fused_constant_1[ax1];
    T_relu[ax1] = ((v_) > (0.000000e+00f) ? (v_) : (0.000000e+00f));
  }
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default___tvm_main__(float* serving_default_input_1_0_buffer_var, float* output_buffer_var) {
  void* sid_1_let = TVMBackendAllocWorkspace(1, 0, (uint64_t)12, 0, 8);
  if (sid_1_let == NULL) {
    return -1;
  }
  if (tvmgen_default_fused_nn_dense(serving_default_input_1_0_buffer_var, sid_1_let) != 0 ) return -1;
  if (tvmgen_default_fused_add_nn_relu(sid_1_let, output_buffer_var) != 0 ) return -1;
  if (TVMBackendFreeWorkspace(1, 0, sid_1_let) != 0) {
    return -1;
  }
  return 0;
}
)";
}

const char kDenseRelay[] = R"(#[version = "0.0.5"]
def @main(%serving_default_input_1:0: Tensor[(1, 4), float32] /* ty=Tensor[(1, 4), float32] span=serving_default_input_1:0:0:0 */, %v_param_1: Tensor[(3, 4), float32] /* ty=Tensor[(3, 4), float32] */, %v_param_2: Tensor[(3), float32] /* ty=Tensor[(3), float32] */, output_tensor_names=["output"]) -> Tensor[(1, 3), float32] {
  %0 = nn.dense(%serving_default_input_1:0, %v_param_1, units=3) /* ty=Tensor[(1, 3), float32] */;
  %1 = add(%0, %v_param_2) /* ty=Tensor[(1, 3), float32] */;
  nn.relu(%1) /* ty=Tensor[(1, 3), float32] */
}

)";

json DenseModuleJson() {
  return {{"executors", {"aot"}},
          {"export_datetime", "2022-11-30 12:00:00Z"},
          {"memory",
           {{"functions",
             {{"main",
               {{{"constants_size_bytes", 60},
                 {"device", 1},
                 {"inputs", {{"serving_default_input_1:0", {{"dtype", "float32"}, {"size", 16}}}}},
                 {"io_size_bytes", 28},
                 {"outputs", {{"output", {{"dtype", "float32"}, {"size", 12}}}}},
                 {"workspace_size_bytes", 32}}}},
              {"operator_functions",
               {{{"function_name", "tvmgen_default_fused_nn_dense"},
                 {"workspace", {{{"device", 1}, {"workspace_size_bytes", 16}}}}},
                {{"function_name", "tvmgen_default_fused_add_nn_relu"},
                 {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}}}}}}}},
          {"model_name", "default"},
          {"style", "full-model"},
          {"target", {"c -keys=cpu -link-params=1"}}};
}

Files DenseMembers(const std::string& lib1_prelude = "") {
  return {{"codegen/host/include/tvmgen_default.h", kDenseHeader},
          {"codegen/host/src/default_lib0.c", kDenseLib0},
          {"codegen/host/src/default_lib1.c", DenseLib1(lib1_prelude)},
          {"src/default.relay", kDenseRelay},
          {"parameters/default.params",
           Params({{"_param_1", DType::kFloat32, {3, 4}, Bytes(kW)},
                   {"_param_2", DType::kFloat32, {3}, Bytes(kB)}})}};
}

// ------------------------------------------------------------------ pair --

const char kPairHeader[] = R"(#ifndef TVMGEN_SECOND_H_
#define TVMGEN_SECOND_H_
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief Input tensor b_in size (in bytes) for TVM module "second"
 */
#define TVMGEN_SECOND_B_IN_SIZE 4
/*!
 * \brief Input tensor a_in size (in bytes) for TVM module "second"
 */
#define TVMGEN_SECOND_A_IN_SIZE 4
/*!
 * \brief Output tensor output0 size (in bytes) for TVM module "second"
 */
#define TVMGEN_SECOND_OUTPUT0_SIZE 4
/*!
 * \brief Output tensor output1 size (in bytes) for TVM module "second"
 */
#define TVMGEN_SECOND_OUTPUT1_SIZE 4
/*!
 * \brief Input tensor pointers for TVM module "second"
 */
struct tvmgen_second_inputs {
  void* b_in;
  void* a_in;
};

/*!
 * \brief Output tensor pointers for TVM module "second"
 */
struct tvmgen_second_outputs {
  void* output0;
  void* output1;
};

/*!
 * \brief entrypoint function for TVM module "second"
 * \param inputs Input tensors for the module
 * \param outputs Output tensors for the module
 */
int32_t tvmgen_second_run(
  struct tvmgen_second_inputs* inputs,
  struct tvmgen_second_outputs* outputs
);
/*!
 * \brief Workspace size for TVM module "second"
 */
#define TVMGEN_SECOND_WORKSPACE_SIZE 0

#ifdef __cplusplus
}
#endif

#endif // TVMGEN_SECOND_H_
)";

// USMP: the pools are static arrays, passed to ___tvm_main__ by the wrapper.
const char kPairLib0[] = R"(#include "tvm/runtime/c_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
#include <tvmgen_second.h>
static struct global_const_workspace {
  int8_t fused_constant_let[4] __attribute__((aligned(16))); // 4 bytes, aligned offset: 0
} global_const_workspace = {
  .fused_constant_let = {
    +0x01, +0x02, +0x03, +0x04
  },
};// of total size 4 bytes
__attribute__((section(".bss.noinit.tvm"), aligned(16)))
static uint8_t global_workspace[32];
TVM_DLL int32_t tvmgen_second___tvm_main__(int8_t* b_in_buffer_var,int8_t* a_in_buffer_var,int8_t* output0_buffer_var,int32_t* output1_buffer_var,uint8_t* global_const_workspace_0_var,uint8_t* global_workspace_1_var);
int32_t tvmgen_second_run(struct tvmgen_second_inputs* inputs,struct tvmgen_second_outputs* outputs) {return tvmgen_second___tvm_main__(inputs->b_in,inputs->a_in,outputs->output0,outputs->output1,((uint8_t*)&global_const_workspace),((uint8_t*)&global_workspace));
}
#ifdef __cplusplus
}
#endif
;)";

const char kPairLib1[] = R"(// tvm target: c -keys=cpu
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_second_fused_add_add(int8_t* p0, int8_t* p1, int8_t* T_add, uint8_t* global_const_workspace_2_var, uint8_t* global_workspace_3_var) {
  void* fused_constant_let = (&(global_const_workspace_2_var[0]));
  for (int32_t ax0 = 0; ax0 < 4; ++ax0) {
    T_add[ax0] = (int8_t)((p1[ax0] + p0[ax0]) + ((int8_t*)fused_constant_let)[ax0]);
  }
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_second_fused_subtract_sum(int8_t* p0, int8_t* p1, int32_t* T_sum, uint8_t* global_const_workspace_4_var, uint8_t* global_workspace_5_var) {
  void* T_subtract_let = (&(global_workspace_5_var[16]));
  for (int32_t ax0 = 0; ax0 < 4; ++ax0) {
    ((int32_t*)T_subtract_let)[ax0] = (((int32_t)p1[ax0]) - ((int32_t)p0[ax0]));
  }
  T_sum[0] = 0;
  for (int32_t k0 = 0; k0 < 4; ++k0) {
    T_sum[0] = (T_sum[0] + ((int32_t*)T_subtract_let)[k0]);
  }
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_second___tvm_main__(int8_t* b_in_buffer_var, int8_t* a_in_buffer_var, int8_t* output0_buffer_var, int32_t* output1_buffer_var, uint8_t* global_const_workspace_0_var, uint8_t* global_workspace_1_var) {
  void* sid_2_let = (&(global_workspace_1_var[0]));
  if (tvmgen_second_fused_add_add(b_in_buffer_var, a_in_buffer_var, sid_2_let, global_const_workspace_0_var, global_workspace_1_var) != 0 ) return -1;
  for (int32_t i = 0; i < 4; ++i) {
    output0_buffer_var[i] = ((int8_t*)sid_2_let)[i];
  }
  if (tvmgen_second_fused_subtract_sum(b_in_buffer_var, a_in_buffer_var, output1_buffer_var, global_const_workspace_0_var, global_workspace_1_var) != 0 ) return -1;
  return 0;
}
)";

const char kPairRelay[] = R"(#[version = "0.0.5"]
def @main(%b_in: Tensor[(4), int8] /* ty=Tensor[(4), int8] */,
          %a_in: Tensor[(4), int8] /* ty=Tensor[(4), int8] */) -> (Tensor[(4), int8], Tensor[(1), int32]) {
  %0 = add(%a_in, %b_in) /* ty=Tensor[(4), int8] */;
  %1 = add(%0, meta[relay.Constant][0] /* ty=Tensor[(4), int8] */) /* ty=Tensor[(4), int8] */;
  %2 = cast(%a_in, dtype="int32") /* ty=Tensor[(4), int32] */;
  %3 = cast(%b_in, dtype="int32") /* ty=Tensor[(4), int32] */;
  %4 = subtract(%2, %3) /* ty=Tensor[(4), int32] */;
  %5 = sum(%4, axis=[0], keepdims=True) /* ty=Tensor[(1), int32] */;
  (%1, %5) /* ty=(Tensor[(4), int8], Tensor[(1), int32]) */
}

#[metadata]
{
  "root": 1
}
)";

json PairModuleJson() {
  return {{"executors", {"aot"}},
          {"export_datetime", "2022-11-30 12:00:01Z"},
          {"memory",
           {{"functions",
             {{"main",
               {{{"constants_size_bytes", 4},
                 {"device", 1},
                 {"inputs",
                  {{"a_in", {{"dtype", "int8"}, {"size", 4}}},
                   {"b_in", {{"dtype", "int8"}, {"size", 4}}}}},
                 {"io_size_bytes", 16},
                 {"outputs",
                  {{"output0", {{"dtype", "int8"}, {"size", 4}}},
                   {"output1", {{"dtype", "int32"}, {"size", 4}}}}},
                 {"workspace_size_bytes", 0}}}},
              {"operator_functions",
               {{{"function_name", "tvmgen_second_fused_add_add"},
                 {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}},
                {{"function_name", "tvmgen_second_fused_subtract_sum"},
                 {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}}}}}}}},
          {"model_name", "second"},
          {"style", "full-model"},
          {"target", {"c -keys=cpu"}}};
}

Files PairMembers() {
  return {{"codegen/host/include/tvmgen_second.h", kPairHeader},
          {"codegen/host/src/second_lib0.c", kPairLib0},
          {"codegen/host/src/second_lib1.c", kPairLib1},
          {"src/second.relay", kPairRelay},
          {"parameters/second.params", Params({})}};
}

// ----------------------------------------------------------------- scale --

const char kScaleHeader[] = R"(#ifndef TVMGEN_DEFAULT_H_
#define TVMGEN_DEFAULT_H_
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief Input tensor pointers for TVM module "default"
 */
struct tvmgen_default_inputs {
  void* input;
};

/*!
 * \brief Output tensor pointers for TVM module "default"
 */
struct tvmgen_default_outputs {
  void* output;
};

/*!
 * \brief entrypoint function for TVM module "default"
 * \param inputs Input tensors for the module
 * \param outputs Output tensors for the module
 */
int32_t tvmgen_default_run(
  struct tvmgen_default_inputs* inputs,
  struct tvmgen_default_outputs* outputs
);

#ifdef __cplusplus
}
#endif

#endif // TVMGEN_DEFAULT_H_
)";

const char kScaleLib0[] = R"(#include "tvm/runtime/c_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
#include <tvmgen_default.h>
TVM_DLL int32_t tvmgen_default_run_model(void* args, void* type_code, int num_args, void* out_value, void* out_type_code, void* resource_handle);
int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs,struct tvmgen_default_outputs* outputs) {
  TVMValue tensors[2];
  tensors[0].v_handle = inputs->input;
  tensors[1].v_handle = outputs->output;
  return tvmgen_default_run_model((void*)tensors, NULL, 2, NULL, NULL, NULL);
}
#ifdef __cplusplus
}
#endif
;)";

const char kScaleLib1[] = R"(// tvm target: c -keys=cpu -link-params=0 -executor=aot -interface-api=c -unpacked-api=1
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_multiply(float* placeholder, float* T_multiply) {
  for (int32_t ax0_ax1_fused = 0; ax0_ax1_fused < 4; ++ax0_ax1_fused) {
    T_multiply[(ax0_ax1_fused)] = (placeholder[(ax0_ax1_fused)] * 2.000000e+00f);
  }
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_add(float* placeholder, float* T_add) {
  for (int32_t ax0_ax1_fused = 0; ax0_ax1_fused < 4; ++ax0_ax1_fused) {
    T_add[(ax0_ax1_fused)] = (placeholder[(ax0_ax1_fused)] + 1.000000e+00f);
  }
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_run_model(void* args, void* arg_type_ids, int32_t num_args, void* out_ret_value, void* out_ret_tcode, void* resource_handle) {
  void* input_buffer_var = (((TVMValue*)args)[0].v_handle);
  void* output_buffer_var = (((TVMValue*)args)[1].v_handle);
  void* sid_1 = TVMBackendAllocWorkspace(1, 0, (uint64_t)16, 0, 8);
  if (sid_1 == NULL) {
    return -1;
  }
  if (tvmgen_default_fused_multiply(input_buffer_var, sid_1) != 0 ) return -1;
  if (tvmgen_default_fused_add(sid_1, output_buffer_var) != 0 ) return -1;
  if (TVMBackendFreeWorkspace(1, 0, sid_1) != 0) {
    return -1;
  }
  return 0;
}
)";

const char kScaleRelay[] = R"(#[version = "0.0.5"]
def @main(%input: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {
  %0 = multiply(%input, 2f /* ty=float32 */) /* ty=Tensor[(2, 2), float32] */;
  add(%0, 1f /* ty=float32 */) /* ty=Tensor[(2, 2), float32] */
}
)";

// ----------------------------------------------------------------- graph --

const char kGraphLib0[] = R"(// tvm target: c -keys=cpu -link-params=0
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_nn_dense_add_clip(void* args, int32_t* arg_type_ids, int32_t num_args, void* out_ret_value, int32_t* out_ret_tcode, void* resource_handle) {
  void* arg_p0 = (((TVMValue*)args)[0].v_handle);
  void* arg_p1 = (((TVMValue*)args)[1].v_handle);
  void* arg_p2 = (((TVMValue*)args)[2].v_handle);
  void* arg_p3 = (((TVMValue*)args)[3].v_handle);
  void* arg_T = (((TVMValue*)args)[4].v_handle);
  float* x = (float*)(((DLTensor*)arg_p0)[0].data);
  float* w = (float*)(((DLTensor*)arg_p1)[0].data);
  float* b = (float*)(((DLTensor*)arg_p2)[0].data);
  int32_t* bounds = (int32_t*)(((DLTensor*)arg_p3)[0].data);
  float* T = (float*)(((DLTensor*)arg_T)[0].data);
  if (num_args != 5) {
    TVMAPISetLastError("tvmgen_default_fused_nn_dense_add_clip: num_args should be 5");
    return -1;
  }
  for (int32_t j = 0; j < 3; ++j) {
    float acc = b[j];
    for (int32_t k = 0; k < 4; ++k) {
      acc = acc + x[k] * w[j * 4 + k];
    }
    acc = acc < (float)bounds[0] ? (float)bounds[0] : acc;
    T[j] = acc > (float)bounds[1] ? (float)bounds[1] : acc;
  }
  return 0;
}
)";

json GraphJson() {
  json nodes = json::array();
  for (const char* name : {"x", "p0", "p1", "p2"}) {
    nodes.push_back({{"op", "null"}, {"name", name}, {"inputs", json::array()}});
  }
  nodes.push_back({{"op", "tvm_op"},
                   {"name", "tvmgen_default_fused_nn_dense_add_clip"},
                   {"attrs",
                    {{"num_outputs", "1"},
                     {"num_inputs", "4"},
                     {"flatten_data", "0"},
                     {"func_name", "tvmgen_default_fused_nn_dense_add_clip"}}},
                   {"inputs", {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}}}});
  return {{"nodes", nodes},
          {"arg_nodes", {0, 1, 2, 3}},
          {"heads", {{4, 0, 0}}},
          {"attrs",
           {{"dltype", {"list_str", {"float32", "float32", "float32", "int32", "float32"}}},
            {"shape", {"list_shape", {{1, 4}, {3, 4}, {3}, {2}, {1, 3}}}},
            {"storage_id", {"list_int", {0, 1, 2, 3, 4}}}}},
          {"node_row_ptr", {0, 1, 2, 3, 4, 5}}};
}

const char kGraphRelay[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32], %p0: Tensor[(3, 4), float32], %p1: Tensor[(3), float32], %p2: Tensor[(2), int32]) -> Tensor[(1, 3), float32] {
  %0 = nn.dense(%x, %p0, units=3) /* ty=Tensor[(1, 3), float32] */;
  %1 = add(%0, %p1) /* ty=Tensor[(1, 3), float32] */;
  clip(%1, a_min=-10f, a_max=10f) /* ty=Tensor[(1, 3), float32] */
}
)";

// ----------------------------------------------------------------- arm --

const char kArmHeader[] = R"(#ifndef TVMGEN_DEFAULT_H_
#define TVMGEN_DEFAULT_H_
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#define TVMGEN_DEFAULT_INPUT_SIZE 4
#define TVMGEN_DEFAULT_OUTPUT_SIZE 4
struct tvmgen_default_inputs {
  void* input;
};
struct tvmgen_default_outputs {
  void* output;
};
int32_t tvmgen_default_run(
  struct tvmgen_default_inputs* inputs,
  struct tvmgen_default_outputs* outputs
);
#define TVMGEN_DEFAULT_WORKSPACE_SIZE 0
#ifdef __cplusplus
}
#endif
#endif // TVMGEN_DEFAULT_H_
)";

const char kArmLib0[] = R"(#include "tvm/runtime/c_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
#include <tvmgen_default.h>
TVM_DLL int32_t tvmgen_default___tvm_main__(void* input,void* output0);
int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs,struct tvmgen_default_outputs* outputs) {return tvmgen_default___tvm_main__(inputs->input,outputs->output);
}
#ifdef __cplusplus
}
#endif
;)";

const char kArmLib1[] = R"(// tvm target: c -keys=arm_cpu,cpu -mcpu=cortex-m4
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
#include <arm_acle.h>

#ifdef __cplusplus
extern "C"
#endif
__attribute__((always_inline)) static inline int32_t gemm_1x1x4_body_int8(int8_t* aa, int8_t* bb, int32_t* cc) {
  int32_t a = *(int32_t*)aa;
  int32_t b = *(int32_t*)bb;
  int32_t a_lo = __sxtb16(a);
  int32_t a_hi = __sxtb16((int32_t)(((uint32_t)a >> 8) | ((uint32_t)a << 24)));
  int32_t b_lo = __sxtb16(b);
  int32_t b_hi = __sxtb16((int32_t)(((uint32_t)b >> 8) | ((uint32_t)b << 24)));
  cc[0] = __smlad(a_lo, b_lo, __smlad(a_hi, b_hi, 0));
  return 0;
}

#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default___tvm_main__(int8_t* input_buffer_var, int32_t* output_buffer_var) {
  static const int8_t weights[4] __attribute__((aligned(4))) = {1, -1, 2, -2};
  return gemm_1x1x4_body_int8(input_buffer_var, (int8_t*)weights, output_buffer_var);
}
)";

const char kArmRelay[] = R"(#[version = "0.0.5"]
def @main(%input: Tensor[(1, 4), int8]) -> Tensor[(1, 1), int32] {
  nn.dense(%input, meta[relay.Constant][0], units=1, out_dtype="int32")
}
)";

// --------------------------------------------------------------- bundled --

const char kBundledRuntimeApi[] = R"(/* TVM standalone C runtime header, as bundled in runtime/include (fixture). */
#ifndef TVM_RUNTIME_C_RUNTIME_API_H_
#define TVM_RUNTIME_C_RUNTIME_API_H_
#define MLF_FIXTURE_BUNDLED_CRT 1
#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#define TVM_DLL __attribute__((visibility("default")))
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} TVMValue;
TVM_DLL void TVMAPISetLastError(const char* msg);
#ifdef __cplusplus
}
#endif
#endif
)";

const char kBundledBackendApi[] = R"(/* TVM standalone C runtime header, as bundled in runtime/include (fixture). */
#ifndef TVM_RUNTIME_C_BACKEND_API_H_
#define TVM_RUNTIME_C_BACKEND_API_H_
#include "tvm/runtime/c_runtime_api.h"
#ifdef __cplusplus
extern "C" {
#endif
TVM_DLL void* TVMBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                       int dtype_code_hint, int dtype_bits_hint);
TVM_DLL int TVMBackendFreeWorkspace(int device_type, int device_id, void* ptr);
#ifdef __cplusplus
}
#endif
#endif
)";

// ------------------------------------------------------------------ tar --

// `value` as width-1 octal digits and a NUL (values that do not fit are cut).
void PutOctal(char* field, size_t width, uint64_t value) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
  const size_t n = std::strlen(digits);
  std::memcpy(field, digits + (n - (width - 1)), width - 1);
  field[width - 1] = '\0';
}

std::string Header(const TarMember& m, uint64_t size) {
  std::string h(512, '\0');
  std::string name = m.name;
  std::string prefix;
  if (name.size() > 100) {
    const size_t split = name.rfind('/', 155);
    if (split == std::string::npos || name.size() - split - 1 > 100) {
      throw std::runtime_error("tar fixture: name too long: " + name);
    }
    prefix = name.substr(0, split);
    name = name.substr(split + 1);
  }
  std::memcpy(&h[0], name.data(), name.size());
  PutOctal(&h[100], 8, m.mode);
  PutOctal(&h[108], 8, m.uid);
  PutOctal(&h[116], 8, m.gid);
  PutOctal(&h[124], 12, size);
  PutOctal(&h[136], 12, m.mtime);
  h[156] = m.directory ? '5' : '0';
  if (m.gnu) {
    std::memcpy(&h[257], "ustar  ", 8);
  } else {
    std::memcpy(&h[257], "ustar", 6);
    std::memcpy(&h[263], "00", 2);
  }
  std::memcpy(&h[265], m.uname.data(), std::min<size_t>(m.uname.size(), 31));
  std::memcpy(&h[297], m.gname.data(), std::min<size_t>(m.gname.size(), 31));
  if (!prefix.empty()) std::memcpy(&h[345], prefix.data(), prefix.size());
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  PutOctal(&h[148], 7, sum);  // six digits and a NUL, then the space already there
  return h;
}

// Directory tree of file paths, for the tarfile-style walk.
struct Node {
  std::map<std::string, Node> children;
  const std::string* data = nullptr;
};

void Walk(const Node& node, const std::string& path, const TarLayout& layout,
          std::vector<TarMember>* out) {
  for (const auto& [name, child] : node.children) {  // std::map: sorted like sorted(os.listdir)
    const std::string child_path = path + "/" + name;
    TarMember m;
    m.uid = m.gid = layout.uid;
    m.uname = m.gname = layout.uname;
    if (child.data != nullptr) {
      m.name = child_path;
      m.data = *child.data;
      out->push_back(std::move(m));
    } else {
      m.name = child_path + "/";
      m.directory = true;
      m.mode = 0755;
      out->push_back(std::move(m));
      Walk(child, child_path, layout, out);
    }
  }
}

}  // namespace

// ------------------------------------------------------------- fixtures --

Files DenseV7() {
  Files f = DenseMembers();
  f["metadata.json"] = Dump({{"modules", {{"default", DenseModuleJson()}}}, {"version", 7}});
  return f;
}

// A BYOC partition for a vendor's kernel library, as TVM's ESP-DL codegen
// writes it (no target line, no TVM_DLL).
const char kEspDlLib2[] = R"(#include <stdint.h>
#include <stdio.h>
#include <esp_kernel.h>
int32_t tvmgen_default_esp_main_0(int8_t* in_0, int8_t* const_0, int8_t* const_1, int8_t* out_0) {
  esp_dl_nn_add_s8_wrapper(in_0, const_0, const_1, out_0, 4);
  return 0;
}
)";

Files EspDlV7() {
  Files f = DenseV7();
  f["codegen/host/src/default_lib2.c"] = kEspDlLib2;
  return f;
}

Files HeapCapsV7() {
  Files f = DenseV7();
  f["codegen/host/src/default_lib0.c"] =
      "#include <esp_heap_caps.h>\n#include <esp_kernel.h>\n" + f["codegen/host/src/default_lib0.c"];
  return f;
}

const char kToyVendorLib0[] = R"(#include "tvm/runtime/c_runtime_api.h"
#include <tvmgen_default.h>
TVM_DLL int32_t tvmgen_default___tvm_main__(void* serving_default_input_1_0,void* output0);
int32_t tvmgen_default_toy_main_0(float* out_0);
int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs,struct tvmgen_default_outputs* outputs) {
  int32_t status = tvmgen_default___tvm_main__(inputs->serving_default_input_1_0,outputs->output);
  return status != 0 ? status : tvmgen_default_toy_main_0((float*)outputs->output);
}
)";

const char kToyVendorLib2[] = R"(#include <stdint.h>
#include <toy_vendor.h>
int32_t tvmgen_default_toy_main_0(float* out_0) {
  toy_vendor_add(out_0, 3, 100.0f);
  return 0;
}
)";

Files ToyVendorV7() {
  Files f = DenseV7();
  f["codegen/host/src/default_lib0.c"] = kToyVendorLib0;
  f["codegen/host/src/default_lib2.c"] = kToyVendorLib2;
  return f;
}

Files PairV7() {
  Files f = PairMembers();
  f["metadata.json"] = Dump({{"modules", {{"second", PairModuleJson()}}}, {"version", 7}});
  return f;
}

Files MultiV7() {
  Files f = DenseMembers();
  for (auto& [path, data] : PairMembers()) f[path] = data;
  f["metadata.json"] = Dump(
      {{"modules", {{"default", DenseModuleJson()}, {"second", PairModuleJson()}}}, {"version", 7}});
  return f;
}

Files ScaleV5() {
  const json metadata = {
      {"executors", {"aot"}},
      {"export_datetime", "2021-07-15 10:00:00Z"},
      {"memory",
       {{"functions",
         {{"main",
           {{{"constants_size_bytes", 0},
             {"device", 1},
             {"io_size_bytes", 32},
             {"workspace_size_bytes", 16}}}},
          {"operator_functions",
           {{{"function_name", "tvmgen_default_fused_multiply"},
             {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}},
            {{"function_name", "tvmgen_default_fused_add"},
             {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}}}}}}}},
      {"model_name", "default"},
      {"style", "full-model"},
      {"target",
       {{"1", "c -keys=cpu -link-params=0 -executor=aot -interface-api=c -unpacked-api=1"}}},
      {"version", 5}};
  return {{"metadata.json", Dump(metadata)},
          {"codegen/host/include/tvmgen_default.h", kScaleHeader},
          {"codegen/host/src/default_lib0.c", kScaleLib0},
          {"codegen/host/src/default_lib1.c", kScaleLib1},
          {"src/relay.txt", kScaleRelay},
          {"parameters/default.params", Params({})}};
}

Files GraphV6() {
  const json metadata = {
      {"executors", {"graph"}},
      {"export_datetime", "2022-03-01 09:00:00Z"},
      {"memory",
       {{"functions",
         {{"main",
           {{{"constants_size_bytes", 0},
             {"device", 1},
             {"io_size_bytes", 28},
             {"workspace_size_bytes", 0}}}},
          {"operator_functions",
           {{{"function_name", "tvmgen_default_fused_nn_dense_add_clip"},
             {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}}}}}},
        {"sids",
         {{{"input_binding", "x"}, {"size_bytes", 16}, {"storage_id", 0}},
          {{"input_binding", "p0"}, {"size_bytes", 48}, {"storage_id", 1}},
          {{"input_binding", "p1"}, {"size_bytes", 12}, {"storage_id", 2}},
          {{"input_binding", "p2"}, {"size_bytes", 8}, {"storage_id", 3}},
          {{"size_bytes", 12}, {"storage_id", 4}}}}}},
      {"model_name", "default"},
      {"style", "full-model"},
      {"target", {"c -keys=cpu -link-params=0"}},
      {"version", 6}};
  return {{"metadata.json", Dump(metadata)},
          {"codegen/host/src/default_lib0.c", kGraphLib0},
          {"executor-config/graph/graph.json", GraphJson().dump()},
          {"src/relay.txt", kGraphRelay},
          {"parameters/default.params",
           Params({{"p0", DType::kFloat32, {3, 4}, Bytes(kW)},
                   {"p1", DType::kFloat32, {3}, Bytes(kB)},
                   {"p2", DType::kInt32, {2}, Bytes(std::vector<int32_t>{-10, 10})}})}};
}

// GraphV6 with a second node that negates the first one's output through a
// workspace allocation (TVMBackendAllocWorkspace in a graph operator) and an
// executor "__copy" node: storage shared along a chain of calls.
Files GraphChainV6() {
  Files f = GraphV6();
  f["codegen/host/src/default_lib1.c"] = R"(#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
TVM_DLL int32_t tvmgen_default_negative(void* args, int32_t* arg_type_ids, int32_t num_args, void* out_ret_value, int32_t* out_ret_tcode, void* resource_handle) {
  float* x = (float*)(((DLTensor*)(((TVMValue*)args)[0].v_handle))[0].data);
  float* y = (float*)(((DLTensor*)(((TVMValue*)args)[1].v_handle))[0].data);
  float* scratch = (float*)TVMBackendAllocWorkspace(1, 0, (uint64_t)12, 2, 32);
  if (scratch == NULL || num_args != 2 || arg_type_ids[0] != kTVMDLTensorHandle) return -1;
  for (int32_t i = 0; i < 3; ++i) scratch[i] = -x[i];
  for (int32_t i = 0; i < 3; ++i) y[i] = scratch[i];
  return TVMBackendFreeWorkspace(1, 0, scratch);
}
)";
  json graph = json::parse(f.at("executor-config/graph/graph.json"));
  graph["nodes"].push_back({{"op", "tvm_op"},
                            {"name", "negative"},
                            {"attrs", {{"num_outputs", "1"}, {"num_inputs", "1"},
                                       {"func_name", "tvmgen_default_negative"}}},
                            {"inputs", {{4, 0, 0}}}});
  graph["nodes"].push_back({{"op", "tvm_op"},
                            {"name", "copy"},
                            {"attrs", {{"num_outputs", "1"}, {"num_inputs", "1"},
                                       {"func_name", "__copy"}}},
                            {"inputs", {{5, 0, 0}}}});
  graph["heads"] = {{6, 0, 0}};
  graph["attrs"]["dltype"][1].push_back("float32");
  graph["attrs"]["dltype"][1].push_back("float32");
  graph["attrs"]["shape"][1].push_back({1, 3});
  graph["attrs"]["shape"][1].push_back({1, 3});
  graph["attrs"]["storage_id"][1].push_back(5);
  graph["attrs"]["storage_id"][1].push_back(4);
  graph["node_row_ptr"] = {0, 1, 2, 3, 4, 5, 6, 7};
  f["executor-config/graph/graph.json"] = graph.dump();
  json metadata = json::parse(f.at("metadata.json"));
  metadata["memory"]["functions"]["operator_functions"].push_back(
      {{"function_name", "tvmgen_default_negative"},
       {"workspace", {{{"device", 1}, {"workspace_size_bytes", 16}}}}});
  metadata["memory"]["sids"].push_back({{"size_bytes", 12}, {"storage_id", 5}});
  f["metadata.json"] = metadata.dump(2);
  return f;
}

// ---- Issue 16 P5: graph executor built as a system library, with TVM's C
// metadata module (TVM ~0.11, microTVM project templates). The operators are
// GraphV6's; default_lib0.c registers them in a TVMFuncRegistry whose names
// blob starts with the count as two little-endian bytes, and
// TVMSystemLibEntryPoint hands the module out; default_lib1.c is the metadata
// module (a TVMMetadata with empty tensor arrays, as TVM writes it for the
// graph executor, and its packed getter).

const char kSysLibLib0[] = R"(// tvm target: c -keys=cpu 
#define TVM_EXPORTS
#include <tvm/runtime/crt/module.h>
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_fused_nn_dense_add_clip(TVMValue* args, int* type_code, int num_args, TVMValue* out_value, int* out_type_code, void* resource_handle);
TVM_DLL int32_t tvmgen_default_get_c_metadata(TVMValue* args, int* type_code, int num_args, TVMValue* out_value, int* out_type_code, void* resource_handle);
static TVMBackendPackedCFunc _tvm_func_array[] = {
    (TVMBackendPackedCFunc)tvmgen_default_fused_nn_dense_add_clip,
    (TVMBackendPackedCFunc)tvmgen_default_get_c_metadata,
};
static const TVMFuncRegistry _tvm_func_registry = {
    "\002\000tvmgen_default_fused_nn_dense_add_clip\000tvmgen_default_get_c_metadata\000",    _tvm_func_array,
};
static const TVMModule _tvm_system_lib = {
    &_tvm_func_registry,
};
const TVMModule* TVMSystemLibEntryPoint(void) {
    return &_tvm_system_lib;
}
)";

const char kSysLibLib1[] = R"(// tvm target: c -keys=cpu 
#define TVM_EXPORTS
#include <inttypes.h>
#include <tvm/runtime/metadata_types.h>
#include <tvm/runtime/c_runtime_api.h>
static const struct TVMTensorInfo kTvmgenMetadata_inputs[1] = {{"x", 0, 0, {2, 32, 1}}};
static const struct TVMMetadata kTvmgenMetadata[1] = {
{1L /* version*/, kTvmgenMetadata_inputs, 0L /* num_inputs*/, 0, 0L /* num_outputs*/, 0, 0L /* num_workspace_pools*/, 0, 0L /* num_constant_pools*/, "tvmgen_default" /* mod_name*/}
};
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t tvmgen_default_get_c_metadata(TVMValue* arg_values, int* arg_tcodes, int num_args, TVMValue* ret_values, int* ret_tcodes, void* resource_handle) {
    ret_values[0].v_handle = (void*) &kTvmgenMetadata;
    ret_tcodes[0] = kTVMOpaqueHandle;
    return 0;
}
)";

Files GraphSysLibV7() {
  Files v6 = GraphV6();
  json module = json::parse(v6.at("metadata.json"));
  module.erase("version");
  module["target"] = {"c -keys=cpu "};
  module["export_datetime"] = "2023-01-20 10:00:00Z";
  Files f = {{"metadata.json", Dump({{"modules", {{"default", module}}}, {"version", 7}})},
             {"codegen/host/src/default_lib0.c", kSysLibLib0},
             {"codegen/host/src/default_lib1.c", kSysLibLib1},
             {"codegen/host/src/default_lib2.c", kGraphLib0},
             {"executor-config/graph/default.graph", v6.at("executor-config/graph/graph.json")},
             {"src/default.relay", kGraphRelay},
             {"parameters/default.params", v6.at("parameters/default.params")}};
  return f;
}

Files OperatorV5() {
  const json metadata = {
      {"executors", json::array()},
      {"export_datetime", "2021-08-02 16:30:00Z"},
      {"memory",
       {{"add",
         {{{"dtype", "float32"}, {"input_binding", "A"}, {"shape", {4}}, {"size_bytes", 16}},
          {{"dtype", "float32"}, {"input_binding", "B"}, {"shape", {4}}, {"size_bytes", 16}},
          {{"dtype", "float32"}, {"input_binding", "C"}, {"shape", {4}}, {"size_bytes", 16}}}}}},
      {"model_name", "add"},
      {"style", "operator"},
      {"target", {{"1", "c -keys=cpu"}}},
      {"version", 5}};
  const char lib0[] = R"(// tvm target: c -keys=cpu
#define TVM_EXPORTS
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
#ifdef __cplusplus
extern "C"
#endif
TVM_DLL int32_t add(void* args, void* arg_type_ids, int32_t num_args, void* out_ret_value, void* out_ret_tcode, void* resource_handle) {
  float* A = (float*)(((DLTensor*)(((TVMValue*)args)[0].v_handle))[0].data);
  float* B = (float*)(((DLTensor*)(((TVMValue*)args)[1].v_handle))[0].data);
  float* C = (float*)(((DLTensor*)(((TVMValue*)args)[2].v_handle))[0].data);
  for (int32_t i = 0; i < 4; ++i) {
    C[i] = (A[i] + B[i]);
  }
  return 0;
}
)";
  const char tir[] = R"(primfn(A_1: handle, B_1: handle, C_1: handle) -> ()
  attr = {"global_symbol": "add", "tir.noalias": True}
  buffers = {A: Buffer(A_2: Pointer(float32), float32, [4], []),
             B: Buffer(B_2: Pointer(float32), float32, [4], []),
             C: Buffer(C_2: Pointer(float32), float32, [4], [])}
  buffer_map = {A_1: A, B_1: B, C_1: C} {
  for (i: int32, 0, 4) {
    C_2[i] = (A_2[i] + B_2[i])
  }
}
)";
  return {{"metadata.json", Dump(metadata)},
          {"codegen/host/src/lib0.c", lib0},
          {"src/tir-1.txt", tir}};
}

Files ArmV7() {
  json module = {{"executors", {"aot"}},
                 {"export_datetime", "2022-12-01 08:00:00Z"},
                 {"memory",
                  {{"functions",
                    {{"main",
                      {{{"constants_size_bytes", 4},
                        {"device", 1},
                        {"io_size_bytes", 8},
                        {"workspace_size_bytes", 0}}}},
                     {"operator_functions", json::array()}}}}},
                 {"model_name", "default"},
                 {"style", "full-model"},
                 {"target", {"c -keys=arm_cpu,cpu -mcpu=cortex-m4"}}};
  return {{"metadata.json", Dump({{"modules", {{"default", module}}}, {"version", 7}})},
          {"codegen/host/include/tvmgen_default.h", kArmHeader},
          {"codegen/host/src/default_lib0.c", kArmLib0},
          {"codegen/host/src/default_lib1.c", kArmLib1},
          {"src/default.relay", kArmRelay},
          {"parameters/default.params", Params({})}};
}

Files BundledV7() {
  Files f = DenseMembers(
      "#ifndef MLF_FIXTURE_BUNDLED_CRT\n"
      "#error \"built without the archive's bundled runtime/include\"\n"
      "#endif\n");
  json module = DenseModuleJson();
  module["external_dependencies"] = {{{"short_name", "tvm_standalone_crt"},
                                      {"url", "./runtime"},
                                      {"url_type", "mlf_path"},
                                      {"version_spec", "0.11.0"}}};
  f["metadata.json"] = Dump({{"modules", {{"default", module}}}, {"version", 7}});
  f["runtime/include/tvm/runtime/c_runtime_api.h"] = kBundledRuntimeApi;
  f["runtime/include/tvm/runtime/c_backend_api.h"] = kBundledBackendApi;
  f["runtime/src/runtime/crt/memory/stack_allocator.c"] = "/* not compiled by mlfkit */\n";
  f["templates/crt_config.h.template"] = "#define TVM_CRT_MAX_ARGS 10\n";
  f["templates/platform.c.template"] = "/* platform hooks of the CRT template project */\n";
  return f;
}

std::vector<TarMember> LayoutMembers(const Files& files, const TarLayout& layout) {
  std::vector<TarMember> out;
  if (layout.tarfile_style) {
    Node root;
    for (const auto& [path, data] : files) {
      Node* node = &root;
      size_t start = 0;
      for (size_t slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1) {
        node = &node->children[path.substr(start, slash - start)];
      }
      node->children[path.substr(start)].data = &data;
    }
    TarMember dot;
    dot.name = "./";
    dot.directory = true;
    dot.mode = 0755;
    dot.uid = dot.gid = layout.uid;
    dot.uname = dot.gname = layout.uname;
    out.push_back(dot);
    Walk(root, ".", layout, &out);
  } else {
    for (const auto& [path, data] : files) {
      TarMember m;
      m.name = path;
      m.data = data;
      m.uid = m.gid = layout.uid;
      m.uname = m.gname = layout.uname;
      out.push_back(std::move(m));
    }
  }
  for (const TarMember& m : layout.appended) out.push_back(m);
  return out;
}

std::string BuildTar(const std::vector<TarMember>& members) {
  std::string tar;
  for (const TarMember& m : members) {
    const uint64_t size = m.directory ? 0 : m.data.size();
    tar += Header(m, size);
    if (!m.directory) {
      tar += m.data;
      tar.append((512 - m.data.size() % 512) % 512, '\0');
    }
  }
  tar.append(1024, '\0');
  return tar;
}

void WriteTvmArchive(const std::string& path, const Files& files, const TarLayout& layout) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << BuildTar(LayoutMembers(files, layout));
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::vector<float> DenseInput() { return {1.0f, -2.0f, 3.0f, 0.5f}; }

// y_j = relu(sum_k x_k W[j][k] + b_j):
//   j=0: 0.5 + 2 + 0.75 + 1 = 4.25, + 0.5 = 4.75
//   j=1: 1 - 2 + 3 + 0.5 = 2.5, - 3 = -0.5 -> 0
//   j=2: -1 + 0 + 6 - 2 = 3, + 1 = 4
std::vector<float> DenseExpected() { return {4.75f, 0.0f, 4.0f}; }

std::vector<int8_t> PairA() { return {10, 20, 30, 40}; }
std::vector<int8_t> PairB() { return {1, 2, 3, 4}; }
// a + b + {1, 2, 3, 4}
std::vector<int8_t> PairExpected0() { return {12, 24, 36, 48}; }
// (10-1) + (20-2) + (30-3) + (40-4)
int32_t PairExpected1() { return 90; }

std::vector<float> ScaleInput() { return {1.0f, 2.0f, 3.0f, 4.0f}; }
// 2x + 1
std::vector<float> GraphExpected() { return {4.75f, -0.5f, 4.0f}; }

std::vector<float> GraphChainExpected() { return {-4.75f, 0.5f, -4.0f}; }

std::vector<float> ScaleExpected() { return {3.0f, 5.0f, 7.0f, 9.0f}; }

std::vector<int8_t> ArmWeights() { return {1, -1, 2, -2}; }


// ---- Issue 16: TVM 0.8/0.9 entry points with linked parameters ----
// y = 2x + 1 over x float32[1,4], the 2 and the 1 linked into the code as
// TVM does (__tvm_param__p0/p1, or a .rodata.tvm constant), while Relay's
// @main still lists them as parameters and a .params file holds them unused.

namespace {

const char kLinkedHeader[] = R"(#ifndef TVMGEN_DEFAULT_H_
#define TVMGEN_DEFAULT_H_
#include <stdint.h>
struct tvmgen_default_inputs {
  void* x;
};
struct tvmgen_default_outputs {
  void* output;
};
int32_t tvmgen_default_run(
  struct tvmgen_default_inputs* inputs,
  struct tvmgen_default_outputs* outputs
);
#define TVMGEN_DEFAULT_WORKSPACE_SIZE 16
#endif
)";

// Operators typed (TVM 0.8 with the unpacked API), run_model positional.
const char kLinkedLib[] = R"(// tvm target: c -keys=cpu -link-params=0 -mcpu=cortex-m7
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
#include <math.h>
static const float __attribute__((section(".rodata.tvm"), aligned(16))) __tvm_param__p0[1] = {
    0x1p+1
};
static const float __attribute__((section(".rodata.tvm"), aligned(16))) __tvm_param__p1[1] = {
    0x1p+0
};
TVM_DLL int32_t tvmgen_default_fused_multiply(float* placeholder, const float* placeholder1, float* T_multiply) {
  for (int32_t i = 0; i < 4; ++i) T_multiply[i] = placeholder[i] * placeholder1[0];
  return 0;
}
TVM_DLL int32_t tvmgen_default_fused_add(float* placeholder, const float* placeholder1, float* T_add) {
  for (int32_t i = 0; i < 4; ++i) T_add[i] = placeholder[i] + placeholder1[0];
  return 0;
}
TVM_DLL int32_t tvmgen_default_run_model(void* input, void* output) {
  void* sid_1 = TVMBackendAllocWorkspace(1, 0, (uint64_t)16, 2, 32);
  if (sid_1 == NULL) {
    return -1;
  }
  (void)tvmgen_default_fused_multiply(input, __tvm_param__p0, sid_1);
  (void)tvmgen_default_fused_add(sid_1, __tvm_param__p1, output);
  if (TVMBackendFreeWorkspace(1, 0, sid_1) != 0) {
    return -1;
  }
  return 0;
}
)";

// TVM 0.8 Relay: typed parameters, no result type.
const char kLinkedRelay[] = R"(def @main(%x: Tensor[(1, 4), float32], %v_param_1: Tensor[(1), float32], %v_param_2: Tensor[(1), float32]) {
  %0 = multiply(%x, %v_param_1);
  add(%0, %v_param_2)
}
)";

json LinkedV5Metadata(const std::string& target, uint64_t workspace,
                      const std::vector<std::string>& operators) {
  json ops = json::array();
  for (const std::string& op : operators) {
    ops.push_back({{"function_name", op}, {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}});
  }
  return {{"executors", {"aot"}},
          {"export_datetime", "2021-12-14 16:30:04Z"},
          {"memory",
           {{"functions",
             {{"main",
               {{{"constants_size_bytes", 8},
                 {"device", 1},
                 {"io_size_bytes", 32},
                 {"workspace_size_bytes", workspace}}}},
              {"operator_functions", ops}}}}},
          {"model_name", "default"},
          {"style", "full-model"},
          {"target", {{"1", target}}},
          {"version", 5}};
}

std::string LinkedParamsFile() {
  return Params({{"p0", DType::kFloat32, {1}, Bytes(std::vector<float>{2})},
                 {"p1", DType::kFloat32, {1}, Bytes(std::vector<float>{1})}});
}

}  // namespace

Files MismatchV5() {
  return {{"metadata.json",
           Dump(LinkedV5Metadata("c -keys=cpu -link-params=0 -mcpu=cortex-m7 -system-lib=0", 16,
                                 {"tvmgen_default_fused_multiply", "tvmgen_default_fused_add"}))},
          {"codegen/host/include/tvmgen_default.h", kLinkedHeader},
          {"codegen/host/src/default_lib0.c", kLinkedLib},
          {"src/relay.txt", kLinkedRelay},
          {"parameters/default.params", LinkedParamsFile()}};
}

Files LinkedV5() {
  Files f = MismatchV5();
  f["codegen/host/src/default_lib1.c"] = R"(#include "tvm/runtime/c_runtime_api.h"
#include <tvmgen_default.h>
TVM_DLL int32_t tvmgen_default_run_model(void* input,void* output);
int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs,struct tvmgen_default_outputs* outputs) {return tvmgen_default_run_model(inputs->x,outputs->output);
}
)";
  return f;
}

Files PackedV5() {
  Files f = {{"metadata.json",
              Dump(LinkedV5Metadata("c -keys=cpu -executor=aot -link-params=1 -mcpu=cortex-m4 "
                                    "-runtime=c -unpacked-api=1",
                                    0, {"tvmgen_default_fused_multiply_add"}))},
             {"src/relay.txt", kLinkedRelay},
             {"parameters/default.params", LinkedParamsFile()}};
  f["codegen/host/src/default_lib0.c"] = R"(#include "tvm/runtime/c_runtime_api.h"
TVM_DLL int32_t tvmgen_default_run_model(void* arg0,void* arg1);
int32_t tvmgen_default_run(void* args, void* type_code, int num_args, void* out_value, void* out_type_code, void* resource_handle) {
return tvmgen_default_run_model(((DLTensor*)(((TVMValue*)args)[0].v_handle))[0].data,((DLTensor*)(((TVMValue*)args)[1].v_handle))[0].data);
}
)";
  // TVM 0.8.dev: void* operators that cast their arguments, aliases in run_model.
  f["codegen/host/src/default_lib1.c"] = R"(// tvm target: c -keys=cpu -executor=aot -link-params=1 -mcpu=cortex-m4 -runtime=c -unpacked-api=1
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
static const float __tvm_param__p0[1] = {
    0x1p+1
};
static const float __tvm_param__p1[1] = {
    0x1p+0
};
TVM_DLL int32_t tvmgen_default_fused_multiply_add(void* arg0, void* arg1, void* arg2, void* arg3) {
  void* placeholder = arg0;
  void* placeholder1 = arg1;
  void* placeholder2 = arg2;
  void* T_add = arg3;
  for (int32_t i = 0; i < 4; ++i) {
    ((float*)T_add)[i] = ((float*)placeholder)[i] * ((const float*)placeholder1)[0] + ((const float*)placeholder2)[0];
  }
  return 0;
}
TVM_DLL int32_t tvmgen_default_run_model(void* arg0, void* arg1) {
  void* input = arg0;
  void* output = arg1;
  (void)tvmgen_default_fused_multiply_add(input, (void*)__tvm_param__p0, (void*)__tvm_param__p1, output);
  return 0;
}
)";
  return f;
}

Files LinkedV6() {
  const json metadata = {
      {"executors", {"aot"}},
      {"export_datetime", "2022-06-01 14:17:28Z"},
      {"memory",
       {{"functions",
         {{"main",
           {{{"constants_size_bytes", 0},
             {"device", 1},
             {"io_size_bytes", 32},
             {"workspace_size_bytes", 0}}}},
          {"operator_functions",
           {{{"function_name", "tvmgen_default_fused_multiply_add"},
             {"workspace", {{{"device", 1}, {"workspace_size_bytes", 0}}}}}}}}}}},
      {"model_name", "default"},
      {"style", "full-model"},
      {"target", {"c -keys=cpu -link-params=0 -interface-api=c -unpacked-api=1"}},
      {"version", 6}};
  return {{"metadata.json", Dump(metadata)},
          {"codegen/host/include/tvmgen_default.h", kLinkedHeader},
          {"codegen/host/src/default_lib0.c", R"(#include "tvm/runtime/c_runtime_api.h"
#include <tvmgen_default.h>
TVM_DLL int32_t tvmgen_default___tvm_main__(void* x,void* output0);
int32_t tvmgen_default_run(struct tvmgen_default_inputs* inputs,struct tvmgen_default_outputs* outputs) {return tvmgen_default___tvm_main__(inputs->x,outputs->output);
}
)"},
          {"codegen/host/src/default_lib1.c", R"(// tvm target: c -keys=cpu -link-params=0 -interface-api=c -unpacked-api=1
#include "tvm/runtime/c_runtime_api.h"
#include "tvm/runtime/c_backend_api.h"
static const float __attribute__((section(".rodata.tvm"), aligned(16))) fused_constant[2] = {
    0x1p+1, 0x1p+0
};
TVM_DLL int32_t tvmgen_default_fused_multiply_add(float* placeholder, float* T_add) {
  for (int32_t i = 0; i < 4; ++i) T_add[i] = placeholder[i] * fused_constant[0] + fused_constant[1];
  return 0;
}
TVM_DLL int32_t tvmgen_default___tvm_main__(float* x_buffer_var, float* output_buffer_var) {
  if (tvmgen_default_fused_multiply_add(x_buffer_var, output_buffer_var) != 0 ) return -1;
  return 0;
}
)"},
          {"src/relay.txt", R"(def @main(%x: Tensor[(1, 4), float32] /* ty=Tensor[(1, 4), float32] */, %v_param_1: Tensor[(1), float32] /* ty=Tensor[(1), float32] */, %v_param_2: Tensor[(1), float32] /* ty=Tensor[(1), float32] */, output_tensor_names=["output"]) -> Tensor[(1, 4), float32] {
  %0 = multiply(%x, %v_param_1) /* ty=Tensor[(1, 4), float32] */;
  add(%0, %v_param_2) /* ty=Tensor[(1, 4), float32] */
}
)"},
          {"parameters/default.params", Params({})}};
}

std::vector<float> LinkedInput() { return {1, 2, 3, 4}; }
std::vector<float> LinkedExpected() { return {3, 5, 7, 9}; }

}  // namespace mlf::tvm_testing
