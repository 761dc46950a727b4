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
// A 2-D convolution of one group with a constant int8 weight (zero point 0)
// runs through the kernel layer's gemm_s8 (PlanConvKernel); everything else
// is emitted as the reference loops. The lowering pass of issue 14
// (codegen/passes/qdq_lowering.h) turns QDQ Convs into QLinearConv with
// quant::kFixedPointAttr and quant::kClampAttr, which both paths honour.
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
  // The output's integers: the dtype's range, narrowed by quant::kClampAttr.
  quant::QRange clamp;
  // With quant::kFixedPointAttr: the fixed-point multipliers, one per
  // channel of w (its scale per axis) or one; empty: the double rule.
  std::vector<quant::FixedMultiplier> fixed;
};

// The fixed-point multipliers of a node with quant::kFixedPointAttr.
Result<std::vector<quant::FixedMultiplier>> FixedMultipliers(const ir::Node& node, const std::vector<InputInfo>& in,
                                                             const Slots& s, const QuantPlan& p) {
  const InputInfo &xs = in[static_cast<size_t>(s.x_scale)], &ws = in[static_cast<size_t>(s.w_scale)],
                  &ys = in[static_cast<size_t>(s.y_scale)];
  if (xs.data == nullptr || ws.data == nullptr || ys.data == nullptr || p.x_scale != Per::kTensor) {
    return NodeError(node, std::string(quant::kFixedPointAttr) + " needs constant scales, x's per tensor");
  }
  std::vector<quant::FixedMultiplier> out;
  for (uint64_t c = 0; c < ws.data->element_count(); ++c) {
    out.push_back(quant::QuantizeMultiplier(quant::RequantScale(
        xs.data->data<float>()[0], ws.data->data<float>()[c], ys.data->data<float>()[0])));
  }
  return out;
}

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
  p.clamp = quant::RangeOf(p.out);
  if (node.HasAttr(quant::kClampAttr)) {
    MLF_ASSIGN_OR_RETURN(std::vector<int64_t> c, node.Ints(quant::kClampAttr, {}));
    if (c.size() != 2 || c[0] > c[1]) return NodeError(node, std::string(quant::kClampAttr) + " must be [lo, hi]");
    p.clamp.min = std::max(p.clamp.min, c[0]);
    p.clamp.max = std::min(p.clamp.max, c[1]);
  }
  MLF_ASSIGN_OR_RETURN(const int64_t fixed, node.Int(quant::kFixedPointAttr, 0));
  if (fixed != 0) {
    MLF_ASSIGN_OR_RETURN(p.fixed, FixedMultipliers(node, in, s, p));
  }
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
  const int64_t zp = IntParam(inputs, s.y_zp, p.y_zp, 0);
  if (!p.fixed.empty()) {
    const quant::FixedMultiplier f = p.fixed[p.fixed.size() > 1 ? static_cast<size_t>(c) : 0];
    y->SetDouble(at, static_cast<double>(quant::RequantizeFixed(acc, f, zp, p.clamp)));
    return;
  }
  const double m = quant::Multiplier(FloatParam(inputs, s.x_scale, p.x_scale, r),
                                     FloatParam(inputs, s.w_scale, p.w_scale, c),
                                     FloatParam(inputs, s.y_scale, Per::kTensor, 0));
  y->SetDouble(at, static_cast<double>(quant::Requantize(acc, m, zp, p.clamp)));
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
  if (!p.fixed.empty()) {  // the tables of FixedTables, gemm_s8's fixmul
    const std::string i = p.fixed.size() > 1 ? c : "0";
    const std::string lo = Num(p.clamp.min), hi = Num(p.clamp.max);
    return indent + "{\n" + indent + "  const int64_t q_ = (int64_t)mlfk_s8_fixmul((int32_t)" + acc + ", fx_mult[" +
           i + "], fx_shift[" + i + "]) + (int64_t)(" + ParamExpr(s.y_zp, p.y_zp, "0") + ");\n" + indent + "  " +
           dst + " = (" + CType(p.out) + ")(q_ < " + lo + " ? " + lo + " : (q_ > " + hi + " ? " + hi + " : q_));\n" +
           indent + "}\n";
  }
  const std::string m = quant::EmitMultiplier(ParamExpr(s.x_scale, p.x_scale, r), ParamExpr(s.w_scale, p.w_scale, c),
                                              ParamExpr(s.y_scale, Per::kTensor, "0"));
  return quant::EmitSaturateRound(indent, dst, CType(p.out), "(double)(int32_t)" + acc + " * (" + m + ")",
                                  ParamExpr(s.y_zp, p.y_zp, "0"), p.clamp);
}

