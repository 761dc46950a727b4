// mlf verify: structure, metadata, digests and signature of an archive.
#include <iostream>

#include <nlohmann/json.hpp>

#include "artifact/signature.h"
#include "artifact/verify.h"
#include "tools/mlf/command.h"
#include "tools/mlf/progress.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf verify ARCHIVE [--key NAME.pub] [--require-signature] [--json]\n\n"
    "Checks, in one pass: the archive is a safe tar within size bounds; its first\n"
    "member metadata.json matches the version-8 schema and rules; every member is\n"
    "listed in metadata.json \"files\" with the right size and SHA-256, and none is\n"
    "missing or extra; and the signature policy:\n"
    "  --key NAME.pub        the archive must be signed, by this key (Ed25519)\n"
    "  --require-signature   the archive must carry a well-formed signature; without\n"
    "                        --key its signer is reported, not proven\n"
    "  --json                print a JSON report on stdout (also on failure)\n\n"
    "Exit status: 0 verified, 1 the archive failed a check, 2 bad usage.\n";

void PrintJson(const std::string& path, const Result<VerifyReport>& r) {
  nlohmann::json j = {{"archive", path}, {"ok", r.ok()}};
  if (!r.ok()) {
    j["error"] = r.status().message();
    j["error_code"] = StatusCodeName(r.status().code());
  } else {
    j["compression"] = CompressionName(r->compression);
    j["members"] = r->member_count;
    j["data_bytes"] = r->data_bytes;
    j["signed"] = r->is_signed;
    j["signature_checked"] = r->signature_checked;
    if (r->is_signed) j["signer_key_sha256"] = r->signer_key_sha256;
    j["modules"] = nlohmann::json::array();
    for (const auto& [name, module] : r->metadata.modules) j["modules"].push_back(name);
  }
  std::cout << j.dump(2) << "\n";
}

void PrintText(const std::string& path, const VerifyReport& r) {
  std::cout << "verified " << path << ": " << r.member_count << " members, "
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
  if (args.Has("json")) PrintJson(path, report);
  if (!report.ok()) return ReportFailure(report.status().WithContext(path));
  if (!args.Has("json")) PrintText(path, *report);
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
