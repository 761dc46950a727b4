// The helpers every operator family uses (private to codegen/ops): errors
// naming the node, checks of a node's arity, inputs, dtypes and axes, the
// inputs as infer() and evaluate() see them, dtype and shape arithmetic, and
// the pieces of C text that emitters share.
//
// One convention throughout: the node comes first, then what is checked or
// read, then (last) the words that name it in an error message.
//
//   MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2));                 // 1..2 inputs, 1 output
//   MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input X"));
//   MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, rank, "axis"));
//   SetOutput(node, graph, 0, x.dtype, shape);
//   VisitNumeric(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... });
#ifndef MLFKIT_CODEGEN_OPS_OP_UTIL_H_
#define MLFKIT_CODEGEN_OPS_OP_UTIL_H_

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "codegen/ir/graph.h"
#include "codegen/ops/op.h"

namespace mlf::ops {

// ---- Errors ----

// "node 'n0' (Add): <reason>" as kInvalidArgument (malformed node) or
// kUnimplemented (valid ONNX that mlfkit does not support).
Status NodeError(const ir::Node& node, const std::string& reason);
Status NodeUnsupported(const ir::Node& node, const std::string& reason);

// ---- Checking a node ----

// No upper limit, for CheckArity's max_inputs / max_outputs.
inline constexpr size_t kNoMax = std::numeric_limits<size_t>::max();

// Checks the numbers of inputs and outputs ("expects 1 to 2 inputs, got 3",
// "expects at least 1 input, got 0"), that no output is omitted and, when
// min_inputs > 0, that input 0 is present. The input count is of the inputs
// list as given: omitted optional inputs (kNoValue) count, trailing ones too.
Status CheckArity(const ir::Node& node, size_t min_inputs, size_t max_inputs, size_t min_outputs = 1,
                  size_t max_outputs = 1);
// "input 1 (B) is required" unless input `index` is present.
Status CheckPresent(const ir::Node& node, size_t index, const std::string& what);
// kUnimplemented "<what> has dtype int8; supported: float32, float64" when
// `dtype` is not in `allowed`.
Status CheckDType(const ir::Node& node, DType dtype, const std::vector<DType>& allowed,
                  const std::string& what);
// Maps an ONNX axis in [-rank, rank-1] (or [-rank, rank] when `inclusive`,
// for axes that may name the position after the last dimension) to
// [0, rank-1] (or [0, rank]); out of range is an error naming `what`.
Result<size_t> NormalizeAxis(const ir::Node& node, int64_t axis, size_t rank, const std::string& what,
                             bool inclusive = false);

// ---- Inputs and outputs ----

// What an operator knows of its inputs: in infer() the graph values (with
// the constant's data when there is one), in evaluate() the tensors. Shape
// rules that need constant inputs are written once against this.
struct InputInfo {
  bool present = false;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  const ir::HostTensor* data = nullptr;  // null when not known at compile time
};
std::vector<InputInfo> GraphInputs(const ir::Node& node, const ir::Graph& graph);
std::vector<InputInfo> TensorInputs(const std::vector<const ir::HostTensor*>& inputs);

// Whether input i is present.
bool Has(const std::vector<InputInfo>& in, size_t i);
// Input i; "input 1 (shape) is required" when it is omitted.
Result<const InputInfo*> RequiredInput(const ir::Node& node, const std::vector<InputInfo>& in,
                                       size_t i, const std::string& what);
// The elements of constant integer input i ("input 1 (shape)" in errors):
// omitted, not constant, not an integer dtype or not 1-D is an error.
Result<std::vector<int64_t>> ConstantInts(const ir::Node& node, const std::vector<InputInfo>& in,
                                          size_t i, const std::string& what);

// Sets output j's dtype and shape (in infer()).
void SetOutput(const ir::Node& node, ir::Graph& graph, size_t j, DType dtype,
               std::vector<int64_t> shape);

// ---- Dtypes ----

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

// ---- Shapes ----

// Number of elements (product of all dimensions).
uint64_t Elements(const std::vector<int64_t>& shape);
// Product of shape[begin, end).
int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end);
// C-order strides in elements.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);
// Row-major flat index -> multi-index for `shape`.
std::vector<int64_t> Unravel(uint64_t flat, const std::vector<int64_t>& shape);

