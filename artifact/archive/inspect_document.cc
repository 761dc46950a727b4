#include "artifact/archive/inspect_document.h"

#include "artifact/archive/archive_writer.h"
#include "artifact/archive/signature.h"
#include "artifact/format/metadata_enums.h"

namespace mlf {
namespace {

using nlohmann::json;

json TensorsJson(const std::vector<TensorInfo>& tensors) {
  json out = json::array();
  for (const TensorInfo& t : tensors) {
    json j = {{"name", t.name}, {"c_name", t.c_name}, {"size_bytes", t.size_bytes}};
    j["dtype"] = t.dtype.stated() ? json(ToString(t.dtype)) : json(nullptr);
    j["shape"] = t.shape_known ? json(t.shape) : json(nullptr);
    out.push_back(j);
  }
  return out;
}

json ParametersJson(const ParametersInfo& p) {
  json tensors = json::array();
  for (const ParamTensorInfo& t : p.tensors) {
    tensors.push_back({{"name", t.name}, {"dtype", ToString(t.dtype)}, {"shape", t.shape},
                       {"offset", t.offset}, {"size_bytes", t.size_bytes}});
  }
  return {{"storage", ToString(p.storage)}, {"path", p.path}, {"tensors", tensors}};
}

// One module of a TVM archive as mlfkit normalised it (shape null = unknown).
json NormalisedModuleJson(const ModuleMetadata& m, const ForeignModuleCheck& check) {
  const Status& host = check.host;
  const TvmModuleInfo& tvm = *m.tvm;
  json j = {{"model_name", m.model_name}, {"style", ToString(m.style)},
            {"executors", ExecutorNames(m.executors)},
            {"interface_api", ToString(m.interface_api)}, {"inputs", TensorsJson(m.inputs)},
            {"outputs", TensorsJson(m.outputs)}, {"sources", m.sources},
            {"workspace_size_bytes", m.memory.workspace_size_bytes},
            {"constants_size_bytes", m.memory.constants_size_bytes},
            {"targets", tvm.targets}, {"run_function", tvm.run_function},
            {"main_function", tvm.main_function}, {"shapes_from", ToString(tvm.shapes_from)},
            {"notes", tvm.notes}, {"external_headers", tvm.external_headers}};
  if (m.parameters) j["parameters"] = ParametersJson(*m.parameters);
  if (!tvm.foreign_target.empty()) {
    j["needs_target"] = tvm.foreign_target;
    j["needs_evidence"] = tvm.foreign_evidence;
  }
  j["host"] = host.ok() ? json("runs") : json(host.message());
  j["needs_vendor_library"] = check.vendor_headers;
  j["runs"] = check.runs;
  return j;
}

json NormalisedJson(const ArchiveHead& head, const std::map<std::string, ForeignModuleCheck>& checks) {
  json modules = json::object();
  for (const auto& [name, m] : head.metadata.modules) {
    auto check = checks.find(name);
    modules[name] = NormalisedModuleJson(m, check == checks.end() ? ForeignModuleCheck{} : check->second);
  }
  json files = json::object();
  for (const auto& [path, entry] : head.metadata.files) {
    files[path] = {{"size", entry.size}, {"sha256", entry.sha256}};
  }
  json problems = json::array();
  for (const Status& p : head.foreign->problems) problems.push_back(p.message());
  return {{"version", head.metadata.version}, {"modules", modules}, {"files", files},
          {"unreferenced", head.foreign->unreferenced}, {"problems", problems}};
}

}  // namespace

std::string SignerFingerprint(const ArchiveHead& head) {
  if (head.signature_member.empty()) return "";
  Result<SignatureInfo> info = ParseSignatureMember(head.signature_member);
  return info.ok() ? info->key_sha256 : "malformed";
}

json InspectDocument(const std::string& path, const ArchiveHead& head,
                     const std::map<std::string, ForeignModuleCheck>& host_checks) {
  // metadata_bytes passed the reader's JSON checks; parse without exceptions
  // all the same, so that no exception can cross this library's boundary.
  json metadata = json::parse(head.metadata_bytes, nullptr, /*allow_exceptions=*/false);
  json j = {{"archive", path},
            {"compression", CompressionName(head.compression)},
            {"signed", !head.signature_member.empty()},
            {"metadata", metadata}};
  if (!head.signature_member.empty()) j["signer_key_sha256"] = SignerFingerprint(head);
  if (head.foreign) {
    j["format"] = "tvm";
    j["normalised"] = NormalisedJson(head, host_checks);
  }
  return j;
}

}  // namespace mlf
