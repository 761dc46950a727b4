// Step 1 of the TVM normaliser: metadata.json alone (see tvm_metadata.h).
// Step 2 (completion from the archive's members) is in tvm_complete.cc.
#include "tvm/format/tvm_metadata.h"

#include <set>

#include <nlohmann/json.hpp>

#include "artifact/base/display_text.h"
#include "artifact/base/printable_name.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "artifact/format/name_clash.h"
#include "artifact/jsonschema/json_limits.h"
#include "artifact/jsonschema/json_schema.h"
#include "schemas/embedded.h"
#include "tvm/format/tvm_params.h"

namespace mlf {
namespace {

using nlohmann::json;

const JsonSchema& TvmSchema(int version) {
  // Compiled once each; the embedded schemas are part of the binary, so a
  // failure here is a build defect (caught by tvm_metadata_test).
  static const JsonSchema* schemas[3] = {nullptr, nullptr, nullptr};
  static const bool compiled = [] {
    for (int v = 5; v <= 7; ++v) {
      auto text = EmbeddedFile("tvm-metadata-v" + std::to_string(v) + ".schema.json");
      auto schema = JsonSchema::Compile(json::parse(*text));
      schemas[v - 5] = new JsonSchema(std::move(schema).value());
    }
    return true;
  }();
  (void)compiled;
  return *schemas[version - 5];
}

// The words of a target string: "c -keys=arm_cpu,cpu -mcpu=cortex-m4".
std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t end = i;
    while (end < s.size() && s[end] != ' ') ++end;
    if (end > i) out.emplace_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

TargetInfo TargetFrom(const std::vector<std::string>& targets) {
  TargetInfo t;
  if (targets.empty()) return t;
  std::vector<std::string> words = Words(targets[0]);
  t.kind = words.empty() ? "" : words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    std::string w = words[i];
    if (w.rfind("--", 0) == 0) w = w.substr(2);
    else if (w.rfind("-", 0) == 0) w = w.substr(1);
    const size_t eq = w.find('=');
    const std::string key = w.substr(0, eq);
    const std::string value = eq == std::string::npos ? "1" : w.substr(eq + 1);
    if (key == "mcpu") {
      t.mcpu = value;
    } else if (key == "mtriple") {
      t.host_triple = value;
    } else if (!key.empty()) {
      t.attrs[key] = value;
    }
  }
  return t;
}

Result<std::vector<std::string>> TargetStrings(const json& target) {
  std::vector<std::string> out;
  if (target.is_object()) {  // v5: {"1": "c -keys=cpu"}; keys are device types
    for (const auto& [device, value] : target.items()) out.push_back(value.get<std::string>());
  } else {
    for (const json& value : target) out.push_back(value.get<std::string>());
  }
  return out;
}

Result<std::vector<TensorInfo>> TensorsFromMap(const std::string& kind, const json& map) {
  std::vector<TensorInfo> out;
  for (const auto& [name, entry] : map.items()) {
    TensorInfo t;
    t.name = name;
    t.c_name = SanitizeCName(name);
    // A dtype mlfkit does not know is kept as written: the archive still
    // inspects (completion notes it), and the loaders refuse the tensor.
    t.dtype = DTypeValue::Read(entry.at("dtype").get<std::string>());
    t.size_bytes = entry.at("size").get<uint64_t>();
    t.shape_known = false;
    out.push_back(std::move(t));
  }
  return out;
}

Status FullModelMemory(const json& memory, ModuleMetadata* m) {
  TvmModuleInfo& tvm = *m->tvm;
  const json& functions = memory.at("functions");
  for (const json& main : functions.at("main")) {
    TvmMainMemory mm;
    mm.device = main.at("device").get<int64_t>();
    mm.workspace_size_bytes = main.at("workspace_size_bytes").get<uint64_t>();
    mm.constants_size_bytes = main.at("constants_size_bytes").get<uint64_t>();
    mm.io_size_bytes = main.at("io_size_bytes").get<uint64_t>();
    tvm.main_memory.push_back(mm);
  }
  // The executor gives TVM code main[0]'s workspace (docs/archive-format.md, "TVM archives").
  const json& main0 = functions.at("main")[0];
  m->memory.workspace_size_bytes = tvm.main_memory[0].workspace_size_bytes;
  m->memory.constants_size_bytes = tvm.main_memory[0].constants_size_bytes;
  m->memory.io_size_bytes = tvm.main_memory[0].io_size_bytes;
  if (main0.contains("inputs")) {
    MLF_ASSIGN_OR_RETURN(m->inputs, TensorsFromMap("input", main0["inputs"]));
  }
  if (main0.contains("outputs")) {
    MLF_ASSIGN_OR_RETURN(m->outputs, TensorsFromMap("output", main0["outputs"]));
  }
  for (const json& f : functions.value("operator_functions", json::array())) {
    TvmOperatorFunction op;
    op.name = f.at("function_name").get<std::string>();
    for (const json& w : f.at("workspace")) {
      op.workspace_size_bytes = std::max(op.workspace_size_bytes, w.at("workspace_size_bytes").get<uint64_t>());
    }
    tvm.operator_functions.push_back(std::move(op));
  }
  for (const json& s : memory.value("sids", json::array())) {
    tvm.sids.push_back(TvmStorage{s.at("storage_id").get<int64_t>(), s.at("size_bytes").get<uint64_t>(),
                                  s.value("input_binding", "")});
  }
  return Status::Ok();
}

Status OperatorMemory(const json& memory, ModuleMetadata* m) {
  for (const auto& [function, buffers] : memory.items()) {
    for (const json& b : buffers) {
      TvmOperatorBuffer buf;
      buf.function = function;
      buf.binding = b.at("input_binding").get<std::string>();
      buf.dtype = DTypeValue::Read(b.at("dtype").get<std::string>());
      if (!buf.dtype.known()) {
        m->tvm->notes.push_back("buffer " + QuoteForMessage(buf.binding) + " of " +
                                QuoteForMessage(function) + ": dtype " +
                                QuoteForMessage(ToString(buf.dtype)) + " is unknown to mlfkit");
      }
      buf.shape = b.at("shape").get<std::vector<int64_t>>();
      buf.size_bytes = b.at("size_bytes").get<uint64_t>();
      m->tvm->operator_buffers.push_back(std::move(buf));
    }
  }
  return Status::Ok();
}

Result<ModuleMetadata> ModuleFrom(const json& j, int version) {
  ModuleMetadata m;
  m.tvm.emplace();
  TvmModuleInfo& tvm = *m.tvm;
  tvm.version = version;
  m.model_name = j.at("model_name").get<std::string>();
  // The schema allows only the two styles (their memory sections differ).
  m.style = ParseModuleStyle(j.at("style").get<std::string>()).value();
  // Executors and interface APIs TVM may add later are kept as unknown, with
  // a note: the archive still inspects, and the loaders refuse the module.
  m.executors.clear();
  for (const json& e : j.at("executors")) {
    m.executors.push_back(ReadExecutor(e.get<std::string>()));
    if (m.executors.back() == Executor::kUnknown) {
      tvm.notes.push_back("executor " + QuoteForMessage(e.get<std::string>()) +
                          " is unknown to mlfkit (it knows aot and graph)");
    }
  }
  if (!m.executors.empty()) tvm.executor = m.executors[0];
  m.abi_version = 0;  // TVM code has no mlfkit ABI
  MLF_ASSIGN_OR_RETURN(tvm.targets, TargetStrings(j.at("target")));
  m.target = TargetFrom(tvm.targets);
  m.interface_api = InterfaceApi::kPacked;
  for (const std::string& t : tvm.targets) {
    const std::string api = TvmTargetOption(t, "interface-api");
    if (api.empty()) continue;
    InterfaceApiValue value = ReadInterfaceApi(api);
    if (value == InterfaceApi::kUnknown) {
      tvm.notes.push_back("interface API " + QuoteForMessage(api) +
                          " (target option -interface-api) is unknown to mlfkit (it knows c and "
                          "packed)");
    }
    // c wins over the others, as TVM's C-interface header does in completion.
    if (m.interface_api != InterfaceApi::kC && value != InterfaceApi::kPacked) {
      m.interface_api = std::move(value);
    }
  }
  m.memory.alignment_bytes = 16;  // TVM's default workspace and constant alignment
  if (m.style == ModuleStyle::kOperator) {
    MLF_RETURN_IF_ERROR(OperatorMemory(j.at("memory"), &m));
  } else {
    MLF_RETURN_IF_ERROR(FullModelMemory(j.at("memory"), &m));
  }
  for (const json& d : j.value("external_dependencies", json::array())) {
    tvm.external_dependencies.push_back(TvmDependency{d.value("short_name", ""), d.value("url", ""),
                                                      d.value("url_type", ""),
                                                      d.value("version_spec", "")});
  }
  return m;
}

std::string GeneratorVersion(const Metadata& md) {
  for (const auto& [name, module] : md.modules) {
    for (const TvmDependency& d : module.tvm->external_dependencies) {
      if (!d.version_spec.empty()) return d.version_spec;
    }
  }
  return "";
}

// Module names become C identifiers, file names and text in generated C,
// Make, CMake and Markdown: a control character in one is refused here, at
// read, with the name shown escaped (before the schema, whose pattern says
// the same less clearly). Other strings are checked by the schema.
Status CheckModuleNamesPrintable(const json& j) {
  auto model_name = [](const json& o, const std::string& where) {
    auto it = o.find("model_name");
    if (it == o.end() || !it->is_string()) return Status::Ok();
    return CheckPrintableName(where + "model_name", it->get_ref<const std::string&>());
  };
  MLF_RETURN_IF_ERROR(model_name(j, "metadata.json: "));
  auto modules = j.find("modules");
  if (modules == j.end() || !modules->is_object()) return Status::Ok();
  for (const auto& [name, module] : modules->items()) {
    MLF_RETURN_IF_ERROR(CheckPrintableName("metadata.json: module name", name));
    if (module.is_object()) {
      MLF_RETURN_IF_ERROR(
          model_name(module, "metadata.json: module " + QuoteForMessage(name) + ": "));
    }
  }
  return Status::Ok();
}

// Module names alone (artifact/format/name_clash.h); the inputs' and outputs' names
// are checked once the archive's headers have given their C names
// (CompleteTvmMetadata).
Status CheckModuleCNames(const Metadata& md) {
  std::vector<std::string> names;
  for (const auto& [name, module] : md.modules) names.push_back(name);
  return CheckModuleNameClashes(names);
}

}  // namespace

