// The YAML front end: mlfkit's own small model description (format version 1,
// docs/yaml-models.md, schemas/model-yaml-v1.schema.json) to the compiler's
// graph IR (codegen/ir/graph.h), in canonical operator form
// (codegen/ops/README.md), with every node inferred.
//
//   mlf_model: 1
//   name: tiny
//   inputs:  [{name: x, dtype: float32, shape: [1, 4]}]
//   parameters:
//     w: {dtype: float32, shape: [3, 4], random: {seed: 1, distribution: uniform, low: -0.5, high: 0.5}}
//     b: {dtype: float32, shape: [3], fill: 0}
//   nodes:
//     - {op: Gemm, inputs: [x, w, b], outputs: [h], attrs: {transB: 1}}
//     - {op: Relu, inputs: [h], outputs: [y]}
//   outputs: [y]
//
//   MLF_ASSIGN_OR_RETURN(ir::Graph g, frontend::ImportYamlFile("model.yaml"));
//
// Steps, each with its own error (the message always starts with the file
// name, "<file>:<line>: " where a line is known):
//   1. bounds: document bytes (max_file_bytes, checked before a file is read);
//   2. YAML -> JSON (YamlToJson below): not YAML, nesting deeper than
//      max_depth, more than max_yaml_values values (aliases counted expanded),
//      duplicate mapping keys, non-scalar keys, unknown tags, invalid UTF-8,
//      integers beyond 64 bits, more than one document;
//   3. `mlf_model` other than 1 (FailedPrecondition), more than max_nodes
//      nodes (OutOfRange), then the embedded JSON Schema
//      (model-yaml-v1.schema.json; the message carries the JSON pointers);
//   4. lowering: inputs (rank <= max_rank, elements <= max_tensor_elements),
//      parameters -> constants (values checked against the shape, npy files
//      against dtype and shape, all parameters together <= max_parameter_bytes),
//      nodes in the given order (a value read before it is defined, a name
//      defined twice, an operator FindOp does not know: errors naming the
//      node and the value or op), ops::InferNode for each node, outputs
//      (each computed by a node), Graph::Validate().
// Parameters become constants in alphabetical order of their names (JSON
// objects are unordered). No exception escapes (yaml-cpp's are caught here).
#ifndef MLFKIT_CODEGEN_FRONTEND_YAML_FRONTEND_H_
#define MLFKIT_CODEGEN_FRONTEND_YAML_FRONTEND_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::frontend {

// The format version this front end reads (`mlf_model: 1`).
inline constexpr int64_t kYamlModelVersion = 1;
// The embedded schema (schemas/BUILD.bazel EMBEDDED_FILES).
inline constexpr char kYamlModelSchemaName[] = "model-yaml-v1.schema.json";

// Bounds on untrusted documents; each has its own kOutOfRange error.
struct YamlImportOptions {
  // Names the document in error messages; ImportYamlFile uses the path.
  std::string file_name = "<yaml>";
  uint64_t max_file_bytes = uint64_t{16} << 20;     // 16 MiB of YAML text
  int max_depth = 32;                               // nested sequences/mappings
  uint64_t max_yaml_values = 4000000;               // scalars + collections
  uint64_t max_nodes = 100000;
  size_t max_rank = 8;                              // inputs and parameters
  uint64_t max_tensor_elements = uint64_t{1} << 28;  // per input or parameter
  uint64_t max_parameter_bytes = uint64_t{1} << 30;  // all parameters together
};

// What the document says besides the graph.
struct YamlModelInfo {
  std::string name;
  std::string description;  // "" when absent
  // The `npy` files read, as opened (base_dir + the path in the document), in
  // the order read; `mlf export` refuses an output that is one of them.
  std::vector<std::string> npy_files;
};

// Imports a model from YAML text; `base_dir` is the directory `npy` paths are
// relative to ("" = the current directory). An `npy` file must lie in that
// directory or below it: absolute paths, '..' leading above it and symbolic
// links resolving outside it are refused (InvalidArgument, naming the
// parameter and the path), so a model cannot pull other files into an archive.
Result<ir::Graph> ImportYaml(std::string_view text, const std::string& base_dir,
                             const YamlImportOptions& options = {},
                             YamlModelInfo* info = nullptr);
// Reads `path` (refusing a file over max_file_bytes before reading it; a
// missing file is kNotFound) and imports it with its directory as base_dir and
// its path as file_name.
Result<ir::Graph> ImportYamlFile(const std::string& path, const YamlImportOptions& options = {},
                                 YamlModelInfo* info = nullptr);

// Converts one YAML document to JSON under the YAML 1.2 core schema:
// plain scalars null/Null/NULL/~/empty -> null; true/True/TRUE/false/... ->
// boolean; [-+]?[0-9]+, 0o.., 0x.. -> integer (int64, or uint64 above
// INT64_MAX; larger is an error); [-+]?(.digits|digits[.digits])([eE][-+]?digits)?
// and [-+]?.inf, .nan -> number; anything else, quoted scalars and !!str ->
// string (so `yes`/`no`/`on`/`off` stay strings). Other tags are refused.
// Mapping keys are scalars taken as strings, each once per mapping. Anchors
// and aliases work (an alias is a copy, counted against max_yaml_values).
// Uses file_name, max_file_bytes, max_depth and max_yaml_values of `options`.
Result<nlohmann::json> YamlToJson(std::string_view text, const YamlImportOptions& options = {});

// Reproducible pseudo-random parameters (`random:` in the format).
//
// Generator: splitmix64 with state = seed; each draw adds 0x9E3779B97F4A7C15
// to the state and mixes it (z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
// z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31). A unit draw is
// u = (draw >> 11) * 2^-53, in [0, 1).
//   uniform: element i = low + (high - low) * u_i.
//   normal:  elements come in pairs from two unit draws u, v:
//            r = sqrt(-2 ln(1 - u)), e_2k = mean + std * r * cos(2 pi v),
//            e_2k+1 = mean + std * r * sin(2 pi v) (an odd count drops the last sin).
// Values are computed in double and rounded to nearest in the tensor's dtype;
// only floating-point dtypes may be random. The bits depend only on IEEE-754
// double arithmetic and on log/cos/sin/sqrt (correctly rounded sqrt; glibc's
// log, cos and sin are accurate to < 1 ulp), so float32 results agree across
// machines.
struct RandomSpec {
  enum class Distribution { kUniform, kNormal };
  uint64_t seed = 0;
  Distribution distribution = Distribution::kUniform;
  double a = 0;  // low (uniform) or mean (normal)
  double b = 1;  // high (uniform) or std (normal)
};
// Fills every element of `tensor` (its dtype and shape set, bytes sized) as
// described above; kInvalidArgument for a dtype that is not floating-point.
Status FillRandomTensor(const RandomSpec& spec, ir::HostTensor* tensor);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_YAML_FRONTEND_H_
