#include "artifact/format/metadata_enums.h"

namespace mlf {
namespace {

// One table per enum: the spelling of each value, in declaration order, so
// parsing and printing cannot disagree.
template <typename E, size_t N>
std::optional<E> Lookup(const char* const (&names)[N], std::string_view text) {
  for (size_t i = 0; i < N; ++i) {
    if (text == names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

constexpr const char* kStyles[] = {"full-model", "operator"};
constexpr const char* kExecutors[] = {"aot", "graph", "unknown"};
constexpr const char* kInterfaceApis[] = {"c", "packed", "unknown"};
constexpr const char* kStorages[] = {"linked", "file", "tvm-params"};
constexpr const char* kSourceFormats[] = {"onnx", "yaml", "tvm", "c"};
constexpr const char* kShapesFrom[] = {"", "relay", "graph"};
constexpr const char* kPlanBufferKinds[] = {"value", "scratch"};

template <typename E>
EnumValue<E> Read(std::optional<E> known, std::string_view text) {
  if (known && *known != E::kUnknown) return *known;
  EnumValue<E> unknown;
  unknown.text = std::string(text);
  return unknown;
}

}  // namespace

std::optional<ModuleStyle> ParseModuleStyle(std::string_view text) {
  return Lookup<ModuleStyle>(kStyles, text);
}
const char* ToString(ModuleStyle style) { return kStyles[static_cast<int>(style)]; }

std::optional<Executor> ParseExecutor(std::string_view text) {
  std::optional<Executor> e = Lookup<Executor>(kExecutors, text);
  if (e == Executor::kUnknown) return std::nullopt;  // "unknown" is no executor's name
  return e;
}
const char* ToString(Executor executor) { return kExecutors[static_cast<int>(executor)]; }
ExecutorValue ReadExecutor(std::string_view text) { return Read(ParseExecutor(text), text); }
std::string ToString(const ExecutorValue& executor) {
  return executor == Executor::kUnknown ? executor.text : ToString(executor.value);
}
std::vector<std::string> ExecutorNames(const std::vector<ExecutorValue>& executors) {
  std::vector<std::string> names;
  for (const ExecutorValue& e : executors) names.push_back(ToString(e));
  return names;
}

std::optional<InterfaceApi> ParseInterfaceApi(std::string_view text) {
  std::optional<InterfaceApi> a = Lookup<InterfaceApi>(kInterfaceApis, text);
  if (a == InterfaceApi::kUnknown) return std::nullopt;
  return a;
}
const char* ToString(InterfaceApi api) { return kInterfaceApis[static_cast<int>(api)]; }
InterfaceApiValue ReadInterfaceApi(std::string_view text) {
  return Read(ParseInterfaceApi(text), text);
}
std::string ToString(const InterfaceApiValue& api) {
  return api == InterfaceApi::kUnknown ? api.text : ToString(api.value);
}

std::optional<ParamStorage> ParseParamStorage(std::string_view text) {
  return Lookup<ParamStorage>(kStorages, text);
}
const char* ToString(ParamStorage storage) { return kStorages[static_cast<int>(storage)]; }

std::optional<SourceFormat> ParseSourceFormat(std::string_view text) {
  return Lookup<SourceFormat>(kSourceFormats, text);
}
const char* ToString(SourceFormat format) { return kSourceFormats[static_cast<int>(format)]; }

std::optional<PlanBufferKind> ParsePlanBufferKind(std::string_view text) {
  return Lookup<PlanBufferKind>(kPlanBufferKinds, text);
}
const char* ToString(PlanBufferKind kind) { return kPlanBufferKinds[static_cast<int>(kind)]; }

std::optional<ShapesFrom> ParseShapesFrom(std::string_view text) {
  return Lookup<ShapesFrom>(kShapesFrom, text);
}
const char* ToString(ShapesFrom from) { return kShapesFrom[static_cast<int>(from)]; }

}  // namespace mlf
