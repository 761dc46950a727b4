// The in-memory metadata model of a Model Library Format archive (version 8).
//
// Every reader of mlfkit — inspect, verify, the host loader, the firmware
// loader — works on this one model. TVM archives (versions 5–7) are normalised
// into it as well (see artifact/tvm_metadata.h once it lands).
//
// The types mirror metadata.json field for field (docs/archive-format.md).
// Parsing validates in three steps, each with messages naming the field:
//   1. JSON syntax and resource bounds (size, nesting depth);
//   2. the JSON Schema `schemas/metadata-v8.schema.json` (embedded at build time);
//   3. semantic rules the schema cannot express (unique C names, byte sizes
//      that match dtype × shape, a consistent parameter index, every referenced
//      path listed in `files`).
#ifndef MLFKIT_ARTIFACT_METADATA_H_
#define MLFKIT_ARTIFACT_METADATA_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/status.h"

namespace mlf {

// The metadata version this build writes; readers also accept TVM's 5–7.
inline constexpr int kMetadataVersion = 8;
// The generated-code ABI version (schemas/model_abi.h: MLF_ABI_VERSION).
inline constexpr int kAbiVersion = 1;
// Bounds on metadata.json itself, applied before parsing.
inline constexpr uint64_t kMaxMetadataBytes = 16ull << 20;
inline constexpr int kMaxJsonDepth = 64;

inline constexpr char kMetadataMember[] = "metadata.json";
inline constexpr char kSignatureMember[] = "metadata.json.sig";

// A model input or output.
struct TensorInfo {
  std::string name;    // as the source model names it, e.g. "input:0"
  std::string c_name;  // sanitised C identifier, e.g. "input_0"
  std::string dtype;   // "float32", "int8", ... (artifact/dtype.h)
  std::vector<int64_t> shape;
  uint64_t size_bytes = 0;
};

// One tensor inside the parameter blob.
struct ParamTensorInfo {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // from the start of the blob, 64-byte aligned
  uint64_t size_bytes = 0;
};

struct ParametersInfo {
  std::string storage;  // "linked" (const arrays in the code) or "file"
  std::string path;     // archive member of the blob when storage is "file"
  std::vector<ParamTensorInfo> tensors;
};

struct MemoryInfo {
  uint64_t workspace_size_bytes = 0;
  uint64_t constants_size_bytes = 0;
  uint64_t io_size_bytes = 0;
  uint64_t alignment_bytes = 64;
  // The largest sum of simultaneously live intermediates: what an ideal
  // planner would need. Recorded by mlfkit's compiler; absent elsewhere.
  std::optional<uint64_t> workspace_lower_bound_bytes;
};

struct TargetInfo {
  std::string kind;         // "c"
  std::string host_triple;  // e.g. "x86_64-linux-gnu"; empty when absent
  std::string mcpu;         // e.g. "cortex-m4"; empty when absent
  std::map<std::string, std::string> attrs;
};

struct SourceInfo {
  std::string format;  // "onnx", "yaml", "tvm", "c"
  std::optional<int64_t> opset;
  std::string sha256;  // of the source model; empty when absent
  std::string path;    // archive member holding it; empty when absent
};

struct HostLibraryInfo {
  std::string path;
  std::string triple;
  std::string compiler;
  std::vector<std::string> flags;
};

struct OperatorInfo {
  std::string name;
  std::vector<std::string> ops;
  uint64_t macs = 0;
};

struct ModuleMetadata {
  std::string model_name;
  std::string style = "full-model";
  std::vector<std::string> executors = {"aot"};
  std::string interface_api = "c";
  int64_t abi_version = kAbiVersion;
  TargetInfo target;
  std::optional<SourceInfo> source;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
  MemoryInfo memory;
  std::optional<ParametersInfo> parameters;
  std::optional<HostLibraryInfo> host_library;
  std::vector<std::string> sources;
  std::vector<OperatorInfo> operators;
  std::string description;
};

struct FileEntry {
  uint64_t size = 0;
  std::string sha256;  // 64 lower-case hex digits

  bool operator==(const FileEntry& o) const { return size == o.size && sha256 == o.sha256; }
};

struct Metadata {
  int version = kMetadataVersion;
  std::string generator_name = "mlfkit";
  std::string generator_version;
  std::string export_datetime = "1970-01-01 00:00:00Z";
  std::map<std::string, ModuleMetadata> modules;  // key: module name
  std::map<std::string, FileEntry> files;         // key: archive member path
};

// Parses and validates metadata.json text (steps 1–3 above). A version newer
// than kMetadataVersion is refused naming both versions; TVM versions 5–7 are
// refused with kUnimplemented until the TVM normaliser handles them.
Result<Metadata> ParseMetadata(std::string_view json_text);

// Like ParseMetadata, but for a directory about to be packed: `files` may be
// absent (the writer fills it in), and referenced paths are not checked.
Result<Metadata> ParseMetadataForPacking(std::string_view json_text);

// Deterministic JSON text (sorted keys, two-space indent, trailing newline).
// Serialising the same Metadata always gives the same bytes.
std::string SerializeMetadata(const Metadata& metadata);

// Semantic rules of step 3 on an already-built model (the compiler calls this
// before writing an archive). `check_files` also requires that every path the
// modules reference is listed in `files`.
Status CheckMetadataSemantics(const Metadata& metadata, bool check_files);

// Reads only the "version" field (for dispatch and for clear version errors).
Result<int> PeekMetadataVersion(std::string_view json_text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_METADATA_H_
