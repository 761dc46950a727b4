// Step 3 of metadata validation: the rules a JSON Schema cannot express.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "artifact/base/display_text.h"
#include "artifact/base/printable_name.h"
#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata.h"
#include "artifact/format/name_clash.h"
#include "artifact/format/param_blob.h"

namespace mlf {
namespace {

Status CheckTensorSize(const std::string& where, const TensorInfo& t) {
  MLF_ASSIGN_OR_RETURN(DType dtype, t.dtype.Known());
  MLF_ASSIGN_OR_RETURN(uint64_t expected, ByteSize(dtype, t.shape));
  if (expected != t.size_bytes) {
    return InvalidArgument(where + " " + QuoteForMessage(t.name) + ": size_bytes is " +
                           std::to_string(t.size_bytes) + " but " + ToString(t.dtype) +
                           " with this shape takes " + std::to_string(expected));
  }
  return Status::Ok();
}

Status CheckTensors(const ModuleMetadata& m) {
  if (m.outputs.empty()) return InvalidArgument("module has no outputs");
  // C names are checked with the whole archive's generated names
  // (artifact/format/name_clash.h).
  std::set<std::string> input_names, output_names;
  uint64_t io_bytes = 0;
  auto check = [&](const char* kind, const TensorInfo& t, std::set<std::string>& names) {
    if (!names.insert(t.name).second) {
      return InvalidArgument(std::string("duplicate ") + kind + " name " + QuoteForMessage(t.name));
    }
    io_bytes += t.size_bytes;
    return CheckTensorSize(kind, t);
  };
  for (const TensorInfo& t : m.inputs) MLF_RETURN_IF_ERROR(check("input", t, input_names));
  for (const TensorInfo& t : m.outputs) MLF_RETURN_IF_ERROR(check("output", t, output_names));
  if (io_bytes != m.memory.io_size_bytes) {
    return InvalidArgument("memory.io_size_bytes is " + std::to_string(m.memory.io_size_bytes) +
                           " but the inputs and outputs take " + std::to_string(io_bytes));
  }
  return Status::Ok();
}

Status CheckMemory(const MemoryInfo& mem) {
  const uint64_t a = mem.alignment_bytes;
  if (a == 0 || (a & (a - 1)) != 0) {
    return InvalidArgument("memory.alignment_bytes " + std::to_string(a) +
                           " is not a power of two");
  }
  if (mem.workspace_lower_bound_bytes &&
      *mem.workspace_lower_bound_bytes > mem.workspace_size_bytes) {
    return InvalidArgument("memory.workspace_lower_bound_bytes (" +
                           std::to_string(*mem.workspace_lower_bound_bytes) +
                           ") is larger than memory.workspace_size_bytes (" +
                           std::to_string(mem.workspace_size_bytes) + ")");
  }
  return Status::Ok();
}

Status CheckParameters(const ModuleMetadata& m, const Metadata& md, bool check_files) {
  if (!m.parameters) return Status::Ok();
  const ParametersInfo& p = *m.parameters;
  std::vector<ParamTensor> index;
  for (const ParamTensorInfo& t : p.tensors) {
    MLF_ASSIGN_OR_RETURN(DType dtype, t.dtype.Known());
    index.push_back(ParamTensor{t.name, dtype, t.shape, t.offset, t.size_bytes});
  }
  if (p.storage != ParamStorage::kFile) return ValidateParamIndex(index, UINT64_MAX);
  if (!check_files) return ValidateParamIndex(index, UINT64_MAX);
  auto blob = md.files.find(p.path);
  if (blob == md.files.end()) {
    return NotFound("parameters.path " + QuoteForMessage(p.path) + " is not listed in files");
  }
  if (m.memory.constants_size_bytes != blob->second.size) {
    return InvalidArgument("memory.constants_size_bytes is " +
                           std::to_string(m.memory.constants_size_bytes) +
                           " but the parameter blob " + QuoteForMessage(p.path) + " has " +
                           std::to_string(blob->second.size) + " bytes");
  }
  return ValidateParamIndex(index, blob->second.size);
}

// ---- Version 9's additions.

// The integers a quantized tensor may hold; other dtypes carry no
// quantization.
std::optional<std::pair<int64_t, int64_t>> QuantizedRange(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return std::pair<int64_t, int64_t>{-128, 127};
    case DType::kUInt8: return std::pair<int64_t, int64_t>{0, 255};
    case DType::kInt16: return std::pair<int64_t, int64_t>{-32768, 32767};
    case DType::kUInt16: return std::pair<int64_t, int64_t>{0, 65535};
    case DType::kInt32: return std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
    default: return std::nullopt;
  }
}

Status CheckQuantization(const std::string& where, DTypeValue dtype_value, const std::vector<int64_t>& shape,
                         const std::optional<QuantizationInfo>& q) {
  if (!q) return Status::Ok();
  const std::string field = where + ": quantization";
  MLF_ASSIGN_OR_RETURN(DType dtype, dtype_value.Known());
  const auto range = QuantizedRange(dtype);
  if (!range) {
    return InvalidArgument(field + " is given for a " + ToString(dtype_value) +
                           " tensor (only int8, uint8, int16, uint16 and int32 are quantized)");
  }
  if (q->scale.size() != q->zero_point.size()) {
    return InvalidArgument(field + " has " + std::to_string(q->scale.size()) + " scales but " +
                           std::to_string(q->zero_point.size()) + " zero points");
  }
  if (!q->axis && q->scale.size() != 1) {
    return InvalidArgument(field + " has " + std::to_string(q->scale.size()) +
                           " scales but no axis (one scale per tensor, or one per index of `axis`)");
  }
  if (q->axis) {
    if (*q->axis >= static_cast<int64_t>(shape.size())) {
      return InvalidArgument(field + ".axis " + std::to_string(*q->axis) + " is not a dimension of a rank-" +
                             std::to_string(shape.size()) + " tensor");
    }
    const int64_t extent = shape[static_cast<size_t>(*q->axis)];
    if (static_cast<int64_t>(q->scale.size()) != extent) {
      return InvalidArgument(field + " has " + std::to_string(q->scale.size()) + " scales but dimension " +
                             std::to_string(*q->axis) + " has " + std::to_string(extent) + " indices");
    }
  }
  for (int64_t zp : q->zero_point) {
    if (zp < range->first || zp > range->second) {
      return InvalidArgument(field + ": zero point " + std::to_string(zp) + " is outside " +
                             ToString(dtype_value) + "'s range");
    }
  }
  return Status::Ok();
}

Status CheckQuantizations(const ModuleMetadata& m) {
  for (const auto* list : {&m.inputs, &m.outputs}) {
    const char* kind = list == &m.inputs ? "input" : "output";
    for (const TensorInfo& t : *list) {
      MLF_RETURN_IF_ERROR(CheckQuantization(std::string(kind) + " " + QuoteForMessage(t.name), t.dtype,
                                            t.shape, t.quantization));
    }
  }
  if (!m.parameters) return Status::Ok();
  for (const ParamTensorInfo& t : m.parameters->tensors) {
    const std::string where = "parameter " + QuoteForMessage(t.name);
    MLF_RETURN_IF_ERROR(CheckQuantization(where, t.dtype, t.shape, t.quantization));
    // The schema lists the layouts; each holds float32 weights.
    if (!t.layout.empty() && t.dtype != DType::kFloat32) {
      return InvalidArgument(where + ": layout " + t.layout + " holds float32 tensors, not " +
                             ToString(t.dtype));
    }
  }
  return Status::Ok();
}

// Every buffer inside the workspace, its operators in the module's list, and
// a value held in place inside another value that is planned and holds it.
Status CheckPlan(const ModuleMetadata& m) {
  const std::vector<PlanBufferInfo>& plan = m.memory.plan;
  std::map<std::string, const PlanBufferInfo*> values;
  for (const PlanBufferInfo& b : plan) {
    if (b.kind == PlanBufferKind::kValue) values[b.name] = &b;
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlanBufferInfo& b = plan[i];
    const std::string field = "memory.plan[" + std::to_string(i) + "] " + QuoteForMessage(b.name);
    if (b.offset > m.memory.workspace_size_bytes ||
        b.size_bytes > m.memory.workspace_size_bytes - b.offset) {
      return InvalidArgument(field + ": bytes " + std::to_string(b.offset) + " to " +
                             std::to_string(b.offset + b.size_bytes) + " lie outside the workspace of " +
                             std::to_string(m.memory.workspace_size_bytes) + " bytes");
    }
    if (b.first_operator > b.last_operator || b.last_operator >= m.operators.size()) {
      return InvalidArgument(field + ": operators " + std::to_string(b.first_operator) + " to " +
                             std::to_string(b.last_operator) + " are not a range of the module's " +
                             std::to_string(m.operators.size()) + " operators");
    }
    if (b.inside.empty()) continue;
    auto holder = values.find(b.inside);
    if (b.kind != PlanBufferKind::kValue || holder == values.end() || holder->second == &b ||
        b.offset < holder->second->offset ||
        b.offset + b.size_bytes > holder->second->offset + holder->second->size_bytes) {
      return InvalidArgument(field + ": is not a value inside the planned value " + QuoteForMessage(b.inside));
    }
  }
  return Status::Ok();
}

Status CheckFixedAtExport(const ModuleMetadata& m) {
  if (!m.source) return Status::Ok();
  std::set<std::string> shapes, constants;
  for (const SourceInfo::FixedShape& f : m.source->input_shapes) {
    if (!shapes.insert(f.name).second) {
      return InvalidArgument("source.input_shapes names " + QuoteForMessage(f.name) + " twice");
    }
  }
  for (const SourceInfo::FixedConstant& c : m.source->constants) {
    if (!constants.insert(c.name).second) {
      return InvalidArgument("source.constants names " + QuoteForMessage(c.name) + " twice");
    }
  }
  return Status::Ok();
}

Status CheckKernels(const ModuleMetadata& m) {
  if (!m.kernels) return Status::Ok();
  const std::vector<std::string>& v = m.kernels->variants;
  if (std::find(v.begin(), v.end(), "portable") == v.end()) {
    return InvalidArgument("kernels.variants does not list \"portable\" (every build can compile it)");
  }
  return Status::Ok();
}

// A version-8 document cannot hold version 9's fields (its schema refuses
// them); a model built in memory with version 8 and such a field would
// serialise into an archive no reader accepts.
Status CheckFieldsOfVersion(const ModuleMetadata& m, int version) {
  if (version >= 9) return Status::Ok();
  std::string field;
  for (const auto* list : {&m.inputs, &m.outputs}) {
    for (const TensorInfo& t : *list) {
      if (t.quantization) field = "quantization";
    }
  }
  if (m.parameters) {
    for (const ParamTensorInfo& t : m.parameters->tensors) {
      if (t.quantization) field = "quantization";
      if (!t.layout.empty()) field = "parameters.tensors[].layout";
    }
  }
  if (!m.memory.plan.empty()) field = "memory.plan";
  if (m.source && (!m.source->input_shapes.empty() || !m.source->constants.empty())) {
    field = "source.input_shapes/constants";
  }
  for (const OperatorInfo& o : m.operators) {
    if (o.param_bytes) field = "operators[].param_bytes";
  }
  if (m.kernels) field = "kernels";
  if (field.empty()) return Status::Ok();
  return InvalidArgument(field + " is a version 9 field, but the metadata is version " + std::to_string(version));
}

Status CheckReferencedFiles(const ModuleMetadata& m, const Metadata& md) {
  auto listed = [&](const std::string& field, const std::string& path) {
    if (md.files.count(path)) return Status::Ok();
    return NotFound(field + " " + QuoteForMessage(path) + " is not listed in files");
  };
  for (const std::string& s : m.sources) MLF_RETURN_IF_ERROR(listed("sources entry", s));
  if (m.host_library) MLF_RETURN_IF_ERROR(listed("host_library.path", m.host_library->path));
  if (m.source && !m.source->path.empty()) {
    MLF_RETURN_IF_ERROR(listed("source.path", m.source->path));
  }
  return Status::Ok();
}

// Tensor and operator names may hold any printable text (a tensor's C name
// is its identifier) but no control character: they are shown to users and
// written into generated C comments and string literals.
Status CheckNamesPrintable(const ModuleMetadata& m) {
  auto check = [](const std::string& field, size_t i, const std::string& name) {
    return CheckPrintableName(field + " " + std::to_string(i) + ": name", name);
  };
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    MLF_RETURN_IF_ERROR(check("input", i, m.inputs[i].name));
  }
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    MLF_RETURN_IF_ERROR(check("output", i, m.outputs[i].name));
  }
  if (m.parameters) {
    const std::vector<ParamTensorInfo>& tensors = m.parameters->tensors;
    for (size_t i = 0; i < tensors.size(); ++i) {
      MLF_RETURN_IF_ERROR(check("parameter", i, tensors[i].name));
    }
  }
  for (size_t i = 0; i < m.operators.size(); ++i) {
    MLF_RETURN_IF_ERROR(check("operator", i, m.operators[i].name));
  }
  for (size_t i = 0; i < m.memory.plan.size(); ++i) {
    MLF_RETURN_IF_ERROR(check("memory.plan buffer", i, m.memory.plan[i].name));
    if (!m.memory.plan[i].inside.empty()) {
      MLF_RETURN_IF_ERROR(CheckPrintableName("memory.plan buffer " + std::to_string(i) + ": inside",
                                             m.memory.plan[i].inside));
    }
  }
  if (m.source) {
    for (size_t i = 0; i < m.source->input_shapes.size(); ++i) {
      MLF_RETURN_IF_ERROR(check("source.input_shapes entry", i, m.source->input_shapes[i].name));
    }
    for (size_t i = 0; i < m.source->constants.size(); ++i) {
      MLF_RETURN_IF_ERROR(check("source.constants entry", i, m.source->constants[i].name));
    }
  }
  return Status::Ok();
}

