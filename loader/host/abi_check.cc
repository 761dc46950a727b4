#include "loader/host/abi_check.h"

#include <vector>

#include "artifact/base/display_text.h"
#include "artifact/format/dtype.h"

namespace mlf {
namespace {

template <typename T>
Status Differs(const std::string& field, const T& library, const T& metadata) {
  return FailedPrecondition(field + " differs: the library says " + library +
                            ", metadata.json says " + metadata);
}

// A name from the library's tables, which may be missing.
std::string QuoteOrNull(const char* s) { return s ? QuoteForMessage(s) : "(null)"; }

Status CheckTensor(const std::string& where, const mlf_tensor_info& lib, const TensorInfo& md) {
  if (lib.name == nullptr || md.name != lib.name) {
    return Differs(where + " name", QuoteOrNull(lib.name), QuoteForMessage(md.name));
  }
  if (lib.c_name == nullptr || md.c_name != lib.c_name) {
    return Differs(where + " C name", QuoteOrNull(lib.c_name), QuoteForMessage(md.c_name));
  }
  MLF_ASSIGN_OR_RETURN(DType dtype, md.dtype.Known());
  const DLDataType want = ToDLPack(dtype);
  Result<DType> lib_dtype = FromDLPack(DLDataType{lib.dtype_code, lib.dtype_bits, lib.dtype_lanes});
  if (!lib_dtype.ok() || *lib_dtype != dtype || want.bits != lib.dtype_bits) {
    std::string lib_name = lib_dtype.ok() ? DTypeName(*lib_dtype)
                                          : "code " + std::to_string(lib.dtype_code) + " bits " +
                                                std::to_string(lib.dtype_bits);
    return Differs(where + " dtype", lib_name, std::string(DTypeName(dtype)));
  }
  std::vector<int64_t> shape;
  if (lib.ndim < 0 || lib.ndim > 64 || (lib.ndim > 0 && lib.shape == nullptr)) {
    return FailedPrecondition(where + " has an invalid shape in the library (ndim " +
                              std::to_string(lib.ndim) + ")");
  }
  if (lib.ndim > 0) shape.assign(lib.shape, lib.shape + lib.ndim);
  if (shape != md.shape) return Differs(where + " shape", FormatShape(shape), FormatShape(md.shape));
  if (lib.size_bytes != md.size_bytes) {
    return Differs(where + " size", std::to_string(lib.size_bytes), std::to_string(md.size_bytes));
  }
  return Status::Ok();
}

Status CheckTensors(const char* kind, uint32_t count, const mlf_tensor_info* lib,
                    const std::vector<TensorInfo>& md) {
  if (count != md.size()) {
    return Differs(std::string("number of ") + kind + "s", std::to_string(count),
                   std::to_string(md.size()));
  }
  if (count > 0 && lib == nullptr) {
    return FailedPrecondition(std::string("the library lists no ") + kind + " descriptions");
  }
  for (uint32_t i = 0; i < count; ++i) {
    MLF_RETURN_IF_ERROR(CheckTensor(std::string(kind) + " " + std::to_string(i), lib[i], md[i]));
  }
  return Status::Ok();
}

uint32_t StorageCode(const ModuleMetadata& md) {
  if (!md.parameters) return MLF_PARAMS_NONE;
  return md.parameters->storage == ParamStorage::kFile ? MLF_PARAMS_FILE : MLF_PARAMS_LINKED;
}

Status CheckAll(const mlf_model_metadata& lib, const ModuleMetadata& md) {
  // Versions 1 and 2 differ only by the optional tvmgen_<mod>_run_ctx, so
  // this loader runs both (model_abi.h, "Run context").
  if (lib.abi_version < static_cast<uint32_t>(kMinAbiVersion) || lib.abi_version > MLF_ABI_VERSION ||
      static_cast<int64_t>(lib.abi_version) != md.abi_version) {
    return FailedPrecondition("ABI version differs: the library was generated for version " +
                              std::to_string(lib.abi_version) + ", metadata.json says " +
                              std::to_string(md.abi_version) + ", this loader implements " +
                              std::to_string(kMinAbiVersion) + " to " +
                              std::to_string(MLF_ABI_VERSION));
  }
  MLF_RETURN_IF_ERROR(CheckTensors("input", lib.num_inputs, lib.inputs, md.inputs));
  MLF_RETURN_IF_ERROR(CheckTensors("output", lib.num_outputs, lib.outputs, md.outputs));
  if (lib.workspace_size_bytes != md.memory.workspace_size_bytes) {
    return Differs("workspace size", std::to_string(lib.workspace_size_bytes),
                   std::to_string(md.memory.workspace_size_bytes));
  }
  if (lib.constants_size_bytes != md.memory.constants_size_bytes) {
    return Differs("constants size", std::to_string(lib.constants_size_bytes),
                   std::to_string(md.memory.constants_size_bytes));
  }
  if (lib.params_storage != StorageCode(md)) {
    return Differs("parameter storage", std::to_string(lib.params_storage),
                   std::to_string(StorageCode(md)));
  }
  return Status::Ok();
}

}  // namespace

Status CheckAbi(const std::string& module, const mlf_model_metadata& library,
                const ModuleMetadata& metadata) {
  return CheckAll(library, metadata).WithContext("module '" + module + "': ABI check failed");
}

}  // namespace mlf
