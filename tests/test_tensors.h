// Tensors for the tests of running models: an .npy array from typed values
// (for `mlf run` inputs and expected outputs) and a DLTensor view of a
// caller's buffer (for AotExecutor).
#ifndef MLFKIT_TESTS_TEST_TENSORS_H_
#define MLFKIT_TESTS_TEST_TENSORS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "artifact/format/dtype.h"
#include "artifact/format/npy.h"

namespace mlf::testing {

// An .npy array of `dtype` and `shape` holding `values` (whose C type must
// match `dtype`).
template <typename T>
NpyArray NpyOf(DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  return a;
}

// A CPU DLTensor over `data`; it points into `shape`, which must outlive it.
inline DLTensor DlView(void* data, DLDataType dtype, std::vector<int64_t>& shape) {
  DLTensor t{};
  t.data = data;
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = shape.data();
  return t;
}

}  // namespace mlf::testing

#endif  // MLFKIT_TESTS_TEST_TENSORS_H_
