// The in-memory metadata model of a Model Library Format archive (version 9;
// version 8, which lacks only the optional fields marked "version 9", reads
// into it unchanged).
//
// Every reader of mlfkit — inspect, verify, the host loader, the firmware
// loader — works on this one model. TVM archives (versions 5–7) are normalised
// into it as well (tvm/format/tvm_metadata.h): `Metadata::version` then keeps
// TVM's version and every module carries a `ModuleMetadata::tvm` record of
// what only TVM archives have (docs/archive-format.md, "TVM archives").
//
// The types mirror metadata.json field for field (docs/archive-format.md).
// Parsing validates in three steps, each with messages naming the field:
//   1. JSON syntax and resource bounds (size, nesting depth);
//   2. the JSON Schema of the document's version, `schemas/metadata-v<N>.schema.json`
//      (embedded at build time);
//   3. semantic rules the schema cannot express (unique C names, byte sizes
//      that match dtype × shape, a consistent parameter index, every referenced
//      path listed in `files`).
#ifndef MLFKIT_ARTIFACT_FORMAT_METADATA_H_
#define MLFKIT_ARTIFACT_FORMAT_METADATA_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata_enums.h"

namespace mlf {

// The metadata version this build writes; readers also accept our own from
// kOldestMetadataVersion on and TVM's 5–7 (docs/design.md, "Format versions").
inline constexpr int kMetadataVersion = 9;
inline constexpr int kOldestMetadataVersion = 8;
// The generated-code ABI version written (schemas/model_abi.h: MLF_ABI_VERSION);
// readers accept every version from kMinAbiVersion on (docs/design.md,
// "Generated-code ABI").
inline constexpr int kAbiVersion = 2;
inline constexpr int kMinAbiVersion = 1;
// Bounds on metadata.json itself, applied before parsing.
inline constexpr uint64_t kMaxMetadataBytes = 16ull << 20;
inline constexpr int kMaxJsonDepth = 64;

inline constexpr char kMetadataMember[] = "metadata.json";
inline constexpr char kSignatureMember[] = "metadata.json.sig";

// Version 9: how a quantized tensor's integers map to real values,
// real = (q - zero_point) * scale: one scale and zero point, or (with
// `axis`) one per index along that dimension.
struct QuantizationInfo {
  std::vector<double> scale;
  std::vector<int64_t> zero_point;
  std::optional<int64_t> axis;

