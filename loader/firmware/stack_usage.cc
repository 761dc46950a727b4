#include "loader/firmware/stack_usage.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "artifact/base/display_text.h"
#include "artifact/base/subprocess.h"
#include "loader/firmware/decimal.h"

namespace mlf::firmware {
namespace {

constexpr char kIndirectCall[] = "__indirect_call";
// Where gcc's label gives a function's frame: "...\n<N> bytes (<kind>)".
constexpr char kBytesMarker[] = " bytes (";

// The value of `key: "..."` in a VCG line, or "".
std::string Field(const std::string& line, const std::string& key) {
  const std::string start = key + ": \"";
  const size_t at = line.find(start);
  if (at == std::string::npos) return "";
  const size_t from = at + start.size();
  const size_t end = line.find('"', from);
  return end == std::string::npos ? "" : line.substr(from, end - from);
}

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// The depth-first walk of BoundStack, with memo and the current path.
class Bounder {
 public:
  explicit Bounder(const CallGraph& graph) : graph_(graph) {}

  // Bytes of the deepest path from `f`; nullopt when unbounded (why_ says).
  std::optional<uint64_t> Depth(const std::string& f) {
    if (!why_.empty()) return std::nullopt;
    auto known = depth_.find(f);
    if (known != depth_.end()) return known->second;
    const auto frame = graph_.frames.find(f);
    if (!IsIndirect(f) && frame == graph_.frames.end()) return kLibraryCallAllowance;
    auto on_path = std::find(path_.begin(), path_.end(), f);
    if (on_path != path_.end()) {
      std::string cycle;
      for (auto it = on_path; it != path_.end(); ++it) cycle += *it + " -> ";
      why_ = "recursion: " + cycle + f;
      return std::nullopt;
    }
    if (graph_.dynamic.count(f)) {
      why_ = "the frame of " + f + " is dynamic (a variable-length array or alloca)";
      return std::nullopt;
    }
    path_.push_back(f);
    uint64_t deepest = 0;
    std::string child;
    for (const std::string& callee : Callees(f)) {
      std::optional<uint64_t> d = Depth(callee);
      if (!d) return std::nullopt;
      if (*d > deepest || child.empty()) deepest = *d, child = callee;
    }
    path_.pop_back();
    const uint64_t own = IsIndirect(f) ? 0 : frame->second;
    depth_[f] = own + deepest;
    next_[f] = child;
    return own + deepest;
  }

  const std::string& why() const { return why_; }

  // The deepest path from `f` (after Depth(f)), and how many library calls it makes.
  std::vector<std::string> Path(const std::string& f, uint64_t* library_calls) const {
    std::vector<std::string> path;
    std::string at = f;
    while (!at.empty()) {
      if (!IsIndirect(at)) path.push_back(at);
      if (!IsIndirect(at) && !graph_.frames.count(at)) {
        ++*library_calls;
        break;
      }
      auto next = next_.find(at);
      at = next == next_.end() ? "" : next->second;
    }
    return path;
  }

 private:
  static bool IsIndirect(const std::string& f) { return f.rfind(kIndirectCall, 0) == 0; }

  std::vector<std::string> Callees(const std::string& f) const {
    if (IsIndirect(f)) {
      auto targets = graph_.indirect_targets.find(f.substr(sizeof(kIndirectCall)));
      if (targets == graph_.indirect_targets.end()) return {};
      return {targets->second.begin(), targets->second.end()};
    }
    auto calls = graph_.calls.find(f);
    if (calls == graph_.calls.end()) return {};
    return {calls->second.begin(), calls->second.end()};
  }

