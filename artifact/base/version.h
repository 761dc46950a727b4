// The version of mlfkit itself: the tools, the libraries and the generator
// name written into archives. One definition, so that `mlf --version`, the
// `generator_version` of exported and upgraded archives and (later) the SDK's
// headers and package files cannot disagree.
//
// Semantic versioning: MAJOR changes break the C++ API or the CLI, MINOR adds,
// PATCH fixes. The archive format has its own version (kMetadataVersion in
// artifact/format/metadata.h, rules in docs/design.md "Format versions").
#ifndef MLFKIT_ARTIFACT_BASE_VERSION_H_
#define MLFKIT_ARTIFACT_BASE_VERSION_H_

#define MLFKIT_VERSION_MAJOR 0
#define MLFKIT_VERSION_MINOR 1
#define MLFKIT_VERSION_PATCH 0
#define MLFKIT_VERSION_STRING "0.1.0"

namespace mlf {

inline constexpr char kMlfkitVersion[] = MLFKIT_VERSION_STRING;

// The version of the JSON documents `mlf ... --json` prints and the Python
// package returns (docs/cli-json.md): raised when a field changes meaning or
// goes away; new fields do not raise it.
inline constexpr int kJsonReportSchemaVersion = 1;

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_BASE_VERSION_H_
