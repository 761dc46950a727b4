#include "loader/firmware/size_report.h"

#include <cstdlib>
#include <map>

namespace mlf::firmware {
namespace {

const char* const kPartNames[] = {
    "model code", "model constants",   "parameters", "workspace", "I/O buffers", "sample inputs",
    "main",       "output formatting", "startup",    "stack",     "C library",   "padding"};

enum class Region { kNone, kFlash, kRam, kBoth };

// Where an output section of the generated linker script (linker_script.h) lives.
Region OutputRegion(const std::string& name) {
  for (const char* flash : {".text", ".rodata", ".ARM.exidx", ".ARM.extab", ".init_array",
                            ".fini_array", ".preinit_array", ".constants"}) {
    if (name == flash) return Region::kFlash;
  }
  if (name == ".data") return Region::kBoth;  // initial values in flash, copied to RAM
  if (name == ".bss" || name == ".stack" || name == ".workspace") return Region::kRam;
  return Region::kNone;
}

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }
bool Contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

const char* Classify(const std::string& object, const std::string& section) {
  if (StartsWith(section, ".bss.mlf_workspace_")) return "workspace";
  if (StartsWith(section, ".bss.mlf_in_") || StartsWith(section, ".bss.mlf_out_"))
    return "I/O buffers";
  if (Contains(object, ".a(") || StartsWith(object, "/")) return "C library";
  if (Contains(object, "codegen/host/src/")) {
    return StartsWith(section, ".text") ? "model code" : "model constants";
  }
  if (Contains(object, "parameters/")) return "parameters";
  if (Contains(object, "src/sample_inputs")) return "sample inputs";
  if (Contains(object, "src/mlf_print")) return "output formatting";
  if (Contains(object, "src/")) return "main";
  if (Contains(object, "platform/startup")) return "startup";
  return "C library";
}

std::vector<std::string> Tokens(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

bool IsHex(const std::string& token) { return StartsWith(token, "0x"); }
uint64_t Hex(const std::string& token) { return std::strtoull(token.c_str(), nullptr, 16); }

std::string Rest(const std::vector<std::string>& tokens, size_t from) {
  std::string out;
  for (size_t i = from; i < tokens.size(); ++i) out += (i > from ? " " : "") + tokens[i];
  return out;
}

// Sums the kept input sections of a map file into `parts`.
class MapReader {
 public:
  explicit MapReader(std::map<std::string, SizePart>* parts) : parts_(parts) {}

  void Line(std::string_view line) {
    if (line.empty()) return;
    const std::vector<std::string> t = Tokens(line);
    if (t.empty()) return;
    if (line[0] != ' ') return OutputSection(t);
    if (stack_pending_) {
      stack_pending_ = false;
      if (t.size() >= 2 && IsHex(t[0]) && IsHex(t[1])) Add("stack", Hex(t[1]));
      return;
    }
    if (line.size() > 1 && line[1] != ' ') return InputSection(t);
    if (!pending_.empty() && t.size() >= 3 && IsHex(t[0]) && IsHex(t[1])) {
      Add(Classify(Rest(t, 2), pending_), Hex(t[1]));
    }
    pending_.clear();
  }

 private:
  void OutputSection(const std::vector<std::string>& t) {
    pending_.clear();
    region_ = OutputRegion(t[0]);
    if (t[0] != ".stack") return;
    if (t.size() >= 3 && IsHex(t[2])) {
      Add("stack", Hex(t[2]));
    } else {
      stack_pending_ = true;
    }
    region_ = Region::kNone;  // its size is counted once, here
  }

  void InputSection(const std::vector<std::string>& t) {
    pending_.clear();
    if (t[0][0] == '*') return;  // a pattern of the script, or *fill* (padding)
    if (t.size() == 1) {
      pending_ = t[0];  // a long name: address, size and file follow on the next line
    } else if (t.size() >= 4 && IsHex(t[1]) && IsHex(t[2])) {
      Add(Classify(Rest(t, 3), t[0]), Hex(t[2]));
    }
  }

  void Add(const std::string& part, uint64_t size) {
    SizePart& p = (*parts_)[part];
    if (part == "stack" || region_ == Region::kRam || region_ == Region::kBoth) p.ram += size;
    if (part != "stack" && (region_ == Region::kFlash || region_ == Region::kBoth)) p.flash += size;
  }

  std::map<std::string, SizePart>* parts_;
  Region region_ = Region::kNone;
  std::string pending_;
  bool stack_pending_ = false;
};

// text, data and bss from Berkeley-format `size` output.
Result<std::vector<uint64_t>> ParseSizeOutput(std::string_view output) {
  const size_t newline = output.find('\n');
  if (newline == std::string_view::npos) return InvalidArgument("unexpected `size` output");
  const std::vector<std::string> t = Tokens(output.substr(newline + 1));
  if (t.size() < 3) return InvalidArgument("unexpected `size` output: " + std::string(output));
  std::vector<uint64_t> values;
  for (int i = 0; i < 3; ++i) {
    char* end = nullptr;
    values.push_back(std::strtoull(t[i].c_str(), &end, 10));
    if (*end != '\0') return InvalidArgument("unexpected `size` output: " + std::string(output));
  }
  return values;
}

}  // namespace

SizePart SizeReport::Part(const std::string& name) const {
  for (const SizePart& p : parts) {
    if (p.name == name) return p;
  }
  return SizePart{name, 0, 0};
}

uint64_t SizeReport::OverheadFlash() const {
  return Part("startup").flash + Part("main").flash + Part("output formatting").flash;
}

Result<SizeReport> ParseSizeReport(std::string_view size_output, std::string_view map_text) {
  MLF_ASSIGN_OR_RETURN(std::vector<uint64_t> sizes, ParseSizeOutput(size_output));
  const size_t start = map_text.find("Linker script and memory map");
  if (start == std::string_view::npos) return InvalidArgument("not a GNU ld map file");
  std::map<std::string, SizePart> parts;
  MapReader reader(&parts);
  for (size_t pos = start; pos < map_text.size();) {
    size_t end = map_text.find('\n', pos);
    if (end == std::string_view::npos) end = map_text.size();
    reader.Line(map_text.substr(pos, end - pos));
    pos = end + 1;
  }
  SizeReport report;
  report.flash = sizes[0] + sizes[1];
  report.ram = sizes[1] + sizes[2];
  uint64_t flash = 0, ram = 0;
  for (const char* name : kPartNames) {
    SizePart p = parts[name];
    p.name = name;
    flash += p.flash;
    ram += p.ram;
    report.parts.push_back(p);
  }
  report.parts.back().flash = report.flash > flash ? report.flash - flash : 0;
  report.parts.back().ram = report.ram > ram ? report.ram - ram : 0;
  return report;
}

std::string FormatSizeReport(const SizeReport& report) {
  std::string out = "| part | flash (bytes) | RAM (bytes) |\n| --- | ---: | ---: |\n";
  for (const SizePart& p : report.parts) {
    out += "| " + p.name + " | " + std::to_string(p.flash) + " | " + std::to_string(p.ram) + " |\n";
  }
  out +=
      "| total | " + std::to_string(report.flash) + " | " + std::to_string(report.ram) + " |\n\n";
  out += "Flash beyond the model, its parameters and the C library: " +
         std::to_string(report.OverheadFlash()) + " bytes (startup " +
         std::to_string(report.Part("startup").flash) + ", main " +
         std::to_string(report.Part("main").flash) + ", output formatting " +
         std::to_string(report.Part("output formatting").flash) + ").\n";
  return out;
}

}  // namespace mlf::firmware
