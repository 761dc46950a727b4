// `mlf upgrade`: a TVM Model Library Format archive (metadata versions 5–7)
// rewritten as a normal, self-contained mlfkit archive (metadata version 9) that the
// loaders (ModelLibrary, `mlf run`, `mlf project`) accept with no TVM
// special-casing and that computes the same outputs (docs/tvm.md, "Upgrading
// to version 8").
//
// What the mlfkit archive holds, per module <mod> (C name <c>):
//   codegen/host/src/<TVM sources>       as TVM wrote them, except two token-level
//                                        edits (tvm/upgrade/c_rewrite.h):
//                                        tvmgen_<c>_run renamed tvmgen_<c>_tvm_run,
//                                        USMP pools moved into the caller's workspace
//   codegen/host/src/<c>_mlf_adapter.c   ABI v1 entry and metadata (adapter.h)
//   codegen/host/src/mlf_tvm_runtime.c   the compatibility runtime (tvm/compat)
//   codegen/host/include/tvmgen_<c>.h    the ABI v1 interface header
//   codegen/host/include/mlf/model_abi.h, tvm/runtime/*.h, dlpack/dlpack.h
//                                        (an archive's bundled runtime/include wins)
//   codegen/host/lib/<c>.so              when the code builds for this host
//   src/tvm/<path>                       every member of the original, byte for byte
// Metadata: TVM's names, C names, dtypes and shapes (from the Relay text or
// the graph JSON; an unknown shape is refused: version 8 cannot say
// "unknown" and upgrade does not invent shapes), the workspace (pools plus
// TVM's), .params tensors as linked parameters (AOT code embeds them),
// source {format "tvm", path src/tvm/metadata.json} and a description
// naming TVM's metadata version and model_name.
//
// Refused, each with a message saying why: inputs that are not TVM archives
// (version 8 ones: "already version 8"), archives that do not verify, and
// modules an mlfkit archive cannot run: operator style, the graph
// executor, the packed API, llvm object files, C++ sources, entry points
// that take caller-provided pools or devices, unknown shapes or dtypes.
#ifndef MLFKIT_TVM_UPGRADE_UPGRADE_H_
#define MLFKIT_TVM_UPGRADE_UPGRADE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_writer.h"
#include "artifact/base/status.h"
#include "artifact/base/version.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"

namespace mlf {

struct UpgradeOptions {
  // Build codegen/host/lib/<c>.so for modules whose code builds on this host.
  bool build_host_library = true;
  // Compiler and base flags; -std=gnu11 -fno-strict-aliasing are appended
  // (TVM's C type-puns buffers).
  HostBuildConfig build;
  Compression compression = Compression::kNone;
  int64_t mtime = 0;  // SOURCE_DATE_EPOCH when set
  std::string generator_version = kMlfkitVersion;
  ReaderLimits limits;
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct UpgradeResult {
  Metadata metadata;               // as written
  std::vector<std::string> notes;  // e.g. why a module has no host library
};

// Upgrades the TVM archive `in` to `out`, written atomically: on any error
// `out` is left as it was. Errors name the module and what stops it.
Result<UpgradeResult> UpgradeTvmArchive(const std::string& in, const std::string& out,
                                        const UpgradeOptions& options);

}  // namespace mlf

#endif  // MLFKIT_TVM_UPGRADE_UPGRADE_H_
