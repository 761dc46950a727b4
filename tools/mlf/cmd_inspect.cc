// mlf inspect: what an archive holds — modules, I/O, memory, parameters, files.
#include <sys/stat.h>

#include <algorithm>

#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "artifact/archive/inspect_document.h"
#include "artifact/archive/read_metadata.h"
#include "artifact/archive/signature.h"
#include "artifact/base/display_text.h"
#include "tools/mlf/archive_formats.h"
#include "tools/mlf/command.h"
#include "tools/mlf/progress.h"
#include "tools/mlf/table.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf inspect ARCHIVE [--plan] [--json]\n\n"
    "Shows the modules of an archive (inputs, outputs, quantization, memory,\n"
    "parameters and their layouts, kernels, host library, sources, operators),\n"
    "its signature and its files. Reads only metadata.json and the signature\n"
    "member: digests are checked by `mlf verify`.\n\n"
    "Archives written by Apache TVM (metadata versions 5-7) are read whole and\n"
    "normalised: shapes from the Relay text or graph JSON (\"?\" when the archive\n"
    "does not say), TVM's executor, entry points, memory map and targets, whether\n"
    "the module runs on this host (the checks `mlf run` makes before compiling,\n"
    "a graph executor's memory plan included), and what `mlf verify` would refuse. TVM\n"
    "archives record no digests: the SHA-256 shown are computed on reading.\n\n"
    "options:\n"
    "  --plan   also show each module's memory plan (every workspace buffer with\n"
    "           its offset, size and the operators it lives across; a value an\n"
    "           in-place Concat holds is shown inside it) and each operator's\n"
    "           MACs, parameter bytes and live workspace bytes (version 9)\n"
    "  --json   print {archive, compression, signed, signer_key_sha256, metadata};\n"
    "           for TVM archives also format \"tvm\" and the normalised model\n";

std::string Shape(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// Every string from an archive is shown through DisplayText: names, paths
// and notes can hold escape sequences and bidi controls.
std::string Show(const std::string& text) { return DisplayText(text); }

std::string Join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + Show(words[i]);
  return out;
}

// "scale 0.5, zero point -3", or "10 scales along axis 0, zero points
// 0..2" for a per-channel one.
std::string Quantization(const std::optional<QuantizationInfo>& q) {
  if (!q) return "";
  std::ostringstream out;
  out.precision(9);
  if (!q->axis) {
    out << "scale " << q->scale[0] << ", zero point " << q->zero_point[0];
    return out.str();
  }
  const auto [low, high] = std::minmax_element(q->zero_point.begin(), q->zero_point.end());
  out << q->scale.size() << " scales along axis " << *q->axis << ", zero point"
      << (*low == *high ? " " + std::to_string(*low) : "s " + std::to_string(*low) + ".." + std::to_string(*high));
  return out.str();
}

template <typename T>
bool AnyQuantized(const std::vector<T>& tensors) {
  return std::any_of(tensors.begin(), tensors.end(), [](const T& t) { return t.quantization.has_value(); });
}

void PrintTensors(const char* title, const std::vector<TensorInfo>& tensors) {
  std::cout << "  " << title << "\n";
  const bool quantized = AnyQuantized(tensors);
  std::vector<std::string> header = {"#", "name", "c name", "dtype", "shape", "bytes"};
  if (quantized) header.push_back("quantization");
  Table table(header);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = tensors[i];
    std::vector<std::string> row = {std::to_string(i), t.name, t.c_name, t.dtype.stated() ? ToString(t.dtype) : "?",
                                    t.shape_known ? Shape(t.shape) : "?",
                                    t.size_bytes == 0 && !t.shape_known ? "?" : std::to_string(t.size_bytes)};
    if (quantized) row.push_back(Quantization(t.quantization));
    table.AddRow(row);
  }
  table.Print(std::cout, "    ");
}