std::string TvmTargetOption(std::string_view target, std::string_view key) {
  for (const std::string& w : Words(target)) {
    std::string_view word = w;
    while (!word.empty() && word[0] == '-') word.remove_prefix(1);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=') {
      return std::string(word.substr(key.size() + 1));
    }
  }
  return "";
}

Result<Metadata> ParseTvmMetadata(std::string_view json_text) {
  Result<json> parsed = ParseBoundedJson(json_text, kMaxMetadataBytes, kMaxJsonDepth);
  if (!parsed.ok()) return parsed.status().WithContext("metadata.json");
  const json& j = *parsed;
  if (!j.is_object() || !j.contains("version") || !j["version"].is_number_integer()) {
    return InvalidArgument("metadata.json: missing integer field \"version\"");
  }
  const int64_t version = j["version"].get<int64_t>();
  if (!IsTvmMetadataVersion(version)) {
    return FailedPrecondition("metadata version " + std::to_string(version) +
                              " is not a TVM version (5, 6, 7)");
  }
  MLF_RETURN_IF_ERROR(CheckModuleNamesPrintable(j));
  Status valid = TvmSchema(static_cast<int>(version)).Validate(j);
  if (!valid.ok()) {
    return valid.WithContext("metadata.json does not match the TVM version " +
                             std::to_string(version) + " schema");
  }
  Metadata md;
  md.version = static_cast<int>(version);
  md.generator_name = "tvm";
  if (j.contains("modules")) {  // v7 full models
    for (const auto& [name, module] : j["modules"].items()) {
      Result<ModuleMetadata> m = ModuleFrom(module, md.version);
      if (!m.ok()) return m.status().WithContext("metadata.json: module " + QuoteForMessage(name));
      if (md.modules.empty()) md.export_datetime = module.at("export_datetime").get<std::string>();
      md.modules.emplace(name, std::move(*m));
    }
  } else {
    const std::string name = j.at("model_name").get<std::string>();
    Result<ModuleMetadata> m = ModuleFrom(j, md.version);
    if (!m.ok()) return m.status().WithContext("metadata.json: module " + QuoteForMessage(name));
    md.export_datetime = j.at("export_datetime").get<std::string>();
    md.modules.emplace(name, std::move(*m));
  }
  md.generator_version = GeneratorVersion(md);
  MLF_RETURN_IF_ERROR(CheckModuleCNames(md).WithContext("metadata.json"));
  return md;
}

