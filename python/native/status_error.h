// Status -> Python exception. Every native function of the mlfkit package
// reports a failed Status by raising the mlfkit.Error subclass for its code
// (python/package/_errors.py), carrying the same message the CLI prints.
#ifndef MLFKIT_PYTHON_NATIVE_STATUS_ERROR_H_
#define MLFKIT_PYTHON_NATIVE_STATUS_ERROR_H_

#include <pybind11/pybind11.h>

#include "artifact/base/status.h"

namespace mlf::py {

// Raises the Python exception for `status` (which must not be OK).
[[noreturn]] void Raise(const Status& status);

// The value of `result`, or raises its status.
template <typename T>
T ValueOrRaise(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(*result);
}

inline void OkOrRaise(const Status& status) {
  if (!status.ok()) Raise(status);
}

// Raises mlfkit.InvalidArgumentError (also a ValueError) with `message`.
[[noreturn]] void RaiseInvalidArgument(const std::string& message);

}  // namespace mlf::py

#endif  // MLFKIT_PYTHON_NATIVE_STATUS_ERROR_H_
