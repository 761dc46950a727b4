// Element-wise and slice-wise reads and writes at run-time indices:
//
//   GatherElements   out[p] = data[p with p[axis] = indices[p]]; the
//                    indices have data's rank and no larger dimensions;
//   GatherND         slices of data at the index tuples of indices' last
//                    axis, attribute batch_dims;
//   ScatterElements  out = data, then out[p with p[axis] = indices[p]]
//                    (op)= updates[p] in index order; reduction none
//                    (default), add or mul;
//   Scatter          ScatterElements without reduction (opsets 9-10);
//   ScatterND        out = data, then the slices at indices' tuples (op)=
//                    updates, in order; reduction none, add or mul.
//
// Indices are int32 or int64, constant or computed at run time; negative
// ones count from the end of their axis. Out-of-range indices are undefined
// in ONNX: constant ones are refused by infer(); at run time (evaluate() and
// the generated code agree) the gathers clamp them to the axis (never
// reading out of bounds) and the scatters skip the update (never writing
// out of bounds). Duplicate indices with reduction none: the last update
// wins. add and mul wrap for integers and are in the element type.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Reduction { kNone, kAdd, kMul };

Status CheckIndicesDType(const ir::Node& node, const InputInfo& indices) {
  if (indices.dtype != DType::kInt32 && indices.dtype != DType::kInt64) {
    return NodeError(node, std::string("input 1 (indices) must be int32 or int64, got ") + DTypeName(indices.dtype));
  }
  return Status::Ok();
}

Status CheckConstantIndex(const ir::Node& node, int64_t index, int64_t dim, size_t axis) {
  if (index < -dim || index >= dim) {
    return NodeError(node, "index " + std::to_string(index) + " is out of range for axis " + std::to_string(axis) +
                               " of size " + std::to_string(dim));
  }
  return Status::Ok();
}

Result<Reduction> ReductionOf(const ir::Node& node, DType dtype) {
  MLF_ASSIGN_OR_RETURN(std::string r, node.String("reduction", "none"));
  if (r == "none") return Reduction::kNone;
  if (r != "add" && r != "mul") return NodeUnsupported(node, "reduction '" + r + "' is not supported (none, add, mul)");
  MLF_RETURN_IF_ERROR(CheckDType(node, dtype, kNumericDTypes, "input data with reduction '" + r + "'"));
  return r == "add" ? Reduction::kAdd : Reduction::kMul;
}

// In-range index k of an axis of size dim: wrapped, then clamped (gathers).
int64_t Clamped(int64_t k, int64_t dim) {
  if (k < 0) k += dim;
  return k < 0 ? 0 : k > dim - 1 ? dim - 1 : k;
}

// C statements turning `k` (read from indices) into an in-range index:
// clamped (gathers) or `skip` run when out of range (scatters).
std::string IndexC(const std::string& ind, const std::string& k, int64_t dim, const std::string& skip) {
  std::string s = ind + "if (" + k + " < 0) " + k + " += " + Num(dim) + ";\n";
  if (skip.empty()) {
    s += ind + "/* Out of range is undefined in ONNX: clamp rather than read out of bounds. */\n";
    s += ind + "if (" + k + " < 0) " + k + " = 0;\n";
    s += ind + "if (" + k + " > " + Num(dim - 1) + ") " + k + " = " + Num(dim - 1) + ";\n";
  } else {
    s += ind + "/* Out of range is undefined in ONNX: skip rather than write out of bounds. */\n";
    s += ind + "if (" + k + " < 0 || " + k + " >= " + Num(dim) + ") " + skip + ";\n";
  }
  return s;
}

// dst (op)= src as C, in the element type (integers wrap).
std::string CombineC(Reduction r, DType d, const std::string& dst, const std::string& src) {
  if (r == Reduction::kNone) return dst + " = " + src + ";";
  const char* op = r == Reduction::kAdd ? " + " : " * ";
  if (IsFloatDType(d)) return dst + " = " + dst + op + src + ";";
  const std::string w = WrapCType(d);
  return dst + " = (" + CType(d) + ")((" + w + ")" + dst + op + "(" + w + ")" + src + ");";
}

