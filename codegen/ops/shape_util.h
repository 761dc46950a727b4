// Helpers shared by the data-movement operators (shape_ops.cc,
// slice_pad.cc, gather_cast.cc, resize.cc): reading constant inputs, axis
// normalisation, and C emission of strided copies and constant tables.
// Private to codegen/ops.
#ifndef MLFKIT_CODEGEN_OPS_SHAPE_UTIL_H_
#define MLFKIT_CODEGEN_OPS_SHAPE_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/ops/op.h"

namespace mlf::ops {

// Registration of the files shape_ops.cc splits into (called from
// RegisterShapeOps).
void RegisterSlicePadOps(std::vector<OpDef>* table);
void RegisterGatherCastOps(std::vector<OpDef>* table);

namespace shape_util {

// kInvalidArgument / kUnimplemented "<node.Describe()>: <reason>".
Status Invalid(const ir::Node& node, const std::string& reason);
Status Unsupported(const ir::Node& node, const std::string& reason);

// Checks the number of inputs (omitted optional ones count) and outputs;
// max_inputs / max_outputs 0 = no limit.
Status CheckArity(const ir::Node& node, size_t min_inputs, size_t max_inputs,
                  size_t min_outputs = 1, size_t max_outputs = 1);

// What an operator knows of its inputs: in infer() the graph values (with
// the constant's data when there is one), in evaluate() the tensors. Shape
// rules are written once against this.
struct InputInfo {
  bool present = false;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  const ir::HostTensor* data = nullptr;  // null when not known at compile time
};
std::vector<InputInfo> GraphInputs(const ir::Node& node, const ir::Graph& graph);
std::vector<InputInfo> TensorInputs(const std::vector<const ir::HostTensor*>& inputs);

// Input i; an error naming `what` ("input 1 (shape) is required") when it
// is omitted.
Result<const InputInfo*> RequiredInput(const ir::Node& node, const std::vector<InputInfo>& in,
                                       size_t i, const std::string& what);
// Whether input i is present.
bool Has(const std::vector<InputInfo>& in, size_t i);

// The elements of constant integer input i ("input 1 (shape)" in errors):
// omitted, not constant, not an integer dtype or not 1-D is an error.
Result<std::vector<int64_t>> ConstantInts(const ir::Node& node, const std::vector<InputInfo>& in,
                                          size_t i, const std::string& what);

// Axis in [-rank, rank-1] (or [-rank, rank] with `inclusive`) made
// non-negative; out of range is an error naming `what`.
Result<size_t> NormalizeAxis(const ir::Node& node, int64_t axis, size_t rank, const std::string& what,
                             bool inclusive = false);

// Sets output j's dtype and shape.
void SetOutput(ir::Graph& graph, const ir::Node& node, size_t j, DType dtype,
               std::vector<int64_t> shape);

// C-order strides in elements.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);
// Product of shape[begin, end).
int64_t Product(const std::vector<int64_t>& shape, size_t begin, size_t end);
// Row-major flat index -> multi-index for `shape`.
std::vector<int64_t> Unravel(uint64_t flat, const std::vector<int64_t>& shape);

// ---- C emission ----

// Decimal text.
std::string Num(int64_t v);
// Prepends "(void)in1;" for every parameter of the node function (in<i>,
// out<j>) that `body` does not mention, so that -Wunused-parameter stays
// quiet; call it last in emit().
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

}  // namespace shape_util
}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_SHAPE_UTIL_H_
