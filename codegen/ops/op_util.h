// Small helpers shared by operator families: error messages naming the node,
// arity and dtype checks, a dtype-to-C++-type visitor for evaluate(), and
// the pieces of C text that many emitters need.
//
//   MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2, 1, 1));
//   MLF_RETURN_IF_ERROR(CheckDType(node, "input 0", dtype, kFloatDTypes));
//   VisitNumeric(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... });
#ifndef MLFKIT_CODEGEN_OPS_OP_UTIL_H_
#define MLFKIT_CODEGEN_OPS_OP_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/format/dtype.h"
#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::ops {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with the C++ type of a numeric dtype (the signed and
// unsigned integers of 8..64 bits, float32, float64) and returns true; returns
// false (without calling f) for bool, float16 and bfloat16.
template <typename F>
bool VisitNumeric(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kInt8: f(TypeTag<int8_t>{}); return true;
    case DType::kInt16: f(TypeTag<int16_t>{}); return true;
    case DType::kInt32: f(TypeTag<int32_t>{}); return true;
    case DType::kInt64: f(TypeTag<int64_t>{}); return true;
    case DType::kUInt8: f(TypeTag<uint8_t>{}); return true;
    case DType::kUInt16: f(TypeTag<uint16_t>{}); return true;
    case DType::kUInt32: f(TypeTag<uint32_t>{}); return true;
    case DType::kUInt64: f(TypeTag<uint64_t>{}); return true;
    case DType::kFloat32: f(TypeTag<float>{}); return true;
    case DType::kFloat64: f(TypeTag<double>{}); return true;
    default: return false;
  }
}

// Dtype groups for CheckDType.
extern const std::vector<DType> kFloatDTypes;           // float32, float64
extern const std::vector<DType> kSignedDTypes;          // int8..int64, float32, float64
extern const std::vector<DType> kNumericDTypes;         // every integer, float32, float64

bool IsFloatDType(DType dtype);     // float32, float64 (float16/bfloat16: storage only)
bool IsSignedIntDType(DType dtype);
bool IsUnsignedIntDType(DType dtype);  // uint8..uint64 (not bool)
int DTypeBits(DType dtype);

// "node 'n0' (Add): <reason>" as kInvalidArgument (malformed node) or
// kUnimplemented (valid ONNX that mlfkit does not support).
Status NodeError(const ir::Node& node, const std::string& reason);
Status NodeUnsupported(const ir::Node& node, const std::string& reason);

// Checks the numbers of present inputs and of outputs. Omitted optional
// inputs (kNoValue) between present ones are allowed; the count is of the
// inputs list as given (trailing omitted ones included).
Status CheckArity(const ir::Node& node, size_t min_inputs, size_t max_inputs, size_t min_outputs,
                  size_t max_outputs);
// Requires input 0..n to be present.
Status CheckPresent(const ir::Node& node, size_t index, const std::string& what);
// kUnimplemented "<what> has dtype int8; supported: float32, float64" when not allowed.
Status CheckDType(const ir::Node& node, const std::string& what, DType dtype,
                  const std::vector<DType>& allowed);
// Maps an ONNX axis in [-rank, rank-1] to [0, rank-1]; the error names `what`.
Result<size_t> NormalizeAxis(const ir::Node& node, int64_t axis, size_t rank, const std::string& what);

// Sets output j's dtype and shape.
void SetOutput(const ir::Node& node, ir::Graph& graph, size_t j, DType dtype,
               std::vector<int64_t> shape);

// The unsigned C type in which integer arithmetic of `dtype` wraps without
// undefined behaviour: "uint32_t" up to 32 bits, "uint64_t" for 64 bits.
const char* WrapCType(DType dtype);
// "expf" / "exp" for float32 / float64.
std::string MathFn(DType dtype, const std::string& base);
// "(void)in1;\n" etc. for parameters the body does not use.
std::string UnusedParams(const ir::Node& node, const std::vector<size_t>& inputs);

// Element counts.
uint64_t Elements(const std::vector<int64_t>& shape);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_OP_UTIL_H_
