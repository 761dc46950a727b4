// Float tensors to and from their quantized integer form, by the scale and
// zero point a tensor's metadata records (version 9 `quantization`), with
// ONNX's QuantizeLinear / DequantizeLinear arithmetic:
//
//   q = saturate(round_half_to_even(x / scale) + zero_point)
//   x = (q - zero_point) * scale
//
// both in float32, as ONNX Runtime computes them, so `mlf run
// --quantize-inputs` feeds a model what a float QuantizeLinear in front of it
// would. Per-axis parameters apply scale[c] and zero_point[c] to the
// elements whose index along `axis` is c.
#ifndef MLFKIT_ARTIFACT_FORMAT_QUANTIZED_VALUES_H_
#define MLFKIT_ARTIFACT_FORMAT_QUANTIZED_VALUES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata.h"

namespace mlf {

// True for the dtypes a quantized tensor may have: int8, uint8, int16,
// uint16 and int32.
bool IsQuantizedDType(DType dtype);

// `float32_bytes` (C order, `shape`) quantized to `dtype`. kInvalidArgument
// when `dtype` cannot hold quantized values, when the byte count does not
// match the shape, or when the parameters do not fit the shape (an axis out
// of range, a scale count other than 1 or that axis' length); the message
// names what is wrong, and callers add the tensor's name.
Result<std::string> QuantizeFloat32(const std::string& float32_bytes,
                                    const std::vector<int64_t>& shape, DType dtype,
                                    const QuantizationInfo& quantization);

// The inverse: `bytes` of `dtype` (C order, `shape`) as float32 bytes.
Result<std::string> DequantizeToFloat32(const std::string& bytes, const std::vector<int64_t>& shape,
                                        DType dtype, const QuantizationInfo& quantization);

// "scale 0.5, zero point -3" or "128 scales along axis 0", for messages.
std::string DescribeQuantization(const QuantizationInfo& quantization);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_QUANTIZED_VALUES_H_