  const CallGraph& graph_;
  std::map<std::string, uint64_t> depth_;
  std::map<std::string, std::string> next_;
  std::vector<std::string> path_;
  std::string why_;
};

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Functions whose address `readelf_output` (readelf -rW of one object) shows
// taken: absolute relocations against a function's symbol or its section.
void AddAddressTaken(const std::string& readelf_output, std::set<std::string>* names) {
  std::istringstream lines(readelf_output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string offset, info, type, value, symbol;
    if (!(fields >> offset >> info >> type >> value >> symbol)) continue;
    if (type != "R_ARM_ABS32" && type != "R_ARM_THM_MOVW_ABS_NC" && type != "R_ARM_THM_MOVT_ABS") continue;
    if (symbol.rfind(".text.", 0) == 0) symbol = symbol.substr(6);
    names->insert(symbol);
  }
}

}  // namespace

std::vector<std::string> StackUsageFlags() { return {"-fstack-usage", "-fcallgraph-info=su"}; }

Status AddCallGraph(const std::string& ci_text, const std::string& unit, CallGraph* graph) {
  std::istringstream lines(ci_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("node:", 0) == 0) {
      const std::string title = Field(line, "title"), label = Field(line, "label");
      if (title.empty()) return DataLoss("a call graph node without a title: " + QuoteForMessage(line));
      const size_t marker = label.rfind(kBytesMarker);
      if (marker == std::string::npos) continue;  // a callee compiled elsewhere
      const size_t digits = label.rfind("\\n", marker);
      const std::optional<uint64_t> bytes =
          ParseDecimal(label.substr(digits == std::string::npos ? 0 : digits + 2,
                                    marker - (digits == std::string::npos ? 0 : digits + 2)));
      if (!bytes) return DataLoss("a call graph node with no frame size: " + QuoteForMessage(line));
      uint64_t& frame = graph->frames[title];
      frame = std::max(frame, *bytes);
      if (label.compare(marker + sizeof(kBytesMarker) - 1, 7, "dynamic") == 0) graph->dynamic.insert(title);
    } else if (line.rfind("edge:", 0) == 0) {
      const std::string from = Field(line, "sourcename"), to = Field(line, "targetname");
      if (from.empty() || to.empty()) return DataLoss("a call graph edge without ends: " + QuoteForMessage(line));
      graph->calls[from].insert(to == kIndirectCall ? to + ":" + unit : to);
    }
  }
  return Status::Ok();
}

StackBound BoundStack(const CallGraph& graph, const std::vector<std::string>& chain,
                      const std::vector<std::string>& roots, const std::string& handler, uint64_t frame_bytes) {
  StackBound bound;
  Bounder walk(graph);
  uint64_t above = 0;
  for (const std::string& f : chain) {
    auto frame = graph.frames.find(f);
    if (frame == graph.frames.end()) continue;
    above += frame->second;
    bound.deepest_path.push_back(f);
  }
  uint64_t deepest = 0;
  std::string deepest_root;
  for (const std::string& root : roots) {
    if (!graph.frames.count(root)) {
      bound.why_unbounded = "no stack figures for " + root;
      return bound;
    }
    std::optional<uint64_t> d = walk.Depth(root);
    if (!d) {
      bound.why_unbounded = walk.why();
      return bound;
    }
    if (*d > deepest || deepest_root.empty()) deepest = *d, deepest_root = root;
  }
  std::optional<uint64_t> handler_depth = handler.empty() ? std::optional<uint64_t>(0) : walk.Depth(handler);
  if (!handler_depth) {
    bound.why_unbounded = walk.why();
    return bound;
  }
  bound.bounded = true;
  for (const std::string& f : walk.Path(deepest_root, &bound.library_calls)) bound.deepest_path.push_back(f);
  bound.exception_bytes = handler.empty() ? 0 : frame_bytes + *handler_depth;
  bound.bytes = above + deepest + bound.exception_bytes;
  return bound;
}

