// MaxPool's Indices output (max_pool_indices.h): one plan for infer,
// evaluate and emit, a naive window loop in C++ and the same loop nest in C.
#include "codegen/ops/max_pool_indices.h"

#include <limits>
#include <string>

#include "codegen/ops/conv_geometry.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

const std::vector<DType> kDTypes = {DType::kFloat32, DType::kFloat64, DType::kInt8, DType::kUInt8};

struct IndicesPlan {
  DType dtype = DType::kFloat32;
  int64_t planes = 0;            // N * C
  bool column_major = false;     // storage_order 1
  Window w;
  Shape out;                     // [N, C, spatial...]
  std::vector<int64_t> strides;  // of each spatial axis in the index
};

Result<IndicesPlan> PlanIndices(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1, 1, 2));
  const InputInfo& x = in[0];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kDTypes, "X"));
  if (x.shape.size() < 3) {
    return NodeError(node, "input X " + FormatShape(x.shape) + " must have rank >= 3 (N, C and at least one spatial axis)");
  }
  IndicesPlan p;
  p.dtype = x.dtype;
  p.planes = x.shape[0] * x.shape[1];
  MLF_ASSIGN_OR_RETURN(int64_t order, node.Int("storage_order", 0));
  if (order != 0 && order != 1) {
    return NodeError(node, "attribute 'storage_order' must be 0 or 1, got " + Num(order));
  }
  p.column_major = order == 1;
  MLF_ASSIGN_OR_RETURN(p.w, ForwardWindow(node, Shape(x.shape.begin() + 2, x.shape.end()), {}, WindowKind::kMaxPool));
  p.out = {x.shape[0], x.shape[1]};
  p.out.insert(p.out.end(), p.w.out.begin(), p.w.out.end());
  const size_t rank = p.w.rank();
  p.strides.assign(rank, 1);
  if (p.column_major) {
    for (size_t a = 1; a < rank; ++a) p.strides[a] = p.strides[a - 1] * p.w.in[a - 1];
  } else {
    for (size_t a = rank - 1; a-- > 0;) p.strides[a] = p.strides[a + 1] * p.w.in[a + 1];
  }
  return p;
}

double Lowest(DType d) {
  switch (d) {
    case DType::kInt8: return -128;
    case DType::kUInt8: return 0;
    case DType::kFloat64: return std::numeric_limits<double>::lowest();
    default: return std::numeric_limits<float>::lowest();
  }
}

template <typename T>
void Loops(const IndicesPlan& p, const T* x, T* y, int64_t* indices) {
  const Window& w = p.w;
  const size_t rank = w.rank();
  const int64_t ip = w.InElements(), op = w.OutElements(), ks = w.KernelElements();
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    for (int64_t q = 0; q < op; ++q) {
      const Shape o = Unravel(static_cast<uint64_t>(q), w.out);
      T best = static_cast<T>(Lowest(p.dtype));
      int64_t index = -1;
      for (int64_t t = 0; t < ks; ++t) {
        const Shape k = Unravel(static_cast<uint64_t>(t), w.kernel);
        int64_t offset = 0, stored = 0;
        bool inside = true;
        for (size_t a = 0; a < rank; ++a) {
          const int64_t i = o[a] * w.strides[a] - w.pad_begin[a] + k[a] * w.dilations[a];
          if (i < 0 || i >= w.in[a]) inside = false;
          offset = offset * w.in[a] + i;
          stored += i * p.strides[a];
        }
        if (!inside) continue;
        const T v = x[plane * ip + offset];
        if (index < 0) index = plane * ip + stored;
        if (v > best) best = v, index = plane * ip + stored;
      }
      y[plane * op + q] = best;
      indices[plane * op + q] = index;
    }
  }
}

}  // namespace

Status MaxPoolIndicesInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(IndicesPlan p, PlanIndices(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, p.out);
  SetOutput(node, graph, 1, DType::kInt64, p.out);
  return Status::Ok();
}

Status MaxPoolIndicesEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                              std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(IndicesPlan p, PlanIndices(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, p.out), indices = ir::HostTensor::Zeros(DType::kInt64, p.out);
  VisitNumeric(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Loops<T>(p, inputs[0]->data<T>(), y.data<T>(), indices.data<int64_t>());
  });
  outputs->clear();
  outputs->push_back(std::move(y));
  outputs->push_back(std::move(indices));
  return Status::Ok();
}

Status MaxPoolIndicesEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(IndicesPlan p, PlanIndices(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const Window& w = p.w;
  const size_t rank = w.rank();
  std::string& s = *body;
  if (p.planes * w.OutElements() > 0) {
    const std::string t = CType(p.dtype);
    s += "  size_t q = 0;\n";
    s += "  for (size_t p = 0; p < " + Num(p.planes) + "; ++p) {\n";
    s += "    const " + t + "* xp = in0 + p * " + Num(w.InElements()) + ";\n";
    std::string ind = "    ";
    for (size_t a = 0; a < rank; ++a) {
      s += ind + "for (long o" + Num(a) + " = 0; o" + Num(a) + " < " + Num(w.out[a]) + "; ++o" + Num(a) + ") {\n";
      ind += "  ";
    }
    s += ind + t + " best = " + CLiteral(p.dtype, Lowest(p.dtype)) + ";\n";
    s += ind + "int64_t index = -1;\n";
    const std::string outer = ind;
    std::string offset = "0", stored = "0";
    for (size_t a = 0; a < rank; ++a) {
      const std::string i = "i" + Num(a), k = "k" + Num(a);
      s += ind + "for (long " + k + " = 0; " + k + " < " + Num(w.kernel[a]) + "; ++" + k + ") {\n";
      s += ind + "  const long " + i + " = o" + Num(a) + " * " + Num(w.strides[a]) + " - " + Num(w.pad_begin[a]) +
           " + " + k + " * " + Num(w.dilations[a]) + ";\n";
      s += ind + "  if (" + i + " < 0 || " + i + " >= " + Num(w.in[a]) + ") continue;\n";
      offset = a == 0 ? i : "(" + offset + ") * " + Num(w.in[a]) + " + " + i;
      stored += " + " + i + " * " + Num(p.strides[a]);
      ind += "  ";
    }
    s += ind + "const " + t + " v = xp[" + offset + "];\n";
    s += ind + "const int64_t at = (int64_t)(p * " + Num(w.InElements()) + ") + " + stored + ";\n";
    s += ind + "if (index < 0) index = at;\n";
    s += ind + "if (v > best) {\n" + ind + "  best = v;\n" + ind + "  index = at;\n" + ind + "}\n";
    for (size_t a = rank; a-- > 0;) {
      ind.resize(ind.size() - 2);
      s += ind + "}\n";
    }
    s += outer + "out0[q] = best;\n" + outer + "out1[q] = index;\n" + outer + "++q;\n";
    for (size_t a = rank; a-- > 0;) {
      ind.resize(ind.size() - 2);
      s += ind + "}\n";
    }
    s += "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace mlf::ops
