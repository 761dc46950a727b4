// Checking caller DLTensors against what a model declares.
#ifndef MLFKIT_LOADER_HOST_TENSOR_CHECK_H_
#define MLFKIT_LOADER_HOST_TENSOR_CHECK_H_

#include <dlpack/dlpack.h>

#include "artifact/base/status.h"
#include "loader/host/aot_executor.h"

namespace mlf {

// Ok when `tensor` can stand for `spec`: on the CPU, same dtype, same shape,
// dense in C order (strides null or compact), non-null data; with
// `check_alignment`, data + byte_offset aligned to the element size. Returns
// the address of the first element. `kind` ("input", "output") and the
// spec's name appear in every error, with both values.
Result<void*> CheckTensor(const char* kind, const TensorSpec& spec, const DLTensor& tensor,
                          bool check_alignment);

// A DLTensor describing `data` laid out as `spec` (shape points into spec).
DLTensor MakeTensorView(const TensorSpec& spec, void* data);

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_TENSOR_CHECK_H_
