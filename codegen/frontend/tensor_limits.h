// Bounds on the tensors a front end accepts: rank and element count, each
// refused with its own kOutOfRange error. Shared by the ONNX front end and
// the TensorProto reader.
#ifndef MLFKIT_CODEGEN_FRONTEND_TENSOR_LIMITS_H_
#define MLFKIT_CODEGEN_FRONTEND_TENSOR_LIMITS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "artifact/base/status.h"

namespace mlf::frontend {

struct TensorLimits {
  size_t max_rank = 8;
  uint64_t max_elements = uint64_t{1} << 28;
};

// Checks a shape: rank <= max_rank, no negative dimension (kInvalidArgument),
// element count <= max_elements. `what` names the tensor in errors
// ("tensor 'w'", "input 'x'").
Status CheckShape(const std::string& what, const std::vector<int64_t>& shape,
                  const TensorLimits& limits);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_TENSOR_LIMITS_H_