void PrintMemory(const MemoryInfo& m) {
  std::cout << "  memory\n    workspace  " << m.workspace_size_bytes << " B";
  if (m.workspace_lower_bound_bytes) {
    std::cout << " (planner lower bound " << *m.workspace_lower_bound_bytes << " B)";
  }
  std::cout << "\n    constants  " << m.constants_size_bytes << " B\n    I/O        "
            << m.io_size_bytes << " B\n    alignment  " << m.alignment_bytes << " B\n";
}

void PrintParameters(const std::optional<ParametersInfo>& p) {
  if (!p) {
    std::cout << "  parameters  none\n";
    return;
  }
  std::cout << "  parameters  " << Show(ToString(p->storage)) << (p->path.empty() ? "" : " " + Show(p->path)) << ", "
            << p->tensors.size() << " tensor" << (p->tensors.size() == 1 ? "" : "s") << "\n";
  if (p->tensors.empty()) return;
  const bool quantized = AnyQuantized(p->tensors);
  const bool laid_out = std::any_of(p->tensors.begin(), p->tensors.end(),
                                    [](const ParamTensorInfo& t) { return !t.layout.empty(); });
  std::vector<std::string> header = {"name", "dtype", "shape", "offset", "bytes"};
  if (laid_out) header.push_back("layout");
  if (quantized) header.push_back("quantization");
  Table table(header);
  for (const ParamTensorInfo& t : p->tensors) {
    std::vector<std::string> row = {t.name, ToString(t.dtype), Shape(t.shape), std::to_string(t.offset),
                                    std::to_string(t.size_bytes)};
    if (laid_out) row.push_back(t.layout.empty() ? "row-major" : t.layout);
    if (quantized) row.push_back(Quantization(t.quantization));
    table.AddRow(row);
  }
  table.Print(std::cout, "    ");
}