// ---- C emission ----

// Decimal text.
std::string Num(int64_t v);
// The unsigned C type in which integer arithmetic of `dtype` wraps without
// undefined behaviour: "uint32_t" up to 32 bits, "uint64_t" for 64 bits.
const char* WrapCType(DType dtype);
// "expf" / "exp" for float32 / float64.
std::string MathFn(DType dtype, const std::string& base);

// Two ways to keep -Wunused-parameter quiet for parameters a body does not
// read. UnusedParams returns "(void)in1;\n" etc. for the listed inputs that
// are present (for emitters that know which inputs they ignore, placed where
// they choose); VoidUnusedParams prepends "(void)in1;" for every parameter
// (in<i>, out<j>) that `body` does not mention (call it last in emit()).
std::string UnusedParams(const ir::Node& node, const std::vector<size_t>& inputs);
void VoidUnusedParams(const EmitContext& ctx, std::string* body);

// An exact C literal for one element of `dtype` stored at `element`
// (float16/bfloat16 as their uint16_t bit pattern).
std::string ElementLiteral(DType dtype, const void* element);
// Whether the element's bytes are all zero (memset can produce it).
bool IsZeroBytes(DType dtype, const void* element);
// "static const <type> <name>[n] = {...};\n" (n >= 1), 16 values per line.
std::string StaticTable(const std::string& indent, const std::string& type, const std::string& name,
                        const std::vector<int64_t>& values);
// The same for float / double values (`dtype` kFloat32 or kFloat64).
std::string StaticFloatTable(const std::string& indent, DType dtype, const std::string& name,
                             const std::vector<double>& values);
// The narrowest unsigned C type holding every value in [0, max_value].
const char* IndexType(int64_t max_value);

// "base + a * s - b * t": a C index expression over loop variables (size_t
// arithmetic: the value must be non-negative, terms may be negative).
using Terms = std::vector<std::pair<std::string, int64_t>>;
std::string IndexExpr(int64_t base, const Terms& terms);
// "a * b", or "a" when b is 1 and "0" when b is 0: an index term with a
// constant factor.
std::string Times(const std::string& a, int64_t b);
// "e + c" / "e - c" / "e", folded into one number when `e` is a
// non-negative decimal number.
std::string PlusConst(const std::string& e, int64_t c);

// dst[dst_offset + sum(i_d * dst_stride_d)] = src[src_offset + sum(i_d * src_stride_d)]
// for every index tuple i over `len`s (outer to inner). Strides may be
// negative. Length-1 dimensions are dropped, dimensions contiguous in both
// are merged, contiguous runs become memcpy, and a transposed pair of inner
// dimensions is copied in 8x8 blocks.
struct CopyDim {
  int64_t len;
  int64_t src_stride;
  int64_t dst_stride;
};
struct StridedCopy {
  std::string dst, src;  // C pointer expressions, e.g. "out0"
  int64_t dst_offset = 0, src_offset = 0;
  std::vector<CopyDim> dims;
};
void EmitStridedCopy(const StridedCopy& copy, const std::string& indent, std::string* body);

// Copies of contiguous blocks repeated `outer` times in one loop:
// for o < outer: dst[dst_offset + o * dst_stride + (0..len)] =
// src[src_offset + o * src_stride + (0..len)], for every block (Concat,
// Split). Blocks with len 0 are skipped.
struct BlockCopy {
  std::string dst, src;
  int64_t dst_offset, dst_stride, src_offset, src_stride, len;
};
void EmitBlockCopies(int64_t outer, const std::vector<BlockCopy>& blocks, const std::string& indent,
                     std::string* body);

// A fill of `count` elements of dst from `dst_offset` with the C expression
// `value` (memset when `zero`).
void EmitFill(const std::string& dst, const std::string& offset_expr, int64_t count,
              const std::string& value, bool zero, const std::string& indent, std::string* body);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_OP_UTIL_H_
