#include "artifact/archive/verify_document.h"

#include "artifact/archive/archive_writer.h"
#include "artifact/format/metadata_enums.h"

namespace mlf {
namespace {

using nlohmann::json;

// What a foreign (TVM) archive's verification proves and what it does not.
json ForeignJson(const VerifyReport& r, const std::map<std::string, ForeignModuleCheck>& checks) {
  json modules = json::object();
  for (const auto& [name, m] : r.metadata.modules) {
    auto check = checks.find(name);
    const ForeignModuleCheck c = check == checks.end() ? ForeignModuleCheck{} : check->second;
    const Status& host = c.host;
    modules[name] = {{"executor", m.tvm->executor ? ToString(*m.tvm->executor) : ""},
                     {"style", ToString(m.style)},
                     {"interface_api", ToString(m.interface_api)},
                     {"notes", m.tvm->notes},
                     {"host", host.ok() ? json("runs") : json(host.message())},
                     {"needs_vendor_library", c.vendor_headers},
                     {"runs", c.runs}};
  }
  return {{"metadata_version", r.metadata.version},
          {"digests", false},
          {"signature", false},
          {"unreferenced", r.foreign->unreferenced},
          {"modules", modules}};
}

}  // namespace

json VerifyDocument(const std::string& path, const VerifyReport& r,
                    const std::map<std::string, ForeignModuleCheck>& host_checks) {
  json j = {{"archive", path},
            {"ok", true},
            {"compression", CompressionName(r.compression)},
            {"members", r.member_count},
            {"data_bytes", r.data_bytes},
            {"signed", r.is_signed},
            {"signature_checked", r.signature_checked},
            {"modules", json::array()},
            {"format", r.foreign ? "tvm" : "mlf"}};
  if (r.is_signed) j["signer_key_sha256"] = r.signer_key_sha256;
  for (const auto& [name, module] : r.metadata.modules) j["modules"].push_back(name);
  if (r.foreign) j["tvm"] = ForeignJson(r, host_checks);
  return j;
}

}  // namespace mlf
