// The enum-like values of the metadata model (artifact/format/metadata.h),
// typed: parsed once where metadata.json is read (metadata.cc, the TVM
// normaliser) and printed back by the serializer, so the rest of mlfkit
// switches over values instead of comparing strings.
//
// Each enum has one Parse/ToString pair; ToString gives the spelling of
// metadata.json (and of TVM's target options for InterfaceApi):
//
//   std::optional<Executor> e = ParseExecutor("graph");  // Executor::kGraph
//   ToString(Executor::kAot);                             // "aot"
//
// Version 8 archives only hold values the schema allows, so every value read
// from them is known. TVM archives (versions 5–7) come from the wild: an
// executor or interface API this build does not know is kept as an
// EnumValue with value kUnknown and the text as written, so `mlf inspect` and
// `mlf verify` can show it, and the loaders refuse the module.
#ifndef MLFKIT_ARTIFACT_FORMAT_METADATA_ENUMS_H_
#define MLFKIT_ARTIFACT_FORMAT_METADATA_ENUMS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mlf {

// A value read from an archive that may name no value this build knows:
// `value` is then E::kUnknown and `text` holds what the archive said (empty
// for known values). Compares directly with E.
template <typename E>
struct EnumValue {
  E value = E::kUnknown;
  std::string text;

  EnumValue() = default;
  EnumValue(E known) : value(known) {}  // NOLINT: implicit, so known values assign directly

  friend bool operator==(const EnumValue& a, E b) { return a.value == b; }
  friend bool operator!=(const EnumValue& a, E b) { return a.value != b; }
  friend bool operator==(const EnumValue& a, const EnumValue& b) {
    return a.value == b.value && a.text == b.text;
  }
};

// ModuleMetadata::style. Version 8 has full models only; TVM also writes
// operator-style archives (one function per operator, no model entry point).
enum class ModuleStyle { kFullModel, kOperator };
std::optional<ModuleStyle> ParseModuleStyle(std::string_view text);  // "full-model", "operator"
const char* ToString(ModuleStyle style);

// ModuleMetadata::executors. Version 8: aot only. TVM: aot or graph; another
// executor in a TVM archive is kUnknown.
enum class Executor { kAot, kGraph, kUnknown };
std::optional<Executor> ParseExecutor(std::string_view text);  // "aot", "graph"; never kUnknown
const char* ToString(Executor executor);                         // kUnknown: "unknown"
using ExecutorValue = EnumValue<Executor>;
// Known text to its value, other text to kUnknown keeping the text.
ExecutorValue ReadExecutor(std::string_view text);
// The value's name, or the text as read for kUnknown.
std::string ToString(const ExecutorValue& executor);
// Each executor's ToString, in order (metadata.json's "executors").
std::vector<std::string> ExecutorNames(const std::vector<ExecutorValue>& executors);

// ModuleMetadata::interface_api. Version 8: c only. TVM: c or packed (its
// target option -interface-api); another value in a TVM archive is kUnknown.
enum class InterfaceApi { kC, kPacked, kUnknown };
std::optional<InterfaceApi> ParseInterfaceApi(std::string_view text);  // "c", "packed"
const char* ToString(InterfaceApi api);                                  // kUnknown: "unknown"
using InterfaceApiValue = EnumValue<InterfaceApi>;
InterfaceApiValue ReadInterfaceApi(std::string_view text);
std::string ToString(const InterfaceApiValue& api);

// ParametersInfo::storage: const arrays in the code, the parameter blob
// member, or (TVM archives only) TVM's .params dictionary.
enum class ParamStorage { kLinked, kFile, kTvmParams };
std::optional<ParamStorage> ParseParamStorage(std::string_view text);  // "linked", "file", "tvm-params"
const char* ToString(ParamStorage storage);

// SourceInfo::format: what the module was compiled or upgraded from.
enum class SourceFormat { kOnnx, kYaml, kTvm, kC };
std::optional<SourceFormat> ParseSourceFormat(std::string_view text);  // "onnx", "yaml", "tvm", "c"
const char* ToString(SourceFormat format);

// PlanBufferInfo::kind (version 9): an intermediate value or an operator's
// scratch.
enum class PlanBufferKind { kValue, kScratch };
std::optional<PlanBufferKind> ParsePlanBufferKind(std::string_view text);  // "value", "scratch"
const char* ToString(PlanBufferKind kind);

// TvmModuleInfo::shapes_from: where a TVM module's tensor shapes came from.
// Never written to metadata.json; spelled as `mlf inspect --json` shows it.
enum class ShapesFrom { kNone, kRelay, kGraph };
std::optional<ShapesFrom> ParseShapesFrom(std::string_view text);  // "", "relay", "graph"
const char* ToString(ShapesFrom from);                               // kNone: ""

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_METADATA_ENUMS_H_
