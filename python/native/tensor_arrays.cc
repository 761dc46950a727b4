#include "python/native/tensor_arrays.h"

#include "python/native/status_error.h"

namespace mlf::py {

namespace pb = pybind11;

pb::dtype NumpyDType(DType dtype) {
  switch (dtype) {
    case DType::kBool: return pb::dtype("?");
    case DType::kInt8: return pb::dtype("i1");
    case DType::kInt16: return pb::dtype("<i2");
    case DType::kInt32: return pb::dtype("<i4");
    case DType::kInt64: return pb::dtype("<i8");
    case DType::kUInt8: return pb::dtype("u1");
    case DType::kUInt16: return pb::dtype("<u2");
    case DType::kUInt32: return pb::dtype("<u4");
    case DType::kUInt64: return pb::dtype("<u8");
    case DType::kFloat16: return pb::dtype("<f2");
    case DType::kBFloat16: return pb::dtype("<u2");
    case DType::kFloat32: return pb::dtype("<f4");
    case DType::kFloat64: return pb::dtype("<f8");
  }
  return pb::dtype("V1");
}

namespace {

// The DLPack type of a NumPy dtype, as mlfkit encodes it (bool as
// {kDLUInt, 1, 1}, artifact/format/dtype.h).
DLDataType DLPackTypeOf(const pb::dtype& dtype, const std::string& what) {
  const char kind = dtype.kind();
  const int bits = static_cast<int>(dtype.itemsize()) * 8;
  if (kind == 'b') return ToDLPack(DType::kBool);
  if (kind == 'i') return DLDataType{kDLInt, static_cast<uint8_t>(bits), 1};
  if (kind == 'u') return DLDataType{kDLUInt, static_cast<uint8_t>(bits), 1};
  if (kind == 'f') return DLDataType{kDLFloat, static_cast<uint8_t>(bits), 1};
  RaiseInvalidArgument(what + ": a NumPy array of dtype " + dtype.attr("name").cast<std::string>() +
                       " is not a tensor (use bool, integer or floating-point arrays)");
}

}  // namespace

DLTensor DescribeArray(const pb::array& array, const std::string& what, std::vector<int64_t>* shape,
                       std::vector<int64_t>* strides) {
  if (array.dtype().byteorder() == '>') {
    RaiseInvalidArgument(what + ": big-endian arrays are not supported (use astype('<...'))");
  }
  const DLDataType type = DLPackTypeOf(array.dtype(), what);
  const pb::ssize_t itemsize = array.itemsize();
  shape->assign(array.shape(), array.shape() + array.ndim());
  strides->clear();
  for (pb::ssize_t i = 0; i < array.ndim(); ++i) {
    // NumPy strides are in bytes; DLPack's in elements. A stride that is not a
    // whole number of elements cannot be dense and is refused by the check.
    strides->push_back(array.strides(i) / itemsize);
  }
  DLTensor t{};
  t.data = const_cast<void*>(array.data());
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(array.ndim());
  t.dtype = type;
  t.shape = shape->data();
  t.strides = strides->data();
  t.byte_offset = 0;
  return t;
}

pb::array ViewTensor(const DLTensor& tensor, DType dtype, pb::handle owner) {
  const pb::dtype np = NumpyDType(dtype);
  std::vector<pb::ssize_t> shape(tensor.shape, tensor.shape + tensor.ndim);
  std::vector<pb::ssize_t> strides(shape.size());
  pb::ssize_t stride = np.itemsize();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return pb::array(np, shape, strides, static_cast<char*>(tensor.data) + tensor.byte_offset, owner);
}

}  // namespace mlf::py
