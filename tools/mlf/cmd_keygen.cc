// mlf keygen: creates an Ed25519 key pair for signing archives.
#include <iostream>

#include "artifact/archive/signature.h"
#include "tools/mlf/command.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf keygen -o NAME\n\n"
    "Creates an Ed25519 key pair for `mlf sign` and `mlf verify --key`:\n"
    "  NAME.key  private key (PEM, mode 0600): keep it secret\n"
    "  NAME.pub  public key (PEM): give it to whoever verifies your archives\n"
    "Existing files are never overwritten.\n\n"
    "options:\n"
    "  -o, --output NAME   base name of the two key files (required)\n";

int RunKeygen(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("keygen", args, 0, 0, &code)) return code;
  if (!args.Has("output")) return ReportUsageError("keygen", "missing required option '-o NAME'");
  const std::string base = args.Get("output");
  Status written = WriteKeyFiles(base);
  if (!written.ok()) return ReportFailure(written);
  std::cout << "wrote " << base << ".key (private) and " << base << ".pub (public)\n";
  return kExitOk;
}

}  // namespace

const Command& KeygenCommand() {
  static const Command command{"keygen", "create an Ed25519 key pair for signing", kUsage,
                               {{"output", true, false, "o"}}, RunKeygen};
  return command;
}

}  // namespace mlf::cli
