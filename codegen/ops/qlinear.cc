// The integer matrix products and convolutions of ONNX: MatMulInteger and
// ConvInteger (int32 outputs), QLinearMatMul and QLinearConv (requantized to
// int8/uint8), with the semantics of requantize.h: products of
// zero-point-adjusted int8/uint8 values accumulated in int32 that wraps,
// requantized with the real multiplier in double, rounded half to even and
// saturated.
//
// Quantization parameters:
//   MatMulInteger / QLinearMatMul  A's zero point (and scale) per tensor or
//       one per row of A ([M] or [..., M, 1] with ones before), B's per
//       tensor or one per column ([N] or [..., 1, N]); y's per tensor;
//   ConvInteger / QLinearConv  x's and y's per tensor, w's per tensor or one
//       per output channel ([M]); QLinearConv's bias B int32 [M].
// Scales and zero points may be constants or computed at run time (the code
// reads them like any input); constant scales are checked (finite,
// non-zero). Padding contributes nothing: a padded tap is x's zero point,
// which the zero-point adjustment turns into 0, so the code skips it.
//
// These are the reference forms; the lowering pass and integer kernels of
// issue 14 replace them on the hot path.
#include <algorithm>
#include <string>

#include "codegen/ops/conv_geometry.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"
#include "codegen/ops/requantize.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;
const std::vector<DType> kQuantDTypes = {DType::kInt8, DType::kUInt8};

std::string InputWhat(size_t i, const char* name) {
  return "input " + std::to_string(i) + " (" + name + ")";
}

// How a scale or zero point is laid out.
enum class Per { kAbsent, kTensor, kAxis };

// Input i (`name`), a scale or zero point of a tensor with `count` rows
// (`row`: shape [count] or [..., count, 1]) or columns ([count] or
// [..., 1, count]); `per_what` names the per-axis form in errors.
Result<Per> ParamLayout(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                        const char* name, int64_t count, bool row, const std::string& per_what) {
  if (!Has(in, i)) return Per::kAbsent;
  const Shape& s = in[i].shape;
  const uint64_t n = Elements(s);
  if (n == 1) return Per::kTensor;
  const size_t r = s.size();
  const bool tail = r == 1 || (row ? s[r - 1] == 1 && s[r - 2] == count : s[r - 1] == count);
  if (count >= 0 && n == static_cast<uint64_t>(count) && tail) return Per::kAxis;
  return NodeUnsupported(node, InputWhat(i, name) + " of shape " + FormatShape(s) +
                                   " is not supported: give one value" +
                                   (per_what.empty() ? "" : " or " + per_what));
}

// Scale input i: float32, finite and non-zero when constant.
Status CheckScale(const ir::Node& node, const std::vector<InputInfo>& in, size_t i, const char* name) {
  MLF_ASSIGN_OR_RETURN(const InputInfo* s, RequiredInput(node, in, i, name));
  MLF_RETURN_IF_ERROR(CheckDType(node, s->dtype, {DType::kFloat32}, InputWhat(i, name)));
  return quant::CheckConstantScale(node, *s, InputWhat(i, name));
}

// Zero point input i (optional) of the tensor input t: the same dtype.
Status CheckZeroPoint(const ir::Node& node, const std::vector<InputInfo>& in, size_t i, const char* name,
                      size_t t, const char* t_name) {
  if (!Has(in, i) || in[i].dtype == in[t].dtype) return Status::Ok();
  return NodeError(node, InputWhat(i, name) + " has dtype " + DTypeName(in[i].dtype) + ", but " +
                             InputWhat(t, t_name) + " is " + DTypeName(in[t].dtype));
}

// Where each operator keeps its inputs; -1: it has none.
struct Slots {
  int x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias;
  bool quantized_output() const { return y_scale >= 0; }
};
constexpr Slots kMatMulInteger = {0, -1, 2, 1, -1, 3, -1, -1, -1};
constexpr Slots kQLinearMatMul = {0, 1, 2, 3, 4, 5, 6, 7, -1};
constexpr Slots kConvInteger = {0, -1, 2, 1, -1, 3, -1, -1, -1};
constexpr Slots kQLinearConv = {0, 1, 2, 3, 4, 5, 6, 7, 8};

const Slots& SlotsOf(const std::string& op) {
  if (op == "MatMulInteger") return kMatMulInteger;
  if (op == "QLinearMatMul") return kQLinearMatMul;
  if (op == "ConvInteger") return kConvInteger;
  return kQLinearConv;
}

