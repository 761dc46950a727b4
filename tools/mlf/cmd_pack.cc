// mlf pack: a directory in Model Library Format layout -> archive.
#include <iostream>

#include "artifact/archive/pack.h"
#include "tools/mlf/command.h"
#include "tools/mlf/output_path.h"
#include "tools/mlf/progress.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf pack DIR -o OUT [--compress none|gzip|zstd]\n\n"
    "Packs DIR, which holds metadata.json and the files it references, into a\n"
    "Model Library Format archive. The \"files\" table of metadata.json (size and\n"
    "SHA-256 of every member) is computed here; metadata is validated against the\n"
    "schema of its version. The archive is deterministic (sorted members, mtime from\n"
    "SOURCE_DATE_EPOCH or 0) and written atomically: OUT is either the complete\n"
    "new archive or left as it was.\n\n"
    "options:\n"
    "  -o, --output OUT      archive to write (required)\n"
    "  --compress KIND       none (default; parameters stay mmap-able), gzip or zstd\n";

Result<Compression> ParseCompression(const std::string& text) {
  if (text == "none") return Compression::kNone;
  if (text == "gzip") return Compression::kGzip;
  if (text == "zstd") return Compression::kZstd;
  return InvalidArgument("--compress must be none, gzip or zstd, not '" + text + "'");
}

int RunPack(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("pack", args, 1, 1, &code)) return code;
  if (!args.Has("output")) return ReportUsageError("pack", "missing required option '-o OUT'");
  Status distinct = CheckOutputFile(FlagPath("-o", args.Get("output")), {},
                                    {FlagPath("DIR", args.positionals()[0])});
  if (!distinct.ok()) return ReportUsageError("pack", distinct.message());
  Result<Compression> compression = ParseCompression(args.Get("compress", "none"));
  if (!compression.ok()) return ReportUsageError("pack", compression.status().message());
  Result<int64_t> mtime = ArchiveMtimeFromEnvironment();
  if (!mtime.ok()) return ReportFailure(mtime.status());

  Progress progress("packing");
  PackOptions options{*compression, *mtime, progress.Callback()};
  const std::string out = args.Get("output");
  Result<Metadata> packed = PackDirectory(args.positionals()[0], out, options);
  if (!packed.ok()) return ReportFailure(packed.status());
  std::cout << "packed " << packed->files.size() + 1 << " members into " << out << "\n";
  return kExitOk;
}

}  // namespace

const Command& PackCommand() {
  static const Command command{
      "pack", "pack a directory in MLF layout into an archive", kUsage,
      {{"output", true, false, "o"}, {"compress", true, false, ""}}, RunPack};
  return command;
}

}  // namespace mlf::cli
