// mlf verify: structure, metadata, digests and signature of an archive.
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "artifact/archive/signature.h"
#include "artifact/archive/verify.h"
#include "artifact/archive/verify_document.h"
#include "artifact/base/display_text.h"
#include "tools/mlf/archive_formats.h"
#include "tools/mlf/command.h"
#include "tools/mlf/progress.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf verify ARCHIVE [--key NAME.pub] [--require-signature] [--json]\n\n"
    "Checks, in one pass: the archive is a safe tar within size bounds; its first\n"
    "member metadata.json matches the schema of its version (8 or 9) and the rules; every member is\n"
    "listed in metadata.json \"files\" with the right size and SHA-256, and none is\n"
    "missing or extra; and the signature policy:\n"
    "  --key NAME.pub        the archive must be signed, by this key (Ed25519)\n"
    "  --require-signature   the archive must carry a well-formed signature; without\n"
    "                        --key its signer is reported, not proven\n"
    "  --json                print a JSON report on stdout (also on failure)\n\n"
    "Archives written by Apache TVM (metadata versions 5-7) carry no digests and\n"
    "no signature, so less can be proven: a safe tar within bounds; metadata.json\n"
    "against its version's schema; every file that metadata, the interface header\n"
    "and the sources reference is present (e.g. #include \"tvmgen_default.h\",\n"
    "parameters/<mod>.params for the graph executor), .params files parse and the\n"
    "sizes in metadata, Relay text and header agree. --key and\n"
    "--require-signature refuse them. The output says so.\n\n"
    "Exit status: 0 verified, 1 the archive failed a check, 2 bad usage.\n";

void PrintJson(const std::string& path, const Result<VerifyReport>& r,
               const std::map<std::string, ForeignModuleCheck>& checks) {
  if (r.ok()) {
    PrintJsonReport(VerifyDocument(path, *r, checks));
    return;
  }
  PrintJsonReport({{"archive", path},
                   {"ok", false},
                   {"error", r.status().message()},
                   {"error_code", StatusCodeName(r.status().code())},
                   {"exit_status", kExitFailure}});
}

// Names, paths and notes come from the archive: shown through DisplayText.
std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + DisplayText(w);
  return out;
}

void PrintTvmText(const std::string& path, const VerifyReport& r,
                  const std::map<std::string, ForeignModuleCheck>& checks) {
  std::cout << "verified " << DisplayText(path) << ": " << r.member_count << " members, "
            << HumanBytes(r.data_bytes) << ", " << r.metadata.modules.size() << " module"
            << (r.metadata.modules.size() == 1 ? "" : "s") << "\n"
            << "format: Apache TVM Model Library Format, metadata version " << r.metadata.version
            << "\n"
            << "proven: a safe tar within bounds; metadata.json matches the TVM version "
            << r.metadata.version
            << " schema; every file that metadata, the interface header and the sources reference "
               "is present; .params files parse; sizes in metadata, Relay text and header agree\n"
            << "not proven: TVM archives carry no digests and no signature, so nothing shows who "
               "made this archive or that its members are the ones TVM wrote\n";
  for (const auto& [name, m] : r.metadata.modules) {
    const ForeignModuleCheck& check = checks.at(name);
    const Status& host = check.host;
    std::cout << "module " << DisplayText(name) << ": " << DisplayText(ToString(m.style))
              << (m.tvm->executor ? ", " + DisplayText(ToString(*m.tvm->executor)) + " executor" : "")
              << ", " << DisplayText(ToString(m.interface_api)) << " interface; "
              << (host.ok() ? "runs on this host (mlf run)"
                            : "does not run on this host: " + DisplayText(host.message()))
              << "\n";
    if (!check.vendor_headers.empty()) {
      std::cout << "  needs vendor library: " << Join(check.vendor_headers) << "\n";
    }
    std::cout << "  runs: " << DisplayText(check.runs) << "\n";
    for (const std::string& note : m.tvm->notes) std::cout << "  note: " << DisplayText(note) << "\n";
  }
  if (!r.foreign->unreferenced.empty()) {
    std::cout << "not referenced by any module: " << Join(r.foreign->unreferenced) << "\n";
  }
  std::cout << "signature: none (TVM archives cannot carry one)\n";
}

void PrintText(const std::string& path, const VerifyReport& r,
               const std::map<std::string, ForeignModuleCheck>& checks) {
  if (r.foreign) return PrintTvmText(path, r, checks);
  std::cout << "verified " << DisplayText(path) << ": " << r.member_count << " members, "
            << HumanBytes(r.data_bytes) << ", " << r.metadata.modules.size() << " module"
            << (r.metadata.modules.size() == 1 ? "" : "s") << "\n";
  if (r.signature_checked) {
    std::cout << "signature: valid, key sha256 " << r.signer_key_sha256 << "\n";
  } else if (r.is_signed) {
    std::cout << "signature: present, key sha256 " << r.signer_key_sha256
              << " (not checked: pass --key to check it)\n";
  } else {
    std::cout << "signature: none\n";
  }
}

int RunVerify(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("verify", args, 1, 1, &code)) return code;
  const std::string path = args.positionals()[0];
  VerifyOptions options;
  options.foreign_format = cli::ForeignFormat();
  options.require_signature = args.Has("require-signature");
  if (args.Has("key")) {
    Result<std::string> key = ReadKeyFile(args.Get("key"));
    if (!key.ok()) return ReportFailure(key.status());
    options.public_key_pem = *key;
  }
  Result<VerifyReport> report = [&] {
    Progress progress("verifying");
    options.progress = progress.Callback();
    return VerifyArchive(path, options);
  }();
  // What it says about this host is what mlf run checks before compiling.
  std::map<std::string, ForeignModuleCheck> host;
  if (report.ok() && report->foreign) host = cli::ForeignHostChecks(path, report->metadata, options.limits);
  if (args.Has("json")) PrintJson(path, report, host);
  if (!report.ok()) return ReportFailure(report.status().WithContext(path));
  if (!args.Has("json")) PrintText(path, *report, host);
  return kExitOk;
}

}  // namespace

const Command& VerifyCommand() {
  static const Command command{
      "verify", "check an archive's structure, metadata, digests and signature", kUsage,
      {{"key", true, false, ""}, {"require-signature", false, false, ""}, {"json", false, false, ""}},
      RunVerify};
  return command;
}

}  // namespace mlf::cli