// The names ONNX gives the inputs.
struct Names {
  const char *x, *x_scale, *x_zp, *w, *w_scale, *w_zp, *y_scale, *y_zp;
};
constexpr Names kMatMulNames = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale",
                                "y_zero_point"};
constexpr Names kConvNames = {"x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale",
                              "y_zero_point"};

// What both families share: dtypes and the layouts of the parameters.
struct QuantPlan {
  DType x = DType::kUInt8, w = DType::kUInt8, out = DType::kInt32;
  Per x_scale = Per::kAbsent, x_zp = Per::kAbsent, w_scale = Per::kAbsent, w_zp = Per::kAbsent;
  Per y_zp = Per::kAbsent;
};

// Arity, dtypes of the tensors, scales and zero points; the layouts of x's
// (per row `x_rows`) and w's (per column or output channel `w_cols`)
// parameters; y's per tensor.
Result<QuantPlan> PlanQuant(const ir::Node& node, const std::vector<InputInfo>& in, const Slots& s,
                            const Names& nm, int64_t x_rows, int64_t w_cols, const std::string& x_per,
                            const std::string& w_per) {
  QuantPlan p;
  const auto x = static_cast<size_t>(s.x), w = static_cast<size_t>(s.w);
  MLF_RETURN_IF_ERROR(CheckDType(node, in[x].dtype, kQuantDTypes, InputWhat(x, nm.x)));
  MLF_RETURN_IF_ERROR(CheckDType(node, in[w].dtype, kQuantDTypes, InputWhat(w, nm.w)));
  p.x = in[x].dtype;
  p.w = in[w].dtype;
  MLF_RETURN_IF_ERROR(CheckZeroPoint(node, in, static_cast<size_t>(s.x_zp), nm.x_zp, x, nm.x));
  MLF_RETURN_IF_ERROR(CheckZeroPoint(node, in, static_cast<size_t>(s.w_zp), nm.w_zp, w, nm.w));
  MLF_ASSIGN_OR_RETURN(p.x_zp, ParamLayout(node, in, static_cast<size_t>(s.x_zp), nm.x_zp, x_rows, true, x_per));
  MLF_ASSIGN_OR_RETURN(p.w_zp, ParamLayout(node, in, static_cast<size_t>(s.w_zp), nm.w_zp, w_cols, false, w_per));
  if (!s.quantized_output()) return p;
  MLF_RETURN_IF_ERROR(CheckScale(node, in, static_cast<size_t>(s.x_scale), nm.x_scale));
  MLF_RETURN_IF_ERROR(CheckScale(node, in, static_cast<size_t>(s.w_scale), nm.w_scale));
  MLF_RETURN_IF_ERROR(CheckScale(node, in, static_cast<size_t>(s.y_scale), nm.y_scale));
  MLF_ASSIGN_OR_RETURN(const InputInfo* y_zp, RequiredInput(node, in, static_cast<size_t>(s.y_zp), nm.y_zp));
  MLF_RETURN_IF_ERROR(CheckDType(node, y_zp->dtype, kQuantDTypes, InputWhat(static_cast<size_t>(s.y_zp), nm.y_zp)));
  p.out = y_zp->dtype;
  MLF_ASSIGN_OR_RETURN(p.x_scale, ParamLayout(node, in, static_cast<size_t>(s.x_scale), nm.x_scale, x_rows, true, x_per));
  MLF_ASSIGN_OR_RETURN(p.w_scale, ParamLayout(node, in, static_cast<size_t>(s.w_scale), nm.w_scale, w_cols, false, w_per));
  // y's scale is read as one value: checked, not kept.
  MLF_RETURN_IF_ERROR(ParamLayout(node, in, static_cast<size_t>(s.y_scale), nm.y_scale, -1, true, "").status());
  MLF_ASSIGN_OR_RETURN(p.y_zp, ParamLayout(node, in, static_cast<size_t>(s.y_zp), nm.y_zp, -1, true, ""));
  return p;
}

// ---- Evaluate helpers ----

