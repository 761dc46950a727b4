// mlfkit.Library and mlfkit.Executor: the host loader (loader/host) in Python.
#ifndef MLFKIT_PYTHON_NATIVE_EXECUTOR_BINDING_H_
#define MLFKIT_PYTHON_NATIVE_EXECUTOR_BINDING_H_

#include <pybind11/pybind11.h>

namespace mlf::py {

// Adds TensorInfo, Library, Executor and load() to `m`.
void BindExecutor(pybind11::module_& m);

}  // namespace mlf::py

#endif  // MLFKIT_PYTHON_NATIVE_EXECUTOR_BINDING_H_
