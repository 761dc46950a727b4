#include "codegen/model_import.h"

#include <fstream>
#include <sstream>

#include "artifact/base/digest.h"
#include "codegen/frontend/onnx_frontend.h"
#include "codegen/frontend/yaml_frontend.h"

namespace mlf {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read model '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Metadata's record of what the user fixed (version 9): names in the order
// of the options' maps (sorted), each constant by the digest of its bytes.
void RecordFixedAtExport(const ModelImportOptions& options, SourceInfo* source) {
  for (const auto& [name, shape] : options.input_shapes) source->input_shapes.push_back({name, shape});
  for (const auto& [name, tensor] : options.constants) {
    source->constants.push_back({name, tensor.dtype, tensor.shape, Sha256Hex(tensor.bytes)});
  }
}

}  // namespace

Result<ImportedModel> ImportModelFile(const std::string& path, const ModelImportOptions& options) {
  ImportedModel m;
  if (EndsWith(path, ".onnx")) {
    frontend::OnnxImportOptions onnx;
    onnx.input_shapes = options.input_shapes;
    onnx.constant_inputs = options.constants;
    onnx.input_shapes_option = options.input_shapes_option;
    onnx.constant_inputs_option = options.constants_option;
    frontend::OnnxModelInfo info;
    MLF_ASSIGN_OR_RETURN(m.graph, frontend::ImportOnnxFile(path, onnx, &info));
    m.source.format = SourceFormat::kOnnx;
    m.source.opset = info.opset;
    RecordFixedAtExport(options, &m.source);
    m.extension = "onnx";
  } else if (EndsWith(path, ".yaml") || EndsWith(path, ".yml")) {
    for (const auto& [given, option] :
         {std::pair{!options.input_shapes.empty(), options.input_shapes_option},
          std::pair{!options.constants.empty(), options.constants_option}}) {
      if (given) {
        return InvalidArgument(option + " applies to ONNX models only: the YAML model '" + path +
                               "' states every shape and value itself");
      }
    }
    frontend::YamlModelInfo info;
    MLF_ASSIGN_OR_RETURN(m.graph, frontend::ImportYamlFile(path, {}, &info));
    m.source.format = SourceFormat::kYaml;
    m.extension = "yaml";
    m.description = info.description;
    m.npy_files = info.npy_files;
  } else {
    return InvalidArgument("'" + path + "': unknown model format (expected .onnx, .yaml or .yml)");
  }
  // The model was just read by its front end; reading it again for the
  // archive copy is cheap next to compiling it.
  MLF_ASSIGN_OR_RETURN(m.source_bytes, ReadWhole(path));
  m.source.sha256 = Sha256Hex(m.source_bytes);
  return m;
}

}  // namespace mlf
