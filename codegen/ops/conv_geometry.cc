#include "codegen/ops/conv_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlf::ops {
namespace {

// An integer-list attribute with one value per spatial axis (`per_axis`
// values per axis), defaulting to `fallback` repeated.
Result<std::vector<int64_t>> AxisInts(const ir::Node& node, const std::string& key, size_t rank,
                                      size_t per_axis, int64_t fallback, int64_t min_value) {
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> v,
                       node.Ints(key, std::vector<int64_t>(rank * per_axis, fallback)));
  if (v.size() != rank * per_axis) {
    return InvalidArgument(node.Describe() + ": attribute '" + key + "' has " +
                           std::to_string(v.size()) + " values, expected " +
                           std::to_string(rank * per_axis) +
                           (per_axis == 1 ? " (one per spatial axis)"
                                          : " (begin and end per spatial axis)"));
  }
  for (int64_t x : v) {
    if (x < min_value) {
      return InvalidArgument(node.Describe() + ": attribute '" + key + "' must be " +
                             (min_value > 0 ? "positive" : "non-negative") + ", got " +
                             FormatInts(v));
    }
  }
  return v;
}

Result<std::string> AutoPad(const ir::Node& node) {
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("auto_pad", "NOTSET"));
  if (mode.empty()) mode = "NOTSET";
  if (mode != "NOTSET" && mode != "SAME_UPPER" && mode != "SAME_LOWER" && mode != "VALID") {
    return InvalidArgument(node.Describe() + ": auto_pad '" + mode +
                           "' is not supported (expected NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
  }
  return mode;
}

// The kernel: W's spatial shape (kernel_shape optional and checked against
// it) or, for pools, the required kernel_shape.
Result<std::vector<int64_t>> Kernel(const ir::Node& node, size_t rank,
                                    const std::vector<int64_t>& weight_kernel) {
  if (weight_kernel.empty() && !node.HasAttr("kernel_shape")) {
    return InvalidArgument(node.Describe() + ": attribute 'kernel_shape' is required");
  }
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, AxisInts(node, "kernel_shape", rank, 1, 1, 1));
  if (!weight_kernel.empty()) {
    if (node.HasAttr("kernel_shape") && kernel != weight_kernel) {
      return InvalidArgument(node.Describe() + ": kernel_shape " + FormatInts(kernel) +
                             " does not match the weight's spatial shape " +
                             FormatInts(weight_kernel));
    }
    kernel = weight_kernel;
    for (int64_t k : kernel) {
      if (k < 1) {
        return InvalidArgument(node.Describe() + ": the weight's spatial shape " +
                               FormatInts(kernel) + " has an empty axis");
      }
    }
  }
  return kernel;
}

Status EmptyOutput(const ir::Node& node, const Window& w, size_t a, int64_t out) {
  return InvalidArgument(node.Describe() + ": spatial axis " + std::to_string(a) +
                         " would have output size " + std::to_string(out) + " (input " +
                         std::to_string(w.in[a]) + ", kernel extent " +
                         std::to_string(w.Extent(a)) + ", stride " + std::to_string(w.strides[a]) +
                         ", pads " + std::to_string(w.pad_begin[a]) + "+" +
                         std::to_string(w.pad_end[a]) + ")");
}

}  // namespace

int64_t Window::KernelElements() const {
  int64_t n = 1;
  for (int64_t k : kernel) n *= k;
  return n;
}

int64_t Window::InElements() const {
  int64_t n = 1;
  for (int64_t d : in) n *= d;
  return n;
}

int64_t Window::OutElements() const {
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  return n;
}

std::pair<int64_t, int64_t> Window::Interior(size_t a) const {
  int64_t first = CeilDiv(pad_begin[a], strides[a]);
  int64_t last = FloorDiv(in[a] - Extent(a) + pad_begin[a], strides[a]) + 1;
  first = std::min(std::max<int64_t>(first, 0), out[a]);
  last = std::max(std::min(last, out[a]), first);
  return {first, last};
}

int64_t FloorDiv(int64_t n, int64_t d) {
  int64_t q = n / d;
  if ((n % d != 0) && ((n < 0) != (d < 0))) --q;
  return q;
}

int64_t CeilDiv(int64_t n, int64_t d) { return -FloorDiv(-n, d); }

namespace {

// What both windows read alike: the input, kernel_shape (or the weight's),
// strides and dilations into `w`; returns pads (begin and end per axis).
Result<std::vector<int64_t>> ReadWindow(const ir::Node& node, const std::vector<int64_t>& in_spatial,
                                        const std::vector<int64_t>& weight_kernel, Window* w) {
  const size_t rank = in_spatial.size();
  w->in = in_spatial;
  MLF_ASSIGN_OR_RETURN(w->kernel, Kernel(node, rank, weight_kernel));
  MLF_ASSIGN_OR_RETURN(w->strides, AxisInts(node, "strides", rank, 1, 1, 1));
  MLF_ASSIGN_OR_RETURN(w->dilations, AxisInts(node, "dilations", rank, 1, 1, 1));
  return AxisInts(node, "pads", rank, 2, 0, 0);
}

}  // namespace

