// ImportYaml (YAML -> JSON, the model schema, lowering, inference) over
// arbitrary text, with small bounds. `npy:` paths resolve against a
// directory that does not exist, so no input reads a file (not even with
// "..": the kernel resolves each component); .npy parsing has its own target.
#include <string>

#include "codegen/frontend/yaml_frontend.h"
#include "fuzz/fuzz_target.h"

namespace {
constexpr char kMissingDir[] = "/nonexistent-mlf-fuzz/models";
}  // namespace

MLF_FUZZ_TARGET(yaml) {
  mlf::frontend::YamlImportOptions options;
  options.file_name = "fuzz.yaml";
  options.max_file_bytes = 256 << 10;
  options.max_depth = 16;
  options.max_yaml_values = 20000;
  options.max_nodes = 128;
  options.max_rank = 6;
  options.max_tensor_elements = 1 << 16;
  options.max_parameter_bytes = 1 << 20;
  mlf::frontend::YamlModelInfo info;
  auto graph = mlf::frontend::ImportYaml(mlf::fuzz::AsView(data, size), kMissingDir, options, &info);
  (void)graph;
  return 0;
}
