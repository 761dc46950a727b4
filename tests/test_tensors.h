// Tensors for the tests of running models: an .npy array from typed values
// (for `mlf run` inputs and expected outputs), float32 values read back from
// an .npy file, a runfile's path (fixtures made by genrules), and a DLTensor
// view of a caller's buffer (for AotExecutor).
#ifndef MLFKIT_TESTS_TEST_TENSORS_H_
#define MLFKIT_TESTS_TEST_TENSORS_H_

#include <dlpack/dlpack.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
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

// The path of a file in the test's runfiles, `path` relative to the
// workspace (e.g. "tests/int8_fixtures/quantized_cnn.onnx").
inline std::string Runfile(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir != nullptr ? srcdir : ".") + "/mlfkit/" + path;
}

// The values of the float32 .npy file at `path`, and its shape into `shape`
// when given. A file that does not read or holds another dtype fails the
// test (and gives no values).
inline std::vector<float> Float32Npy(const std::string& path, std::vector<int64_t>* shape = nullptr) {
  Result<NpyArray> a = ReadNpyFile(path);
  EXPECT_TRUE(a.ok()) << path << ": " << a.status().ToString();
  if (!a.ok()) return {};
  EXPECT_EQ(a->dtype, DType::kFloat32) << path;
  if (shape != nullptr) *shape = a->shape;
  std::vector<float> v(a->data.size() / sizeof(float));
  std::memcpy(v.data(), a->data.data(), v.size() * sizeof(float));
  return v;
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
