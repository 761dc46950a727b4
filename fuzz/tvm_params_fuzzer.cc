// ReadTvmParams over arbitrary bytes. Invariant besides "no sanitizer
// finding": what the reader accepts, WriteTvmParams writes back and the reader
// accepts again with the same names, dtypes, shapes and data.
#include <string>

#include "fuzz/fuzz_target.h"
#include "tvm/format/tvm_params.h"

MLF_FUZZ_TARGET(tvm_params) {
  auto tensors = mlf::ReadTvmParams(mlf::fuzz::AsView(data, size));
  if (!tensors.ok()) return 0;
  const std::string written = mlf::WriteTvmParams(*tensors);
  auto again = mlf::ReadTvmParams(written);
  MLF_FUZZ_CHECK(again.ok(), "written .params do not read back: " + again.status().ToString());
  MLF_FUZZ_CHECK(again->size() == tensors->size(), "tensor count changed");
  for (size_t i = 0; i < tensors->size(); ++i) {
    const mlf::NamedTensor& a = (*tensors)[i];
    const mlf::NamedTensor& b = (*again)[i];
    MLF_FUZZ_CHECK(a.name == b.name && a.dtype == b.dtype && a.shape == b.shape && a.data == b.data,
                   "tensor " + std::to_string(i) + " changed in the round trip");
  }
  return 0;
}