Status CheckModule(const ModuleMetadata& m, const Metadata& md, bool check_files) {
  MLF_RETURN_IF_ERROR(CheckFieldsOfVersion(m, md.version));
  if (m.abi_version < kMinAbiVersion || m.abi_version > kAbiVersion) {
    return FailedPrecondition("abi_version " + std::to_string(m.abi_version) +
                              " is not supported (this mlfkit implements ABI versions " +
                              std::to_string(kMinAbiVersion) + " to " +
                              std::to_string(kAbiVersion) + ")");
  }
  MLF_RETURN_IF_ERROR(CheckNamesPrintable(m));
  MLF_RETURN_IF_ERROR(CheckTensors(m));
  MLF_RETURN_IF_ERROR(CheckMemory(m.memory));
  MLF_RETURN_IF_ERROR(CheckParameters(m, md, check_files));
  MLF_RETURN_IF_ERROR(CheckQuantizations(m));
  MLF_RETURN_IF_ERROR(CheckPlan(m));
  MLF_RETURN_IF_ERROR(CheckFixedAtExport(m));
  MLF_RETURN_IF_ERROR(CheckKernels(m));
  if (check_files) MLF_RETURN_IF_ERROR(CheckReferencedFiles(m, md));
  return Status::Ok();
}

Status CheckFileList(const Metadata& md) {
  for (const auto& [path, entry] : md.files) {
    if (!IsSafeMemberPath(path)) {
      return PermissionDenied("files entry " + QuoteForMessage(path) +
                              " is not a safe relative path");
    }
    if (path == kMetadataMember || path == kSignatureMember) {
      return InvalidArgument("files must not list " + QuoteForMessage(path));
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckMetadataSemantics(const Metadata& md, bool check_files) {
  MLF_RETURN_IF_ERROR(CheckFileList(md));
  for (const auto& [name, module] : md.modules) {
    MLF_RETURN_IF_ERROR(
        CheckModule(module, md, check_files).WithContext("module " + QuoteForMessage(name)));
  }
  // Names that collide in generated C, macros or file names, or take a
  // reserved name; the messages name the modules.
  return CheckGeneratedNames(md);
}

}  // namespace mlf
