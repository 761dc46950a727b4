// Step 3 of metadata validation: the rules a JSON Schema cannot express.
#include <set>
#include <string>

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
  return Status::Ok();
}

Status CheckModule(const ModuleMetadata& m, const Metadata& md, bool check_files) {
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
