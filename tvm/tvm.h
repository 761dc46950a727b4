// The TVM wing's interface: what code outside tvm/ (the command line, tests,
// fuzzers, benchmarks) may use. Everything in tvm/<folder>/ is internal.
//
// The layers below know TVM only through seams they declare themselves; these
// are the wing's implementations of them, passed in explicitly:
//   - ArchiveFormat(): TVM's archives (metadata versions 5-7) for the reader
//     and the verifier (artifact/archive/foreign_archive.h), as
//     VerifyOptions::foreign_format and ReadArchiveHead's `foreign`;
//   - HostModules(): TVM modules on this host for the host loader
//     (loader/host/foreign_module.h), as LoadOptions::foreign_modules;
//   - FirmwareModules(): TVM modules in firmware projects
//     (loader/firmware/foreign_project.h), as ProjectOptions::foreign_modules.
// Without them those layers read, run and build mlfkit archives only.
// `mlf upgrade` is UpgradeTvmArchive (tvm/upgrade/upgrade.h, included here).
#ifndef MLFKIT_TVM_TVM_H_
#define MLFKIT_TVM_TVM_H_

#include <map>
#include <string>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/foreign_archive.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/foreign_project.h"
#include "loader/host/foreign_module.h"
#include "tvm/upgrade/upgrade.h"

namespace mlf::tvm_wing {

// TVM's archive format (name "TVM", versions 5-7). One immutable instance,
// safe to share between threads.
const ForeignArchiveFormat& ArchiveFormat();

// TVM modules on this host (their format is ArchiveFormat()). One immutable
// instance, safe to share between threads.
const ForeignModuleRunner& HostModules();

// TVM modules in firmware projects (their format is ArchiveFormat()). One
// immutable instance, safe to share between threads.
const firmware::ForeignProjectModules& FirmwareModules();

// What `mlf inspect` and `mlf verify` say about running each TVM module of
// `metadata` (read from `archive`) on this host, by module name: what
// HostModules() checks before compiling, compiling nothing, with the
// vendor libraries each needs and where it runs (host, firmware only,
// nowhere here).
std::map<std::string, ForeignModuleCheck> HostChecks(const std::string& archive, const Metadata& metadata,
                                         const ReaderLimits& limits = {});

}  // namespace mlf::tvm_wing

#endif  // MLFKIT_TVM_TVM_H_
