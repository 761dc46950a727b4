#include "codegen/ir/host_tensor.h"

#include "artifact/format/tensor_values.h"

namespace mlf::ir {

HostTensor HostTensor::Zeros(DType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.assign(t.element_count() * DTypeSize(dtype), '\0');
  return t;
}

uint64_t HostTensor::element_count() const {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

double HostTensor::GetDouble(uint64_t i) const { return ReadElement(dtype, bytes.data(), i); }

int64_t HostTensor::GetInt(uint64_t i) const {
  if (dtype == DType::kInt64) return data<int64_t>()[i];
  return static_cast<int64_t>(GetDouble(i));
}

void HostTensor::SetDouble(uint64_t i, double v) { WriteElement(dtype, bytes.data(), i, v); }

std::vector<int64_t> HostTensor::ToInts() const {
  std::vector<int64_t> out(element_count());
  for (uint64_t i = 0; i < out.size(); ++i) out[i] = GetInt(i);
  return out;
}

}  // namespace mlf::ir
