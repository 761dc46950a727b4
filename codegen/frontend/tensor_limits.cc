#include "codegen/frontend/tensor_limits.h"

#include "artifact/format/dtype.h"

namespace mlf::frontend {

Status CheckShape(const std::string& what, const std::vector<int64_t>& shape,
                  const TensorLimits& limits) {
  if (shape.size() > limits.max_rank) {
    return OutOfRange(what + ": rank " + std::to_string(shape.size()) +
                      " is more than the limit of " + std::to_string(limits.max_rank));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return InvalidArgument(what + ": dimension " + std::to_string(i) + " is negative (" +
                             std::to_string(shape[i]) + ")");
    }
  }
  Result<uint64_t> count = ElementCount(shape);
  if (!count.ok() || *count > limits.max_elements) {
    return OutOfRange(what + ": shape " + FormatShape(shape) +
                      " has more elements than the limit of " +
                      std::to_string(limits.max_elements));
  }
  return Status::Ok();
}

}  // namespace mlf::frontend
