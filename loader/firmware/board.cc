#include "loader/firmware/board.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "artifact/jsonschema/json_schema.h"
#include "loader/firmware/board_files.h"
#include "schemas/embedded.h"

namespace mlf::firmware {
namespace {

using nlohmann::json;

constexpr char kSchemaName[] = "board-v1.schema.json";
// A board file is a page of text; more is a mistake (or an attack).
constexpr size_t kMaxBoardFileBytes = 64 * 1024;
// Values after aliases are expanded, and nesting: bounds on hostile files.
constexpr int kMaxValues = 4096;
constexpr int kMaxDepth = 16;

bool IsDecimal(const std::string& s) {
  return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), ::isdigit);
}

bool IsHex(const std::string& s) {
  return s.size() > 2 && s.size() <= 18 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
         std::all_of(s.begin() + 2, s.end(), ::isxdigit);
}

// A YAML value as JSON: plain scalars that are decimal or 0x-hexadecimal
// integers, true/false or null become those; everything else is a string.
class YamlToJson {
 public:
  Result<json> Convert(const YAML::Node& node, int depth) {
    if (++count_ > kMaxValues) {
      return InvalidArgument("more than " + std::to_string(kMaxValues) + " values");
    }
    if (depth > kMaxDepth) return InvalidArgument("nested deeper than " + std::to_string(kMaxDepth));
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        return json(nullptr);
      case YAML::NodeType::Scalar:
        return Scalar(node);
      case YAML::NodeType::Sequence: {
        json array = json::array();
        for (const YAML::Node& item : node) {
          MLF_ASSIGN_OR_RETURN(json v, Convert(item, depth + 1));
          array.push_back(std::move(v));
        }
        return array;
      }
      case YAML::NodeType::Map: {
        json object = json::object();
        for (const auto& entry : node) {
          if (!entry.first.IsScalar()) return InvalidArgument("a mapping key that is not text");
          MLF_ASSIGN_OR_RETURN(json v, Convert(entry.second, depth + 1));
          object[entry.first.Scalar()] = std::move(v);
        }
        return object;
      }
    }
    return json(nullptr);
  }

 private:
  static json Scalar(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    if (node.Tag() != "?") return text;  // quoted, or tagged: a string
    if (text == "true") return true;
    if (text == "false") return false;
    if (text == "null" || text == "~") return nullptr;
    if (IsDecimal(text)) return std::stoull(text);
    if (IsHex(text)) return std::stoull(text.substr(2), nullptr, 16);
    return text;
  }

  int count_ = 0;
};

// "/memory/1/base" -> "memory[1].base"; "" -> "(top level)".
std::string FieldName(const std::string& pointer) {
  if (pointer.empty() || pointer == "(root)") return "(top level)";
  std::string out;
  size_t start = 1;
  while (start <= pointer.size()) {
    size_t end = pointer.find('/', start);
    if (end == std::string::npos) end = pointer.size();
    const std::string token = pointer.substr(start, end - start);
    if (IsDecimal(token)) {
      out += "[" + token + "]";
    } else {
      out += (out.empty() ? "" : ".") + token;
    }
    start = end + 1;
  }
  return out;
}

// The validator's "<pointer>: <what>" errors, with fields named as in YAML.
std::string SchemaErrors(const std::string& message) {
  std::string out;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find("; /", start);
    const size_t root = message.find("; (root)", start);
    if (root != std::string::npos && (end == std::string::npos || root < end)) end = root;
    if (end == std::string::npos) end = message.size();
    std::string error = message.substr(start, end - start);
    const size_t colon = error.find(": ");
    if (colon != std::string::npos && (error[0] == '/' || error.rfind("(root)", 0) == 0)) {
      error = FieldName(error.substr(0, colon)) + error.substr(colon);
    }
    out += (out.empty() ? "" : "; ") + error;
    start = end + 2;
  }
  return out;
}

Result<JsonSchema> BoardSchema() {
  std::optional<std::string_view> text = EmbeddedFile(kSchemaName);
  if (!text) return Internal(std::string("the board schema ") + kSchemaName + " is not embedded");
  json schema = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) return Internal(std::string(kSchemaName) + " is not JSON");
  return JsonSchema::Compile(schema);
}

bool CpuHas(const std::string& cpu, const std::string& feature) {
  static const std::map<std::string, std::vector<std::string>> kOptional = {
      {"cortex-m0", {}},
      {"cortex-m3", {}},
      {"cortex-m4", {"dsp"}},
      {"cortex-m4f", {"fpu", "dsp"}},
      {"cortex-m7", {"fpu", "dsp"}},
      {"cortex-m33", {"fpu", "dsp"}},
      {"cortex-m55", {"fpu", "dsp", "mve"}}};
  const std::vector<std::string>& f = kOptional.at(cpu);
  return std::find(f.begin(), f.end(), feature) != f.end();
}

Status Field(const std::string& file, const std::string& field, const std::string& what) {
  return InvalidArgument(file + ": " + field + ": " + what);
}

