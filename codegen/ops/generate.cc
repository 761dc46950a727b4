// Operators whose output is made from positions rather than computed from
// input values element by element:
//
//   Range      start + i * delta for i < max(ceil((limit - start) / delta), 0);
//              start, limit and delta are constant scalars (they fix the
//              output's length); float32/float64/int16/int32/int64;
//   EyeLike    ones on diagonal k of a 2-D shape, attribute dtype (default:
//              input 0's);
//   Size       the element count of input 0 as an int64 scalar;
//   OneHot     indices (run time, any numeric dtype), a constant scalar depth,
//              values [off, on] (run time); attribute axis (default -1).
//              An index in [-depth, depth - 1] sets one element (negative
//              ones count from the end); any other index, or a float index
//              that is not a whole number, leaves its row all off (ONNX);
//   Trilu      keeps the upper (upper=1, default) or lower triangle of the
//              last two axes from diagonal k (optional int64 input 1, may be
//              computed at run time), zeros the rest; every dtype.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

// The one value of constant input i, "input 0 (start)" in errors.
Result<double> ConstantScalar(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                              const std::string& what) {
  MLF_ASSIGN_OR_RETURN(const InputInfo* v, RequiredInput(node, in, i, what));
  const std::string name = "input " + std::to_string(i) + " (" + what + ")";
  if (v->data == nullptr) return NodeError(node, name + " must be a constant");
  if (Elements(v->shape) != 1) {
    return NodeError(node, name + " must hold one value, got shape " + FormatShape(v->shape));
  }
  return v->data->GetDouble(0);
}

// ---- Range ----

struct RangePlan {
  DType dtype = DType::kFloat32;
  double start = 0, delta = 0;
  int64_t count = 0;
};

Result<RangePlan> PlanRange(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 3, 3));
  RangePlan p;
  p.dtype = in[0].dtype;
  MLF_RETURN_IF_ERROR(CheckDType(node, p.dtype,
                                 {DType::kInt16, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64},
                                 "input start"));
  for (size_t i = 1; i < 3; ++i) {
    if (Has(in, i) && in[i].dtype != p.dtype) {
      return NodeError(node, "inputs start, limit and delta must have one dtype, got " +
                                 std::string(DTypeName(p.dtype)) + " and " + DTypeName(in[i].dtype));
    }
  }
  MLF_ASSIGN_OR_RETURN(p.start, ConstantScalar(node, in, 0, "start"));
  MLF_ASSIGN_OR_RETURN(double limit, ConstantScalar(node, in, 1, "limit"));
  MLF_ASSIGN_OR_RETURN(p.delta, ConstantScalar(node, in, 2, "delta"));
  if (p.delta == 0) return NodeError(node, "input 2 (delta) is 0");
  if (!std::isfinite(p.start) || !std::isfinite(limit) || !std::isfinite(p.delta)) {
    return NodeError(node, "start, limit and delta must be finite");
  }
  double n = 0;
  if (IsFloatDType(p.dtype)) {
    // In the inputs' precision, as numpy's arange does.
    n = p.dtype == DType::kFloat32
            ? std::ceil(static_cast<double>((static_cast<float>(limit) - static_cast<float>(p.start)) /
                                            static_cast<float>(p.delta)))
            : std::ceil((limit - p.start) / p.delta);
  } else {
    const auto s = static_cast<int64_t>(p.start), l = static_cast<int64_t>(limit),
               d = static_cast<int64_t>(p.delta);
    const int64_t span = l - s;
    n = static_cast<double>(span / d + ((span % d != 0 && ((span < 0) == (d < 0))) ? 1 : 0));
  }
  p.count = n > 0 ? static_cast<int64_t>(n) : 0;
  return p;
}

Status RangeInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(RangePlan p, PlanRange(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, {p.count});
  return Status::Ok();
}

