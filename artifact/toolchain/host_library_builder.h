// The archive assembler's host-library step (artifact/archive/archive_assembler.h)
// done with the system C compiler: `mlf export` and `mlf upgrade` ship
// codegen/host/lib/<c>.so built this way.
#ifndef MLFKIT_ARTIFACT_TOOLCHAIN_HOST_LIBRARY_BUILDER_H_
#define MLFKIT_ARTIFACT_TOOLCHAIN_HOST_LIBRARY_BUILDER_H_

#include "artifact/archive/archive_assembler.h"
#include "artifact/toolchain/host_build.h"

namespace mlf {

// A builder that stages the archive's code and compiles the module's sources
// with BuildHostLibrary and `config`. The library it describes: triple
// HostTriple(), compiler CompilerIdentity of the resolved compiler, flags
// config.flags then config.link_flags. Compiler failures are
// FailedPrecondition with the compiler's output (host_build.h).
HostLibraryBuilder HostCompilerLibraryBuilder(HostBuildConfig config);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_TOOLCHAIN_HOST_LIBRARY_BUILDER_H_
