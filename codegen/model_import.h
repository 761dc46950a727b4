// Reading a model file of any supported format into the graph IR, with the
// provenance recorded in metadata ("source") and kept in the archive
// (src/<module>.<ext>).
#ifndef MLFKIT_CODEGEN_MODEL_IMPORT_H_
#define MLFKIT_CODEGEN_MODEL_IMPORT_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "codegen/ir/graph.h"

namespace mlf {

struct ImportedModel {
  ir::Graph graph;
  SourceInfo source;         // format, opset, sha256 (path is set when archived)
  std::string source_bytes;  // the model file, for src/<module>.<ext>
  std::string extension;     // "onnx", "yaml"
  std::string description;
  std::vector<std::string> npy_files;  // files a YAML model's `npy` parameters were read from
};

// Chooses the front end by extension: .onnx, or .yaml / .yml.
Result<ImportedModel> ImportModelFile(const std::string& path);

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_MODEL_IMPORT_H_
