#include "loader/host/tensor_check.h"

#include <string>
#include <vector>

namespace mlf {
namespace {

std::string DLTypeName(DLDataType t) {
  Result<DType> d = FromDLPack(t);
  if (d.ok()) return DTypeName(*d);
  return "code " + std::to_string(t.code) + " bits " + std::to_string(t.bits) + " lanes " +
         std::to_string(t.lanes);
}

std::vector<int64_t> ShapeOf(const DLTensor& t) {
  if (t.ndim <= 0 || t.shape == nullptr) return {};
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

bool IsCompact(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

}  // namespace

Result<void*> CheckTensor(const char* kind, const TensorSpec& spec, const DLTensor& tensor,
                          bool check_alignment) {
  const std::string what = std::string(kind) + " '" + spec.name + "'";
  if (tensor.device.device_type != kDLCPU) {
    return InvalidArgument(what + ": tensor is on device type " +
                           std::to_string(tensor.device.device_type) + ", expected the CPU (1)");
  }
  const DLDataType want = ToDLPack(spec.dtype);
  if (tensor.dtype.code != want.code || tensor.dtype.bits != want.bits ||
      tensor.dtype.lanes != want.lanes) {
    return InvalidArgument(what + ": dtype " + DLTypeName(tensor.dtype) +
                           " does not match the model's " + DTypeName(spec.dtype));
  }
  if (tensor.ndim < 0 || (tensor.ndim > 0 && tensor.shape == nullptr)) {
    return InvalidArgument(what + ": tensor has ndim " + std::to_string(tensor.ndim) +
                           " but no shape");
  }
  if (ShapeOf(tensor) != spec.shape) {
    return InvalidArgument(what + ": shape " + FormatShape(ShapeOf(tensor)) +
                           " does not match the model's " + FormatShape(spec.shape));
  }
  if (!IsCompact(tensor)) {
    return InvalidArgument(what + ": tensor is strided; only dense C-order tensors are accepted");
  }
  if (tensor.data == nullptr && spec.size_bytes > 0) {
    return InvalidArgument(what + ": tensor data is null");
  }
  char* data = static_cast<char*>(tensor.data) + tensor.byte_offset;
  const uint64_t element = DTypeSize(spec.dtype);
  if (check_alignment && element > 1 && reinterpret_cast<uintptr_t>(data) % element != 0) {
    return InvalidArgument(what + ": data address is not aligned to " + std::to_string(element) +
                           " bytes, as zero-copy " + DTypeName(spec.dtype) + " needs");
  }
  return static_cast<void*>(data);
}

DLTensor MakeTensorView(const TensorSpec& spec, void* data) {
  DLTensor t{};
  t.data = data;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(spec.shape.size());
  t.dtype = ToDLPack(spec.dtype);
  t.shape = const_cast<int64_t*>(spec.shape.data());
  t.strides = nullptr;
  t.byte_offset = 0;
  return t;
}

}  // namespace mlf
