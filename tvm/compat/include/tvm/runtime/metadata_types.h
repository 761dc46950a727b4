/*
 * tvm/runtime/metadata_types.h - mlfkit's compatibility header: the structs
 * of TVM's C metadata module (<module>_get_c_metadata), which generated code
 * initialises positionally.
 *
 * Written for mlfkit (not copied from TVM), from the initialisers TVM
 * writes: a TVMMetadata is
 *   version, inputs, num_inputs, outputs, num_outputs, workspace_pools,
 *   num_workspace_pools, constant_pools, num_constant_pools, mod_name
 * with every count an int64_t; a TVMTensorInfo is name, shape, num_shape,
 * dtype; a TVMConstantInfo is name_hint, byte_offset, data_len, data_bytes.
 * mlfkit reads a module's interface from its metadata.json and graph, never
 * from these structs: they only have to compile.
 */
#ifndef TVM_RUNTIME_METADATA_TYPES_H_
#define TVM_RUNTIME_METADATA_TYPES_H_

#include <inttypes.h>
#include <stdint.h>

#include "tvm/runtime/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct TVMTensorInfo {
  const char* name;
  const int64_t* shape;
  int64_t num_shape;
  DLDataType dtype;
};

struct TVMConstantInfo {
  const char* name_hint;
  int64_t byte_offset;
  int64_t data_len;
  const void* data_bytes;
};

struct TVMMetadata {
  int64_t version;
  const struct TVMTensorInfo* inputs;
  int64_t num_inputs;
  const struct TVMTensorInfo* outputs;
  int64_t num_outputs;
  const struct TVMTensorInfo* workspace_pools;
  int64_t num_workspace_pools;
  const struct TVMConstantInfo* constant_pools;
  int64_t num_constant_pools;
  const char* mod_name;
};

#ifdef __cplusplus
}
#endif

#endif /* TVM_RUNTIME_METADATA_TYPES_H_ */
