// mlf export: models (ONNX or YAML) -> one Model Library Format archive.
#include <iostream>

#include "artifact/base/display_text.h"
#include "artifact/format/npy.h"
#include "codegen/archive_export.h"
#include "codegen/model_export.h"
#include "tools/mlf/assignments.h"
#include "tools/mlf/command.h"
#include "tools/mlf/output_path.h"
#include "tools/mlf/progress.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf export MODEL[:NAME]... -o OUT [--link-params] [--no-host-lib]\n"
    "                  [--compress none|gzip|zstd] [--no-optimize] [--keep-source] [--json]\n"
    "                  [--input-shape NAME=D0,D1,...]... [--constant NAME=FILE.npy]...\n\n"
    "Compiles each model (ONNX .onnx, or mlfkit's YAML description .yaml/.yml, see\n"
    "docs/yaml-models.md) into C99 code and writes one archive holding all of them,\n"
    "one module per model. NAME is the module name (default: \"default\" for a single\n"
    "model, else the file's stem). The host library is built with the system C\n"
    "compiler ($CC or cc) unless --no-host-lib. Metadata records the source model's\n"
    "format, opset and SHA-256; the model itself is kept only with --keep-source (its\n"
    "weights would be stored twice). The archive is deterministic and written\n"
    "atomically.\n\n"
    "options:\n"
    "  -o, --output OUT    archive to write (required)\n"
    "  --link-params       parameters as const arrays in the code (for flash)\n"
    "                      instead of parameters/<module>.bin\n"
    "  --no-host-lib       do not build codegen/host/lib/<module>.so\n"
    "  --compress KIND     none (default), gzip or zstd\n"
    "  --no-optimize       skip the fusion passes (BatchNorm folding, bias and\n"
    "                      activation fusion)\n"
    "  --keep-source       keep the source model in the archive as src/<module>.<ext>\n"
    "  --input-shape NAME=D0,D1,...\n"
    "                      fix the shape of the ONNX model's input NAME, e.g. a\n"
    "                      dynamic batch: --input-shape input=1,3,224,224 (once per\n"
    "                      input; one model only)\n"
    "  --constant NAME=FILE.npy\n"
    "                      make the ONNX model's input NAME a constant with FILE's\n"
    "                      values, for inputs whose values fix shapes (Reshape's\n"
    "                      shape, Slice's starts, Resize's scales, ...); the export\n"
    "                      says which inputs need one (once per input; one model only)\n"
    "  --json              print a JSON report (docs/cli-json.md)\n";

struct ModelSpec {
  std::string path;
  std::string module;
};

std::string Stem(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.substr(0, base.find('.'));
}

// "model.onnx:name" or "model.onnx"; a ':' belongs to the path unless what
// precedes it ends in a model extension.
Result<std::vector<ModelSpec>> ParseModels(const std::vector<std::string>& words) {
  std::vector<ModelSpec> specs;
  for (const std::string& w : words) {
    ModelSpec s{w, ""};
    const size_t colon = w.rfind(':');
    if (colon != std::string::npos) {
      const std::string head = w.substr(0, colon);
      for (const char* ext : {".onnx", ".yaml", ".yml"}) {
        const std::string e = ext;
        if (head.size() > e.size() && head.compare(head.size() - e.size(), e.size(), e) == 0) {
          s = {head, w.substr(colon + 1)};
        }
      }
      if (!s.module.empty() && s.module.find_first_of("/\\") != std::string::npos) {
        return InvalidArgument("module name '" + s.module + "' must not contain '/'");
      }
    }
    if (s.module.empty()) s.module = words.size() == 1 ? "default" : Stem(s.path);
    specs.push_back(s);
  }
  return specs;
}

// Compiles one model; adds the files its import read besides the model
// itself (YAML `npy` files) to `read`.
Result<ModuleArtifacts> CompileModel(const ModelSpec& spec, const ModelFileOptions& options,
                                     std::vector<NamedPath>* read) {
  std::vector<std::string> npy_files;
  MLF_ASSIGN_OR_RETURN(ModuleArtifacts artifacts,
                       CompileModelFile(spec.path, spec.module, options, &npy_files));
  for (const std::string& npy : npy_files) {
    read->push_back({npy, "the npy file '" + npy + "' of MODEL '" + spec.path + "'"});
  }
  return artifacts;
}

// "1,3,224,224": whole numbers separated by commas.
Result<std::vector<int64_t>> ParseDimensions(const std::string& name, const std::string& text) {
  std::vector<int64_t> dims;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string word = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const bool digits = !word.empty() && word.size() <= 18 &&
                        word.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      return InvalidArgument("--input-shape " + QuoteForMessage(name + "=" + text) + ": " +
                             QuoteForMessage(word) + " is not a dimension (a whole number)");
    }
    dims.push_back(std::stoll(word));
    if (comma == std::string::npos) return dims;
    start = comma + 1;
  }
}

// What --input-shape and --constant say, checked before anything is read
// (errors are bad usage).
struct ImportFlags {
  ModelImportOptions options;  // the shapes; constants are read later
  std::vector<std::pair<std::string, std::string>> constant_files;  // NAME, FILE
};