template <typename T>
void Combine(Reduction r, T* dst, T src) {
  if (r == Reduction::kNone) {
    *dst = src;
  } else if constexpr (std::is_floating_point_v<T>) {
    *dst = r == Reduction::kAdd ? *dst + src : *dst * src;
  } else {
    const auto a = static_cast<uint64_t>(*dst), b = static_cast<uint64_t>(src);
    *dst = static_cast<T>(r == Reduction::kAdd ? a + b : a * b);
  }
}

// Applies (op)= for one element of any dtype (none: a byte copy).
void CombineBytes(Reduction r, DType d, char* dst, const char* src) {
  if (r == Reduction::kNone) {
    std::memcpy(dst, src, DTypeSize(d));
    return;
  }
  VisitNumeric(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T a, b;
    std::memcpy(&a, dst, sizeof(T));
    std::memcpy(&b, src, sizeof(T));
    Combine(r, &a, b);
    std::memcpy(dst, &a, sizeof(T));
  });
}

// Nested loops over `shape` with variables i0.., and a flat counter `n`
// (the position in C order). Returns the closing text; appends the opening.
std::string OpenLoops(const Shape& shape, std::string* body, std::string* ind) {
  *body += *ind + "size_t n = 0;\n";
  std::string close;
  for (size_t k = 0; k < shape.size(); ++k) {
    *body += *ind + "for (size_t i" + std::to_string(k) + " = 0; i" + std::to_string(k) + " < " + Num(shape[k]) +
             "; ++i" + std::to_string(k) + ") {\n";
    close = *ind + "}\n" + close;
    *ind += "  ";
  }
  return close;
}

// ---- GatherElements, ScatterElements, Scatter ----

struct ElementsPlan {
  size_t axis = 0;
  Shape data, indices;
  Reduction reduction = Reduction::kNone;
  bool scatter = false;
};

// `graph`: the inputs are the graph's (infer, emit), where constant indices
// must be in range; evaluate() passes false and handles them as the
// generated code does.
Result<ElementsPlan> PlanElements(const ir::Node& node, const std::vector<InputInfo>& in, bool graph) {
  ElementsPlan p;
  p.scatter = node.op != "GatherElements";
  MLF_RETURN_IF_ERROR(CheckArity(node, p.scatter ? 3 : 2, p.scatter ? 3 : 2));
  MLF_ASSIGN_OR_RETURN(const InputInfo* indices, RequiredInput(node, in, 1, "indices"));
  MLF_RETURN_IF_ERROR(CheckIndicesDType(node, *indices));
  p.data = in[0].shape;
  p.indices = indices->shape;
  if (p.data.empty()) return NodeError(node, "input 0 (data) must have rank 1 or more");
  if (p.indices.size() != p.data.size()) {
    return NodeError(node, "input 1 (indices) has rank " + std::to_string(p.indices.size()) + ", expected " +
                               std::to_string(p.data.size()) + " as data");
  }
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", 0));
  MLF_ASSIGN_OR_RETURN(p.axis, NormalizeAxis(node, axis_attr, p.data.size(), "axis"));
  for (size_t k = 0; k < p.data.size(); ++k) {
    if (k != p.axis && p.indices[k] > p.data[k]) {
      return NodeError(node, "input 1 (indices) of shape " + FormatShape(p.indices) + " is larger than data of shape " +
                                 FormatShape(p.data) + " in axis " + std::to_string(k));
    }
  }
  const int64_t dim = p.data[p.axis];
  if (dim == 0 && Elements(p.indices) > 0) {
    return NodeError(node, "cannot index axis " + std::to_string(p.axis) + " of size 0");
  }
  if (p.scatter) {
    MLF_ASSIGN_OR_RETURN(const InputInfo* updates, RequiredInput(node, in, 2, "updates"));
    if (updates->shape != p.indices) {
      return NodeError(node, "input 2 (updates) has shape " + FormatShape(updates->shape) + ", expected " +
                                 FormatShape(p.indices) + " as indices");
    }
    if (updates->dtype != in[0].dtype) {
      return NodeError(node, std::string("input 2 (updates) has dtype ") + DTypeName(updates->dtype) + ", expected " +
                                 DTypeName(in[0].dtype) + " as data");
    }
    if (node.op == "ScatterElements") {
      MLF_ASSIGN_OR_RETURN(p.reduction, ReductionOf(node, in[0].dtype));
    }
  }
  if (graph && indices->data != nullptr) {
    for (int64_t index : indices->data->ToInts()) MLF_RETURN_IF_ERROR(CheckConstantIndex(node, index, dim, p.axis));
  }
  return p;
}

