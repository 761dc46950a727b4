// The one place where the CLI wires the TVM wing (tvm/tvm.h) into the layers
// below, which know TVM only through their seams: the archive format other
// than version 8 that `mlf` reads (artifact/archive/foreign_archive.h) and the
// modules the host loader and the firmware projects take from the wing
// (loader/host/foreign_module.h, loader/firmware/foreign_project.h).
// (`mlf upgrade`, cmd_upgrade.cc, is the wing's own command.) Without the
// wing, these would return null (ForeignHostChecks an empty map) and `mlf`
// would read, run and build mlfkit archives only.
#ifndef MLFKIT_TOOLS_MLF_ARCHIVE_FORMATS_H_
#define MLFKIT_TOOLS_MLF_ARCHIVE_FORMATS_H_

#include <map>
#include <string>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/foreign_archive.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/foreign_project.h"
#include "loader/host/foreign_module.h"

namespace mlf::cli {

// TVM's archive format (metadata versions 5-7), for VerifyOptions
// (`mlf verify`, `mlf project`) and ReadArchiveHead (`mlf inspect`).
const ForeignArchiveFormat* ForeignFormat();

// TVM modules on this host, for LoadOptions::foreign_modules (`mlf run`,
// `mlf bench`).
const ForeignModuleRunner* ForeignModules();

// TVM modules in firmware projects, for ProjectOptions::foreign_modules
// (`mlf project`).
const firmware::ForeignProjectModules* ForeignFirmwareModules();

// What `mlf inspect` and `mlf verify` say about running each TVM module of
// `metadata` (read from `archive`) on this host: what `mlf run` checks
// before compiling, the vendor libraries it needs and where it runs, by
// module name.
std::map<std::string, ForeignModuleCheck> ForeignHostChecks(const std::string& archive,
                                                const Metadata& metadata,
                                                const ReaderLimits& limits = {});

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_ARCHIVE_FORMATS_H_