  bool operator==(const QuantizationInfo& o) const {
    return scale == o.scale && zero_point == o.zero_point && axis == o.axis;
  }
};

// A model input or output.
struct TensorInfo {
  std::string name;    // as the source model names it, e.g. "input:0"
  std::string c_name;  // sanitised C identifier, e.g. "input_0"
  // Always known in version 8; in TVM archives unknown when the archive
  // names a dtype mlfkit does not know (text kept) or none.
  DTypeValue dtype;
  std::vector<int64_t> shape;
  uint64_t size_bytes = 0;
  // False when the archive does not say (TVM archives without Relay text or
  // graph JSON): `shape` is then empty and `size_bytes` still holds the size.
  // Always true in versions 8 and 9.
  bool shape_known = true;
  std::optional<QuantizationInfo> quantization;  // version 9
};

// One tensor inside the parameter blob.
struct ParamTensorInfo {
  std::string name;
  DTypeValue dtype;  // always known (version 8's schema, TVM's .params codes)
  std::vector<int64_t> shape;
  uint64_t offset = 0;  // from the start of the blob, 64-byte aligned
  uint64_t size_bytes = 0;
  std::optional<QuantizationInfo> quantization;  // version 9
  // Version 9: the layout of the bytes when not the source's row-major
  // tensor, e.g. "gemm_f32_panels8" (docs/archive-format.md, "Parameter
  // layouts"); empty for row-major.
  std::string layout;
};

struct ParametersInfo {
  // Linked (const arrays in the code) or file; TVM archives only:
  // kTvmParams (TVM's .params dictionary, tvm/format/tvm_params.h, whose
  // tensor offsets are where each tensor's data starts in that file).
  ParamStorage storage = ParamStorage::kLinked;
  std::string path;     // archive member of the blob ("file", "tvm-params")
  std::vector<ParamTensorInfo> tensors;
};

// Version 9: one buffer of the memory plan, live from operators[first] to
// operators[last].
struct PlanBufferInfo {
  std::string name;      // the value's name, or the operator's for its scratch
  PlanBufferKind kind = PlanBufferKind::kValue;
  uint64_t offset = 0;   // in the workspace
  uint64_t size_bytes = 0;
  uint64_t first_operator = 0;
  uint64_t last_operator = 0;
  // The in-place Concat output that holds this value, or empty.
  std::string inside;
};

struct MemoryInfo {
  uint64_t workspace_size_bytes = 0;
  uint64_t constants_size_bytes = 0;
  uint64_t io_size_bytes = 0;
  uint64_t alignment_bytes = 64;
  // The largest sum of simultaneously live intermediates: what an ideal
  // planner would need. Recorded by mlfkit's compiler; absent elsewhere.
  std::optional<uint64_t> workspace_lower_bound_bytes;
  std::vector<PlanBufferInfo> plan;  // version 9; empty when not recorded
};

struct TargetInfo {
  std::string kind;         // "c"
  std::string host_triple;  // e.g. "x86_64-linux-gnu"; empty when absent
  std::string mcpu;         // e.g. "cortex-m4"; empty when absent
  std::map<std::string, std::string> attrs;
};

struct SourceInfo {
  SourceFormat format = SourceFormat::kOnnx;
  std::optional<int64_t> opset;
  std::string sha256;  // of the source model; empty when absent
  std::string path;    // archive member holding it; empty when absent
  // Version 9: what the export fixed (mlf export --input-shape, --constant).
  struct FixedShape {
    std::string name;
    std::vector<int64_t> shape;
  };
  struct FixedConstant {
    std::string name;
    DTypeValue dtype;
    std::vector<int64_t> shape;
    std::string sha256;  // of the values' bytes, little-endian row-major
  };
  std::vector<FixedShape> input_shapes;
  std::vector<FixedConstant> constants;
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
  // Version 9: bytes of the constants this operator reads (a constant read
  // by two operators counts for both).
  std::optional<uint64_t> param_bytes;
};

// Version 9: the kernel layer's families the code calls and the variants it
// carries (codegen/kernels/README.md); absent when the code calls none.
struct KernelsInfo {
  std::vector<std::string> families;
  std::vector<std::string> variants;
};

// ---- What only TVM archives (metadata versions 5–7) have. Filled by the TVM
// normaliser (tvm/format/tvm_metadata.h); never serialised into metadata.json.

// memory.functions.main[i]: the main function's memory on one device.
struct TvmMainMemory {
  int64_t device = 1;  // DLPack device type, 1 = CPU
  uint64_t workspace_size_bytes = 0;
  uint64_t constants_size_bytes = 0;
  uint64_t io_size_bytes = 0;
};

// memory.functions.operator_functions[i]: one operator's own workspace.
struct TvmOperatorFunction {
  std::string name;
  uint64_t workspace_size_bytes = 0;  // the largest over its devices
};

// memory.sids[i] (graph executor): one storage id.
struct TvmStorage {
  int64_t storage_id = 0;
  uint64_t size_bytes = 0;
  std::string input_binding;  // graph input or parameter name; empty for intermediates
};

// Operator style: memory.<function>[i], one buffer of one function.
struct TvmOperatorBuffer {
  std::string function;
  std::string binding;  // TVM's name for the buffer (input or output: TVM cannot tell)
  DTypeValue dtype;     // as TVM wrote it, e.g. "float32"; unknown text kept
  std::vector<int64_t> shape;
  uint64_t size_bytes = 0;
};

// external_dependencies[i], e.g. the bundled standalone C runtime.
struct TvmDependency {
  std::string short_name;
  std::string url;
  std::string url_type;
  std::string version_spec;
};

struct TvmModuleInfo {
  int version = 0;                   // TVM's metadata version: 5, 6 or 7
  std::vector<std::string> targets;  // target strings as written (v5: the dictionary's values)
  // executors[0]: aot, graph, unknown (text kept), or none (operator style).
  std::optional<ExecutorValue> executor;
  // C-interface entry point "tvmgen_<mod>_run" when interface_api is "c".
  std::string run_function;
  // The inner function the run wrapper calls: "tvmgen_<mod>___tvm_main__",
  // before Feb 2022 "tvmgen_<mod>_run_model"; empty when no source defines one.
  std::string main_function;
  // What the sources define, which wins where the interface header says
  // otherwise (TVM 0.8 headers declare a struct run the code lacks):
  // whether a source defines run_function's name, with its parameter types
  // (TVM 0.8's packed wrapper: "void*", "void*", "int", "void*", "void*",
  // "void*"), and main_function's parameters as "<type> <name>".
  bool run_defined = false;
  std::vector<std::string> run_defined_parameters;
  std::vector<std::string> main_parameters;
  // Where the code binds its parameters itself (linked parameters), e.g.
  // "codegen/host/src/default_lib0.c defines __tvm_param__p0"; "" when the
  // code shows none.
  std::string linked_params;
  // Where tensor shapes came from: Relay, graph JSON, or kNone (unknown).
  ShapesFrom shapes_from = ShapesFrom::kNone;
  // Archive members (empty when absent).
  std::string relay_path;   // src/<mod>.relay, v<=6 src/relay.txt
  std::string graph_path;   // executor-config/graph/<mod>.graph or .../graph.json
  std::string header_path;  // codegen/host/include/tvmgen_<mod>.h
  std::vector<std::string> object_files;  // codegen/host/lib/*.o (TVM's llvm target)
  bool bundled_runtime = false;           // runtime/include/ (standalone CRT) present
  // The run function also takes workspace pools or devices the caller must
  // provide (USMP with user pools): the struct names, e.g. "workspace_pools".
  std::vector<std::string> extra_run_arguments;
  std::vector<TvmMainMemory> main_memory;
  std::vector<TvmOperatorFunction> operator_functions;
  std::vector<TvmStorage> sids;
  std::vector<TvmOperatorBuffer> operator_buffers;
  std::vector<TvmDependency> external_dependencies;
  // Headers the code includes that neither the archive nor mlfkit's TVM
  // compatibility headers provide and that are not standard C (toolchain
  // headers such as arm_math.h).
  std::vector<std::string> external_headers;
  // The TVM runtime headers (tvm/..., dlpack/...) the module's sources
  // include, whoever provides them (the archive, mlfkit's compatibility
  // headers, nobody), in the order first seen.
  std::vector<std::string> runtime_headers;
  // Non-empty when the code only builds for another architecture: the target
  // it needs (e.g. "cortex-m4", from -mcpu, else the architecture family) and
  // the evidence (e.g. "codegen/host/src/default_lib1.c includes <arm_acle.h>").
  std::string foreign_target;
  std::string foreign_evidence;
  // What the reader could not establish, in words (e.g. "shapes are unknown:
  // the archive has no Relay text"); shown by inspect and verify.
  std::vector<std::string> notes;
};

struct ModuleMetadata {
  std::string model_name;
  ModuleStyle style = ModuleStyle::kFullModel;
  std::vector<ExecutorValue> executors = {Executor::kAot};
  InterfaceApiValue interface_api = InterfaceApi::kC;
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
  std::optional<KernelsInfo> kernels;  // version 9
  std::string description;
  // Set for modules read from TVM archives (then style may be operator,
  // executors graph or unknown and interface_api packed or unknown as well).
  std::optional<TvmModuleInfo> tvm;
};

struct FileEntry {
  uint64_t size = 0;
  std::string sha256;  // 64 lower-case hex digits

