// Sliding-window geometry shared by Conv, ConvTranspose, MaxPool and
// AveragePool (attribute checks, output sizes, padding resolution, the
// interior where a window lies wholly inside the input), plus the small
// helpers their C emitters share with MatMul/Gemm (index-range and fused
// activation checks, an indenting C writer).
//
// Windows are described per spatial axis a (the axes after N and C):
//
//   forward    (Conv, pools):  input index  = o * strides[a] - pad_begin[a] + k * dilations[a]
//   transposed (ConvTranspose): output index = i * strides[a] - pad_begin[a] + k * dilations[a]
//
// for output (forward) or input (transposed) position o / i and kernel tap k.
//
//   MLF_ASSIGN_OR_RETURN(Window w, ForwardWindow(node, {56, 56}, {3, 3}, WindowKind::kConv));
//   w.out;            // {56, 56} with pads [1, 1, 1, 1]
#ifndef MLFKIT_CODEGEN_OPS_CONV_GEOMETRY_H_
#define MLFKIT_CODEGEN_OPS_CONV_GEOMETRY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::ops {

struct Window {
  std::vector<int64_t> in;         // input spatial sizes
  std::vector<int64_t> out;        // output spatial sizes
  std::vector<int64_t> kernel;     // taps per axis
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pad_begin;  // resolved (auto_pad applied); negative only for
  std::vector<int64_t> pad_end;    // ConvTranspose with an explicit output_shape

  size_t rank() const { return kernel.size(); }
  // (kernel - 1) * dilation + 1: the span of one window on axis a.
  int64_t Extent(size_t a) const { return (kernel[a] - 1) * dilations[a] + 1; }
  int64_t KernelElements() const;
  int64_t InElements() const;   // product of `in`
  int64_t OutElements() const;  // product of `out`
  // Forward windows: the output positions [first, last) on axis a whose taps
  // all lie inside the input (first == last when there are none).
  std::pair<int64_t, int64_t> Interior(size_t a) const;
};

enum class WindowKind { kConv, kMaxPool, kAveragePool };

// Reads kernel_shape, strides, dilations, pads, auto_pad (and ceil_mode for
// pools) of a forward window over `in_spatial`. For Conv, `weight_kernel` is
// W's spatial shape and kernel_shape is optional but must match it; pools
// pass an empty `weight_kernel` and kernel_shape is required. Errors name the
// node, the attribute and the reason.
Result<Window> ForwardWindow(const ir::Node& node, const std::vector<int64_t>& in_spatial,
                             const std::vector<int64_t>& weight_kernel, WindowKind kind);

// ConvTranspose: as above plus output_padding and output_shape (spatial
// sizes, or the full output shape), with ONNX's rules for distributing the
// total padding (SAME_UPPER: the larger half at the end; otherwise at the
// beginning, using floor division as the ONNX reference does).
Result<Window> TransposedWindow(const ir::Node& node, const std::vector<int64_t>& in_spatial,
                                const std::vector<int64_t>& weight_kernel);

// Floor division for possibly negative numerators (positive d).
int64_t FloorDiv(int64_t n, int64_t d);
int64_t CeilDiv(int64_t n, int64_t d);

// Generated code indexes with C `int`: refuses (kUnimplemented, naming the
// node and the value) inputs or outputs with more than INT32_MAX elements.
Status CheckIndexable(const ir::Node& node, const ir::Graph& graph);

// Refuses a fused activation ("mlf.activation") on a node whose output dtype
// is not float32 (the activation expressions are float C code).
Status CheckActivationDType(const ir::Node& node, DType dtype);

// Indented C source for emit(): Line() adds one line, Open() a line ending a
// block opener ("for (...) {") and indents, Close() dedents and adds "}".
// Callers keep the braces balanced.
class CodeWriter {
 public:
  explicit CodeWriter(int indent = 1) : indent_(indent) {}
  void Line(const std::string& text);
  void Open(const std::string& text);
  void Close(const std::string& text = "}");
  // Dedents, adds `text` (e.g. "} else {") and indents again.
  void Continue(const std::string& text);
  const std::string& str() const { return text_; }

 private:
  int indent_;
  std::string text_;
};

// "[1, 2]" for error messages.
std::string FormatInts(const std::vector<int64_t>& values);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_CONV_GEOMETRY_H_