// Element `index` of an optional parameter laid out as `per` (0 when absent).
int64_t IntParam(const std::vector<const ir::HostTensor*>& inputs, int slot, Per per, int64_t index) {
  if (per == Per::kAbsent) return 0;
  return inputs[static_cast<size_t>(slot)]->GetInt(per == Per::kAxis ? static_cast<uint64_t>(index) : 0);
}
float FloatParam(const std::vector<const ir::HostTensor*>& inputs, int slot, Per per, int64_t index) {
  return inputs[static_cast<size_t>(slot)]->data<float>()[per == Per::kAxis ? index : 0];
}

// The output element from its accumulator: as is (int32) or requantized with
// the scales of row/channel `r` and column/channel `c`.
void Store(const std::vector<const ir::HostTensor*>& inputs, const Slots& s, const QuantPlan& p, int32_t acc,
           int64_t r, int64_t c, ir::HostTensor* y, uint64_t at) {
  if (!s.quantized_output()) {
    y->data<int32_t>()[at] = acc;
    return;
  }
  const double m = quant::Multiplier(FloatParam(inputs, s.x_scale, p.x_scale, r),
                                     FloatParam(inputs, s.w_scale, p.w_scale, c),
                                     FloatParam(inputs, s.y_scale, Per::kTensor, 0));
  const int64_t zp = IntParam(inputs, s.y_zp, p.y_zp, 0);
  y->SetDouble(at, static_cast<double>(quant::Requantize(acc, m, zp, quant::RangeOf(p.out))));
}

// ---- Emit helpers ----

// The C expression of a parameter at `index` ("0" when absent).
std::string ParamExpr(int slot, Per per, const std::string& index) {
  if (per == Per::kAbsent) return "0";
  return EmitContext::In(static_cast<size_t>(slot)) + "[" + (per == Per::kAxis ? index : "0") + "]";
}

// Statements storing accumulator `acc` (uint32_t) into `dst`: as int32, or
// requantized with the scales of row/channel `r` and column/channel `c`.
std::string EmitStore(const Slots& s, const QuantPlan& p, const std::string& indent, const std::string& dst,
                      const std::string& acc, const std::string& r, const std::string& c) {
  if (!s.quantized_output()) return indent + dst + " = (int32_t)" + acc + ";\n";
  const std::string m = quant::EmitMultiplier(ParamExpr(s.x_scale, p.x_scale, r), ParamExpr(s.w_scale, p.w_scale, c),
                                              ParamExpr(s.y_scale, Per::kTensor, "0"));
  return quant::EmitSaturateRound(indent, dst, CType(p.out), "(double)(int32_t)" + acc + " * (" + m + ")",
                                  ParamExpr(s.y_zp, p.y_zp, "0"), quant::RangeOf(p.out));
}

// ================= MatMulInteger, QLinearMatMul =================

struct MatMulPlan {
  QuantPlan q;
  int64_t m = 1, k = 0, n = 1;
  Shape out;
  // Per output matrix: the index of A's and of B's matrix (numpy broadcasting
  // of the batch axes).
  std::vector<int64_t> a_batch, b_batch;
};

Result<MatMulPlan> PlanMatMul(const ir::Node& node, const std::vector<InputInfo>& in) {
  const Slots& s = SlotsOf(node.op);
  MLF_RETURN_IF_ERROR(s.quantized_output() ? CheckArity(node, 8, 8) : CheckArity(node, 2, 4));
  MLF_RETURN_IF_ERROR(CheckPresent(node, static_cast<size_t>(s.w), kMatMulNames.w));
  Shape a = in[static_cast<size_t>(s.x)].shape, b = in[static_cast<size_t>(s.w)].shape;
  if (a.empty() || b.empty()) {
    return NodeError(node, "inputs a " + FormatShape(a) + " and b " + FormatShape(b) + " must have rank >= 1");
  }
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), 1);
  if (b_vector) b.push_back(1);
  MatMulPlan p;
  p.m = a[a.size() - 2];
  p.k = a.back();
  p.n = b.back();
  if (b[b.size() - 2] != p.k) {
    return NodeError(node, "inner dimensions of a " + FormatShape(in[static_cast<size_t>(s.x)].shape) +
                               " and b " + FormatShape(in[static_cast<size_t>(s.w)].shape) + " differ");
  }
  const Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  Shape batch(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + ab.size() >= rank ? ab[i + ab.size() - rank] : 1;
    const int64_t db = i + bb.size() >= rank ? bb[i + bb.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) {
      return NodeError(node, "batch dimensions of a " + FormatShape(in[static_cast<size_t>(s.x)].shape) +
                                 " and b " + FormatShape(in[static_cast<size_t>(s.w)].shape) + " do not broadcast");
    }
    batch[i] = da == 1 ? db : da;
  }
  const uint64_t count = Elements(batch);
  for (uint64_t f = 0; f < count; ++f) {
    const Shape idx = Unravel(f, batch);
    int64_t ia = 0, ib = 0;
    for (size_t i = 0; i < rank; ++i) {
      if (i + ab.size() >= rank) {
        const int64_t d = ab[i + ab.size() - rank];
        ia = ia * d + (d == 1 ? 0 : idx[i]);
      }
      if (i + bb.size() >= rank) {
        const int64_t d = bb[i + bb.size() - rank];
        ib = ib * d + (d == 1 ? 0 : idx[i]);
      }
    }
    p.a_batch.push_back(ia);
    p.b_batch.push_back(ib);
  }
  p.out = batch;
  if (!a_vector) p.out.push_back(p.m);
  if (!b_vector) p.out.push_back(p.n);
  MLF_ASSIGN_OR_RETURN(p.q, PlanQuant(node, in, s, kMatMulNames, p.m, p.n, "one per row of a (" + Num(p.m) + ")",
                                      "one per column of b (" + Num(p.n) + ")"));
  return p;
}

