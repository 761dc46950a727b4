#include "artifact/format/metadata.h"

#include <nlohmann/json.hpp>

#include "artifact/jsonschema/json_limits.h"
#include "artifact/jsonschema/json_schema.h"
#include "schemas/embedded.h"

namespace mlf {
namespace {

using nlohmann::json;

// ---- JSON -> model. The schema has already checked types and required keys,
// so these readers only pick values out; `value()` supplies optional defaults.

std::vector<int64_t> ShapeFrom(const json& j) { return j.get<std::vector<int64_t>>(); }

// The schema allows only values these enums know: a failed parse here would be
// a schema and enum out of step, caught by metadata_test.
template <typename E>
E Known(std::optional<E> (*parse)(std::string_view), const json& j) {
  return parse(j.get<std::string>()).value();
}

// Likewise for dtypes: the schema lists only names DType knows.
DTypeValue KnownDType(const json& j) {
  return DTypeValue(DTypeValue::Read(j.get<std::string>()).known().value());
}

std::optional<QuantizationInfo> QuantizationFrom(const json& owner) {
  if (!owner.contains("quantization")) return std::nullopt;
  const json& j = owner.at("quantization");
  QuantizationInfo q;
  q.scale = j.at("scale").get<std::vector<double>>();
  q.zero_point = j.at("zero_point").get<std::vector<int64_t>>();
  if (j.contains("axis")) q.axis = j.at("axis").get<int64_t>();
  return q;
}

TensorInfo TensorFrom(const json& j) {
  TensorInfo t;
  t.name = j.at("name").get<std::string>();
  t.c_name = j.at("c_name").get<std::string>();
  t.dtype = KnownDType(j.at("dtype"));
  t.shape = ShapeFrom(j.at("shape"));
  t.size_bytes = j.at("size_bytes").get<uint64_t>();
  t.quantization = QuantizationFrom(j);
  return t;
}

std::vector<TensorInfo> TensorsFrom(const json& j) {
  std::vector<TensorInfo> out;
  for (const json& t : j) out.push_back(TensorFrom(t));
  return out;
}

ParametersInfo ParametersFrom(const json& j) {
  ParametersInfo p;
  p.storage = Known(ParseParamStorage, j.at("storage"));
  p.path = j.value("path", "");
  for (const json& t : j.value("tensors", json::array())) {
    ParamTensorInfo pt;
    pt.name = t.at("name").get<std::string>();
    pt.dtype = KnownDType(t.at("dtype"));
    pt.shape = ShapeFrom(t.at("shape"));
    pt.offset = t.at("offset").get<uint64_t>();
    pt.size_bytes = t.at("size_bytes").get<uint64_t>();
    pt.quantization = QuantizationFrom(t);
    pt.layout = t.value("layout", "");
    p.tensors.push_back(std::move(pt));
  }
  return p;
}

MemoryInfo MemoryFrom(const json& j) {
  MemoryInfo m;
  m.workspace_size_bytes = j.at("workspace_size_bytes").get<uint64_t>();
  m.constants_size_bytes = j.at("constants_size_bytes").get<uint64_t>();
  m.io_size_bytes = j.at("io_size_bytes").get<uint64_t>();
  m.alignment_bytes = j.at("alignment_bytes").get<uint64_t>();
  if (j.contains("workspace_lower_bound_bytes")) {
    m.workspace_lower_bound_bytes = j.at("workspace_lower_bound_bytes").get<uint64_t>();
  }
  for (const json& b : j.value("plan", json::array())) {
    PlanBufferInfo buffer;
    buffer.name = b.at("name").get<std::string>();
    buffer.kind = Known(ParsePlanBufferKind, b.at("kind"));
    buffer.offset = b.at("offset").get<uint64_t>();
    buffer.size_bytes = b.at("size_bytes").get<uint64_t>();
    buffer.first_operator = b.at("first_operator").get<uint64_t>();
    buffer.last_operator = b.at("last_operator").get<uint64_t>();
    buffer.inside = b.value("inside", "");
    m.plan.push_back(std::move(buffer));
  }
  return m;
}

TargetInfo TargetFrom(const json& j) {
  TargetInfo t;
  t.kind = j.at("kind").get<std::string>();
  t.host_triple = j.value("host_triple", "");
  t.mcpu = j.value("mcpu", "");
  t.attrs = j.value("attrs", std::map<std::string, std::string>{});
  return t;
}

SourceInfo SourceFrom(const json& j) {
  SourceInfo s;
  s.format = Known(ParseSourceFormat, j.at("format"));
  if (j.contains("opset")) s.opset = j.at("opset").get<int64_t>();
  s.sha256 = j.value("sha256", "");
  s.path = j.value("path", "");
  for (const json& f : j.value("input_shapes", json::array())) {
    s.input_shapes.push_back({f.at("name").get<std::string>(), ShapeFrom(f.at("shape"))});
  }
  for (const json& c : j.value("constants", json::array())) {
    s.constants.push_back({c.at("name").get<std::string>(), KnownDType(c.at("dtype")),
                           ShapeFrom(c.at("shape")), c.at("sha256").get<std::string>()});
  }
  return s;
}

HostLibraryInfo HostLibraryFrom(const json& j) {
  HostLibraryInfo h;
  h.path = j.at("path").get<std::string>();
  h.triple = j.at("triple").get<std::string>();
  h.compiler = j.value("compiler", "");
  h.flags = j.value("flags", std::vector<std::string>{});
  return h;
}

std::vector<OperatorInfo> OperatorsFrom(const json& j) {
  std::vector<OperatorInfo> out;
  for (const json& o : j) {
    OperatorInfo op;
    op.name = o.at("name").get<std::string>();
    op.ops = o.value("ops", std::vector<std::string>{});
    op.macs = o.value("macs", uint64_t{0});
    if (o.contains("param_bytes")) op.param_bytes = o.at("param_bytes").get<uint64_t>();
    out.push_back(std::move(op));
  }
  return out;
}

ModuleMetadata ModuleFrom(const json& j) {
  ModuleMetadata m;
  m.model_name = j.at("model_name").get<std::string>();
  m.style = Known(ParseModuleStyle, j.at("style"));
  m.executors.clear();
  for (const json& e : j.at("executors")) m.executors.push_back(Known(ParseExecutor, e));
  m.interface_api = Known(ParseInterfaceApi, j.at("interface_api"));
  m.abi_version = j.at("abi_version").get<int64_t>();
  m.target = TargetFrom(j.at("target"));
  if (j.contains("source")) m.source = SourceFrom(j.at("source"));
  m.inputs = TensorsFrom(j.at("inputs"));
  m.outputs = TensorsFrom(j.at("outputs"));
  m.memory = MemoryFrom(j.at("memory"));
  if (j.contains("parameters")) m.parameters = ParametersFrom(j.at("parameters"));
  if (j.contains("host_library")) m.host_library = HostLibraryFrom(j.at("host_library"));
  m.sources = j.at("sources").get<std::vector<std::string>>();
  if (j.contains("operators")) m.operators = OperatorsFrom(j.at("operators"));
  if (j.contains("kernels")) {
    m.kernels = KernelsInfo{j.at("kernels").at("families").get<std::vector<std::string>>(),
                            j.at("kernels").at("variants").get<std::vector<std::string>>()};
  }
  m.description = j.value("description", "");
  return m;
}

Metadata MetadataFrom(const json& j) {
  Metadata md;
  md.version = j.at("version").get<int>();
  md.generator_name = j.at("generator").at("name").get<std::string>();
  md.generator_version = j.at("generator").at("version").get<std::string>();
  md.export_datetime = j.at("export_datetime").get<std::string>();
  for (const auto& [name, module] : j.at("modules").items()) {
    md.modules.emplace(name, ModuleFrom(module));
  }
  if (j.contains("files")) {
    for (const auto& [path, entry] : j.at("files").items()) {
      md.files.emplace(path, FileEntry{entry.at("size").get<uint64_t>(),
                                       entry.at("sha256").get<std::string>()});
    }
  }
  return md;
}

// ---- model -> JSON. Optional parts are omitted when empty so that metadata
// written by mlfkit stays minimal and round-trips exactly.

void AddQuantization(const std::optional<QuantizationInfo>& q, json* owner) {
  if (!q) return;
  json j = {{"scale", q->scale}, {"zero_point", q->zero_point}};
  if (q->axis) j["axis"] = *q->axis;
  (*owner)["quantization"] = j;
}

json TensorTo(const TensorInfo& t) {
  json j = {{"name", t.name}, {"c_name", t.c_name}, {"dtype", ToString(t.dtype)},
            {"shape", t.shape}, {"size_bytes", t.size_bytes}};
  AddQuantization(t.quantization, &j);
  return j;
}

json TensorsTo(const std::vector<TensorInfo>& ts) {
  json out = json::array();
  for (const TensorInfo& t : ts) out.push_back(TensorTo(t));
  return out;
}

json ParametersTo(const ParametersInfo& p) {
  json tensors = json::array();
  for (const ParamTensorInfo& t : p.tensors) {
    json tensor = {{"name", t.name}, {"dtype", ToString(t.dtype)}, {"shape", t.shape},
                   {"offset", t.offset}, {"size_bytes", t.size_bytes}};
    AddQuantization(t.quantization, &tensor);
    if (!t.layout.empty()) tensor["layout"] = t.layout;
    tensors.push_back(tensor);
  }
  json j = {{"storage", ToString(p.storage)}, {"tensors", tensors}};
  if (!p.path.empty()) j["path"] = p.path;
  return j;
}

json MemoryTo(const MemoryInfo& m) {
  json j = {{"workspace_size_bytes", m.workspace_size_bytes},
            {"constants_size_bytes", m.constants_size_bytes},
            {"io_size_bytes", m.io_size_bytes},
            {"alignment_bytes", m.alignment_bytes}};
  if (m.workspace_lower_bound_bytes) {
    j["workspace_lower_bound_bytes"] = *m.workspace_lower_bound_bytes;
  }
  if (!m.plan.empty()) {
    json plan = json::array();
    for (const PlanBufferInfo& b : m.plan) {
      json buffer = {{"name", b.name}, {"kind", ToString(b.kind)}, {"offset", b.offset},
                     {"size_bytes", b.size_bytes}, {"first_operator", b.first_operator},
                     {"last_operator", b.last_operator}};
      if (!b.inside.empty()) buffer["inside"] = b.inside;
      plan.push_back(buffer);
    }
    j["plan"] = plan;
  }
  return j;
}

json TargetTo(const TargetInfo& t) {
  json j = {{"kind", t.kind}};
  if (!t.host_triple.empty()) j["host_triple"] = t.host_triple;
  if (!t.mcpu.empty()) j["mcpu"] = t.mcpu;
  if (!t.attrs.empty()) j["attrs"] = t.attrs;
  return j;
}

json SourceTo(const SourceInfo& s) {
  json j = {{"format", ToString(s.format)}};
  if (s.opset) j["opset"] = *s.opset;
  if (!s.sha256.empty()) j["sha256"] = s.sha256;
  if (!s.path.empty()) j["path"] = s.path;
  if (!s.input_shapes.empty()) {
    json shapes = json::array();
    for (const SourceInfo::FixedShape& f : s.input_shapes) {
      shapes.push_back({{"name", f.name}, {"shape", f.shape}});
    }
    j["input_shapes"] = shapes;
  }
  if (!s.constants.empty()) {
    json constants = json::array();
    for (const SourceInfo::FixedConstant& c : s.constants) {
      constants.push_back({{"name", c.name}, {"dtype", ToString(c.dtype)}, {"shape", c.shape},
                           {"sha256", c.sha256}});
    }
    j["constants"] = constants;
  }
  return j;
}

json HostLibraryTo(const HostLibraryInfo& h) {
  json j = {{"path", h.path}, {"triple", h.triple}};
  if (!h.compiler.empty()) j["compiler"] = h.compiler;
  j["flags"] = h.flags;
  return j;
}

json OperatorsTo(const std::vector<OperatorInfo>& ops) {
  json out = json::array();
  for (const OperatorInfo& o : ops) {
    json op = {{"name", o.name}, {"ops", o.ops}, {"macs", o.macs}};
    if (o.param_bytes) op["param_bytes"] = *o.param_bytes;
    out.push_back(op);
  }
  return out;
}

json ModuleTo(const ModuleMetadata& m) {
  json j = {{"model_name", m.model_name}, {"style", ToString(m.style)},
            {"executors", ExecutorNames(m.executors)}, {"interface_api", ToString(m.interface_api)},
            {"abi_version", m.abi_version}, {"target", TargetTo(m.target)},
            {"inputs", TensorsTo(m.inputs)}, {"outputs", TensorsTo(m.outputs)},
            {"memory", MemoryTo(m.memory)}, {"sources", m.sources}};
  if (m.source) j["source"] = SourceTo(*m.source);
  if (m.parameters) j["parameters"] = ParametersTo(*m.parameters);
  if (m.host_library) j["host_library"] = HostLibraryTo(*m.host_library);
  if (!m.operators.empty()) j["operators"] = OperatorsTo(m.operators);
  if (m.kernels) j["kernels"] = {{"families", m.kernels->families}, {"variants", m.kernels->variants}};
  if (!m.description.empty()) j["description"] = m.description;
  return j;
}

json MetadataTo(const Metadata& md) {
  json modules = json::object();
  for (const auto& [name, module] : md.modules) modules[name] = ModuleTo(module);
  json files = json::object();
  for (const auto& [path, entry] : md.files) {
    files[path] = {{"size", entry.size}, {"sha256", entry.sha256}};
  }
  return {{"version", md.version},
          {"generator", {{"name", md.generator_name}, {"version", md.generator_version}}},
          {"export_datetime", md.export_datetime},
          {"modules", modules},
          {"files", files}};
}

const JsonSchema& CompiledSchema(const char* name) {
  // The embedded schema is part of the binary, so a failure here is a build
  // defect, caught by metadata_schema_test.
  auto text = EmbeddedFile(name);
  auto compiled = JsonSchema::Compile(json::parse(*text));
  return *new JsonSchema(std::move(compiled).value());
}

// The schema of one of our own versions (kOldestMetadataVersion to
// kMetadataVersion), each compiled once.
const JsonSchema& OwnSchema(int64_t version) {
  static const JsonSchema& v8 = CompiledSchema("metadata-v8.schema.json");
  static const JsonSchema& v9 = CompiledSchema("metadata-v9.schema.json");
  return version == 8 ? v8 : v9;
}

Status CheckVersion(int64_t version) {
  if (version > kMetadataVersion) {
    return FailedPrecondition("metadata version " + std::to_string(version) +
                              " is newer than this mlfkit supports (version " +
                              std::to_string(kMetadataVersion) + "); upgrade mlfkit");
  }
  if (version < kOldestMetadataVersion && !IsTvmMetadataVersion(version)) {
    return FailedPrecondition("metadata version " + std::to_string(version) +
                              " is not supported (supported: 5, 6, 7, 8, 9)");
  }
  return Status::Ok();
}

Result<json> ParseMetadataJson(std::string_view text) {
  Result<json> j = ParseBoundedJson(text, kMaxMetadataBytes, kMaxJsonDepth);
  if (!j.ok()) return j.status().WithContext("metadata.json");
  return j;
}

Result<Metadata> Parse(std::string_view text, bool packing) {
  MLF_ASSIGN_OR_RETURN(json j, ParseMetadataJson(text));
  if (!j.is_object()) return InvalidArgument("metadata.json: top level is not a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer()) {
    return InvalidArgument("metadata.json: missing integer field \"version\"");
  }
  const int64_t version = j["version"].get<int64_t>();
  MLF_RETURN_IF_ERROR(CheckVersion(version));
  if (IsTvmMetadataVersion(version)) {
    if (packing) {
      return FailedPrecondition("metadata.json is TVM's (version " + std::to_string(version) +
                                "): packing writes mlfkit's own versions only");
    }
    // TVM's metadata.json alone does not describe a model: the TVM wing
    // reads it with its whole archive; this layer does not know how.
    return FailedPrecondition("metadata.json is TVM's (version " + std::to_string(version) +
                              "): it is read together with its archive, not alone");
  }
  if (packing && !j.contains("files")) j["files"] = json::object();
  Status valid = OwnSchema(version).Validate(j);
  if (!valid.ok()) {
    return valid.WithContext("metadata.json does not match the version " + std::to_string(version) +
                             " schema");
  }
  Metadata md = MetadataFrom(j);
  MLF_RETURN_IF_ERROR(CheckMetadataSemantics(md, !packing).WithContext("metadata.json"));
  return md;
}

}  // namespace

Result<Metadata> ParseMetadata(std::string_view json_text) { return Parse(json_text, false); }

Result<Metadata> ParseMetadataForPacking(std::string_view json_text) {
  return Parse(json_text, true);
}

std::string SerializeMetadata(const Metadata& metadata) {
  return MetadataTo(metadata).dump(2) + "\n";
}

Result<int> PeekMetadataVersion(std::string_view json_text) {
  MLF_ASSIGN_OR_RETURN(json j, ParseMetadataJson(json_text));
  if (!j.is_object() || !j.contains("version") || !j["version"].is_number_integer()) {
    return InvalidArgument("metadata.json: missing integer field \"version\"");
  }
  return j["version"].get<int>();
}

}  // namespace mlf