Result<Window> ForwardWindow(const ir::Node& node, const std::vector<int64_t>& in_spatial,
                             const std::vector<int64_t>& weight_kernel, WindowKind kind) {
  const size_t rank = in_spatial.size();
  Window w;
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ReadWindow(node, in_spatial, weight_kernel, &w));
  MLF_ASSIGN_OR_RETURN(std::string auto_pad, AutoPad(node));
  bool ceil_mode = false;
  if (kind != WindowKind::kConv) {
    MLF_ASSIGN_OR_RETURN(int64_t c, node.Int("ceil_mode", 0));
    if (c != 0 && c != 1) {
      return InvalidArgument(node.Describe() + ": attribute 'ceil_mode' must be 0 or 1, got " +
                             std::to_string(c));
    }
    ceil_mode = c == 1;
  }
  w.out.assign(rank, 0);
  w.pad_begin.assign(rank, 0);
  w.pad_end.assign(rank, 0);
  for (size_t a = 0; a < rank; ++a) {
    const int64_t in = w.in[a], s = w.strides[a], ext = w.Extent(a);
    int64_t out = 0;
    if (auto_pad == "VALID") {
      out = in >= ext ? (in - ext) / s + 1 : 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = CeilDiv(in, s);
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + ext - in);
      const int64_t small = total / 2;
      w.pad_begin[a] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pad_end[a] = total - w.pad_begin[a];
    } else {
      w.pad_begin[a] = pads[a];
      w.pad_end[a] = pads[rank + a];
      const int64_t span = in + w.pad_begin[a] + w.pad_end[a] - ext;
      if (span >= 0) {
        out = (ceil_mode ? CeilDiv(span, s) : span / s) + 1;
        // A last window starting in the end padding is dropped (ONNX, PyTorch).
        if (ceil_mode && (out - 1) * s >= in + w.pad_begin[a]) --out;
      }
    }
    if (out < 1) return EmptyOutput(node, w, a, out);
    w.out[a] = out;
  }
  return w;
}

Result<Window> TransposedWindow(const ir::Node& node, const std::vector<int64_t>& in_spatial,
                                const std::vector<int64_t>& weight_kernel) {
  const size_t rank = in_spatial.size();
  Window w;
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ReadWindow(node, in_spatial, weight_kernel, &w));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad,
                       AxisInts(node, "output_padding", rank, 1, 0, 0));
  MLF_ASSIGN_OR_RETURN(std::string auto_pad, AutoPad(node));
  std::vector<int64_t> out_shape;
  if (node.HasAttr("output_shape")) {
    MLF_ASSIGN_OR_RETURN(out_shape, node.Ints("output_shape", {}));
    if (out_shape.size() == rank + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (out_shape.size() != rank) {
      return InvalidArgument(node.Describe() + ": attribute 'output_shape' has " +
                             std::to_string(out_shape.size()) + " values, expected " +
                             std::to_string(rank) + " (one per spatial axis) or " +
                             std::to_string(rank + 2) + " (the full output shape)");
    }
    for (int64_t d : out_shape) {
      if (d < 1) {
        return InvalidArgument(node.Describe() + ": attribute 'output_shape' must be positive, got " +
                               FormatInts(out_shape));
      }
    }
  }
  w.out.assign(rank, 0);
  w.pad_begin.assign(rank, 0);
  w.pad_end.assign(rank, 0);
  for (size_t a = 0; a < rank; ++a) {
    const int64_t natural = w.strides[a] * (w.in[a] - 1) + out_pad[a] + w.Extent(a);
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (!out_shape.empty() || same) {
      const int64_t out = out_shape.empty() ? w.in[a] * w.strides[a] : out_shape[a];
      const int64_t total = natural - out;
      const int64_t half = FloorDiv(total, 2);
      w.pad_begin[a] = auto_pad == "SAME_UPPER" ? half : total - half;
      w.pad_end[a] = total - w.pad_begin[a];
    } else if (auto_pad == "NOTSET") {
      w.pad_begin[a] = pads[a];
      w.pad_end[a] = pads[rank + a];
    }
    const int64_t out = natural - w.pad_begin[a] - w.pad_end[a];
    if (out < 1) return EmptyOutput(node, w, a, out);
    w.out[a] = out;
  }
  return w;
}

Status CheckIndexable(const ir::Node& node, const ir::Graph& graph) {
  auto check = [&](int id) -> Status {
    if (id == ir::kNoValue) return Status::Ok();
    const ir::Value& v = graph.value(id);
    uint64_t n = 1;
    for (int64_t d : v.shape) {
      n *= static_cast<uint64_t>(std::max<int64_t>(d, 0));
      if (n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return Unimplemented(node.Describe() + ": value '" + v.name + "' of shape " +
                             FormatShape(v.shape) +
                             " has more than 2^31-1 elements, which generated code cannot index");
      }
    }
    return Status::Ok();
  };
  for (int id : node.inputs) MLF_RETURN_IF_ERROR(check(id));
  for (int id : node.outputs) MLF_RETURN_IF_ERROR(check(id));
  return Status::Ok();
}

Status CheckActivationDType(const ir::Node& node, DType dtype) {
  MLF_ASSIGN_OR_RETURN(std::string act, node.String("mlf.activation", ""));
  if (act.empty() || dtype == DType::kFloat32) return Status::Ok();
  return Unimplemented(node.Describe() + ": fused activation '" + act +
                       "' needs a float32 output, got " + DTypeName(dtype));
}

void CodeWriter::Line(const std::string& text) {
  text_.append(static_cast<size_t>(indent_) * 2, ' ');
  text_ += text;
  text_ += '\n';
}

void CodeWriter::Open(const std::string& text) {
  Line(text);
  ++indent_;
}

void CodeWriter::Close(const std::string& text) {
  --indent_;
  Line(text);
}

void CodeWriter::Continue(const std::string& text) {
  --indent_;
  Line(text);
  ++indent_;
}

std::string FormatInts(const std::vector<int64_t>& values) { return FormatShape(values); }

}  // namespace mlf::ops