Status MatMulInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(MatMulPlan p, PlanMatMul(node, in));
  MLF_RETURN_IF_ERROR(CheckIndexable(node, graph));
  SetOutput(node, graph, 0, p.q.out, p.out);
  return Status::Ok();
}

Status MatMulEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(MatMulPlan p, PlanMatMul(node, TensorInputs(inputs)));
  const Slots& s = SlotsOf(node.op);
  const ir::HostTensor& a = *inputs[static_cast<size_t>(s.x)];
  const ir::HostTensor& b = *inputs[static_cast<size_t>(s.w)];
  ir::HostTensor y = ir::HostTensor::Zeros(p.q.out, p.out);
  for (size_t bi = 0; bi < p.a_batch.size(); ++bi) {
    for (int64_t m = 0; m < p.m; ++m) {
      for (int64_t n = 0; n < p.n; ++n) {
        int32_t acc = 0;
        for (int64_t k = 0; k < p.k; ++k) {
          const int64_t av = a.GetInt(static_cast<uint64_t>((p.a_batch[bi] * p.m + m) * p.k + k)) -
                             IntParam(inputs, s.x_zp, p.q.x_zp, m);
          const int64_t bv = b.GetInt(static_cast<uint64_t>((p.b_batch[bi] * p.k + k) * p.n + n)) -
                             IntParam(inputs, s.w_zp, p.q.w_zp, n);
          acc = quant::AccumulateWrapping(acc, av, bv);
        }
        Store(inputs, s, p.q, acc, m, n, &y, static_cast<uint64_t>((static_cast<int64_t>(bi) * p.m + m) * p.n + n));
      }
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// Per output matrix (rows m, columns n): acc[0..n) in scratch is cleared,
// then each row of b adds (a[m][k] - a_zp) times it, contiguously; then the
// row is stored.
Status MatMulEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(MatMulPlan p, PlanMatMul(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const Slots& s = SlotsOf(ctx.node.op);
  const int64_t batches = static_cast<int64_t>(p.a_batch.size());
  if (batches * p.m * p.n == 0) {
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  const std::string a = EmitContext::In(static_cast<size_t>(s.x)), b = EmitContext::In(static_cast<size_t>(s.w));
  CodeWriter c(1);
  c.Line("uint32_t* restrict acc = (uint32_t*)scratch;");
  if (batches > 1) {
    *body += StaticTable("  ", IndexType(*std::max_element(p.a_batch.begin(), p.a_batch.end())), "a_batch", p.a_batch);
    *body += StaticTable("  ", IndexType(*std::max_element(p.b_batch.begin(), p.b_batch.end())), "b_batch", p.b_batch);
  }
  c.Open("for (size_t bi = 0; bi < " + Num(batches) + "; ++bi) {");
  const std::string ab = batches > 1 ? "(size_t)a_batch[bi]" : "0";
  const std::string bb = batches > 1 ? "(size_t)b_batch[bi]" : "0";
  if (p.k > 0) {  // with k == 0 every product is empty: only the stores remain
    c.Line("const " + std::string(CType(p.q.x)) + "* a = " + a + " + " + ab + " * " + Num(p.m * p.k) + ";");
    c.Line("const " + std::string(CType(p.q.w)) + "* b = " + b + " + " + bb + " * " + Num(p.k * p.n) + ";");
  }
  c.Line(std::string(CType(p.q.out)) + "* y = out0 + bi * " + Num(p.m * p.n) + ";");
  c.Open("for (size_t m = 0; m < " + Num(p.m) + "; ++m) {");
  c.Line("for (size_t n = 0; n < " + Num(p.n) + "; ++n) acc[n] = 0u;");
  if (p.k > 0) {
    c.Line("const int32_t a_zp = (int32_t)" + ParamExpr(s.x_zp, p.q.x_zp, "m") + ";");
    c.Open("for (size_t k = 0; k < " + Num(p.k) + "; ++k) {");
    c.Line("const int32_t av = (int32_t)a[m * " + Num(p.k) + " + k] - a_zp;");
    c.Line("const " + std::string(CType(p.q.w)) + "* row = b + k * " + Num(p.n) + ";");
    c.Open("for (size_t n = 0; n < " + Num(p.n) + "; ++n) {");
    c.Line("acc[n] += (uint32_t)(av * ((int32_t)row[n] - (int32_t)" + ParamExpr(s.w_zp, p.q.w_zp, "n") + "));");
    c.Close();
    c.Close();
  }
  c.Open("for (size_t n = 0; n < " + Num(p.n) + "; ++n) {");
  std::string store = EmitStore(s, p.q, "", "y[m * " + Num(p.n) + " + n]", "acc[n]", "m", "n");
  for (size_t start = 0; start < store.size();) {  // one Line per line, for the indent
    const size_t end = store.find('\n', start);
    c.Line(store.substr(start, end - start));
    start = end + 1;
  }
  c.Close();
  c.Close();
  c.Close();
  *body += c.str();
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

uint64_t MatMulMacs(const ir::Node& node, const ir::Graph& graph) {
  Result<MatMulPlan> p = PlanMatMul(node, GraphInputs(node, graph));
  if (!p.ok()) return 0;
  return static_cast<uint64_t>(p->a_batch.size()) * static_cast<uint64_t>(p->m * p->k * p->n);
}

uint64_t MatMulScratch(const ir::Node& node, const ir::Graph& graph) {
  Result<MatMulPlan> p = PlanMatMul(node, GraphInputs(node, graph));
  if (!p.ok() || p->a_batch.empty() || p->m * p->n == 0) return 0;
  return static_cast<uint64_t>(p->n) * 4;
}

// ================= ConvInteger, QLinearConv =================

struct ConvPlan {
  QuantPlan q;
  int64_t batch = 1, c = 1, m = 1, group = 1, cg = 1, mg = 1;
  Window win;
  Shape out;
  bool bias = false;
};

Result<ConvPlan> PlanConv(const ir::Node& node, const std::vector<InputInfo>& in) {
  const Slots& s = SlotsOf(node.op);
  MLF_RETURN_IF_ERROR(s.quantized_output() ? CheckArity(node, 8, 9) : CheckArity(node, 2, 4));
  MLF_RETURN_IF_ERROR(CheckPresent(node, static_cast<size_t>(s.w), kConvNames.w));
  const Shape& x = in[static_cast<size_t>(s.x)].shape;
  const Shape& w = in[static_cast<size_t>(s.w)].shape;
  if (x.size() < 3) {
    return NodeError(node, "input 0 (x) " + FormatShape(x) + " must have rank >= 3 (N, C and at least one spatial axis)");
  }
  if (w.size() != x.size()) {
    return NodeError(node, InputWhat(static_cast<size_t>(s.w), "w") + " " + FormatShape(w) +
                               " must have the rank of input 0 (x) " + FormatShape(x));
  }
  ConvPlan p;
  MLF_ASSIGN_OR_RETURN(p.group, node.Int("group", 1));
  p.batch = x[0];
  p.c = x[1];
  p.m = w[0];
  if (p.group < 1 || p.c % p.group != 0 || p.m % p.group != 0 || p.m == 0) {
    return NodeError(node, "group " + Num(p.group) + " must divide the input channels (" + Num(p.c) +
                               ") and the output channels (" + Num(p.m) + ", at least 1)");
  }
  p.cg = p.c / p.group;
  p.mg = p.m / p.group;
  if (w[1] != p.cg) {
    return NodeError(node, InputWhat(static_cast<size_t>(s.w), "w") + " " + FormatShape(w) + " must have " +
                               Num(p.cg) + " input channels per group (x has " + Num(p.c) + ", group " +
                               Num(p.group) + ")");
  }
  MLF_ASSIGN_OR_RETURN(p.win, ForwardWindow(node, Shape(x.begin() + 2, x.end()), Shape(w.begin() + 2, w.end()),
                                            WindowKind::kConv));
  p.out = {p.batch, p.m};
  p.out.insert(p.out.end(), p.win.out.begin(), p.win.out.end());
  MLF_ASSIGN_OR_RETURN(p.q, PlanQuant(node, in, s, kConvNames, 1, p.m, "",
                                      "one per output channel (" + Num(p.m) + ")"));
  if (s.bias >= 0 && Has(in, static_cast<size_t>(s.bias))) {
    const InputInfo& b = in[static_cast<size_t>(s.bias)];
    MLF_RETURN_IF_ERROR(CheckDType(node, b.dtype, {DType::kInt32}, "input 8 (B)"));
    if (b.shape != Shape{p.m}) {
      return NodeError(node, "input 8 (B) " + FormatShape(b.shape) + " must have shape [" + Num(p.m) + "]");
    }
    p.bias = true;
  }
  return p;
}

Status ConvInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(ConvPlan p, PlanConv(node, in));
  MLF_RETURN_IF_ERROR(CheckIndexable(node, graph));
  SetOutput(node, graph, 0, p.q.out, p.out);
  return Status::Ok();
}

Status ConvEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ConvPlan p, PlanConv(node, TensorInputs(inputs)));
  const Slots& s = SlotsOf(node.op);
  const ir::HostTensor& x = *inputs[static_cast<size_t>(s.x)];
  const ir::HostTensor& w = *inputs[static_cast<size_t>(s.w)];
  const Window& win = p.win;
  const size_t rank = win.rank();
  const std::vector<int64_t> x_strides = Strides(x.shape), w_strides = Strides(w.shape);
  ir::HostTensor y = ir::HostTensor::Zeros(p.q.out, p.out);
  const int64_t taps = win.KernelElements();
  for (uint64_t f = 0; f < y.element_count(); ++f) {
    const Shape o = Unravel(f, p.out);  // n, m, spatial...
    const int64_t n = o[0], m = o[1], g = m / p.mg;
    int32_t acc = p.bias ? static_cast<int32_t>(inputs[static_cast<size_t>(s.bias)]->GetInt(static_cast<uint64_t>(m))) : 0;
    const int64_t x_zp = IntParam(inputs, s.x_zp, p.q.x_zp, 0), w_zp = IntParam(inputs, s.w_zp, p.q.w_zp, m);
    for (int64_t c = 0; c < p.cg; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        const Shape k = Unravel(static_cast<uint64_t>(t), win.kernel);
        int64_t xi = n * x_strides[0] + (g * p.cg + c) * x_strides[1];
        int64_t wi = m * w_strides[0] + c * w_strides[1];
        bool inside = true;
        for (size_t a = 0; a < rank; ++a) {
          const int64_t i = o[a + 2] * win.strides[a] - win.pad_begin[a] + k[a] * win.dilations[a];
          inside = inside && i >= 0 && i < win.in[a];
          xi += i * x_strides[a + 2];
          wi += k[a] * w_strides[a + 2];
        }
        if (!inside) continue;  // padding: x's zero point, which adds 0
        acc = quant::AccumulateWrapping(acc, x.GetInt(static_cast<uint64_t>(xi)) - x_zp,
                                        w.GetInt(static_cast<uint64_t>(wi)) - w_zp);
      }
    }
    Store(inputs, s, p.q, acc, 0, m, &y, f);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// Direct convolution: per output element, the taps inside the input
// (bounds tested per tap: the reference form, not a fast one).
Status ConvEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ConvPlan p, PlanConv(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const Slots& s = SlotsOf(ctx.node.op);
  if (Elements(p.out) == 0) {
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  const Window& win = p.win;
  const size_t rank = win.rank();
  const std::string x = EmitContext::In(static_cast<size_t>(s.x)), w = EmitContext::In(static_cast<size_t>(s.w));
  const std::vector<int64_t> xs = Strides(ctx.input(static_cast<size_t>(s.x)).shape);
  const std::vector<int64_t> ws = Strides(ctx.input(static_cast<size_t>(s.w)).shape);
  CodeWriter c(1);
  c.Line(std::string(CType(p.q.out)) + "* y = out0;");
  c.Line("const int32_t x_zp = (int32_t)" + ParamExpr(s.x_zp, p.q.x_zp, "0") + ";");
  c.Open("for (int n = 0; n < " + Num(p.batch) + "; ++n) {");
  c.Open("for (int m = 0; m < " + Num(p.m) + "; ++m) {");
  c.Line("const int g = m / " + Num(p.mg) + ";");
  c.Line("const int32_t w_zp = (int32_t)" + ParamExpr(s.w_zp, p.q.w_zp, "m") + ";");
  c.Line(std::string("const uint32_t bias = ") +
         (p.bias ? "(uint32_t)" + EmitContext::In(static_cast<size_t>(s.bias)) + "[m]" : "0u") + ";");
  for (size_t a = 0; a < rank; ++a) {
    c.Open("for (int o" + Num(static_cast<int64_t>(a)) + " = 0; o" + Num(static_cast<int64_t>(a)) + " < " +
           Num(win.out[a]) + "; ++o" + Num(static_cast<int64_t>(a)) + ") {");
  }
  c.Line("uint32_t acc = bias;");
  c.Open("for (int c = 0; c < " + Num(p.cg) + "; ++c) {");
  c.Line("const " + std::string(CType(p.q.x)) + "* xp = " + x + " + (size_t)n * " + Num(xs[0]) + " + (size_t)(g * " +
         Num(p.cg) + " + c) * " + Num(xs[1]) + ";");
  c.Line("const " + std::string(CType(p.q.w)) + "* wp = " + w + " + (size_t)m * " + Num(ws[0]) + " + (size_t)c * " +
         Num(ws[1]) + ";");
  std::string xi = "0", wi = "0";
  for (size_t a = 0; a < rank; ++a) {
    const std::string A = Num(static_cast<int64_t>(a));
    c.Open("for (int k" + A + " = 0; k" + A + " < " + Num(win.kernel[a]) + "; ++k" + A + ") {");
    c.Line("const int i" + A + " = o" + A + " * " + Num(win.strides[a]) + " - " + Num(win.pad_begin[a]) + " + k" + A +
           " * " + Num(win.dilations[a]) + ";");
    c.Line("if (i" + A + " < 0 || i" + A + " >= " + Num(win.in[a]) + ") continue; /* padding adds 0 */");
    xi += " + i" + A + " * " + Num(xs[a + 2]);
    wi += " + k" + A + " * " + Num(ws[a + 2]);
  }
  c.Line("acc += (uint32_t)(((int32_t)xp[" + xi + "] - x_zp) * ((int32_t)wp[" + wi + "] - w_zp));");
  for (size_t a = 0; a < rank; ++a) c.Close();
  c.Close();  // c
  std::string store = EmitStore(s, p.q, "", "*y", "acc", "0", "m");
  for (size_t start = 0; start < store.size();) {
    const size_t end = store.find('\n', start);
    c.Line(store.substr(start, end - start));
    start = end + 1;
  }
  c.Line("++y;");
  for (size_t a = 0; a < rank; ++a) c.Close();
  c.Close();  // m
  c.Close();  // n
  *body += c.str();
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

uint64_t ConvMacs(const ir::Node& node, const ir::Graph& graph) {
  Result<ConvPlan> p = PlanConv(node, GraphInputs(node, graph));
  if (!p.ok()) return 0;
  return Elements(p->out) * static_cast<uint64_t>(p->cg * p->win.KernelElements());
}

}  // namespace

void RegisterQLinearOps(std::vector<OpDef>* table) {
  table->push_back({"MatMulInteger", MatMulInfer, MatMulEvaluate, MatMulEmit, MatMulMacs, MatMulScratch});
  table->push_back({"QLinearMatMul", MatMulInfer, MatMulEvaluate, MatMulEmit, MatMulMacs, MatMulScratch});
  table->push_back({"ConvInteger", ConvInfer, ConvEvaluate, ConvEmit, ConvMacs});
  table->push_back({"QLinearConv", ConvInfer, ConvEvaluate, ConvEmit, ConvMacs});
}

}  // namespace mlf::ops