// The fixed-point multipliers as static tables fx_mult, fx_shift (`count`
// entries: one per channel, a per-tensor multiplier repeated).
std::string FixedTables(const QuantPlan& p, size_t count) {
  std::vector<int64_t> mult, shift;
  for (size_t i = 0; i < count; ++i) {
    const quant::FixedMultiplier f = p.fixed[p.fixed.size() > 1 ? i : 0];
    mult.push_back(f.multiplier);
    shift.push_back(f.shift);
  }
  return StaticTable("  ", "int32_t", "fx_mult", mult) + StaticTable("  ", "int32_t", "fx_shift", shift);
}

// A reference body that requantizes with the fixed-point rule calls
// gemm_s8's mlfk_s8_fixmul (and so gets the `ex` parameter it leaves unused).
void UseFixedPoint(const EmitContext& ctx, const QuantPlan& p, size_t count, std::string* body) {
  if (p.fixed.empty()) return;
  ctx.UseKernel("gemm_s8");
  *body += FixedTables(p, count);
  if (ctx.kernels != nullptr) *body += "  (void)" + std::string(EmitContext::kExec) + ";\n";
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
  UseFixedPoint(ctx, p.q, static_cast<size_t>(p.n), body);
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

// ---- Through the kernel layer (gemm_s8's convolution) ----
//
// A 2-D convolution of one group (gemm_s8) or depthwise (depthwise_s8)
// whose int8 weight is a constant with zero point 0 (absent or all zeros), whose x and y zero points and bias are
// constants, and, for QLinearConv, which requantizes with the fixed-point
// rule (quant::kFixedPointAttr): the zero-point terms fold into the bias
// here, at export. Everything else keeps the reference code below.
struct ConvKernel {
  bool use = false;
  bool depthwise = false;  // depthwise_s8: one input and output channel per group, bias not folded
  bool x_signed = false;
  int64_t zx_u = 0, zy = 0, k = 0;
  std::vector<int64_t> bias;  // B - zx_u * sum_k w, wrapped to int32
};

int64_t ConstInt(const std::vector<InputInfo>& in, int slot, uint64_t i) {
  if (slot < 0 || !Has(in, static_cast<size_t>(slot))) return 0;
  return in[static_cast<size_t>(slot)].data->GetInt(i);
}

bool ConstantOrAbsent(const std::vector<InputInfo>& in, int slot) {
  return slot < 0 || !Has(in, static_cast<size_t>(slot)) || in[static_cast<size_t>(slot)].data != nullptr;
}

ConvKernel PlanConvKernel(const ConvPlan& p, const std::vector<InputInfo>& in, const Slots& s) {
  ConvKernel k;
  const InputInfo& w = in[static_cast<size_t>(s.w)];
  const bool depthwise = p.group > 1 && p.cg == 1 && p.mg == 1;
  if (p.win.rank() != 2 || (p.group != 1 && !depthwise) || w.data == nullptr || p.q.w != DType::kInt8) return k;
  if (s.quantized_output() && p.q.fixed.empty()) return k;
  if (!ConstantOrAbsent(in, s.x_zp) || !ConstantOrAbsent(in, s.w_zp) || !ConstantOrAbsent(in, s.y_zp) ||
      !ConstantOrAbsent(in, s.bias)) {
    return k;
  }
  if (p.q.w_zp != Per::kAbsent) {
    const ir::HostTensor& wz = *in[static_cast<size_t>(s.w_zp)].data;
    for (uint64_t i = 0; i < wz.element_count(); ++i) {
      if (wz.GetInt(i) != 0) return k;
    }
  }
  k.k = p.cg * p.win.KernelElements();
  const uint64_t fits = uint64_t{1} << 30;
  if (Elements(p.out) >= fits || Elements(in[static_cast<size_t>(s.x)].shape) >= fits ||
      static_cast<uint64_t>(k.k) * static_cast<uint64_t>(std::max<int64_t>(p.batch, 256)) >= fits) {
    return k;
  }
  k.x_signed = p.q.x == DType::kInt8;
  k.zy = ConstInt(in, s.y_zp, 0);
  k.use = true;
  if (depthwise) {  // the kernel subtracts x's zero point itself (taps differ at the borders)
    k.depthwise = true;
    k.zx_u = ConstInt(in, s.x_zp, 0);
    for (int64_t m = 0; m < p.m; ++m) {
      k.bias.push_back(p.bias ? ConstInt(in, s.bias, static_cast<uint64_t>(m)) : 0);
    }
    return k;
  }
  k.zx_u = ConstInt(in, s.x_zp, 0) + (k.x_signed ? 128 : 0);
  for (int64_t m = 0; m < p.m; ++m) {
    uint32_t b = p.bias ? static_cast<uint32_t>(ConstInt(in, s.bias, static_cast<uint64_t>(m))) : 0u;
    for (int64_t i = 0; i < k.k; ++i) {
      b -= static_cast<uint32_t>(k.zx_u * w.data->GetInt(static_cast<uint64_t>(m * k.k + i)));
    }
    k.bias.push_back(static_cast<int32_t>(b));
  }
  k.use = true;
  return k;
}

uint64_t ConvKernelScratch(const ConvPlan& p, const ConvKernel& k) {
  if (k.depthwise) return 0;
  const uint64_t pixels = Elements(p.win.out);
  if (Elements(p.win.in) == 1 && pixels == 1 && p.win.KernelElements() == 1) {  // the GEMM over images
    return static_cast<uint64_t>(p.batch) * static_cast<uint64_t>((k.k + 3) / 4) * 4;
  }
  return std::min<uint64_t>(pixels, 256) * static_cast<uint64_t>((k.k + 3) / 4) * 4;
}

Status EmitConvKernel(const EmitContext& ctx, const ConvPlan& p, const ConvKernel& k, std::string* body) {
  const Slots& s = SlotsOf(ctx.node.op);
  const Window& win = p.win;
  ctx.UseKernel(k.depthwise ? "depthwise_s8" : "gemm_s8");
  *body += StaticTable("  ", "int32_t", "k_bias", k.bias);
  if (!p.q.fixed.empty()) *body += FixedTables(p.q, static_cast<size_t>(p.m));
  CodeWriter c(1);
  c.Line("mlfk_gemm_s8_args a;");
  c.Line("a.m = " + Num(p.m) + ";");
  c.Line("a.k = " + Num(k.k) + ";");
  c.Line("a.w = (const int8_t*)" + EmitContext::In(static_cast<size_t>(s.w)) + ";");
  c.Line("a.ldw = " + Num(k.k) + ";");
  c.Line("a.bias = k_bias;");
  c.Line(p.q.fixed.empty() ? "a.mult = NULL;" : "a.mult = fx_mult;");
  c.Line(p.q.fixed.empty() ? "a.shift = NULL;" : "a.shift = fx_shift;");
  c.Line("a.zy = " + Num(k.zy) + ";");
  c.Line("a.lo = " + Num(p.q.clamp.min) + ";");
  c.Line("a.hi = " + Num(p.q.clamp.max) + ";");
  c.Line("a.out = out0;");
  const std::vector<int64_t> geom = {k.depthwise ? p.c : p.cg,           win.in[0],      win.in[1],        win.kernel[0],
                                     win.kernel[1],  win.strides[0], win.strides[1],   win.pad_begin[0],
                                     win.pad_begin[1], win.dilations[0], win.dilations[1], win.out[0],
                                     win.out[1]};
  if (!k.depthwise && Elements(win.in) == 1 && Elements(win.out) == 1 && win.KernelElements() == 1) {
    // One pixel per image (a Gemm lowered to a 1x1 convolution): the images
    // are the GEMM's columns, each image's channels one contiguous row.
    c.Line("a.ors = 1;");
    c.Line("a.ocs = " + Num(p.m) + ";");
    c.Line("mlfk_gemm_s8_exec(" + std::string(EmitContext::kExec) + ", &a, " +
           EmitContext::In(static_cast<size_t>(s.x)) + ", " + Num(k.k) + ", " + (k.x_signed ? "1" : "0") + ", " +
           Num(p.batch) + ", scratch);");
    *body += c.str();
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  c.Line("a.ors = 0; /* set per image by the kernel */");
  c.Line("a.ocs = 0;");
  c.Line("mlfk_conv_s8_geom g;");
  const char* fields[] = {"c", "h", "w", "kh", "kw", "sh", "sw", "ph", "pw", "dh", "dw", "oh", "ow"};
  for (size_t i = 0; i < geom.size(); ++i) c.Line("g." + std::string(fields[i]) + " = " + Num(geom[i]) + ";");
  if (k.depthwise) {
    c.Line("mlfk_depthwise_s8_exec(" + std::string(EmitContext::kExec) + ", &g, &a, " +
           EmitContext::In(static_cast<size_t>(s.x)) + ", " + (k.x_signed ? "1" : "0") + ", " + Num(k.zx_u) + ", " +
           Num(p.batch) + ");");
  } else {
    c.Line("mlfk_conv_s8_exec(" + std::string(EmitContext::kExec) + ", &g, &a, " +
           EmitContext::In(static_cast<size_t>(s.x)) + ", " + (k.x_signed ? "1" : "0") + ", " + Num(k.zx_u) + ", " +
           Num(p.batch) + ", scratch);");
  }
  *body += c.str();
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

// Direct convolution: per output element, the taps inside the input
// (bounds tested per tap: the reference form, not a fast one).
Status ConvEmit(const EmitContext& ctx, std::string* body) {
  const std::vector<InputInfo> in = GraphInputs(ctx.node, ctx.graph);
  MLF_ASSIGN_OR_RETURN(ConvPlan p, PlanConv(ctx.node, in));
  const Slots& s = SlotsOf(ctx.node.op);
  if (Elements(p.out) == 0) {
    VoidUnusedParams(ctx, body);
    return Status::Ok();
  }
  const ConvKernel k = PlanConvKernel(p, in, s);
  if (k.use) return EmitConvKernel(ctx, p, k, body);
  UseFixedPoint(ctx, p.q, static_cast<size_t>(p.m), body);
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

uint64_t ConvScratch(const ir::Node& node, const ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  Result<ConvPlan> p = PlanConv(node, in);
  if (!p.ok() || Elements(p->out) == 0) return 0;
  const ConvKernel k = PlanConvKernel(*p, in, SlotsOf(node.op));
  return k.use ? ConvKernelScratch(*p, k) : 0;
}

}  // namespace

void RegisterQLinearOps(std::vector<OpDef>* table) {
  table->push_back({"MatMulInteger", MatMulInfer, MatMulEvaluate, MatMulEmit, MatMulMacs, MatMulScratch});
  table->push_back({"QLinearMatMul", MatMulInfer, MatMulEvaluate, MatMulEmit, MatMulMacs, MatMulScratch});
  table->push_back({"ConvInteger", ConvInfer, ConvEvaluate, ConvEmit, ConvMacs, ConvScratch});
  table->push_back({"QLinearConv", ConvInfer, ConvEvaluate, ConvEmit, ConvMacs, ConvScratch});
}

}  // namespace mlf::ops