Status CheckFeatures(const Board& b, const std::string& file) {
  const std::pair<const char*, bool> features[] = {{"fpu", b.fpu}, {"dsp", b.dsp}, {"mve", b.mve}};
  for (const auto& [feature, on] : features) {
    if (on && !CpuHas(b.cpu, feature)) {
      return Field(file, std::string("features.") + feature,
                   b.cpu + " has no " + (std::string(feature) == "fpu" ? "FPU" : feature == std::string("dsp") ? "DSP extension" : "MVE (Helium)") +
                       (b.cpu == "cortex-m4" && std::string(feature) == "fpu"
                            ? " (a Cortex-M4 with an FPU is cpu: cortex-m4f)"
                            : ""));
    }
  }
  if (b.cpu == "cortex-m4f" && !b.fpu) {
    return Field(file, "features.fpu", "cortex-m4f has an FPU (without one the CPU is cortex-m4)");
  }
  if (b.mve && !b.dsp) return Field(file, "features.dsp", "MVE needs the DSP extension (dsp: true)");
  return Status::Ok();
}

std::string Hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

Status CheckMemory(const Board& b, const std::string& file) {
  for (size_t i = 0; i < b.memory.size(); ++i) {
    const MemoryRegion& r = b.memory[i];
    const std::string field = "memory[" + std::to_string(i) + "]";
    if (r.base + r.size > (uint64_t{1} << 32)) {
      return Field(file, field + ".size",
                   "region " + r.name + " ends at " + Hex(r.base + r.size) +
                       ", beyond the 32-bit address space");
    }
    // The name goes into the script's MEMORY command, where these are commands
    // or abbreviations of ORIGIN and LENGTH.
    static const char* const kLinkerWords[] = {
        "MEMORY", "SECTIONS", "ORIGIN", "LENGTH", "INCLUDE", "ENTRY", "NOLOAD", "AT", "ALIGN", "KEEP",
        "PROVIDE", "PROVIDE_HIDDEN", "ASSERT", "INPUT", "GROUP", "o", "org", "l", "len"};
    for (const char* word : kLinkerWords) {
      if (r.name == word) {
        return Field(file, field + ".name", "region name " + r.name + " is a word of linker scripts");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      const MemoryRegion& o = b.memory[j];
      if (o.name == r.name) {
        return Field(file, field + ".name", "region name " + r.name + " is also memory[" + std::to_string(j) + "]'s");
      }
      if (r.base < o.base + o.size && o.base < r.base + r.size) {
        return Field(file, field + ".base",
                     "region " + r.name + " (" + Hex(r.base) + ".." + Hex(r.base + r.size) +
                         ") overlaps region " + o.name + " (" + Hex(o.base) + ".." +
                         Hex(o.base + o.size) + ")");
      }
    }
  }
  const std::pair<const char*, const std::string*> parts[] = {{"code", &b.code},
                                                             {"constants", &b.constants},
                                                             {"workspace", &b.workspace},
                                                             {"io", &b.io},
                                                             {"stack", &b.stack}};
  for (const auto& [part, region] : parts) {
    // A named copy: C++17 lambdas cannot capture a structured binding (clang refuses).
    const std::string& wanted = *region;
    const bool known = std::any_of(b.memory.begin(), b.memory.end(),
                                   [&](const MemoryRegion& r) { return r.name == wanted; });
    std::string names;
    for (const MemoryRegion& r : b.memory) names += (names.empty() ? "" : ", ") + r.name;
    if (!known) {
      return Field(file, std::string("placement.") + part,
                   "no memory region is named " + *region + " (the regions are " + names + ")");
    }
  }
  if (!b.Region(b.code).executable) {
    return Field(file, "placement.code", "region " + b.code + " is not executable (executable: true)");
  }
  if (b.Region(b.stack).size < b.stack_bytes) {
    return Field(file, "stack_size",
                 std::to_string(b.stack_bytes) + " bytes do not fit region " + b.stack + " (" +
                     std::to_string(b.Region(b.stack).size) + " bytes)");
  }
  return Status::Ok();
}

Board FromJson(const json& j) {
  Board b;
  b.name = j.at("name");
  b.description = j.value("description", std::string());
  b.cpu = j.at("cpu");
  const json features = j.value("features", json::object());
  b.fpu = features.value("fpu", b.cpu == "cortex-m4f");
  b.dsp = features.value("dsp", b.cpu == "cortex-m4" || b.cpu == "cortex-m4f" || b.cpu == "cortex-m7");
  b.mve = features.value("mve", false);
  for (const json& r : j.at("memory")) {
    MemoryRegion region;
    region.name = r.at("name");
    region.base = r.at("base");
    region.size = r.at("size");
    region.executable = r.value("executable", false);
    region.dma = r.value("dma", false);
    region.fast = r.value("fast", false);
    region.description = r.value("description", std::string());
    b.memory.push_back(region);
  }
  const json& p = j.at("placement");
  b.code = p.at("code");
  b.constants = p.at("constants");
  b.workspace = p.at("workspace");
  b.io = p.at("io");
  b.stack = p.at("stack");
  b.stack_bytes = j.at("stack_size");
  const std::string console = j.at("console").at("type");
  b.console = console == "cmsdk-uart"    ? ConsoleKind::kCmsdkUart
              : console == "stm32-usart" ? ConsoleKind::kStm32Usart
              : console == "nrf-uart"    ? ConsoleKind::kNrfUart
                                         : ConsoleKind::kSemihosting;
  b.console_address = j.at("console").value("address", uint64_t{0});
  b.clock_hz = j.value("clock_hz", uint64_t{0});
  if (j.contains("qemu")) b.qemu_machine = j.at("qemu").at("machine");
  return b;
}

}  // namespace

