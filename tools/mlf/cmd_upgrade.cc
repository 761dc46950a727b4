// mlf upgrade: a TVM archive (metadata versions 5-7) -> an mlfkit archive.
#include <iostream>

#include "artifact/archive/pack.h"
#include "artifact/base/display_text.h"
#include "tools/mlf/command.h"
#include "tools/mlf/output_path.h"
#include "tools/mlf/progress.h"
#include "tvm/tvm.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf upgrade ARCHIVE -o OUT [--no-host-lib] [--compress none|gzip|zstd]\n\n"
    "Rewrites ARCHIVE, a Model Library Format archive written by Apache TVM\n"
    "(metadata versions 5, 6 and 7), as a self-contained mlfkit archive (metadata version 9) that\n"
    "mlf run, mlf bench and mlf project use like any other and that computes the\n"
    "same outputs. Each TVM AOT module with the C interface and each\n"
    "graph-executor module gets:\n"
    "  - metadata: TVM's tensor names, C names, dtypes and shapes (from\n"
    "    the Relay text or graph JSON), workspace, parameters, digests;\n"
    "  - TVM's C sources, with its run wrapper tvmgen_<mod>_run renamed\n"
    "    tvmgen_<mod>_tvm_run and USMP pools moved into the caller's workspace,\n"
    "    plus an adapter implementing ABI version 1 and the compatibility runtime\n"
    "    and headers, so the archive builds on its own; a graph-executor module\n"
    "    keeps TVM's sources as they are and gets its graph as a C function and\n"
    "    its .params tensors as a parameter blob (parameters/<mod>.bin);\n"
    "  - a host library, when the code builds for this host (not for code that\n"
    "    targets another architecture: that archive is for mlf project).\n"
    "Every member of the original is kept under src/tvm/. Refused, with the\n"
    "reason: mlfkit archives, archives that do not verify, operator-style\n"
    "modules, the packed API without a graph, unknown shapes. OUT is written\n"
    "atomically and deterministically: upgrading twice gives identical bytes.\n\n"
    "options:\n"
    "  -o, --output OUT      archive to write (required)\n"
    "  --no-host-lib         do not build host libraries (loaders compile on first use)\n"
    "  --compress KIND       none (default), gzip or zstd\n";

Result<Compression> ParseCompression(const std::string& text) {
  if (text == "none") return Compression::kNone;
  if (text == "gzip") return Compression::kGzip;
  if (text == "zstd") return Compression::kZstd;
  return InvalidArgument("--compress must be none, gzip or zstd, not '" + text + "'");
}

int RunUpgrade(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("upgrade", args, 1, 1, &code)) return code;
  if (!args.Has("output")) return ReportUsageError("upgrade", "missing required option '-o OUT'");
  Status distinct = CheckOutputFile(FlagPath("-o", args.Get("output")),
                                    {FlagPath("ARCHIVE", args.positionals()[0])});
  if (!distinct.ok()) return ReportUsageError("upgrade", distinct.message());
  Result<Compression> compression = ParseCompression(args.Get("compress", "none"));
  if (!compression.ok()) return ReportUsageError("upgrade", compression.status().message());
  Result<int64_t> mtime = ArchiveMtimeFromEnvironment();
  if (!mtime.ok()) return ReportFailure(mtime.status());

  Progress progress("upgrading");
  UpgradeOptions options;
  options.build_host_library = !args.Has("no-host-lib");
  options.compression = *compression;
  options.mtime = *mtime;
  options.progress = progress.Callback();
  const std::string out = args.Get("output");
  Result<UpgradeResult> result = UpgradeTvmArchive(args.positionals()[0], out, options);
  if (!result.ok()) return ReportFailure(result.status());
  for (const std::string& note : result->notes) std::cout << "note: " << DisplayText(note) << "\n";
  std::cout << "upgraded " << result->metadata.modules.size() << " module(s) to version " << result->metadata.version << ": " << out
            << "\n";
  return kExitOk;
}

}  // namespace

const Command& UpgradeCommand() {
  static const Command command{
      "upgrade", "rewrite a TVM archive (metadata 5-7) as an mlfkit archive", kUsage,
      {{"output", true, false, "o"}, {"no-host-lib", false, false, ""}, {"compress", true, false, ""}},
      RunUpgrade};
  return command;
}

}  // namespace mlf::cli
