// ParseNpy over arbitrary bytes. Invariants besides "no sanitizer finding",
// for an accepted array: ValidateNpyArray accepts it, and SerializeNpy's
// output parses back to the same dtype, shape and data.
#include <string>

#include "artifact/format/npy.h"
#include "fuzz/fuzz_target.h"

MLF_FUZZ_TARGET(npy) {
  auto array = mlf::ParseNpy(mlf::fuzz::AsView(data, size));
  if (!array.ok()) return 0;
  const mlf::Status valid = mlf::ValidateNpyArray(*array);
  MLF_FUZZ_CHECK(valid.ok(), "parsed array is not valid: " + valid.ToString());
  const std::string written = mlf::SerializeNpy(*array);
  auto again = mlf::ParseNpy(written);
  MLF_FUZZ_CHECK(again.ok(), "written .npy does not parse: " + again.status().ToString());
  MLF_FUZZ_CHECK(again->dtype == array->dtype && again->shape == array->shape &&
                     again->data == array->data,
                 "array changed in the round trip");
  return 0;
}