const MemoryRegion& Board::Region(const std::string& region_name) const {
  for (const MemoryRegion& r : memory) {
    if (r.name == region_name) return r;
  }
  return memory.front();  // unreachable for a checked board
}

Result<Board> ParseBoard(std::string_view yaml, const std::string& file) {
  if (yaml.size() > kMaxBoardFileBytes) {
    return InvalidArgument(file + ": the board file is larger than " +
                           std::to_string(kMaxBoardFileBytes) + " bytes");
  }
  json j;
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    YamlToJson converter;
    Result<json> converted = converter.Convert(root, 0);
    if (!converted.ok()) return InvalidArgument(file + ": " + converted.status().message());
    j = std::move(*converted);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  MLF_ASSIGN_OR_RETURN(JsonSchema schema, BoardSchema());
  Status valid = schema.Validate(j);
  if (!valid.ok()) return InvalidArgument(file + ": " + SchemaErrors(valid.message()));
  Board board = FromJson(j);
  MLF_RETURN_IF_ERROR(CheckFeatures(board, file));
  MLF_RETURN_IF_ERROR(CheckMemory(board, file));
  return board;
}

Result<Board> ReadBoardFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read board file " + path);
  std::string text(kMaxBoardFileBytes + 1, '\0');
  in.read(&text[0], static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return ParseBoard(text, path);
}

Result<Board> BuiltinBoard(const std::string& name) {
  for (const embed::Entry& e : BoardFiles()) {
    if (e.key == name + ".yaml") return ParseBoard(e.data, "built-in board " + std::string(e.key));
  }
  std::string names;
  for (const std::string& n : BuiltinBoardNames()) names += (names.empty() ? "" : ", ") + n;
  return InvalidArgument("unknown board '" + name + "' (built in: " + names +
                         "; or give a board file, NAME.yaml)");
}

std::vector<std::string> BuiltinBoardNames() {
  std::vector<std::string> names;
  for (const embed::Entry& e : BoardFiles()) {
    const std::string p(e.key);
    names.push_back(p.substr(0, p.size() - 5));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string CpuDisplayName(const Board& b) {
  std::string name = "Cortex-M" + b.cpu.substr(std::string("cortex-m").size());
  if (name.back() == 'f') name.back() = 'F';
  if (b.cpu == "cortex-m7" && b.fpu) name += "F";
  return name;
}

std::vector<std::string> CpuFlags(const Board& b) {
  // -mcpu and the FPU of each core; without an FPU, the soft-float ABI.
  struct Cpu {
    const char* mcpu;
    const char* fpu;  // -mfpu with an FPU; nullptr: never has one
  };
  static const std::map<std::string, Cpu> kCpus = {
      {"cortex-m0", {"cortex-m0", nullptr}},       {"cortex-m3", {"cortex-m3", nullptr}},
      {"cortex-m4", {"cortex-m4", nullptr}},       {"cortex-m4f", {"cortex-m4", "fpv4-sp-d16"}},
      {"cortex-m7", {"cortex-m7", "fpv5-d16"}},    {"cortex-m33", {"cortex-m33", "fpv5-sp-d16"}},
      {"cortex-m55", {"cortex-m55", "auto"}}};
  const Cpu& cpu = kCpus.at(b.cpu);
  std::string mcpu = std::string("-mcpu=") + cpu.mcpu;
  if (b.cpu == "cortex-m33" && !b.dsp) mcpu += "+nodsp";
  if (b.cpu == "cortex-m55") {
    if (!b.mve) mcpu += "+nomve";
    if (!b.fpu) mcpu += "+nofp";
  }
  std::vector<std::string> flags = {mcpu, "-mthumb"};
  if (b.fpu && cpu.fpu != nullptr) {
    flags.push_back("-mfloat-abi=hard");
    flags.push_back(std::string("-mfpu=") + cpu.fpu);
  }
  return flags;
}

std::string ConsoleName(ConsoleKind kind) {
  switch (kind) {
    case ConsoleKind::kSemihosting: return "semihosting";
    case ConsoleKind::kCmsdkUart: return "cmsdk-uart";
    case ConsoleKind::kStm32Usart: return "stm32-usart";
    case ConsoleKind::kNrfUart: return "nrf-uart";
  }
  return "";
}

}  // namespace mlf::firmware
