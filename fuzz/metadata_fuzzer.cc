// ParseMetadata (JSON bounds, the v8 schema, semantic rules) over arbitrary
// bytes, and ParseMetadataForPacking / PeekMetadataVersion on the same bytes.
// Invariants besides "no sanitizer finding", for accepted metadata:
//   - it passes CheckMetadataSemantics (what the writer checks before writing);
//   - SerializeMetadata's output parses again and serialises to the same bytes
//     (what a reader accepts, the writer can write back unchanged).
#include <string>

#include "artifact/metadata.h"
#include "fuzz/fuzz_target.h"

namespace {

void CheckRoundTrip(const mlf::Metadata& metadata, bool check_files) {
  const mlf::Status semantics = mlf::CheckMetadataSemantics(metadata, check_files);
  MLF_FUZZ_CHECK(semantics.ok(), "accepted metadata fails CheckMetadataSemantics: " +
                                     semantics.ToString());
  const std::string text = mlf::SerializeMetadata(metadata);
  auto again = check_files ? mlf::ParseMetadata(text) : mlf::ParseMetadataForPacking(text);
  MLF_FUZZ_CHECK(again.ok(), "serialised metadata does not parse: " + again.status().ToString() +
                                 "\n" + text);
  MLF_FUZZ_CHECK(mlf::SerializeMetadata(*again) == text, "round trip changed the metadata:\n" + text);
}

}  // namespace

MLF_FUZZ_TARGET(metadata) {
  const std::string_view text = mlf::fuzz::AsView(data, size);
  (void)mlf::PeekMetadataVersion(text);
  auto parsed = mlf::ParseMetadata(text);
  if (parsed.ok()) CheckRoundTrip(*parsed, /*check_files=*/true);
  auto packing = mlf::ParseMetadataForPacking(text);
  if (packing.ok()) CheckRoundTrip(*packing, /*check_files=*/false);
  return 0;
}
