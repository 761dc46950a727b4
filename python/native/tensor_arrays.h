// NumPy arrays <-> the executor's DLPack tensors, for the Python package.
//
// Arrays are described to the executor as they are (dtype, shape, strides):
// the executor's own checks then name the tensor and both values when an
// array does not fit (AotExecutor, "Checks"). Nothing is cast: a float64
// array for a float32 input is an error, not a silent conversion.
#ifndef MLFKIT_PYTHON_NATIVE_TENSOR_ARRAYS_H_
#define MLFKIT_PYTHON_NATIVE_TENSOR_ARRAYS_H_

#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

#include "artifact/format/dtype.h"

namespace mlf::py {

// The NumPy dtype of a model dtype. bfloat16, which NumPy lacks, is viewed
// as uint16 (its raw bits).
pybind11::dtype NumpyDType(DType dtype);

// A DLTensor describing `array` (which must stay alive while it is used).
// `strides` receives the element strides the tensor points to. Arrays of a
// kind mlfkit has no dtype for (complex, object, strings) raise
// InvalidArgumentError naming `what`.
DLTensor DescribeArray(const pybind11::array& array, const std::string& what,
                       std::vector<int64_t>* shape, std::vector<int64_t>* strides);

// A NumPy array viewing `tensor`'s memory without a copy; `owner` is kept
// alive as long as the array (its base object).
pybind11::array ViewTensor(const DLTensor& tensor, DType dtype, pybind11::handle owner);

}  // namespace mlf::py

#endif  // MLFKIT_PYTHON_NATIVE_TENSOR_ARRAYS_H_