// What only TVM modules have (artifact/format/metadata.h TvmModuleInfo).
void PrintTvm(const ModuleMetadata& m, const ForeignModuleCheck& check) {
  const Status& host = check.host;
  const TvmModuleInfo& tvm = *m.tvm;
  for (const std::string& t : tvm.targets) std::cout << "  tvm target  " << Show(t) << "\n";
  if (!tvm.run_function.empty()) {
    std::cout << "  entry       " << Show(tvm.run_function) << "(inputs, outputs)"
              << (tvm.main_function.empty() ? "" : " -> " + Show(tvm.main_function))
              << (tvm.extra_run_arguments.empty() ? "" : ", also takes " + Join(tvm.extra_run_arguments, ", "))
              << "\n";
  } else if (!tvm.main_function.empty()) {
    std::cout << "  entry       " << Show(tvm.main_function) << "\n";
  }
  std::cout << "  shapes      "
            << (tvm.shapes_from == ShapesFrom::kRelay   ? "from " + Show(tvm.relay_path) + " (@main signature)"
                : tvm.shapes_from == ShapesFrom::kGraph ? "from " + Show(tvm.graph_path)
                                             : std::string("unknown for some tensors (\"?\")"))
            << "\n";
  if (!tvm.header_path.empty()) std::cout << "  header      " << Show(tvm.header_path) << "\n";
  if (!tvm.graph_path.empty()) std::cout << "  graph       " << Show(tvm.graph_path) << "\n";
  for (const TvmMainMemory& mm : tvm.main_memory) {
    std::cout << "  main memory device " << mm.device << ": workspace " << mm.workspace_size_bytes
              << " B, constants " << mm.constants_size_bytes << " B, I/O " << mm.io_size_bytes
              << " B\n";
  }
  if (!tvm.operator_functions.empty()) {
    uint64_t largest = 0;
    for (const TvmOperatorFunction& f : tvm.operator_functions) largest = std::max(largest, f.workspace_size_bytes);
    std::cout << "  operators   " << tvm.operator_functions.size() << " functions, largest own workspace "
              << largest << " B\n";
  }
  if (!tvm.sids.empty()) {
    std::cout << "  storage     " << tvm.sids.size() << " graph executor storage ids\n";
    Table table({"sid", "bytes", "binding"});
    for (const TvmStorage& s : tvm.sids) {
      table.AddRow({std::to_string(s.storage_id), std::to_string(s.size_bytes), s.input_binding});
    }
    table.Print(std::cout, "    ");
  }
  if (!tvm.operator_buffers.empty()) {
    std::cout << "  buffers     (operator style: TVM does not say which are inputs, so mlf run "
                 "and mlf project take every buffer as an input and give it as an output)\n";
    Table table({"function", "binding", "dtype", "shape", "bytes"});
    for (const TvmOperatorBuffer& b : tvm.operator_buffers) {
      table.AddRow({b.function, b.binding, ToString(b.dtype), Shape(b.shape), std::to_string(b.size_bytes)});
    }
    table.Print(std::cout, "    ");
  }
  if (!tvm.object_files.empty()) std::cout << "  objects     " << Join(tvm.object_files, ", ") << "\n";
  if (tvm.bundled_runtime) std::cout << "  runtime     bundled TVM C runtime headers (runtime/include)\n";
  for (const TvmDependency& d : tvm.external_dependencies) {
    std::cout << "  depends on  " << Show(d.short_name)
              << (d.version_spec.empty() ? "" : " " + Show(d.version_spec))
              << (d.url.empty() ? "" : " (" + Show(d.url) + ")") << "\n";
  }
  if (!tvm.external_headers.empty()) {
    std::cout << "  toolchain   headers from outside the archive: " << Join(tvm.external_headers, ", ") << "\n";
  }
  if (!tvm.foreign_target.empty()) {
    std::cout << "  needs       " << Show(tvm.foreign_target) << " (" << Show(tvm.foreign_evidence)
              << ")\n";
  }
  if (!check.vendor_headers.empty()) {
    std::cout << "  needs       vendor library: " << Join(check.vendor_headers, ", ") << "\n";
  }
  std::cout << "  this host   " << (host.ok() ? "runs with mlf run" : "cannot run: " + Show(host.message())) << "\n";
  std::cout << "  runs        " << Show(check.runs) << "\n";
  for (const std::string& note : tvm.notes) std::cout << "  note        " << Show(note) << "\n";
}

// What the export fixed (version 9): --input-shape and --constant.
void PrintFixedAtExport(const SourceInfo& source) {
  for (const SourceInfo::FixedShape& f : source.input_shapes) {
    std::cout << "  fixed       input " << Show(f.name) << " shape " << Shape(f.shape) << " (--input-shape)\n";
  }
  for (const SourceInfo::FixedConstant& c : source.constants) {
    std::cout << "  fixed       input " << Show(c.name) << " constant " << ToString(c.dtype) << Shape(c.shape)
              << " (--constant, sha256 " << c.sha256.substr(0, 16) << "...)\n";
  }
}

// Bytes of the workspace live during each operator: every planned buffer
// but those held inside another.
std::vector<uint64_t> LiveBytes(const ModuleMetadata& m) {
  std::vector<uint64_t> live(m.operators.size(), 0);
  for (const PlanBufferInfo& b : m.memory.plan) {
    if (!b.inside.empty()) continue;
    for (uint64_t t = b.first_operator; t <= b.last_operator && t < live.size(); ++t) live[t] += b.size_bytes;
  }
  return live;
}

void PrintPeak(const ModuleMetadata& m) {
  const std::vector<uint64_t> live = LiveBytes(m);
  if (live.empty() || m.memory.plan.empty()) return;
  const size_t at = static_cast<size_t>(std::max_element(live.begin(), live.end()) - live.begin());
  std::cout << "    peak       " << live[at] << " B live during operator " << at << " "
            << Show(m.operators[at].name) << "\n";
}