std::vector<ParamTensorInfo> TvmParamsIndex(const std::vector<NamedTensor>& tensors) {
  std::vector<ParamTensorInfo> index;
  uint64_t offset = 8 + 8 + 8;  // magic, reserved, name count
  for (const NamedTensor& t : tensors) offset += 8 + t.name.size();
  offset += 8;  // array count
  for (const NamedTensor& t : tensors) {
    // magic, reserved, device type and id, ndim, dtype, shape, nbytes
    offset += 8 + 8 + 4 + 4 + 4 + 4 + 8 * t.shape.size() + 8;
    index.push_back(ParamTensorInfo{t.name, t.dtype, t.shape, offset, t.data.size(), std::nullopt, ""});
    offset += t.data.size();
  }
  return index;
}

bool IsTvmTextMember(const std::string& path) {
  auto under = [&](const char* dir) { return path.rfind(dir, 0) == 0; };
  auto ends = [&](const char* ext) {
    const size_t n = std::char_traits<char>::length(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  if (under("src/") && (ends(".relay") || path == "src/relay.txt")) return true;
  if (under("executor-config/graph/")) return true;
  return under("codegen/host/include/") && ends(".h") &&
         path.find('/', std::char_traits<char>::length("codegen/host/include/")) == std::string::npos;
}

bool IsTvmCodeMember(const std::string& path) {
  return path.rfind("codegen/host/src/", 0) == 0 || path.rfind("codegen/host/include/", 0) == 0;
}

}  // namespace mlf
