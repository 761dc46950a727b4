// mlf sign: adds an Ed25519 signature over metadata.json to an archive.
#include <iostream>

#include "artifact/archive/pack.h"
#include "artifact/archive/sign.h"
#include "artifact/archive/signature.h"
#include "tools/mlf/command.h"
#include "tools/mlf/output_path.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf sign ARCHIVE --key NAME.key [-o OUT]\n\n"
    "Verifies ARCHIVE, then adds metadata.json.sig: an Ed25519 signature over the\n"
    "exact bytes of metadata.json, whose \"files\" table holds the SHA-256 of every\n"
    "other member, so the signature covers the whole archive. An existing\n"
    "signature is replaced. Written atomically.\n\n"
    "options:\n"
    "  --key NAME.key        private key from `mlf keygen` (mode 0600; required)\n"
    "  -o, --output OUT      write the signed archive here (default: in place)\n";

int RunSign(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("sign", args, 1, 1, &code)) return code;
  if (!args.Has("key")) return ReportUsageError("sign", "missing required option '--key NAME.key'");
  const std::string in = args.positionals()[0];
  const std::string out = args.Get("output", in);
  // Signing in place (OUT is ARCHIVE) is the default; the key is never an output.
  const NamedPath output = args.Has("output") ? FlagPath("-o", out) : FlagPath("ARCHIVE", in);
  Status distinct = CheckOutputFile(output, {FlagPath("--key", args.Get("key"))});
  if (!distinct.ok()) return ReportUsageError("sign", distinct.message());
  Result<std::string> key = ReadKeyFile(args.Get("key"));
  if (!key.ok()) return ReportFailure(key.status());
  Result<int64_t> mtime = ArchiveMtimeFromEnvironment();
  if (!mtime.ok()) return ReportFailure(mtime.status());
  SignOptions options;
  options.mtime = *mtime;
  Result<VerifyReport> signed_report = SignArchive(in, *key, out, options);
  if (!signed_report.ok()) return ReportFailure(signed_report.status().WithContext(in));
  std::cout << "signed " << out << " with key sha256 " << signed_report->signer_key_sha256 << "\n";
  return kExitOk;
}

}  // namespace

const Command& SignCommand() {
  static const Command command{"sign", "sign an archive's metadata with an Ed25519 key", kUsage,
                               {{"key", true, false, ""}, {"output", true, false, "o"}}, RunSign};
  return command;
}

}  // namespace mlf::cli
