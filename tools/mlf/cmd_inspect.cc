// mlf inspect: what an archive holds — modules, I/O, memory, parameters, files.
#include <sys/stat.h>

#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "artifact/read_metadata.h"
#include "artifact/signature.h"
#include "tools/mlf/command.h"
#include "tools/mlf/progress.h"
#include "tools/mlf/table.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf inspect ARCHIVE [--json]\n\n"
    "Shows the modules of an archive (inputs, outputs, memory, parameters, host\n"
    "library, sources, operators), its signature and its files. Reads only\n"
    "metadata.json and the signature member: digests are checked by `mlf verify`.\n\n"
    "options:\n"
    "  --json   print {archive, compression, signed, signer_key_sha256, metadata}\n";

std::string Shape(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string Join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? sep : "") + words[i];
  return out;
}

void PrintTensors(const char* title, const std::vector<TensorInfo>& tensors) {
  std::cout << "  " << title << "\n";
  Table table({"#", "name", "c name", "dtype", "shape", "bytes"});
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorInfo& t = tensors[i];
    table.AddRow({std::to_string(i), t.name, t.c_name, t.dtype, Shape(t.shape),
                  std::to_string(t.size_bytes)});
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
  std::cout << "  parameters  " << p->storage << (p->path.empty() ? "" : " " + p->path) << ", "
            << p->tensors.size() << " tensor" << (p->tensors.size() == 1 ? "" : "s") << "\n";
  if (p->tensors.empty()) return;
  Table table({"name", "dtype", "shape", "offset", "bytes"});
  for (const ParamTensorInfo& t : p->tensors) {
    table.AddRow({t.name, t.dtype, Shape(t.shape), std::to_string(t.offset),
                  std::to_string(t.size_bytes)});
  }
  table.Print(std::cout, "    ");
}

void PrintModule(const std::string& name, const ModuleMetadata& m) {
  std::cout << "\nmodule " << name << "\n";
  if (!m.description.empty()) std::cout << "  " << m.description << "\n";
  std::cout << "  model       " << m.model_name << " (" << m.style << ", executors "
            << Join(m.executors, ",") << ", " << m.interface_api << " interface, ABI "
            << m.abi_version << ")\n";
  std::cout << "  target      " << m.target.kind
            << (m.target.host_triple.empty() ? "" : " " + m.target.host_triple)
            << (m.target.mcpu.empty() ? "" : " -mcpu=" + m.target.mcpu) << "\n";
  if (m.source) {
    std::cout << "  source      " << m.source->format
              << (m.source->opset ? " opset " + std::to_string(*m.source->opset) : "")
              << (m.source->path.empty() ? "" : " " + m.source->path) << "\n";
  }
  PrintTensors("inputs", m.inputs);
  PrintTensors("outputs", m.outputs);
  PrintMemory(m.memory);
  PrintParameters(m.parameters);
  if (m.host_library) {
    std::cout << "  host lib    " << m.host_library->path << " (" << m.host_library->triple
              << (m.host_library->compiler.empty() ? "" : ", " + m.host_library->compiler)
              << (m.host_library->flags.empty() ? "" : ", " + Join(m.host_library->flags, " "))
              << ")\n";
  } else {
    std::cout << "  host lib    none (the host loader compiles the sources)\n";
  }
  std::cout << "  sources     " << Join(m.sources, ", ") << "\n";
  if (!m.operators.empty()) {
    uint64_t macs = 0;
    for (const OperatorInfo& op : m.operators) macs += op.macs;
    std::cout << "  operators   " << m.operators.size() << " (" << macs << " MACs)\n";
  }
}

std::string SignerOf(const ArchiveHead& head) {
  if (head.signature_member.empty()) return "";
  Result<SignatureInfo> info = ParseSignatureMember(head.signature_member);
  return info.ok() ? info->key_sha256 : "malformed";
}

void PrintText(const std::string& path, const ArchiveHead& head) {
  struct stat st {};
  const uint64_t size = stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  const Metadata& md = head.metadata;
  std::cout << "archive     " << path << " (" << CompressionName(head.compression) << ", "
            << HumanBytes(size) << ")\n";
  std::cout << "format      Model Library Format version " << md.version << ", generator "
            << md.generator_name << " " << md.generator_version << ", exported "
            << md.export_datetime << "\n";
  const std::string signer = SignerOf(head);
  std::cout << "signature   "
            << (signer.empty() ? "none" : "key sha256 " + signer + " (check with mlf verify --key)")
            << "\n";
  for (const auto& [name, module] : md.modules) PrintModule(name, module);
  std::cout << "\nfiles\n";
  Table files({"bytes", "sha256", "path"});
  for (const auto& [name, entry] : md.files) {
    files.AddRow({std::to_string(entry.size), entry.sha256.substr(0, 16), name});
  }
  files.Print(std::cout, "  ");
}

void PrintJson(const std::string& path, const ArchiveHead& head) {
  nlohmann::json j = {{"archive", path},
                      {"compression", CompressionName(head.compression)},
                      {"signed", !head.signature_member.empty()},
                      {"metadata", nlohmann::json::parse(head.metadata_bytes)}};
  if (!head.signature_member.empty()) j["signer_key_sha256"] = SignerOf(head);
  std::cout << j.dump(2) << "\n";
}

int RunInspect(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("inspect", args, 1, 1, &code)) return code;
  const std::string path = args.positionals()[0];
  Result<ArchiveHead> head = ReadArchiveHead(path);
  if (!head.ok()) return ReportFailure(head.status().WithContext(path));
  if (args.Has("json")) {
    PrintJson(path, *head);
  } else {
    PrintText(path, *head);
  }
  return kExitOk;
}

}  // namespace

const Command& InspectCommand() {
  static const Command command{"inspect", "show modules, I/O, memory, parameters and files",
                               kUsage, {{"json", false, false, ""}}, RunInspect};
  return command;
}

}  // namespace mlf::cli
