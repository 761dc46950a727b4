// ParseMetadata (JSON bounds, the v8 schema, semantic rules) over arbitrary
// bytes, and ParseMetadataForPacking / PeekMetadataVersion on the same bytes.
// Invariants besides "no sanitizer finding", for accepted mlfkit metadata:
//   - it passes CheckMetadataSemantics (what the writer checks before writing);
//   - SerializeMetadata's output parses again and serialises to the same bytes
//     (what a reader accepts, the writer can write back unchanged).
// Accepted TVM metadata (versions 5-7, normalised) is not version 8 and need
// not pass either (no ABI version, shapes unknown from the JSON alone); every
// module must carry its TVM description, of the metadata's version, and no
// file list (only whole-archive readers fill it in).
#include <string>

#include "artifact/format/metadata.h"
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

void CheckTvm(const mlf::Metadata& metadata) {
  MLF_FUZZ_CHECK(metadata.files.empty(), "TVM metadata from JSON alone lists files");
  for (const auto& [name, module] : metadata.modules) {
    MLF_FUZZ_CHECK(module.tvm.has_value(), "TVM module '" + name + "' without its TVM description");
    MLF_FUZZ_CHECK(module.tvm->version == metadata.version,
                   "TVM module '" + name + "' of version " + std::to_string(module.tvm->version) +
                       " in metadata version " + std::to_string(metadata.version));
  }
}

}  // namespace

MLF_FUZZ_TARGET(metadata) {
  const std::string_view text = mlf::fuzz::AsView(data, size);
  (void)mlf::PeekMetadataVersion(text);
  auto parsed = mlf::ParseMetadata(text);
  if (parsed.ok() && parsed->is_tvm()) CheckTvm(*parsed);
  if (parsed.ok() && !parsed->is_tvm()) CheckRoundTrip(*parsed, /*check_files=*/true);
  auto packing = mlf::ParseMetadataForPacking(text);
  if (packing.ok()) CheckRoundTrip(*packing, /*check_files=*/false);
  return 0;
}