Result<ImportFlags> ParseImportFlags(const ParsedArgs& args, size_t models) {
  ImportFlags flags;
  flags.options.input_shapes_option = "--input-shape";
  flags.options.constants_option = "--constant";
  MLF_ASSIGN_OR_RETURN(auto shapes, Assignments(args, "input-shape", "D0,D1,..."));
  MLF_ASSIGN_OR_RETURN(flags.constant_files, Assignments(args, "constant"));
  if ((!shapes.empty() || !flags.constant_files.empty()) && models > 1) {
    return InvalidArgument(std::string(shapes.empty() ? "--constant" : "--input-shape") +
                           " applies to one model, and this export has " +
                           std::to_string(models) + ": export the model it is for on its own");
  }
  for (const auto& [name, text] : shapes) {
    MLF_ASSIGN_OR_RETURN(flags.options.input_shapes[name], ParseDimensions(name, text));
  }
  return flags;
}

// Reads each --constant file into `options`.
Status ReadConstants(const ImportFlags& flags, ModelImportOptions& options) {
  for (const auto& [name, path] : flags.constant_files) {
    Result<NpyArray> array = ReadNpyFile(path);
    if (!array.ok()) return array.status().WithContext("--constant " + QuoteForMessage(name));
    ir::HostTensor& tensor = options.constants[name];
    tensor.dtype = array->dtype;
    tensor.shape = array->shape;
    tensor.bytes = std::move(array->data);
  }
  return Status::Ok();
}

Result<Compression> ParseCompression(const std::string& text) {
  if (text == "none") return Compression::kNone;
  if (text == "gzip") return Compression::kGzip;
  if (text == "zstd") return Compression::kZstd;
  return InvalidArgument("--compress must be none, gzip or zstd, not '" + text + "'");
}

void PrintWritten(const std::string& path, const Metadata& written, bool linked) {
  if (JsonOutput()) {
    PrintJsonReport(ExportDocument(path, written, linked));
    return;
  }
  for (const auto& [name, m] : written.modules) {
    std::cout << "module " << DisplayText(name) << ": " << m.operators.size() << " operators, workspace "
              << m.memory.workspace_size_bytes << " B, parameters " << m.memory.constants_size_bytes
              << " B" << (linked ? " (linked)" : "") << "\n";
  }
  std::cout << "wrote " << path << "\n";
}

int RunExport(const ParsedArgs& args) {
  if (args.positionals().empty()) return ReportUsageError("export", "missing MODEL");
  if (!args.Has("output")) return ReportUsageError("export", "missing required option '-o OUT'");
  Result<std::vector<ModelSpec>> specs = ParseModels(args.positionals());
  if (!specs.ok()) return ReportUsageError("export", specs.status().message());
  Result<Compression> compression = ParseCompression(args.Get("compress", "none"));
  if (!compression.ok()) return ReportUsageError("export", compression.status().message());
  const NamedPath output = FlagPath("-o", args.Get("output"));
  std::vector<NamedPath> read;
  for (const ModelSpec& spec : *specs) read.push_back(FlagPath("MODEL", spec.path));
  Result<ImportFlags> import = ParseImportFlags(args, specs->size());
  if (!import.ok()) return ReportUsageError("export", import.status().message());
  for (const auto& [name, path] : import->constant_files) read.push_back(FlagPath("--constant", path));
  Status distinct = CheckOutputFile(output, read);
  if (!distinct.ok()) return ReportUsageError("export", distinct.message());
  ModelFileOptions compile;
  compile.import = import->options;
  Status constants = ReadConstants(*import, compile.import);
  if (!constants.ok()) return ReportFailure(constants);
  compile.compile.link_params = args.Has("link-params");
  compile.compile.optimize = !args.Has("no-optimize");
  compile.keep_source = args.Has("keep-source");
  std::vector<ModuleArtifacts> modules;
  for (const ModelSpec& spec : *specs) {
    Result<ModuleArtifacts> m = CompileModel(spec, compile, &read);
    if (!m.ok()) return ReportFailure(m.status());
    modules.push_back(std::move(*m));
  }
  distinct = CheckOutputFile(output, read);
  if (!distinct.ok()) return ReportUsageError("export", distinct.message());
  ExportOptions options;
  options.build_host_library = !args.Has("no-host-lib");
  options.pack.compression = *compression;
  Result<int64_t> mtime = ArchiveMtimeFromEnvironment();
  if (!mtime.ok()) return ReportFailure(mtime.status());
  options.pack.mtime = *mtime;
  Progress progress("writing");
  options.pack.progress = progress.Callback();
  Result<Metadata> written = ExportArchive(modules, args.Get("output"), options);
  if (!written.ok()) return ReportFailure(written.status());
  PrintWritten(args.Get("output"), *written, compile.compile.link_params);
  return kExitOk;
}

}  // namespace

const Command& ExportCommand() {
  static const Command command{
      "export", "compile ONNX or YAML models into an archive", kUsage,
      {{"output", true, false, "o"}, {"link-params", false, false, ""},
       {"no-host-lib", false, false, ""}, {"compress", true, false, ""},
       {"no-optimize", false, false, ""}, {"keep-source", false, false, ""},
       {"json", false, false, ""}, {"input-shape", true, true, ""},
       {"constant", true, true, ""}},
      RunExport};
  return command;
}

}  // namespace mlf::cli