// --plan: the buffers, then the operators with what each costs.
void PrintPlan(const ModuleMetadata& m) {
  if (m.memory.plan.empty() && m.operators.empty()) return;
  if (m.memory.plan.empty()) {
    std::cout << "  memory plan not recorded (metadata written before version 9)\n";
  } else {
    std::cout << "  memory plan (" << m.memory.plan.size() << " buffers)\n";
    Table buffers({"offset", "bytes", "operators", "kind", "name", "inside"});
    for (const PlanBufferInfo& b : m.memory.plan) {
      buffers.AddRow({std::to_string(b.offset), std::to_string(b.size_bytes),
                      std::to_string(b.first_operator) + "-" + std::to_string(b.last_operator),
                      ToString(b.kind), b.name, b.inside});
    }
    buffers.Print(std::cout, "    ");
  }
  if (m.operators.empty()) return;
  std::cout << "  operators\n";
  const std::vector<uint64_t> live = LiveBytes(m);
  Table ops({"#", "name", "ops", "MACs", "param bytes", "live bytes"});
  for (size_t i = 0; i < m.operators.size(); ++i) {
    const OperatorInfo& o = m.operators[i];
    std::string names;
    for (const std::string& op : o.ops) names += (names.empty() ? "" : "+") + op;
    ops.AddRow({std::to_string(i), o.name, names, std::to_string(o.macs),
                o.param_bytes ? std::to_string(*o.param_bytes) : "?",
                m.memory.plan.empty() ? "?" : std::to_string(live[i])});
  }
  ops.Print(std::cout, "    ");
}

void PrintModule(const std::string& name, const ModuleMetadata& m,
                 const std::map<std::string, ForeignModuleCheck>& host, bool plan) {
  std::cout << "\nmodule " << Show(name) << "\n";
  if (!m.description.empty()) std::cout << "  " << Show(m.description) << "\n";
  std::cout << "  model       " << Show(m.model_name) << " (" << Show(ToString(m.style)) << ", executors "
            << (m.executors.empty() ? "none" : Join(ExecutorNames(m.executors), ",")) << ", "
            << Show(ToString(m.interface_api))
            << " interface";
  if (m.tvm) {
    std::cout << ", TVM metadata version " << m.tvm->version << ")\n";
  } else {
    std::cout << ", ABI " << m.abi_version << ")\n";
  }
  std::cout << "  target      " << Show(m.target.kind)
            << (m.target.host_triple.empty() ? "" : " " + Show(m.target.host_triple))
            << (m.target.mcpu.empty() ? "" : " -mcpu=" + Show(m.target.mcpu)) << "\n";
  if (m.source) {
    std::cout << "  source      " << Show(ToString(m.source->format))
              << (m.source->opset ? " opset " + std::to_string(*m.source->opset) : "")
              << (m.source->path.empty() ? ", not in the archive" : ", kept as " + Show(m.source->path))
              << (m.source->sha256.empty() ? "" : " (sha256 " + m.source->sha256.substr(0, 16) + "...)")
              << "\n";
    PrintFixedAtExport(*m.source);
  }
  PrintTensors("inputs", m.inputs);
  PrintTensors("outputs", m.outputs);
  PrintMemory(m.memory);
  PrintPeak(m);
  PrintParameters(m.parameters);
  if (m.kernels) {
    std::cout << "  kernels     " << (m.kernels->families.empty() ? "none" : Join(m.kernels->families, ", "))
              << " (variants " << Join(m.kernels->variants, ", ")
              << ": the host library picks one by CPU at load; MLF_KERNEL_ISA or mlf run --isa forces one)\n";
  }
  if (m.host_library) {
    std::cout << "  host lib    " << Show(m.host_library->path) << " (" << Show(m.host_library->triple)
              << (m.host_library->compiler.empty() ? "" : ", " + Show(m.host_library->compiler))
              << (m.host_library->flags.empty() ? "" : ", " + Join(m.host_library->flags, " "))
              << ")\n";
  } else if (!m.tvm) {
    std::cout << "  host lib    none (the host loader compiles the sources)\n";
  }
  std::cout << "  sources     " << (m.sources.empty() ? "none" : Join(m.sources, ", ")) << "\n";
  if (!m.operators.empty()) {
    uint64_t macs = 0;
    for (const OperatorInfo& op : m.operators) macs += op.macs;
    std::cout << "  operators   " << m.operators.size() << " (" << macs << " MACs)\n";
  }
  if (plan) PrintPlan(m);
  if (m.tvm) PrintTvm(m, host.at(name));
}