  bool operator==(const FileEntry& o) const { return size == o.size && sha256 == o.sha256; }
};

// Versions 5–7 are Apache TVM's metadata.json. This layer knows only that
// they are TVM's; the TVM wing (tvm/format) reads them.
inline bool IsTvmMetadataVersion(int64_t version) { return version >= 5 && version <= 7; }

struct Metadata {
  int version = kMetadataVersion;
  std::string generator_name = "mlfkit";
  std::string generator_version;
  std::string export_datetime = "1970-01-01 00:00:00Z";
  std::map<std::string, ModuleMetadata> modules;  // key: module name
  // Every member except metadata.json and its signature. For TVM archives,
  // which record no digests, the reader fills it with what it found: the
  // sizes and SHA-256 it computed (they prove nothing about origin).
  std::map<std::string, FileEntry> files;         // key: archive member path

  // True for metadata read from a TVM archive (versions 5–7).
  bool is_tvm() const { return IsTvmMetadataVersion(version); }
};

// Parses and validates metadata.json text (steps 1–3 above). A version newer
// than kMetadataVersion is refused naming both versions. TVM versions 5–7 are
// refused here (kFailedPrecondition): TVM's metadata.json alone does not
// describe a model, so the TVM wing reads it with its whole archive
// (ParseTvmMetadata, tvm/format/tvm_metadata.h, then tvm/format/tvm_archive.h).
Result<Metadata> ParseMetadata(std::string_view json_text);

// Like ParseMetadata, but for a directory about to be packed: `files` may be
// absent (the writer fills it in), and referenced paths are not checked.
// TVM metadata is refused (packing writes our own versions only).
Result<Metadata> ParseMetadataForPacking(std::string_view json_text);

// Deterministic JSON text (sorted keys, two-space indent, trailing newline).
// Serialising the same Metadata always gives the same bytes. Writes the form
// of `metadata.version` (8 or 9; the version-9 fields are empty in a model
// read from version 8): TvmModuleInfo and TensorInfo::shape_known are not
// written.
std::string SerializeMetadata(const Metadata& metadata);

// Semantic rules of step 3 on an already-built model (the compiler calls this
// before writing an archive). `check_files` also requires that every path the
// modules reference is listed in `files`.
Status CheckMetadataSemantics(const Metadata& metadata, bool check_files);

// Reads only the "version" field (for dispatch and for clear version errors).
Result<int> PeekMetadataVersion(std::string_view json_text);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_METADATA_H_
