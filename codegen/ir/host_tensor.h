// A dense tensor in host memory: constants in the graph, and the values the
// reference evaluator computes (constant folding, the naive reference
// implementation, tests).
#ifndef MLFKIT_CODEGEN_IR_HOST_TENSOR_H_
#define MLFKIT_CODEGEN_IR_HOST_TENSOR_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "artifact/format/dtype.h"

namespace mlf::ir {

struct HostTensor {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  std::string bytes;  // little-endian, C order; size = element count * DTypeSize

  // A zero-filled tensor of this dtype and shape.
  static HostTensor Zeros(DType dtype, std::vector<int64_t> shape);

  uint64_t element_count() const;
  template <typename T>
  T* data() { return reinterpret_cast<T*>(bytes.data()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }

  // Element i as double / int64 (any dtype), for generic code and tests.
  double GetDouble(uint64_t i) const;
  int64_t GetInt(uint64_t i) const;
  void SetDouble(uint64_t i, double v);
  // All elements as int64 (for shape-like tensors: Reshape shapes, axes, pads...).
  std::vector<int64_t> ToInts() const;
};

}  // namespace mlf::ir

#endif  // MLFKIT_CODEGEN_IR_HOST_TENSOR_H_