void PrintText(const std::string& path, const ArchiveHead& head,
               const std::map<std::string, ForeignModuleCheck>& host, bool plan) {
  struct stat st {};
  const uint64_t size = stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  const Metadata& md = head.metadata;
  std::cout << "archive     " << Show(path) << " (" << CompressionName(head.compression) << ", "
            << HumanBytes(size) << ")\n";
  if (head.foreign) {
    std::cout << "format      Apache TVM Model Library Format, metadata version " << md.version
              << " (normalised by mlfkit's TVM reader)"
              << (md.generator_version.empty() ? "" : ", TVM " + Show(md.generator_version))
              << ", exported " << Show(md.export_datetime) << "\n";
    std::cout << "signature   none (TVM archives carry no digests and no signature)\n";
  } else {
    std::cout << "format      Model Library Format version " << md.version << ", generator "
              << Show(md.generator_name) << " " << Show(md.generator_version) << ", exported "
              << Show(md.export_datetime) << "\n";
    const std::string signer = SignerFingerprint(head);
    std::cout << "signature   "
              << (signer.empty() ? "none" : "key sha256 " + signer + " (check with mlf verify --key)")
              << "\n";
  }
  for (const auto& [name, module] : md.modules) PrintModule(name, module, host, plan);
  std::cout << "\nfiles" << (head.foreign ? " (SHA-256 computed now: TVM records none)" : "") << "\n";
  Table files({"bytes", "sha256", "path"});
  for (const auto& [name, entry] : md.files) {
    files.AddRow({std::to_string(entry.size), entry.sha256.substr(0, 16), name});
  }
  files.Print(std::cout, "  ");
  if (head.foreign && !head.foreign->unreferenced.empty()) {
    std::cout << "\nnot referenced by any module: " << Join(head.foreign->unreferenced, ", ") << "\n";
  }
  if (head.foreign && !head.foreign->problems.empty()) {
    std::cout << "\nproblems (mlf verify refuses this archive)\n";
    for (const Status& p : head.foreign->problems) std::cout << "  " << Show(p.message()) << "\n";
  }
}

void PrintJson(const std::string& path, const ArchiveHead& head,
               const std::map<std::string, ForeignModuleCheck>& host) {
  PrintJsonReport(InspectDocument(path, head, host));
}

int RunInspect(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("inspect", args, 1, 1, &code)) return code;
  const std::string path = args.positionals()[0];
  Result<ArchiveHead> head = ReadArchiveHead(path, {}, cli::ForeignFormat());
  if (!head.ok()) return ReportFailure(head.status().WithContext(path));
  // What it says about this host is what mlf run checks before compiling
  // (a graph's plan included).
  const std::map<std::string, ForeignModuleCheck> host =
      head->foreign ? cli::ForeignHostChecks(path, head->metadata) : std::map<std::string, ForeignModuleCheck>{};
  if (args.Has("json")) {
    PrintJson(path, *head, host);
  } else {
    PrintText(path, *head, host, args.Has("plan"));
  }
  return kExitOk;
}

}  // namespace

const Command& InspectCommand() {
  static const Command command{"inspect", "show modules, I/O, memory, parameters and files",
                               kUsage, {{"json", false, false, ""}, {"plan", false, false, ""}}, RunInspect};
  return command;
}

}  // namespace mlf::cli
