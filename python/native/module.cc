// mlfkit._native: the C++ half of the Python package (python/package wraps it).
#include <pybind11/pybind11.h>

#include "artifact/base/version.h"
#include "artifact/format/metadata.h"
#include "python/native/archive_binding.h"
#include "python/native/executor_binding.h"

PYBIND11_MODULE(_native, m) {
  m.doc() = "mlfkit's native core: the host loader and the archive operations.";
  m.attr("__version__") = mlf::kMlfkitVersion;
  m.attr("METADATA_VERSION") = mlf::kMetadataVersion;
  mlf::py::BindExecutor(m);
  mlf::py::BindArchiveOperations(m);
}
