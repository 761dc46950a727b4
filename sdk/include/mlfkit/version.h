/*
 * mlfkit/version.h - the SDK's version (semantic versioning: MAJOR changes
 * break the C++ API or the CLI, MINOR adds, PATCH fixes).
 *
 *   MLFKIT_VERSION_MAJOR, MLFKIT_VERSION_MINOR, MLFKIT_VERSION_PATCH
 *   MLFKIT_VERSION_STRING   "0.1.0"
 *   MLFKIT_VERSION_AT_LEAST(major, minor, patch)
 *
 * The archive format and the generated-code ABI have versions of their own
 * (mlf::kMetadataVersion, MLF_ABI_VERSION): an SDK reads archives of every
 * format version up to its own.
 */
#ifndef MLFKIT_SDK_VERSION_H_
#define MLFKIT_SDK_VERSION_H_

#include "artifact/base/version.h"

#define MLFKIT_VERSION_AT_LEAST(major, minor, patch)                            \
  ((MLFKIT_VERSION_MAJOR > (major)) ||                                          \
   (MLFKIT_VERSION_MAJOR == (major) && MLFKIT_VERSION_MINOR > (minor)) ||       \
   (MLFKIT_VERSION_MAJOR == (major) && MLFKIT_VERSION_MINOR == (minor) &&       \
    MLFKIT_VERSION_PATCH >= (patch)))

#endif  // MLFKIT_SDK_VERSION_H_
