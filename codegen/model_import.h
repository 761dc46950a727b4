// Reading a model file of any supported format into the graph IR, with the
// provenance recorded in metadata ("source") and kept in the archive
// (src/<module>.<ext>).
#ifndef MLFKIT_CODEGEN_MODEL_IMPORT_H_
#define MLFKIT_CODEGEN_MODEL_IMPORT_H_

#include <map>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "codegen/ir/graph.h"
#include "codegen/ir/host_tensor.h"

namespace mlf {

struct ImportedModel {
  ir::Graph graph;
  SourceInfo source;         // format, opset, sha256 (path is set when archived)
  std::string source_bytes;  // the model file, for src/<module>.<ext>
  std::string extension;     // "onnx", "yaml"
  std::string description;
  std::vector<std::string> npy_files;  // files a YAML model's `npy` parameters were read from
};

// What the user fixes about an ONNX model's inputs (codegen/frontend/onnx_frontend.h
// OnnxImportOptions::input_shapes and constant_inputs), and how the user's
// tool spells the two options in messages ("--input-shape", "--constant" for
// the CLI). A YAML model's shapes are always fixed: giving either for one is
// an error naming the option.
struct ModelImportOptions {
  std::map<std::string, std::vector<int64_t>> input_shapes;
  std::map<std::string, ir::HostTensor> constants;
  std::string input_shapes_option = "input_shapes";
  std::string constants_option = "constants";
};

// Chooses the front end by extension: .onnx, or .yaml / .yml.
Result<ImportedModel> ImportModelFile(const std::string& path,
                                      const ModelImportOptions& options = {});

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_MODEL_IMPORT_H_