Status RangeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(RangePlan p, PlanRange(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, {p.count});
  VisitNumeric(p.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < p.count; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        y.data<T>()[i] = static_cast<T>(p.start + static_cast<double>(i) * p.delta);
      } else {
        y.data<T>()[i] = static_cast<T>(static_cast<int64_t>(p.start) + i * static_cast<int64_t>(p.delta));
      }
    }
  });
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status RangeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(RangePlan p, PlanRange(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (p.count > 0) {
    const std::string t = CType(p.dtype);
    *body += "  for (size_t i = 0; i < " + Num(p.count) + "; ++i) ";
    if (IsFloatDType(p.dtype)) {
      *body += "out0[i] = (" + t + ")(" + CLiteral(DType::kFloat64, p.start) + " + (double)i * " +
               CLiteral(DType::kFloat64, p.delta) + ");\n";
    } else {
      *body += "out0[i] = (" + t + ")(" + Num(static_cast<int64_t>(p.start)) + " + (int64_t)i * " +
               Num(static_cast<int64_t>(p.delta)) + ");\n";
    }
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- EyeLike ----

struct EyePlan {
  DType dtype = DType::kFloat32;
  Shape shape;
  int64_t k = 0;
};

Result<DType> EyeDType(const ir::Node& node, int64_t code) {
  switch (code) {
    case 1: return DType::kFloat32;
    case 2: return DType::kUInt8;
    case 3: return DType::kInt8;
    case 4: return DType::kUInt16;
    case 5: return DType::kInt16;
    case 6: return DType::kInt32;
    case 7: return DType::kInt64;
    case 9: return DType::kBool;
    case 11: return DType::kFloat64;
    case 12: return DType::kUInt32;
    case 13: return DType::kUInt64;
    default: return NodeUnsupported(node, "dtype " + std::to_string(code) + " is not supported");
  }
}

Result<EyePlan> PlanEyeLike(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  EyePlan p;
  p.shape = in[0].shape;
  if (p.shape.size() != 2) {
    return NodeError(node, "input 0 must be 2-D, got shape " + FormatShape(p.shape));
  }
  p.dtype = in[0].dtype;
  if (node.HasAttr("dtype")) {
    MLF_ASSIGN_OR_RETURN(int64_t code, node.Int("dtype", 1));
    MLF_ASSIGN_OR_RETURN(p.dtype, EyeDType(node, code));
  }
  if (p.dtype == DType::kFloat16 || p.dtype == DType::kBFloat16) {
    return NodeUnsupported(node, std::string("dtype ") + DTypeName(p.dtype) + " is not supported");
  }
  MLF_ASSIGN_OR_RETURN(p.k, node.Int("k", 0));
  return p;
}

Status EyeLikeInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(EyePlan p, PlanEyeLike(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, p.shape);
  return Status::Ok();
}

Status EyeLikeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                       std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(EyePlan p, PlanEyeLike(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, p.shape);
  for (int64_t i = 0; i < p.shape[0]; ++i) {
    const int64_t j = i + p.k;
    if (j >= 0 && j < p.shape[1]) y.SetDouble(static_cast<uint64_t>(i * p.shape[1] + j), 1);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status EyeLikeEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(EyePlan p, PlanEyeLike(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const int64_t rows = p.shape[0], cols = p.shape[1];
  if (rows * cols > 0) {
    *body += "  memset(out0, 0, " + Num(rows * cols) + " * sizeof(*out0));\n";
    // Rows i with 0 <= i + k < cols.
    const int64_t first = std::max<int64_t>(0, -p.k), last = std::min<int64_t>(rows, cols - p.k);
    if (first < last) {
      *body += "  for (size_t i = " + Num(first) + "; i < " + Num(last) + "; ++i) out0[i * " + Num(cols + 1) +
               (p.k >= 0 ? " + " + Num(p.k) : " - " + Num(-p.k)) + "] = 1;\n";
    }
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Size ----

Status SizeInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  SetOutput(node, graph, 0, DType::kInt64, {});
  return Status::Ok();
}

Status SizeEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  ir::HostTensor y = ir::HostTensor::Zeros(DType::kInt64, {});
  y.data<int64_t>()[0] = static_cast<int64_t>(Elements(inputs[0]->shape));
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status SizeEmit(const EmitContext& ctx, std::string* body) {
  *body += "  out0[0] = " + Num(static_cast<int64_t>(Elements(ctx.input(0).shape))) + ";\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- OneHot ----

// The output viewed as [outer, depth, inner]; the indices as [outer, inner].
struct OneHotPlan {
  Shape out;
  int64_t outer = 1, depth = 0, inner = 1;
};

Result<OneHotPlan> PlanOneHot(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 3, 3));
  MLF_RETURN_IF_ERROR(CheckDType(node, in[0].dtype, kNumericDTypes, "input indices"));
  MLF_ASSIGN_OR_RETURN(double depth, ConstantScalar(node, in, 1, "depth"));
  MLF_ASSIGN_OR_RETURN(const InputInfo* values, RequiredInput(node, in, 2, "values"));
  if (Elements(values->shape) != 2 || values->shape.size() != 1) {
    return NodeError(node, "input 2 (values) must hold two values [off, on], got shape " +
                               FormatShape(values->shape));
  }
  if (!(depth >= 1) || depth > 1e9) {
    std::ostringstream text;
    text << depth;
    return NodeError(node, "input 1 (depth) must be at least 1, got " + text.str());
  }
  OneHotPlan p;
  p.depth = static_cast<int64_t>(depth);
  const Shape& ind = in[0].shape;
  MLF_ASSIGN_OR_RETURN(int64_t axis_attr, node.Int("axis", -1));
  MLF_ASSIGN_OR_RETURN(size_t axis, NormalizeAxis(node, axis_attr, ind.size() + 1, "axis"));
  p.outer = Product(ind, 0, axis);
  p.inner = Product(ind, axis, ind.size());
  p.out.assign(ind.begin(), ind.begin() + static_cast<int64_t>(axis));
  p.out.push_back(p.depth);
  p.out.insert(p.out.end(), ind.begin() + static_cast<int64_t>(axis), ind.end());
  return p;
}

Status OneHotInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(OneHotPlan p, PlanOneHot(node, in));
  SetOutput(node, graph, 0, in[2].dtype, p.out);
  return Status::Ok();
}

// The position an index selects, or -1 when it selects none.
int64_t OneHotPosition(double index, int64_t depth) {
  const auto d = static_cast<double>(depth);
  if (!(index >= -d && index < d) || index != std::floor(index)) return -1;
  const auto k = static_cast<int64_t>(index);
  return k < 0 ? k + depth : k;
}

Status OneHotEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(OneHotPlan p, PlanOneHot(node, TensorInputs(inputs)));
  const ir::HostTensor& values = *inputs[2];
  ir::HostTensor y = ir::HostTensor::Zeros(values.dtype, p.out);
  const size_t es = DTypeSize(values.dtype);
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t e = 0; e < p.inner; ++e) {
      // Integer indices beyond 2^53 are out of range as doubles too.
      const int64_t k = OneHotPosition(inputs[0]->GetDouble(static_cast<uint64_t>(o * p.inner + e)), p.depth);
      for (int64_t d = 0; d < p.depth; ++d) {
        const size_t dst = static_cast<size_t>((o * p.depth + d) * p.inner + e) * es;
        std::memcpy(&y.bytes[dst], &values.bytes[d == k ? es : 0], es);
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status OneHotEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(OneHotPlan p, PlanOneHot(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType idx = ctx.input(0).dtype;
  std::string& s = *body;
  if (Elements(p.out) > 0) {
    const std::string n = Num(static_cast<int64_t>(Elements(p.out)));
    s += "  for (size_t i = 0; i < " + n + "; ++i) out0[i] = in2[0];\n";
    s += "  for (size_t o = 0; o < " + Num(p.outer) + "; ++o) {\n";
    s += "    for (size_t e = 0; e < " + Num(p.inner) + "; ++e) {\n";
    s += "      const " + std::string(CType(idx)) + " x = in0[o * " + Num(p.inner) + " + e];\n";
    s += "      int64_t k;\n";
    if (IsFloatDType(idx)) {
      const std::string d = CLiteral(idx, static_cast<double>(p.depth));
      s += "      /* Out of range or not a whole number: no position (the row stays off). */\n";
      s += "      if (!(x >= -" + d + " && x < " + d + ") || x != " + MathFn(idx, "floor") + "(x)) continue;\n";
      s += "      k = (int64_t)x;\n";
    } else if (IsUnsignedIntDType(idx)) {
      s += "      if (x >= " + Num(p.depth) + "u) continue;\n";
      s += "      k = (int64_t)x;\n";
    } else {
      s += "      if (x < -" + Num(p.depth) + " || x >= " + Num(p.depth) + ") continue;\n";
      s += "      k = (int64_t)x;\n";
    }
    s += "      if (k < 0) k += " + Num(p.depth) + ";\n";
    s += "      out0[((size_t)o * " + Num(p.depth) + " + (size_t)k) * " + Num(p.inner) + " + e] = in2[1];\n";
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// ---- Trilu ----

struct TriluPlan {
  int64_t batch = 1, rows = 0, cols = 0;
  bool upper = true;
};

Result<TriluPlan> PlanTrilu(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 2));
  const Shape& x = in[0].shape;
  if (x.size() < 2) return NodeError(node, "input 0 must have rank 2 or more, got shape " + FormatShape(x));
  if (Has(in, 1)) {
    if (in[1].dtype != DType::kInt64) {
      return NodeError(node, std::string("input 1 (k) must be int64, got ") + DTypeName(in[1].dtype));
    }
    if (Elements(in[1].shape) != 1) {
      return NodeError(node, "input 1 (k) must hold one value, got shape " + FormatShape(in[1].shape));
    }
  }
  MLF_ASSIGN_OR_RETURN(int64_t upper, node.Int("upper", 1));
  TriluPlan p;
  p.upper = upper != 0;
  p.batch = Product(x, 0, x.size() - 2);
  p.rows = x[x.size() - 2];
  p.cols = x[x.size() - 1];
  return p;
}

bool TriluKeeps(bool upper, int64_t i, int64_t j, int64_t k) { return upper ? j - i >= k : j - i <= k; }

Status TriluInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_RETURN_IF_ERROR(PlanTrilu(node, in).status());
  SetOutput(node, graph, 0, in[0].dtype, in[0].shape);
  return Status::Ok();
}

Status TriluEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(TriluPlan p, PlanTrilu(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  const int64_t k = inputs.size() > 1 && inputs[1] != nullptr ? inputs[1]->data<int64_t>()[0] : 0;
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, x.shape);
  const size_t es = DTypeSize(x.dtype);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.rows; ++i) {
      for (int64_t j = 0; j < p.cols; ++j) {
        if (!TriluKeeps(p.upper, i, j, k)) continue;
        const size_t at = static_cast<size_t>((b * p.rows + i) * p.cols + j) * es;
        std::memcpy(&y.bytes[at], &x.bytes[at], es);
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status TriluEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(TriluPlan p, PlanTrilu(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  if (p.batch * p.rows * p.cols > 0) {
    s += std::string("  const int64_t k = ") + (ctx.node.HasInput(1) ? "in1[0]" : "0") + ";\n";
    s += "  for (size_t b = 0; b < " + Num(p.batch) + "; ++b) {\n";
    s += "    for (int64_t i = 0; i < " + Num(p.rows) + "; ++i) {\n";
    s += "      for (int64_t j = 0; j < " + Num(p.cols) + "; ++j) {\n";
    s += "        const size_t at = (b * " + Num(p.rows) + " + (size_t)i) * " + Num(p.cols) + " + (size_t)j;\n";
    // j - i is small; k is any int64: compare without overflow.
    s += std::string("        const int keep = ") + (p.upper ? "j - i >= k" : "j - i <= k") + ";\n";
    s += "        out0[at] = keep ? in0[at] : 0;\n";
    s += "      }\n    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterGenerateOps(std::vector<OpDef>* table) {
  table->push_back({"Range", RangeInfer, RangeEvaluate, RangeEmit});
  table->push_back({"EyeLike", EyeLikeInfer, EyeLikeEvaluate, EyeLikeEmit});
  table->push_back({"Size", SizeInfer, SizeEvaluate, SizeEmit});
  table->push_back({"OneHot", OneHotInfer, OneHotEvaluate, OneHotEmit});
  table->push_back({"Trilu", TriluInfer, TriluEvaluate, TriluEmit});
}

}  // namespace mlf::ops