Result<StackBounds> StaticStackBounds(const std::string& dir, const Platform& platform,
                                      const std::vector<CountedModule>& modules) {
  namespace fs = std::filesystem;
  CallGraph graph;
  std::map<std::string, std::set<std::string>> address_taken;  // per unit (its .ci path)
  std::error_code error;
  const fs::path build = fs::path(dir) / "build";
  for (fs::recursive_directory_iterator it(build, error), end; !error && it != end; it.increment(error)) {
    const fs::path& path = it->path();
    const std::string name = path.generic_string();
    if (!EndsWith(name, ".ci")) continue;
    Status added = AddCallGraph(ReadAll(path), name, &graph);
    if (!added.ok()) return added.WithContext(name);
    // The object beside it: build/x.ci and build/x.o (make), or x.c.ci and x.c.obj (CMake).
    const std::string stem = name.substr(0, name.size() - 3);
    const std::string object = fs::exists(stem + ".o") ? stem + ".o" : stem + ".obj";
    Result<ProcessResult> relocations = RunProcess({platform.tool_prefix() + "readelf", "-rW", object});
    if (!relocations.ok() || relocations->exit_code != 0) {
      return FailedPrecondition("could not read the relocations of " + QuoteForMessage(object, kQuotedPathBytes) +
                                " with " + platform.tool_prefix() + "readelf");
    }
    AddAddressTaken(relocations->output, &address_taken[name]);
  }
  if (error) {
    return FailedPrecondition("could not list " + QuoteForMessage(build.string(), kQuotedPathBytes) + ": " +
                              error.message());
  }
  if (address_taken.empty()) {
    return FailedPrecondition("the build of " + QuoteForMessage(dir, kQuotedPathBytes) +
                              " has no call graph files (*.ci): it was not compiled with -fcallgraph-info=su");
  }
  // gcc names a static function "<file>:<name>"; relocations name it bare.
  for (const auto& [title, bytes] : graph.frames) {
    const size_t colon = title.rfind(':');
    const std::string bare = colon == std::string::npos ? title : title.substr(colon + 1);
    for (const auto& [unit, names] : address_taken) {
      if (names.count(bare)) graph.indirect_targets[unit].insert(title);
    }
  }
  // An exception pushes 8 words, 26 with the FPU's state (lazy stacking
  // reserves it), and may align the stack by one more word.
  const uint64_t frame = (platform.board.fpu ? 104 : 32) + 4;
  const std::string handler = "mlf_systick_handler";
  StackBounds bounds;
  bounds.program = BoundStack(graph, {}, {"reset_handler"}, handler, frame);
  for (const CountedModule& m : modules) {
    std::vector<std::string> roots = {"tvmgen_" + m.c_name + "_run", "mlf_cycles_now", "mlf_stack_used"};
    if (graph.frames.count("mlf_profile_reset")) roots.push_back("mlf_profile_reset");
    StackBound b = BoundStack(graph, {"reset_handler", "main", "src/main.c:run_" + m.c_name}, roots, handler, frame);
    b.module = m.name;
    bounds.inferences.push_back(std::move(b));
  }
  return bounds;
}

Result<std::vector<StackMeasurement>> ReadStackMeasurements(const std::string& output,
                                                            const std::vector<CountedModule>& modules) {
  std::vector<StackMeasurement> out;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("stack ", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::string label, bytes_text, extra;
    fields >> label >> bytes_text;
    const std::optional<uint64_t> bytes = ParseDecimal(bytes_text);
    if (!bytes || (fields >> extra)) {
      return DataLoss("the firmware printed a malformed stack line " + QuoteForMessage(line) +
                      " (expected 'stack <module> <bytes>')");
    }
    auto m = std::find_if(modules.begin(), modules.end(), [&](const CountedModule& c) { return c.c_name == label; });
    if (m == modules.end()) {
      return DataLoss("the firmware printed a stack line for " + QuoteForMessage(label) +
                      ", which is no module of the project: " + QuoteForMessage(line));
    }
    out.push_back({m->name, *bytes});
  }
  return out;
}

namespace {

std::string FormatBound(const StackBound& bound) {
  if (!bound.bounded) return "unbounded (" + DisplayText(bound.why_unbounded) + ")";
  std::string path;
  for (const std::string& f : bound.deepest_path) path += (path.empty() ? "" : " -> ") + DisplayText(f);
  return std::to_string(bound.bytes) + " bytes (-fstack-usage, -fcallgraph-info=su: " + path + "; " +
         std::to_string(kLibraryCallAllowance) + " bytes per C library call" +
         (bound.exception_bytes
              ? "; " + std::to_string(bound.exception_bytes) + " bytes for the SysTick exception's frame and handler"
              : "") +
         ")";
}

}  // namespace

std::string FormatStack(const std::vector<StackMeasurement>& measured, const StackBounds& bounds,
                        uint64_t stack_bytes) {
  std::string out;
  for (const StackMeasurement& m : measured) {
    out += "module " + DisplayText(m.module) + ": stack " + std::to_string(m.bytes) +
           " bytes used (painted), static bound ";
    auto b = std::find_if(bounds.inferences.begin(), bounds.inferences.end(),
                          [&](const StackBound& s) { return s.module == m.module; });
    out += (b == bounds.inferences.end() ? std::string("-") : FormatBound(*b)) + ", of " +
           std::to_string(stack_bytes) + "\n";
  }
  return out + "stack of the whole program (output printing included): static bound " + FormatBound(bounds.program) +
         "\n";
}

}  // namespace mlf::firmware
