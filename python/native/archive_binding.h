// mlfkit.export, verify, sign and keygen: the archive operations in Python.
#ifndef MLFKIT_PYTHON_NATIVE_ARCHIVE_BINDING_H_
#define MLFKIT_PYTHON_NATIVE_ARCHIVE_BINDING_H_

#include <pybind11/pybind11.h>

namespace mlf::py {

// Adds _export, _verify, _sign and _keygen to `m` (wrapped by python/package).
void BindArchiveOperations(pybind11::module_& m);

}  // namespace mlf::py

#endif  // MLFKIT_PYTHON_NATIVE_ARCHIVE_BINDING_H_
