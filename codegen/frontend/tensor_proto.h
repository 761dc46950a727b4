// ONNX TensorProto <-> ir::HostTensor.
//
// Reading accepts both encodings ONNX writers use: `raw_data` (little-endian
// bytes, C order) and the typed repeated fields (float_data, int32_data,
// int64_data, double_data, uint64_data; float16/bfloat16 as bit patterns in
// int32_data, uint32 in uint64_data, as onnx.proto specifies). Everything
// else is refused with an error naming the tensor: external data (mlfkit
// reads one self-contained model), segments, string and complex dtypes,
// negative dimensions, a rank or element count over the limits, a data size
// that does not match the dimensions, integer values that do not fit the
// dtype.
//
//   MLF_ASSIGN_OR_RETURN(ir::HostTensor t, ParseTensorProto(pb_bytes));
//   std::string pb = SerializeTensorProto(t, "input_0");
//
// Writing always uses raw_data.
#ifndef MLFKIT_CODEGEN_FRONTEND_TENSOR_PROTO_H_
#define MLFKIT_CODEGEN_FRONTEND_TENSOR_PROTO_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "codegen/frontend/tensor_limits.h"
#include "codegen/ir/host_tensor.h"

namespace mlf::frontend {

// The DType of an ONNX TensorProto.DataType value. Unsupported ones (STRING,
// COMPLEX64, ...) give kUnimplemented naming the ONNX type, unknown numbers
// kInvalidArgument.
Result<DType> DTypeFromOnnx(int32_t elem_type);
// The ONNX TensorProto.DataType value of a DType.
int32_t OnnxDType(DType dtype);
// The ONNX spelling of an elem_type ("FLOAT", "STRING", "<unknown 99>").
std::string OnnxDTypeName(int32_t elem_type);

Result<ir::HostTensor> FromTensorProto(const onnx::TensorProto& proto,
                                       const TensorLimits& limits = {});
// A serialized TensorProto (e.g. test_data_set_0/input_0.pb). `name`, when
// not null, receives the tensor's name.
Result<ir::HostTensor> ParseTensorProto(std::string_view bytes, const TensorLimits& limits = {},
                                        std::string* name = nullptr);

onnx::TensorProto ToTensorProto(const ir::HostTensor& tensor, const std::string& name);
std::string SerializeTensorProto(const ir::HostTensor& tensor, const std::string& name);

}  // namespace mlf::frontend

#endif  // MLFKIT_CODEGEN_FRONTEND_TENSOR_PROTO_H_