Status ElementsInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(ElementsPlan p, PlanElements(node, in, true));
  SetOutput(node, graph, 0, in[0].dtype, p.scatter ? p.data : p.indices);
  return Status::Ok();
}

Status ElementsEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                        std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ElementsPlan p, PlanElements(node, TensorInputs(inputs), false));
  const ir::HostTensor& x = *inputs[0];
  const std::vector<int64_t> indices = inputs[1]->ToInts();
  const size_t es = DTypeSize(x.dtype);
  ir::HostTensor y = p.scatter ? x : ir::HostTensor::Zeros(x.dtype, p.indices);
  const Shape ds = Strides(p.data);
  const int64_t dim = p.data[p.axis];
  for (uint64_t n = 0; n < indices.size(); ++n) {
    Shape at = Unravel(n, p.indices);
    int64_t k = indices[n];
    if (p.scatter) {
      if (k < 0) k += dim;
      if (k < 0 || k >= dim) continue;
    } else {
      k = Clamped(k, dim);
    }
    at[p.axis] = k;
    int64_t offset = 0;
    for (size_t d = 0; d < at.size(); ++d) offset += at[d] * ds[d];
    const auto o = static_cast<size_t>(offset);
    if (p.scatter) {
      CombineBytes(p.reduction, x.dtype, &y.bytes[o * es], &inputs[2]->bytes[n * es]);
    } else {
      std::memcpy(&y.bytes[n * es], &x.bytes[o * es], es);
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status ElementsEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ElementsPlan p, PlanElements(ctx.node, GraphInputs(ctx.node, ctx.graph), true));
  const DType d = ctx.input(0).dtype;
  std::string& s = *body;
  if (p.scatter && Elements(p.data) > 0) s += "  memcpy(out0, in0, " + Num(static_cast<int64_t>(Elements(p.data))) + " * sizeof(*out0));\n";
  if (Elements(p.indices) > 0) {
    const std::string k_type = ctx.input(1).dtype == DType::kInt32 ? "int32_t" : "int64_t";
    const Shape ds = Strides(p.data);
    std::string ind = "  ";
    s += ind + "{\n";
    ind += "  ";
    const std::string close = OpenLoops(p.indices, body, &ind);
    s += ind + k_type + " k = in1[n];\n";
    s += IndexC(ind, "k", p.data[p.axis], p.scatter ? "{ ++n; continue; }" : "");
    Terms terms;
    for (size_t k = 0; k < p.data.size(); ++k) {
      terms.push_back({k == p.axis ? "(size_t)k" : "i" + std::to_string(k), ds[k]});
    }
    const std::string at = IndexExpr(0, terms);
    if (p.scatter) {
      s += ind + CombineC(p.reduction, d, "out0[" + at + "]", "in2[n]") + "\n";
    } else {
      s += ind + "out0[n] = in0[" + at + "];\n";
    }
    s += ind + "++n;\n";
    s += close + "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- GatherND, ScatterND ----

// data viewed as [batch, positions..., slice]: `batch` (prod of the batch_dims
// leading axes), index tuples of `depth` coordinates into the next axes, and
// `slice` elements after them; `count` tuples per batch.
struct NDPlan {
  Shape out;
  Shape dims;     // the indexed axes' sizes
  Shape strides;  // their strides within one batch, in elements
  int64_t batch = 1, count = 1, depth = 0, slice = 1, batch_stride = 1;
  Reduction reduction = Reduction::kNone;
  bool scatter = false;
};

// `graph` as for PlanElements.
Result<NDPlan> PlanND(const ir::Node& node, const std::vector<InputInfo>& in, bool graph) {
  NDPlan p;
  p.scatter = node.op == "ScatterND";
  MLF_RETURN_IF_ERROR(CheckArity(node, p.scatter ? 3 : 2, p.scatter ? 3 : 2));
  MLF_ASSIGN_OR_RETURN(const InputInfo* indices, RequiredInput(node, in, 1, "indices"));
  MLF_RETURN_IF_ERROR(CheckIndicesDType(node, *indices));
  const Shape& x = in[0].shape;
  const Shape& ind = indices->shape;
  int64_t b = 0;
  if (!p.scatter) {
    MLF_ASSIGN_OR_RETURN(b, node.Int("batch_dims", 0));
  }
  if (x.empty() || ind.empty()) return NodeError(node, "inputs 0 (data) and 1 (indices) must have rank 1 or more");
  if (b < 0 || static_cast<size_t>(b) >= std::min(x.size(), ind.size())) {
    return NodeError(node, "batch_dims " + std::to_string(b) + " must be less than the ranks of data and indices");
  }
  const auto bs = static_cast<size_t>(b);
  for (size_t k = 0; k < bs; ++k) {
    if (x[k] != ind[k]) {
      return NodeError(node, "batch axis " + std::to_string(k) + " differs: data " + FormatShape(x) + ", indices " +
                                 FormatShape(ind));
    }
  }
  p.depth = ind.back();
  if (p.depth < 1 || static_cast<size_t>(p.depth) > x.size() - bs) {
    return NodeError(node, "the last axis of input 1 (indices) has size " + std::to_string(p.depth) +
                               ", expected 1 to " + std::to_string(x.size() - bs));
  }
  const size_t first = bs, end = bs + static_cast<size_t>(p.depth);
  p.batch = Product(x, 0, bs);
  p.count = Product(ind, bs, ind.size() - 1);
  p.slice = Product(x, end, x.size());
  p.batch_stride = Product(x, bs, x.size());
  for (size_t k = first; k < end; ++k) {
    p.dims.push_back(x[k]);
    p.strides.push_back(Product(x, k + 1, x.size()));
    if (x[k] == 0 && p.batch * p.count > 0) {
      return NodeError(node, "cannot index axis " + std::to_string(k) + " of size 0");
    }
  }
  // indices.shape[:-1] + data.shape[batch_dims + depth:]
  p.out.assign(ind.begin(), ind.end() - 1);
  p.out.insert(p.out.end(), x.begin() + static_cast<int64_t>(end), x.end());
  if (p.scatter) {
    MLF_ASSIGN_OR_RETURN(const InputInfo* updates, RequiredInput(node, in, 2, "updates"));
    if (updates->shape != p.out) {
      return NodeError(node, "input 2 (updates) has shape " + FormatShape(updates->shape) + ", expected " +
                                 FormatShape(p.out));
    }
    if (updates->dtype != in[0].dtype) {
      return NodeError(node, std::string("input 2 (updates) has dtype ") + DTypeName(updates->dtype) + ", expected " +
                                 DTypeName(in[0].dtype) + " as data");
    }
    MLF_ASSIGN_OR_RETURN(p.reduction, ReductionOf(node, in[0].dtype));
    p.out = x;
  }
  if (graph && indices->data != nullptr) {
    const std::vector<int64_t> v = indices->data->ToInts();
    for (size_t i = 0; i < v.size(); ++i) {
      const size_t k = i % static_cast<size_t>(p.depth);
      MLF_RETURN_IF_ERROR(CheckConstantIndex(node, v[i], p.dims[k], first + k));
    }
  }
  return p;
}

Status NDInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(NDPlan p, PlanND(node, in, true));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status NDEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                  std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(NDPlan p, PlanND(node, TensorInputs(inputs), false));
  const ir::HostTensor& x = *inputs[0];
  const std::vector<int64_t> indices = inputs[1]->ToInts();
  const size_t es = DTypeSize(x.dtype);
  ir::HostTensor y = p.scatter ? x : ir::HostTensor::Zeros(x.dtype, p.out);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t j = 0; j < p.count; ++j) {
      const int64_t tuple = b * p.count + j;
      int64_t offset = b * p.batch_stride;
      bool skip = false;
      for (int64_t c = 0; c < p.depth; ++c) {
        int64_t k = indices[static_cast<size_t>(tuple * p.depth + c)];
        const int64_t dim = p.dims[static_cast<size_t>(c)];
        if (p.scatter) {
          if (k < 0) k += dim;
          skip = skip || k < 0 || k >= dim;
        } else {
          k = Clamped(k, dim);
        }
        offset += k * p.strides[static_cast<size_t>(c)];
      }
      if (skip) continue;
      for (int64_t e = 0; e < p.slice; ++e) {
        const auto src = static_cast<size_t>(offset + e), dst = static_cast<size_t>(tuple * p.slice + e);
        if (p.scatter) {
          CombineBytes(p.reduction, x.dtype, &y.bytes[src * es], &inputs[2]->bytes[dst * es]);
        } else {
          std::memcpy(&y.bytes[dst * es], &x.bytes[src * es], es);
        }
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status NDEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(NDPlan p, PlanND(ctx.node, GraphInputs(ctx.node, ctx.graph), true));
  const DType d = ctx.input(0).dtype;
  std::string& s = *body;
  if (p.scatter && Elements(p.out) > 0) s += "  memcpy(out0, in0, " + Num(static_cast<int64_t>(Elements(p.out))) + " * sizeof(*out0));\n";
  if (p.batch * p.count * p.slice > 0) {
    const std::string k_type = ctx.input(1).dtype == DType::kInt32 ? "int32_t" : "int64_t";
    s += "  for (size_t b = 0; b < " + Num(p.batch) + "; ++b) {\n";
    s += "    for (size_t j = 0; j < " + Num(p.count) + "; ++j) {\n";
    s += "      const size_t tuple = b * " + Num(p.count) + " + j;\n";
    s += "      size_t offset = b * " + Num(p.batch_stride) + ";\n";
    for (int64_t c = 0; c < p.depth; ++c) {
      const std::string k = "k" + std::to_string(c);
      s += "      " + k_type + " " + k + " = in1[tuple * " + Num(p.depth) + " + " + Num(c) + "];\n";
      s += IndexC("      ", k, p.dims[static_cast<size_t>(c)], p.scatter ? "continue" : "");
      s += "      offset += (size_t)" + k + " * " + Num(p.strides[static_cast<size_t>(c)]) + ";\n";
    }
    s += "      for (size_t e = 0; e < " + Num(p.slice) + "; ++e) ";
    if (p.scatter) {
      s += CombineC(p.reduction, d, "out0[offset + e]", "in2[tuple * " + Num(p.slice) + " + e]") + "\n";
    } else {
      s += "out0[tuple * " + Num(p.slice) + " + e] = in0[offset + e];\n";
    }
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterScatterOps(std::vector<OpDef>* table) {
  table->push_back({"GatherElements", ElementsInfer, ElementsEvaluate, ElementsEmit});
  table->push_back({"ScatterElements", ElementsInfer, ElementsEvaluate, ElementsEmit});
  table->push_back({"Scatter", ElementsInfer, ElementsEvaluate, ElementsEmit});
  table->push_back({"GatherND", NDInfer, NDEvaluate, NDEmit});
  table->push_back({"ScatterND", NDInfer, NDEvaluate, NDEmit});
}

}  // namespace mlf::ops
