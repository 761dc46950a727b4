// mlf unpack: verified, safe extraction of an archive into a directory.
#include <iostream>

#include "artifact/archive/signature.h"
#include "artifact/archive/unpack.h"
#include "tools/mlf/command.h"
#include "tools/mlf/output_path.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf unpack ARCHIVE -o DIR [--key NAME.pub] [--require-signature]\n\n"
    "Verifies ARCHIVE exactly as `mlf verify` does and extracts it into DIR.\n"
    "Nothing is ever written outside DIR: absolute paths, '..', links and device\n"
    "files are refused. DIR must be missing or empty; it appears complete or not\n"
    "at all (members are staged next to it and renamed into place at the end).\n\n"
    "options:\n"
    "  -o, --output DIR      directory to create (required)\n"
    "  --key NAME.pub        the archive must be signed by this key\n"
    "  --require-signature   the archive must carry a signature\n";

int RunUnpack(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("unpack", args, 1, 1, &code)) return code;
  if (!args.Has("output")) return ReportUsageError("unpack", "missing required option '-o DIR'");
  const std::string path = args.positionals()[0];
  std::vector<NamedPath> read = {FlagPath("ARCHIVE", path)};
  if (args.Has("key")) read.push_back(FlagPath("--key", args.Get("key")));
  Status distinct = CheckOutputDirectory(FlagPath("-o", args.Get("output")), read);
  if (!distinct.ok()) return ReportUsageError("unpack", distinct.message());
  VerifyOptions options;
  options.require_signature = args.Has("require-signature");
  if (args.Has("key")) {
    Result<std::string> key = ReadKeyFile(args.Get("key"));
    if (!key.ok()) return ReportFailure(key.status());
    options.public_key_pem = *key;
  }
  Result<VerifyReport> report = UnpackArchive(path, args.Get("output"), options);
  if (!report.ok()) return ReportFailure(report.status().WithContext(path));
  std::cout << "unpacked " << report->member_count << " members into " << args.Get("output")
            << "\n";
  return kExitOk;
}

}  // namespace

const Command& UnpackCommand() {
  static const Command command{
      "unpack", "verify an archive and extract it safely into a directory", kUsage,
      {{"output", true, false, "o"}, {"key", true, false, ""}, {"require-signature", false, false, ""}},
      RunUnpack};
  return command;
}

}  // namespace mlf::cli
