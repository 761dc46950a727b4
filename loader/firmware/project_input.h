// What a firmware project is made of: an archive's metadata and the members
// the project needs, read in one verified pass (artifact/archive/verify.h). Nothing
// is returned unless the whole archive verified, so a project is never
// generated from unverified bytes.
//
// Version-8 archives and, when options.foreign_format is TVM's, TVM archives
// (versions 5-7, read into the same model with ModuleMetadata::tvm set; what verification proves for them is
// in artifact/archive/verify.h). Members kept: the generated C sources
// (codegen/host/src/), the headers (codegen/host/include/), parameter
// blobs (parameters/) and, from TVM archives, the bundled runtime headers
// (runtime/include/) and graph executor JSON (executor-config/graph/). Host
// libraries and provenance members are verified but not read into memory.
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_INPUT_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_INPUT_H_

#include <cstdint>
#include <map>
#include <string>

#include "artifact/archive/verify.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf::firmware {

// Kept members may total at most this much: far more than any
// microcontroller's flash, and a bound on memory for hostile archives.
inline constexpr uint64_t kMaxProjectInputBytes = 1ull << 30;

struct ProjectInput {
  Metadata metadata;
  std::map<std::string, std::string> members;  // archive path -> bytes
  VerifyReport report;                         // metadata_bytes cleared
};

Result<ProjectInput> ReadProjectInput(const std::string& archive, const VerifyOptions& options);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_INPUT_H_
