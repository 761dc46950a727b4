// Step 2 of the TVM normaliser: completing each module from the archive's
// members (see tvm_metadata.h for the rules).
#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "artifact/base/display_text.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "artifact/format/name_clash.h"
#include "tvm/format/tvm_metadata.h"
#include "tvm/format/tvm_relay.h"
#include "tvm/plan/header_class.h"

namespace mlf {
namespace {

constexpr char kSrcDir[] = "codegen/host/src/";
constexpr char kIncludeDir[] = "codegen/host/include/";
constexpr char kLibDir[] = "codegen/host/lib/";
constexpr char kRuntimeInclude[] = "runtime/include/";

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// "a/b/../c.h" -> "a/c.h"; nullopt when it leaves the archive root.
std::optional<std::string> Lexical(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string part = path.substr(start, end - start);
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    start = end + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

// The archive's members by role, built once (so that completing many
// modules stays linear in the number of members).
struct ArchiveIndex {
  // Sources and objects by owner: "<owner>_lib<N>.c"; "" for "lib<N>.c".
  std::map<std::string, std::vector<std::string>> sources_by_owner, objects_by_owner;
  std::vector<std::string> all_sources, all_objects;
  std::vector<std::string> include_dir;  // every member under codegen/host/include/
  std::vector<std::string> tir_texts;    // src/tir-<device>.txt (operator style)
  bool bundled_runtime = false;
};

std::string Owner(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  const size_t lib = base.rfind("_lib");
  return lib == std::string::npos ? "" : base.substr(0, lib);
}

ArchiveIndex IndexArchive(const TvmArchiveContents& contents) {
  ArchiveIndex index;
  for (const auto& [path, entry] : contents.files) {
    const bool in_src = StartsWith(path, kSrcDir) && path.find('/', sizeof(kSrcDir) - 1) == std::string::npos;
    if (in_src && (EndsWith(path, ".c") || EndsWith(path, ".cc") || EndsWith(path, ".cpp"))) {
      index.all_sources.push_back(path);
      index.sources_by_owner[Owner(path)].push_back(path);
    }
    if (StartsWith(path, kLibDir) && EndsWith(path, ".o")) {
      index.all_objects.push_back(path);
      index.objects_by_owner[Owner(path)].push_back(path);
    }
    if (StartsWith(path, kIncludeDir)) index.include_dir.push_back(path);
    if (StartsWith(path, "src/tir-")) index.tir_texts.push_back(path);
    if (StartsWith(path, kRuntimeInclude)) index.bundled_runtime = true;
  }
  return index;
}

enum class IncludeKind { kMember, kCompat, kStandard, kExternal, kMissing };

// Resolves an #include of `from` the way the host build does (the file's
// own directory for "...", -I codegen/host/include, a bundled
// runtime/include, then mlfkit's compatibility headers).
IncludeKind ResolveInclude(const TvmArchiveContents& contents, bool bundled, const std::string& from,
                           const CodeInclude& inc, std::string* member) {
  std::vector<std::string> candidates;
  if (!inc.angled) candidates.push_back(Directory(from) + inc.path);
  candidates.push_back(kIncludeDir + inc.path);
  if (bundled) candidates.push_back(kRuntimeInclude + inc.path);
  for (const std::string& c : candidates) {
    std::optional<std::string> path = Lexical(c);
    if (path && contents.files.count(*path)) {
      *member = *path;
      return IncludeKind::kMember;
    }
  }
  // The classes are tvm/plan/header_class.h's, the one list.
  const HeaderClass cls = ClassifyHeader(inc.path);
  if (cls == HeaderClass::kTvmRuntime) return IncludeKind::kCompat;
  if (cls == HeaderClass::kCLibrary || cls == HeaderClass::kCompiler) return IncludeKind::kStandard;
  const std::string base = inc.path.substr(inc.path.rfind('/') + 1);
  const bool generated = StartsWith(base, "tvmgen_");
  const bool runtime = IsTvmRuntimePath(inc.path);
  // TVM's own generated headers must be in the archive, and so must quoted
  // includes, except TVM runtime headers (a TVM C runtime provides those).
  if (generated || (!inc.angled && !runtime)) return IncludeKind::kMissing;
  return IncludeKind::kExternal;
}

Status MissingInclude(const std::string& from, const CodeInclude& inc) {
  return NotFound(from + " includes " + (inc.angled ? "<" : "\"") + inc.path +
                  (inc.angled ? ">" : "\"") + ", which is not in the archive");
}

// What the headers of codegen/host/include/ include, checked once for all
// modules: problems, headers from outside the archive, foreign code.
struct HeaderFindings {
  std::vector<Status> problems;
  std::vector<std::string> external;
  std::string foreign_evidence;
  CodeArch foreign_arch = CodeArch::kAny;
};

HeaderFindings CheckHeaders(const TvmArchiveContents& contents, const ArchiveIndex& index) {
  HeaderFindings f;
  std::set<std::string> external;
  for (const std::string& path : index.include_dir) {
    auto it = contents.code.find(path);
    if (it == contents.code.end()) continue;
    for (const CodeInclude& inc : it->second.includes) {
      std::string member;
      switch (ResolveInclude(contents, index.bundled_runtime, path, inc, &member)) {
        case IncludeKind::kMissing: f.problems.push_back(MissingInclude(path, inc)); break;
        case IncludeKind::kExternal:
          if (external.insert(inc.path).second) f.external.push_back(inc.path);
          break;
        default: break;
      }
    }
    const TvmCodeScan& scan = it->second;
    if (scan.arch != CodeArch::kAny && !CodeArchRunsOnThisHost(scan.arch) && f.foreign_evidence.empty()) {
      f.foreign_arch = scan.arch;
      f.foreign_evidence = path + " " + scan.arch_evidence;
    }
  }
  return f;
}

// One input or output as the normaliser assembles it.
struct IoCandidate {
  std::string name;
  DTypeValue dtype;
  std::vector<int64_t> shape;
  bool shape_known = false;
  std::optional<uint64_t> size;
};

// Completes one module; collects problems and the members it uses.
class ModuleCompleter {
 public:
  ModuleCompleter(const std::string& name, ModuleMetadata* m, const TvmArchiveContents& contents,
                  const ArchiveIndex& index, const HeaderFindings& headers, bool only_module,
                  std::vector<Status>* problems, std::set<std::string>* used)
      : name_(name), c_name_(SanitizeCName(name)), m_(m), tvm_(*m->tvm), contents_(contents),
        index_(index), headers_(headers), only_module_(only_module), problems_(problems),
        used_(used) {}

  void Run() {
    FindMembers();
    if (m_->style == ModuleStyle::kOperator) {
      CheckCode();
      CheckGenerated();
      return;
    }
    ReadHeader();
    ReadParams();
    ReadEntry();
    ReadSignatures();
    MergeTensors();
    TensorsFromCode();
    CheckCode();
    CheckGenerated();
    CheckExecutor();
    const bool aot = !tvm_.executor || *tvm_.executor == Executor::kAot;
    if (aot && !tvm_.linked_params.empty() && m_->parameters &&
        !m_->parameters->tensors.empty()) {
      Note(m_->parameters->path + " is not used: the code links its parameters (" +
           tvm_.linked_params + ")");
    }
    if (!tvm_.relay_path.empty()) m_->source = SourceInfo{SourceFormat::kTvm, std::nullopt, "", tvm_.relay_path, {}, {}};
  }

 private:
  bool Has(const std::string& path) const { return contents_.files.count(path) > 0; }

  void Use(const std::string& path) { used_->insert(path); }

  void Problem(Status s) {
    problems_->push_back(s.WithContext("module " + QuoteForMessage(name_)));
  }

  void Note(const std::string& text) { notes_.push_back(text); }

  // The first of `candidates` that is a member.
  std::string First(std::initializer_list<std::string> candidates) const {
    for (const std::string& c : candidates) {
      if (!c.empty() && Has(c)) return c;
    }
    return "";
  }

  std::vector<std::string> Owned(const std::map<std::string, std::vector<std::string>>& by_owner,
                                 const std::vector<std::string>& all) const {
    std::vector<std::string> out;
    for (const std::string& owner : {name_, c_name_}) {
      auto it = by_owner.find(owner);
      if (it != by_owner.end()) out.insert(out.end(), it->second.begin(), it->second.end());
      if (name_ == c_name_) break;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    // Older exports named sources lib<N>.c: they belong to the only module.
    return out.empty() && only_module_ ? all : out;
  }

  void FindMembers() {
    m_->sources = Owned(index_.sources_by_owner, index_.all_sources);
    tvm_.object_files = Owned(index_.objects_by_owner, index_.all_objects);
    tvm_.bundled_runtime = index_.bundled_runtime;
    for (const std::string& s : m_->sources) Use(s);
    for (const std::string& o : tvm_.object_files) Use(o);
    tvm_.header_path = First({std::string(kIncludeDir) + "tvmgen_" + c_name_ + ".h"});
    tvm_.relay_path = First({"src/" + name_ + ".relay", only_module_ ? "src/relay.txt" : ""});
    tvm_.graph_path = First({"executor-config/graph/" + name_ + ".graph",
                             only_module_ ? "executor-config/graph/graph.json" : ""});
    const std::string params = First({"parameters/" + name_ + ".params"});
    for (const std::string& p : {tvm_.header_path, tvm_.relay_path, tvm_.graph_path, params}) {
      if (!p.empty()) Use(p);
    }
    if (!params.empty()) m_->parameters = ParametersInfo{ParamStorage::kTvmParams, params, {}};
    if (m_->style == ModuleStyle::kOperator) {
      for (const std::string& t : index_.tir_texts) Use(t);
    }
  }

  const std::string* Text(const std::string& path) const {
    auto it = contents_.texts.find(path);
    return it == contents_.texts.end() ? nullptr : &it->second;
  }

  void ReadHeader() {
    if (tvm_.header_path.empty()) {
      if (m_->interface_api == InterfaceApi::kC) {
        Problem(NotFound("its target asks for the C interface (-interface-api=c) but the archive has no " +
                         std::string(kIncludeDir) + "tvmgen_" + c_name_ + ".h"));
      }
      return;
    }
    const std::string* text = Text(tvm_.header_path);
    if (text == nullptr) {
      Note(tvm_.header_path + " is too large to read");
      return;
    }
    header_ = ParseTvmInterfaceHeader(*text, c_name_);
    if (header_->declares_run) {
      m_->interface_api = InterfaceApi::kC;
      tvm_.run_function = "tvmgen_" + c_name_ + "_run";
      for (const std::string& p : header_->run_parameters) {
        if (p != "inputs" && p != "outputs") tvm_.extra_run_arguments.push_back(p);
      }
    }
  }

  void ReadParams() {
    if (!m_->parameters) return;
    auto it = contents_.params.find(m_->parameters->path);
    if (it == contents_.params.end()) {
      Note(m_->parameters->path + " is too large to index");
      return;
    }
    if (!it->second.status.ok()) {
      Problem(it->second.status.WithContext(m_->parameters->path));
      return;
    }
    m_->parameters->tensors = it->second.tensors;
    for (const ParamTensorInfo& t : it->second.tensors) param_names_.insert(t.name);
  }

  bool IsParam(const std::string& printed) const {
    return param_names_.count(printed) ||
           (printed.size() > 1 && printed[0] == 'v' && param_names_.count(printed.substr(1)));
  }

  // What the sources define: the entry points with their parameters, the
  // entry bodies, and whether the code links its parameters. The sources
  // win over the header: a TVM 0.8 header declares a struct run that the
  // code lacks (it defines only the positional run_model).
  void ReadEntry() {
    bool scanned_all = !m_->sources.empty();
    for (const std::string& file : m_->sources) {
      auto it = contents_.code.find(file);
      if (it == contents_.code.end()) {
        scanned_all = false;
        continue;
      }
      const TvmCodeScan& scan = it->second;
      defined_.insert(scan.defined_functions.begin(), scan.defined_functions.end());
      functions_.insert(scan.function_params.begin(), scan.function_params.end());
      bodies_.insert(scan.entry_bodies.begin(), scan.entry_bodies.end());
      if (tvm_.linked_params.empty() && !scan.linked_params.empty()) {
        tvm_.linked_params = file + " " + scan.linked_params;
      }
    }
    for (const char* suffix : {"___tvm_main__", "_run_model"}) {
      const std::string fn = "tvmgen_" + c_name_ + suffix;
      if (defined_.count(fn)) {
        tvm_.main_function = fn;
        break;
      }
    }
    const std::string run = "tvmgen_" + c_name_ + "_run";
    if (defined_.count(run)) {
      tvm_.run_defined = true;
      for (const CodeParam& p : functions_[run]) tvm_.run_defined_parameters.push_back(p.type);
    }
    if (!tvm_.main_function.empty()) {
      for (const CodeParam& p : functions_[tvm_.main_function]) {
        tvm_.main_parameters.push_back(p.type + (p.name.empty() ? "" : " " + p.name));
      }
    }
    if (!tvm_.run_function.empty() && !tvm_.run_defined && scanned_all && RunModelOnly()) {
      Note("no source defines " + tvm_.run_function + ", which " + tvm_.header_path +
           " declares: the code's entry point is " + tvm_.main_function + "(" +
           Join(tvm_.main_parameters) + "), called with the inputs, then the outputs");
      tvm_.run_function.clear();
    }
  }

  // The code's entry is TVM 0.8's positional run_model and no C interface
  // run wrapper: the source defines no struct run (a packed wrapper may be
  // there), and run_model takes only void* tensors.
  bool RunModelOnly() const {
    if (tvm_.main_function != "tvmgen_" + c_name_ + "_run_model") return false;
    if (tvm_.run_defined && !tvm_.run_defined_parameters.empty() &&
        tvm_.run_defined_parameters[0].rfind("struct tvmgen_", 0) == 0) {
      return false;
    }
    auto it = functions_.find(tvm_.main_function);
    if (it == functions_.end() || it->second.empty()) return false;
    for (const CodeParam& p : it->second) {
      if (p.type != "void*") return false;
    }
    return true;
  }

  static std::string Join(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out;
  }

  // The dtype the code gives parameter `index` of the entry function: its
  // pointer type when typed (__tvm_main__(float* ...)), else the pointer
  // type of the operator parameter it is passed to in the entry's body
  // (run_model(void* input, void* output) passes `output` to an operator
  // taking float* T_add), following `void* output = arg1;` aliases.
  std::string EntryParamDType(size_t index) const {
    auto fn = functions_.find(tvm_.main_function);
    if (fn == functions_.end() || index >= fn->second.size()) return "";
    const CodeParam& param = fn->second[index];
    if (!param.type.empty() && param.type.back() == '*') {
      const std::string d = DTypeOfCType(param.type.substr(0, param.type.size() - 1));
      if (!d.empty()) return d;
    }
    auto body = bodies_.find(tvm_.main_function);
    if (body == bodies_.end() || param.name.empty()) return "";
    std::set<std::string> names = {param.name};
    for (const auto& [alias, target] : body->second.aliases) {
      if (target == param.name) names.insert(alias);
    }
    for (const CodeCall& call : body->second.calls) {
      auto callee = functions_.find(call.callee);
      if (callee == functions_.end()) continue;
      for (size_t a = 0; a < call.args.size() && a < callee->second.size(); ++a) {
        if (!names.count(call.args[a])) continue;
        const std::string d = ParamDType(call.callee, callee->second[a]);
        if (!d.empty()) return d;
      }
    }
    return "";
  }

  // The element type function `fn` gives its parameter `param`: the pointer
  // type it is declared with, else (TVM 0.8's void* operators) the first
  // cast of it, or of an alias of it, in the body: `((int8_t*)T_cast)[i]`.
  std::string ParamDType(const std::string& fn, const CodeParam& param) const {
    if (!param.type.empty() && param.type.back() == '*') {
      const std::string d = DTypeOfCType(param.type.substr(0, param.type.size() - 1));
      if (!d.empty()) return d;
    }
    auto body = bodies_.find(fn);
    if (body == bodies_.end() || param.name.empty()) return "";
    std::vector<std::string> names = {param.name};
    for (const auto& [alias, target] : body->second.aliases) {
      if (target == param.name) names.push_back(alias);
    }
    for (const std::string& n : names) {
      auto cast = body->second.casts.find(n);
      if (cast == body->second.casts.end()) continue;
      const std::string d = DTypeOfCType(cast->second);
      if (!d.empty()) return d;
    }
    return "";
  }

  // Without an interface header, TVM 0.8's positional run_model is the only
  // account of the inputs: it takes the inputs, then the outputs, one void*
  // each, and the code links the parameters (__tvm_param__). Relay's @main
  // lists the parameters after the inputs, under names the .params file
  // does not use (%v_param_1 ... vs p0 ...), so the inputs are the first
  // (run_model's parameters - outputs) of them. The outputs are Relay's
  // results when typed, else the run_model parameters (or their aliases)
  // named output<N>.
  void InputsFromRunModel() {
    if (header_ && header_->has_inputs_struct && header_->has_outputs_struct) return;
    if (tvm_.linked_params.empty() || !RunModelOnly()) return;
    const std::vector<CodeParam>& params = functions_.at(tvm_.main_function);
    size_t outputs = sig_outputs_.size();
    if (outputs == 0) {
      std::set<std::string> names;
      for (const CodeParam& p : params) names.insert(p.name);
      auto body = bodies_.find(tvm_.main_function);
      if (body != bodies_.end()) {
        for (const auto& [alias, target] : body->second.aliases) {
          bool is_param = false;
          for (const CodeParam& p : params) is_param = is_param || p.name == target;
          if (is_param) names.insert(alias);
        }
      }
      for (const std::string& n : names) {
        if (n.rfind("output", 0) == 0 &&
            n.find_first_not_of("0123456789", 6) == std::string::npos) {
          ++outputs;
        }
      }
      if (outputs == 0 || outputs >= params.size()) return;
      for (const std::string& name : TvmOutputNames(outputs, {})) {
        sig_outputs_.push_back(SignatureTensor{name, "", {}, false});
      }
    }
    if (outputs >= params.size()) return;
    const size_t inputs = params.size() - outputs;
    if (sig_inputs_.size() <= inputs) return;
    std::vector<std::string> dropped;
    for (size_t i = inputs; i < sig_inputs_.size(); ++i) dropped.push_back(sig_inputs_[i].name);
    const size_t count = dropped.size();
    if (count > 4) dropped = {dropped[0], dropped[1], "...", dropped.back()};
    sig_inputs_.resize(inputs);
    Note("inputs: the first " + std::to_string(inputs) + " of " + tvm_.relay_path +
         "'s @main parameters, because " + tvm_.main_function + " takes " +
         std::to_string(inputs) + " input(s) and " + std::to_string(outputs) +
         " output(s) and the code links the parameters (" + tvm_.linked_params + "); " +
         std::to_string(count) + " linked parameter(s): " + Join(dropped));
  }

  // Dtypes and sizes the metadata and Relay text leave open, from the code:
  // the entry's parameter types (inputs first, then outputs, TVM's order)
  // and memory.functions.main[0].io_size_bytes for the one tensor whose
  // size is still unknown.
  void TensorsFromCode() {
    if (tvm_.main_function.empty()) return;
    for (auto* list : {&m_->inputs, &m_->outputs}) {
      const size_t base = list == &m_->inputs ? 0 : m_->inputs.size();
      for (size_t i = 0; i < list->size(); ++i) {
        TensorInfo& t = (*list)[i];
        if (t.dtype.stated()) continue;
        const std::string dtype = EntryParamDType(base + i);
        if (!dtype.empty()) {
          t.dtype = DTypeValue::Read(dtype);
          Note("dtype of " + std::string(list == &m_->inputs ? "input " : "output ") +
               QuoteForMessage(t.name) + " (" + dtype + ") from the C type " +
               tvm_.main_function + " gives it");
        }
      }
    }
    if (tvm_.main_memory.size() != 1) return;
    TensorInfo* unknown = nullptr;
    uint64_t known = 0;
    for (auto* list : {&m_->inputs, &m_->outputs}) {
      for (TensorInfo& t : *list) {
        if (t.size_bytes == 0 && !t.shape_known) {
          if (unknown != nullptr) return;
          unknown = &t;
        } else {
          known += t.size_bytes;
        }
      }
    }
    const uint64_t io = tvm_.main_memory[0].io_size_bytes;
    if (unknown == nullptr || io <= known) return;
    unknown->size_bytes = io - known;
    Note("size of " + QuoteForMessage(unknown->name) + " (" + std::to_string(unknown->size_bytes) +
         " bytes) from memory.functions.main io_size_bytes " + std::to_string(io) +
         " less the other inputs and outputs; its shape is unknown");
  }

  void ReadSignatures() {
    const std::string* graph = tvm_.executor == Executor::kGraph && !tvm_.graph_path.empty()
                                   ? Text(tvm_.graph_path) : nullptr;
    if (tvm_.executor == Executor::kGraph && !tvm_.graph_path.empty() && graph == nullptr) {
      Note(tvm_.graph_path + " is too large to read");
    }
    if (graph != nullptr) {
      Result<GraphSignature> g = ParseGraphExecutorJson(*graph);
      if (g.ok()) {
        for (SignatureTensor& t : g->args) {
          if (!IsParam(t.name)) sig_inputs_.push_back(std::move(t));
        }
        sig_outputs_ = std::move(g->outputs);
        const std::vector<std::string> names = TvmOutputNames(sig_outputs_.size(), {});
        for (size_t i = 0; i < sig_outputs_.size(); ++i) sig_outputs_[i].name = names[i];
        shapes_from_ = ShapesFrom::kGraph;
        return;
      }
      Problem(g.status().WithContext(tvm_.graph_path));
    }
    if (tvm_.relay_path.empty()) {
      Note("shapes are unknown: the archive has no Relay text (src/" + name_ + ".relay)");
      return;
    }
    const std::string* text = Text(tvm_.relay_path);
    Result<RelaySignature> r = text ? ParseRelayMainSignature(*text)
                                    : Result<RelaySignature>(OutOfRange("too large to read"));
    if (!r.ok()) {
      // TVM wrote this text; a construct the reader does not know must not
      // make the archive unreadable: shapes stay unknown, and we say why.
      Note("shapes are unknown: " + tvm_.relay_path + ": " + r.status().message());
      return;
    }
    for (SignatureTensor& t : r->params) {
      if (!IsParam(t.name)) sig_inputs_.push_back(std::move(t));
    }
    sig_outputs_ = std::move(r->results);
    const std::vector<std::string> names = TvmOutputNames(sig_outputs_.size(), r->output_names);
    for (size_t i = 0; i < sig_outputs_.size(); ++i) sig_outputs_[i].name = names[i];
    shapes_from_ = ShapesFrom::kRelay;
    InputsFromRunModel();
  }

  // Signature entries by the names a metadata name may appear as: the same,
  // with TVM's "v" prefix, without it, or the same C name.
  struct SignatureIndex {
    std::unordered_map<std::string, size_t> by_name, by_c_name;
    explicit SignatureIndex(const std::vector<SignatureTensor>& sig) {
      for (size_t s = 0; s < sig.size(); ++s) {
        by_name.emplace(sig[s].name, s);
        by_c_name.emplace(SanitizeCName(sig[s].name), s);
      }
    }
    std::optional<size_t> Find(const std::string& name) const {
      for (const std::string& key : {name, "v" + name, name.size() > 1 && name[0] == 'v' ? name.substr(1) : ""}) {
        if (key.empty()) continue;
        auto it = by_name.find(key);
        if (it != by_name.end()) return it->second;
      }
      auto it = by_c_name.find(SanitizeCName(name));
      if (it != by_c_name.end()) return it->second;
      return std::nullopt;
    }
  };

  // Merges metadata, signature and header views of inputs or outputs.
  std::vector<TensorInfo> Merge(const char* kind, const std::vector<TensorInfo>& from_metadata,
                                const std::vector<SignatureTensor>& from_signature,
                                const std::vector<std::string>* header_members) {
    std::vector<IoCandidate> base;
    if (!from_metadata.empty()) {
      for (const TensorInfo& t : from_metadata) base.push_back({t.name, t.dtype, {}, false, t.size_bytes});
    } else if (header_members) {
      // The interface header's structs are the inputs and outputs; Relay's
      // @main parameters it does not name are the model's parameters.
      for (const std::string& h : *header_members) base.push_back({h, {}, {}, false, std::nullopt});
    } else if (!from_signature.empty()) {
      for (const SignatureTensor& t : from_signature) base.push_back({t.name, {}, {}, false, std::nullopt});
    }
    const SignatureIndex signature(from_signature);
    std::unordered_map<std::string, size_t> header_index;
    if (header_members) {
      for (size_t h = 0; h < header_members->size(); ++h) header_index.emplace((*header_members)[h], h);
    }
    const std::string macro_prefix = "TVMGEN_" + ToMacroCase(c_name_) + "_";
    std::vector<std::pair<size_t, TensorInfo>> ordered;
    std::vector<bool> header_used(header_members ? header_members->size() : 0, false);
    for (size_t i = 0; i < base.size(); ++i) {
      IoCandidate& c = base[i];
      std::string what = std::string(kind) + " " + QuoteForMessage(c.name);
      size_t position = base.size() + i;  // unmatched: after the matched, in base order
      if (std::optional<size_t> s = signature.Find(c.name)) {
        const SignatureTensor& t = from_signature[*s];
        position = *s;
        // A header member is a C name: the model's name is the signature's.
        if (from_metadata.empty() && header_members && !t.name.empty()) c.name = t.name;
        if (!t.dtype.empty()) {
          // A dtype mlfkit does not know is kept as written, like metadata's.
          const DTypeValue d = DTypeValue::Read(t.dtype);
          if (!c.dtype.stated()) {
            c.dtype = d;
          } else if (c.dtype != d) {
            Problem(InvalidArgument(what + ": metadata.json says " + ToString(c.dtype) + " but " +
                                    SigPath() + " says " + t.dtype));
          }
        }
        if (t.shape_known) {
          c.shape = t.shape;
          c.shape_known = true;
        }
      } else if (from_metadata.empty() && header_members && !from_signature.empty()) {
        Problem(InvalidArgument(what + ": " + tvm_.header_path + " declares it but " + SigPath() +
                                " does not name it"));
      }
      TensorInfo info;
      info.name = c.name;
      info.c_name = SanitizeCName(c.name);
      if (header_members) {
        auto h = header_index.find(info.c_name);
        if (h == header_index.end()) h = header_index.find(c.name);
        if (h != header_index.end() && !header_used[h->second]) {
          info.c_name = h->first;
          position = h->second;
          header_used[h->second] = true;
        } else {
          Problem(InvalidArgument(what + " is not a member of struct tvmgen_" + c_name_ + "_" +
                                  kind + "s in " + tvm_.header_path));
        }
      }
      info.dtype = c.dtype;
      if (info.dtype.stated() && !info.dtype.known()) {
        Note(what + ": dtype " + QuoteForMessage(ToString(info.dtype)) + " is unknown to mlfkit");
      }
      info.shape_known = c.shape_known;
      if (c.shape_known) info.shape = c.shape;
      std::optional<uint64_t> computed;
      if (c.shape_known && c.dtype.known()) {
        Result<uint64_t> bytes = ByteSize(*c.dtype.known(), c.shape);
        if (bytes.ok()) computed = *bytes;
      }
      if (c.size && computed && *c.size != *computed) {
        Problem(InvalidArgument(what + ": metadata.json says " + std::to_string(*c.size) +
                                " bytes but " + SigPath() + " gives " + ToString(c.dtype) + " " +
                                FormatShape(c.shape) + " (" + std::to_string(*computed) + " bytes)"));
      }
      std::optional<uint64_t> size = c.size ? c.size : computed;
      if (header_) {
        auto macro = header_->numeric_macros.find(macro_prefix + ToMacroCase(info.c_name) + "_SIZE");
        if (macro != header_->numeric_macros.end()) {
          if (size && *size != macro->second) {
            Problem(InvalidArgument(what + " is " + std::to_string(*size) + " bytes but " +
                                    tvm_.header_path + " defines " + macro->first + " " +
                                    std::to_string(macro->second)));
          }
          if (!size) size = macro->second;
        }
      }
      info.size_bytes = size.value_or(0);
      ordered.emplace_back(position, std::move(info));
    }
    if (header_members) {
      for (size_t h = 0; h < header_members->size(); ++h) {
        if (!header_used[h]) {
          Problem(InvalidArgument(tvm_.header_path + " declares " + kind + " " +
                                  QuoteForMessage((*header_members)[h]) +
                                  ", which neither metadata.json nor the model signature names"));
        }
      }
    }
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<TensorInfo> out;
    for (auto& [position, info] : ordered) out.push_back(std::move(info));
    return out;
  }

  std::string SigPath() const { return shapes_from_ == ShapesFrom::kGraph ? tvm_.graph_path : tvm_.relay_path; }

  void MergeTensors() {
    const bool header_structs = header_ && header_->has_inputs_struct && header_->has_outputs_struct;
    m_->inputs = Merge("input", m_->inputs, sig_inputs_, header_structs ? &header_->inputs : nullptr);
    m_->outputs = Merge("output", m_->outputs, sig_outputs_, header_structs ? &header_->outputs : nullptr);
    bool all_known = true;
    for (const TensorInfo& t : m_->inputs) all_known = all_known && t.shape_known;
    for (const TensorInfo& t : m_->outputs) all_known = all_known && t.shape_known;
    tvm_.shapes_from = all_known ? shapes_from_ : ShapesFrom::kNone;
    // C names are checked for the whole archive (CompleteTvmMetadata).
  }

  void NoteExternal(const std::string& header) {
    if (std::find(tvm_.external_headers.begin(), tvm_.external_headers.end(), header) ==
        tvm_.external_headers.end()) {
      tvm_.external_headers.push_back(header);
    }
  }

  void NoteRuntime(const std::string& header) {
    if (IsTvmRuntimePath(header) && std::find(tvm_.runtime_headers.begin(), tvm_.runtime_headers.end(), header) ==
                       tvm_.runtime_headers.end()) {
      tvm_.runtime_headers.push_back(header);
    }
  }

  void CheckCode() {
    std::set<std::string> defined;
    for (const std::string& file : m_->sources) {
      auto it = contents_.code.find(file);
      if (it == contents_.code.end()) {
        if (contents_.too_large.count(file)) Note(file + " is too large to scan");
        continue;
      }
      const TvmCodeScan& scan = it->second;
      for (const CodeInclude& inc : scan.includes) {
        NoteRuntime(inc.path);
        std::string member;
        switch (ResolveInclude(contents_, index_.bundled_runtime, file, inc, &member)) {
          case IncludeKind::kMember: Use(member); break;
          case IncludeKind::kMissing: Problem(MissingInclude(file, inc)); break;
          case IncludeKind::kExternal: NoteExternal(inc.path); break;
          default: break;
        }
      }
      defined.insert(scan.defined_functions.begin(), scan.defined_functions.end());
      if (scan.arch != CodeArch::kAny && !CodeArchRunsOnThisHost(scan.arch) &&
          tvm_.foreign_target.empty()) {
        tvm_.foreign_target = m_->target.mcpu.empty() ? CodeArchName(scan.arch) : m_->target.mcpu;
        tvm_.foreign_evidence = file + " " + scan.arch_evidence;
      }
    }
    for (const std::string& h : headers_.external) NoteExternal(h);
    if (tvm_.foreign_target.empty() && headers_.foreign_arch != CodeArch::kAny) {
      tvm_.foreign_target = m_->target.mcpu.empty() ? CodeArchName(headers_.foreign_arch) : m_->target.mcpu;
      tvm_.foreign_evidence = headers_.foreign_evidence;
    }
    if (!tvm_.run_function.empty() && !defined.count(tvm_.run_function) && !m_->sources.empty()) {
      Note("no source defines " + tvm_.run_function + ", which " + tvm_.header_path + " declares");
    }
  }

  void CheckGenerated() {
    if (m_->sources.empty() && tvm_.object_files.empty()) {
      Problem(NotFound("the archive has no generated code for it (no " + std::string(kSrcDir) +
                       name_ + "_lib<N>.c)"));
    }
  }

  void CheckExecutor() {
    if (tvm_.executor != Executor::kGraph) return;
    if (tvm_.graph_path.empty()) {
      Problem(NotFound("it runs on TVM's graph executor, which needs executor-config/graph/" + name_ +
                       ".graph, and the archive has none"));
    }
    if (!m_->parameters) {
      Problem(NotFound("it runs on TVM's graph executor, which needs parameters/" + name_ +
                       ".params, and the archive has none"));
    }
  }

 public:
  std::vector<std::string> notes_;

 private:
  std::string name_;
  std::string c_name_;
  ModuleMetadata* m_;
  TvmModuleInfo& tvm_;
  const TvmArchiveContents& contents_;
  const ArchiveIndex& index_;
  const HeaderFindings& headers_;
  bool only_module_;
  std::vector<Status>* problems_;
  std::set<std::string>* used_;
  std::optional<TvmInterfaceHeader> header_;
  std::set<std::string> param_names_;
  std::set<std::string> defined_;                          // tvmgen_ functions the sources define
  std::map<std::string, std::vector<CodeParam>> functions_;  // their parameters
  std::map<std::string, CodeEntryBody> bodies_;             // the entry functions' bodies
  std::vector<SignatureTensor> sig_inputs_, sig_outputs_;
  ShapesFrom shapes_from_ = ShapesFrom::kNone;
};

bool KnownLayout(const std::string& path) {
  // The bundled standalone C runtime and project templates (external_dependencies).
  return StartsWith(path, "runtime/") || StartsWith(path, "templates/");
}

}  // namespace

TvmCompletion CompleteTvmMetadata(Metadata* metadata, const TvmArchiveContents& contents) {
  TvmCompletion out;
  const ArchiveIndex index = IndexArchive(contents);
  const HeaderFindings headers = CheckHeaders(contents, index);
  // Every header TVM put in the include directory belongs to the archive's code.
  std::set<std::string> used(index.include_dir.begin(), index.include_dir.end());
  const bool only_module = metadata->modules.size() == 1;
  for (auto& [name, module] : metadata->modules) {
    ModuleCompleter completer(name, &module, contents, index, headers, only_module, &out.problems,
                              &used);
    completer.Run();
    // After what reading metadata.json noted (unknown executors, interface APIs).
    module.tvm->notes.insert(module.tvm->notes.end(), completer.notes_.begin(), completer.notes_.end());
  }
  out.problems.insert(out.problems.end(), headers.problems.begin(), headers.problems.end());
  // The same rule as for version 8: TVM's header declares one
  // TVMGEN_<MOD>_<NAME>_SIZE per input and output as well.
  Status names = CheckGeneratedNames(*metadata);
  if (!names.ok()) out.problems.push_back(names);
  metadata->files = contents.files;
  for (const auto& [path, entry] : contents.files) {
    if (!used.count(path) && !KnownLayout(path)) out.unreferenced.push_back(path);
  }
  return out;
}

}  // namespace mlf
