#include "artifact/format/quantized_values.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "artifact/format/tensor_values.h"

namespace mlf {
namespace {

// Which scale and zero point each element takes: element i uses parameter
// (i / inner) % channels.
struct ChannelMap {
  uint64_t count = 0;     // elements
  uint64_t inner = 1;     // elements per step along the axis
  uint64_t channels = 1;  // 1 for per-tensor parameters
};

Result<ChannelMap> MapChannels(const std::vector<int64_t>& shape, const QuantizationInfo& q) {
  ChannelMap map;
  map.count = 1;
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("shape " + FormatShape(shape) + " has a negative dimension");
    map.count *= static_cast<uint64_t>(d);
  }
  if (q.scale.empty() || q.scale.size() != q.zero_point.size()) {
    return InvalidArgument("the quantization has " + std::to_string(q.scale.size()) +
                           " scales and " + std::to_string(q.zero_point.size()) + " zero points");
  }
  if (!q.axis) {
    if (q.scale.size() != 1) {
      return InvalidArgument(std::to_string(q.scale.size()) + " scales but no axis");
    }
    return map;
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis = *q.axis < 0 ? *q.axis + rank : *q.axis;
  if (axis < 0 || axis >= rank) {
    return InvalidArgument("quantization axis " + std::to_string(*q.axis) + " is outside shape " +
                           FormatShape(shape));
  }
  map.channels = static_cast<uint64_t>(shape[axis]);
  if (q.scale.size() != map.channels) {
    return InvalidArgument(std::to_string(q.scale.size()) + " scales for the " +
                           std::to_string(map.channels) + " indices of axis " +
                           std::to_string(axis));
  }
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) {
    map.inner *= static_cast<uint64_t>(shape[d]);
  }
  return map;
}

size_t Channel(const ChannelMap& map, uint64_t i) {
  return static_cast<size_t>(map.channels == 1 ? 0 : (i / map.inner) % map.channels);
}

Status CheckDType(DType dtype) {
  if (IsQuantizedDType(dtype)) return Status::Ok();
  return InvalidArgument(std::string(DTypeName(dtype)) +
                         " does not hold quantized values (int8, uint8, int16, uint16 or int32 do)");
}

Status CheckBytes(const std::string& bytes, uint64_t count, DType dtype) {
  const uint64_t want = count * DTypeSize(dtype);
  if (bytes.size() == want) return Status::Ok();
  return InvalidArgument("holds " + std::to_string(bytes.size()) + " bytes where " +
                         std::to_string(count) + " " + DTypeName(dtype) + " elements take " +
                         std::to_string(want));
}

}  // namespace

bool IsQuantizedDType(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kInt32:
      return true;
    default:
      return false;
  }
}

Result<std::string> QuantizeFloat32(const std::string& float32_bytes,
                                    const std::vector<int64_t>& shape, DType dtype,
                                    const QuantizationInfo& quantization) {
  MLF_RETURN_IF_ERROR(CheckDType(dtype));
  MLF_ASSIGN_OR_RETURN(ChannelMap map, MapChannels(shape, quantization));
  MLF_RETURN_IF_ERROR(CheckBytes(float32_bytes, map.count, DType::kFloat32));
  std::string out(map.count * DTypeSize(dtype), '\0');
  for (uint64_t i = 0; i < map.count; ++i) {
    float x;
    std::memcpy(&x, float32_bytes.data() + i * sizeof(float), sizeof(float));
    const size_t c = Channel(map, i);
    const float scaled = x / static_cast<float>(quantization.scale[c]);
    // nearbyint rounds half to even in the default rounding mode, as ONNX asks.
    const double q = std::nearbyint(scaled) + static_cast<double>(quantization.zero_point[c]);
    WriteElement(dtype, out.data(), i, std::isnan(q) ? 0.0 : q);
  }
  return out;
}

Result<std::string> DequantizeToFloat32(const std::string& bytes, const std::vector<int64_t>& shape,
                                        DType dtype, const QuantizationInfo& quantization) {
  MLF_RETURN_IF_ERROR(CheckDType(dtype));
  MLF_ASSIGN_OR_RETURN(ChannelMap map, MapChannels(shape, quantization));
  MLF_RETURN_IF_ERROR(CheckBytes(bytes, map.count, dtype));
  std::string out(map.count * sizeof(float), '\0');
  for (uint64_t i = 0; i < map.count; ++i) {
    const size_t c = Channel(map, i);
    const int64_t q = static_cast<int64_t>(ReadElement(dtype, bytes.data(), i));
    const float x = static_cast<float>(q - quantization.zero_point[c]) *
                    static_cast<float>(quantization.scale[c]);
    std::memcpy(out.data() + i * sizeof(float), &x, sizeof(float));
  }
  return out;
}

std::string DescribeQuantization(const QuantizationInfo& quantization) {
  std::ostringstream text;
  text.precision(9);
  if (quantization.axis) {
    text << quantization.scale.size() << " scales along axis " << *quantization.axis;
  } else if (!quantization.scale.empty() && !quantization.zero_point.empty()) {
    text << "scale " << quantization.scale[0] << ", zero point " << quantization.zero_point[0];
  }
  return text.str();
}

}  // namespace mlf
