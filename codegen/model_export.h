// One model file to one module's artifacts: import (codegen/model_import.h),
// compile (codegen/compiler.h) and provenance. The step `mlf export` and the
// Python package's mlfkit.export share; ExportArchive
// (codegen/archive_export.h) then writes the archive.
#ifndef MLFKIT_CODEGEN_MODEL_EXPORT_H_
#define MLFKIT_CODEGEN_MODEL_EXPORT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifact/base/status.h"
#include "codegen/archive_export.h"
#include "codegen/compiler.h"
#include "codegen/model_import.h"

namespace mlf {

struct ModelFileOptions {
  CompileOptions compile;
  // Keep the model file itself in the archive as src/<module>.<ext>. Off by
  // default: it would store the weights a second time. Metadata records the
  // source's format, opset and SHA-256 either way.
  bool keep_source = false;
  // Input shapes and constants fixed by the user (ONNX models).
  ModelImportOptions import;
};

// Compiles the model file at `path` (.onnx, .yaml, .yml) into module
// `module`. Appends to `read_files` (when given) the files the import read
// besides the model itself (a YAML model's `npy` parameters), so that callers
// can refuse an output path that is one of them.
Result<ModuleArtifacts> CompileModelFile(const std::string& path, const std::string& module,
                                         const ModelFileOptions& options,
                                         std::vector<std::string>* read_files = nullptr);

// The document `mlf export --json` prints and mlfkit.export() returns
// (docs/cli-json.md): the archive written and, per module, its operators,
// workspace and parameter bytes. Without "schema_version"/"mlf_version".
nlohmann::json ExportDocument(const std::string& out, const Metadata& written,
                              bool parameters_linked);

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_MODEL_EXPORT_H_
