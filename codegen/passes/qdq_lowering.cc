#include "codegen/passes/qdq_lowering.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "codegen/ops/broadcast.h"
#include "codegen/ops/op.h"
#include "codegen/ops/requantize.h"

namespace mlf::passes {
namespace {

using ir::Graph;
using ir::HostTensor;
using ir::Node;
using Shape = std::vector<int64_t>;
namespace quant = ops::quant;

const HostTensor* ConstOf(const Graph& g, const Node& n, size_t i) {
  if (!n.HasInput(i)) return nullptr;
  const ir::Value& v = g.value(n.inputs[i]);
  return v.is_constant() ? &*v.constant : nullptr;
}

// The single node reading `id` when `id` is not a graph output, else -1.
int SoleConsumer(const Graph& g, int id) {
  if (g.IsOutput(id)) return -1;
  const std::vector<int> consumers = g.Consumers(id);
  return consumers.size() == 1 ? consumers[0] : -1;
}

bool IsQuantDType(DType d) { return d == DType::kInt8 || d == DType::kUInt8; }

// A DequantizeLinear or QuantizeLinear node with constant parameters.
struct QParams {
  int node = -1;
  int data = ir::kNoValue;        // input 0 (DQ: the integers; Q: the floats)
  int scale = ir::kNoValue;       // input 1
  int zero_point = ir::kNoValue;  // input 2, may be absent
  const HostTensor* s = nullptr;
  const HostTensor* zp = nullptr;
  DType dtype = DType::kUInt8;  // the integer side's dtype
  int64_t axis = 1;
  bool per_tensor() const { return s->element_count() == 1; }
  float scale_at(uint64_t i) const { return s->data<float>()[per_tensor() ? 0 : i]; }
  int64_t zp_at(uint64_t i) const {
    return zp == nullptr ? 0 : zp->GetInt(zp->element_count() == 1 ? 0 : i);
  }
};

std::optional<QParams> ParamsOf(const Graph& g, int index, const char* op) {
  if (index < 0) return std::nullopt;
  const Node& n = g.nodes[static_cast<size_t>(index)];
  if (n.op != op || !n.HasInput(0) || n.outputs.size() != 1) return std::nullopt;
  QParams p;
  p.node = index;
  p.data = n.inputs[0];
  p.scale = n.inputs[1 < n.inputs.size() ? 1 : 0];
  p.s = ConstOf(g, n, 1);
  if (p.s == nullptr || p.s->dtype != DType::kFloat32 || p.s->element_count() == 0) return std::nullopt;
  for (uint64_t i = 0; i < p.s->element_count(); ++i) {
    const float v = p.s->data<float>()[i];
    if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
  }
  if (n.HasInput(2)) {
    p.zero_point = n.inputs[2];
    p.zp = ConstOf(g, n, 2);
    if (p.zp == nullptr) return std::nullopt;
  }
  p.dtype = std::string(op) == "DequantizeLinear" ? g.value(p.data).dtype : g.value(n.outputs[0]).dtype;
  Result<int64_t> axis = n.Int("axis", 1);
  if (!axis.ok()) return std::nullopt;
  p.axis = *axis;
  return p;
}

std::optional<QParams> DequantizeOf(const Graph& g, int value) {
  return ParamsOf(g, g.Producer(value), "DequantizeLinear");
}

// The zero point's value id, made a constant 0 of `dtype` when absent.
int ZeroPointValue(Graph& g, const QParams& p, const std::string& base) {
  if (p.zero_point != ir::kNoValue) return p.zero_point;
  return g.AddConstant(g.UniqueName(base + ".zero_point"), HostTensor::Zeros(p.dtype, {}));
}

// The operator between the float result and its Q: Relu or a Clip with
// constant bounds, folded into the clamp [lo, hi] of the output integers.
struct Tail {
  int act = -1;  // node index, or -1
  QParams q;
  quant::QRange clamp;
};

std::optional<Tail> TailOf(const Graph& g, int value) {
  Tail t;
  int next = SoleConsumer(g, value);
  if (next < 0) return std::nullopt;
  const Node& n = g.nodes[static_cast<size_t>(next)];
  float lo = -INFINITY, hi = INFINITY;
  if (n.op == "Relu" || n.op == "Clip") {
    if (n.op == "Clip") {
      const HostTensor *a = ConstOf(g, n, 1), *b = ConstOf(g, n, 2);
      if ((n.HasInput(1) && (a == nullptr || a->dtype != DType::kFloat32)) ||
          (n.HasInput(2) && (b == nullptr || b->dtype != DType::kFloat32))) {
        return std::nullopt;
      }
      if (a != nullptr) lo = a->data<float>()[0];
      if (b != nullptr) hi = b->data<float>()[0];
    } else {
      lo = 0;
    }
    t.act = next;
    next = SoleConsumer(g, n.outputs[0]);
  }
  std::optional<QParams> q = ParamsOf(g, next, "QuantizeLinear");
  if (!q || !q->per_tensor() || !IsQuantDType(q->dtype)) return std::nullopt;
  t.q = *q;
  const quant::QRange range = quant::RangeOf(q->dtype);
  t.clamp = range;
  if (t.act >= 0) {
    t.clamp.min = std::max(range.min, quant::Quantize(lo, q->scale_at(0), q->zp_at(0), range));
    t.clamp.max = std::min(range.max, quant::Quantize(hi, q->scale_at(0), q->zp_at(0), range));
    if (t.clamp.min > t.clamp.max) return std::nullopt;
  }
  return t;
}

// The int32 bias of output channel c, from a DQ'd int32 constant or a float
// constant of `m` elements: at the accumulator's scale x_scale * w_scale[c]
// (as a float32 product, what quantizers compute), unchanged when the DQ's
// scale is exactly that, else rounded half to even and saturated.
std::optional<HostTensor> IntBias(const Graph& g, int value, const QParams& x, const QParams& w, int64_t m) {
  const HostTensor* f = g.value(value).is_constant() ? &*g.value(value).constant : nullptr;
  std::optional<QParams> dq;
  if (f == nullptr) {
    dq = DequantizeOf(g, value);
    if (!dq || g.value(dq->data).dtype != DType::kInt32 || !g.value(dq->data).is_constant()) return std::nullopt;
    f = &*g.value(dq->data).constant;
    if (dq->zp_at(0) != 0 || (!dq->per_tensor() && dq->s->element_count() != static_cast<uint64_t>(m))) {
      return std::nullopt;
    }
  } else if (f->dtype != DType::kFloat32) {
    return std::nullopt;
  }
  if (f->element_count() != static_cast<uint64_t>(m)) return std::nullopt;
  HostTensor out = HostTensor::Zeros(DType::kInt32, {m});
  for (int64_t c = 0; c < m; ++c) {
    const auto i = static_cast<uint64_t>(c);
    const float target = x.scale_at(0) * w.scale_at(i);
    double v;
    if (dq) {
      if (dq->scale_at(i) == target) {
        out.data<int32_t>()[c] = static_cast<int32_t>(f->GetInt(i));
        continue;
      }
      v = static_cast<double>(f->GetInt(i)) * dq->scale_at(i) / target;
    } else {
      v = static_cast<double>(f->data<float>()[c]) / target;
    }
    out.data<int32_t>()[c] = static_cast<int32_t>(quant::SaturateRound(v, 0, quant::RangeOf(DType::kInt32)));
  }
  return out;
}

// DQ(w) of a constant int8/uint8 weight, per tensor or per output channel
// (axis `channel_axis` of its rank, `m` channels).
std::optional<QParams> WeightOf(const Graph& g, int value, int64_t channel_axis, int64_t m) {
  std::optional<QParams> w = DequantizeOf(g, value);
  if (!w || !IsQuantDType(w->dtype) || !g.value(w->data).is_constant()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(g.value(w->data).shape.size());
  if (!w->per_tensor()) {
    const int64_t axis = w->axis < 0 ? w->axis + rank : w->axis;
    if (axis != channel_axis || w->s->element_count() != static_cast<uint64_t>(m)) return std::nullopt;
  }
  if (w->zp != nullptr && w->zp->element_count() != 1 && w->zp->element_count() != static_cast<uint64_t>(m)) {
    return std::nullopt;
  }
  return w;
}

std::optional<QParams> ActivationOf(const Graph& g, int value) {
  std::optional<QParams> x = DequantizeOf(g, value);
  if (!x || !x->per_tensor() || !IsQuantDType(x->dtype)) return std::nullopt;
  return x;
}

// The integer node `op` standing for `from` and its tail, with output
// `out`: quant::kFixedPointAttr, the folded activation's quant::kClampAttr
// and mlf.fused_ops (from's op, the activation, QuantizeLinear). Trailing
// absent inputs are dropped.
Node IntegerNode(const Graph& g, const Node& from, const std::string& op, std::vector<int> inputs, const Tail& tail,
                 int out) {
  Node q;
  q.name = from.name;
  q.op = op;
  q.inputs = std::move(inputs);
  while (!q.inputs.empty() && q.inputs.back() == ir::kNoValue) q.inputs.pop_back();
  q.outputs = {out};
  q.attrs[quant::kFixedPointAttr] = int64_t{1};
  const quant::QRange full = quant::RangeOf(tail.q.dtype);
  if (tail.clamp.min != full.min || tail.clamp.max != full.max) {
    q.attrs[quant::kClampAttr] = std::vector<int64_t>{tail.clamp.min, tail.clamp.max};
  }
  std::vector<std::string> fused = {from.op};
  if (tail.act >= 0) fused.push_back(g.nodes[static_cast<size_t>(tail.act)].op);
  fused.push_back("QuantizeLinear");
  q.attrs["mlf.fused_ops"] = fused;
  return q;
}

// The tail's QuantizeLinear output, which the integer node writes.
int TailOutput(const Graph& g, const Tail& tail) { return g.nodes[static_cast<size_t>(tail.q.node)].outputs[0]; }

// The QLinearConv of the pattern: inputs, output `out`, attributes.
Node MakeQLinearConv(Graph& g, const Node& from, int x_value, const QParams& x, int w_value, const QParams& w,
                     const std::optional<HostTensor>& bias, const Tail& tail, int out) {
  const int bias_id = bias ? g.AddConstant(g.UniqueName(from.name + ".bias_int32"), *bias) : ir::kNoValue;
  return IntegerNode(g, from, "QLinearConv",
                     {x_value, x.scale, ZeroPointValue(g, x, from.name + ".x"), w_value, w.scale, w.zero_point,
                      tail.q.scale, ZeroPointValue(g, tail.q, from.name + ".y"), bias_id},
                     tail, out);
}

// Replaces node `at` by `replacement` and removes the tail's nodes.
void Replace(Graph& g, size_t at, std::vector<Node> replacement, const Tail& tail) {
  std::vector<int> gone = {tail.q.node};
  if (tail.act >= 0) gone.push_back(tail.act);
  std::sort(gone.rbegin(), gone.rend());
  for (int i : gone) g.nodes.erase(g.nodes.begin() + i);
  g.nodes.erase(g.nodes.begin() + static_cast<long>(at));
  g.nodes.insert(g.nodes.begin() + static_cast<long>(at), replacement.begin(), replacement.end());
}

Result<bool> LowerConv(Graph& g, size_t at) {
  const Node& conv = g.nodes[at];
  if (conv.outputs.size() != 1 || !conv.HasInput(1)) return false;
  const Shape& ws = g.value(conv.inputs[1]).shape;
  if (ws.empty()) return false;
  const int64_t m = ws[0];
  std::optional<QParams> x = ActivationOf(g, conv.inputs[0]);
  std::optional<QParams> w = WeightOf(g, conv.inputs[1], 0, m);
  if (!x || !w) return false;
  std::optional<HostTensor> bias;
  if (conv.HasInput(2)) {
    bias = IntBias(g, conv.inputs[2], *x, *w, m);
    if (!bias) return false;
  }
  std::optional<Tail> tail = TailOf(g, conv.outputs[0]);
  if (!tail) return false;
  Node q = MakeQLinearConv(g, conv, x->data, *x, w->data, *w, bias, *tail, g.nodes[static_cast<size_t>(tail->q.node)].outputs[0]);
  for (const auto& [key, value] : conv.attrs) q.attrs[key] = value;
  MLF_RETURN_IF_ERROR(ops::InferNode(q, g));
  Replace(g, at, {std::move(q)}, *tail);
  return true;
}

int AddShapeConstant(Graph& g, const std::string& base, const Shape& shape) {
  HostTensor t = HostTensor::Zeros(DType::kInt64, {static_cast<int64_t>(shape.size())});
  for (size_t i = 0; i < shape.size(); ++i) t.data<int64_t>()[i] = shape[i];
  return g.AddConstant(g.UniqueName(base), std::move(t));
}

Node MakeReshape(Graph& g, const std::string& name, int in, const Shape& shape, int out) {
  Node r;
  r.name = name;
  r.op = "Reshape";
  r.inputs = {in, AddShapeConstant(g, name + ".shape", shape)};
  r.outputs = {out};
  return r;
}

// Gemm (transA 0, alpha = beta = 1) or MatMul with a 2-D x and a constant
// DQ'd 2-D weight: a 1x1 QLinearConv over x as [M, K, 1, 1].
Result<bool> LowerGemm(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || !n.HasInput(1)) return false;
  int64_t trans_b = 0;
  if (n.op == "Gemm") {
    MLF_ASSIGN_OR_RETURN(const int64_t trans_a, n.Int("transA", 0));
    MLF_ASSIGN_OR_RETURN(trans_b, n.Int("transB", 0));
    MLF_ASSIGN_OR_RETURN(const double alpha, n.Float("alpha", 1.0));
    MLF_ASSIGN_OR_RETURN(const double beta, n.Float("beta", 1.0));
    if (trans_a != 0 || alpha != 1.0 || beta != 1.0) return false;
  } else if (n.inputs.size() != 2) {
    return false;
  }
  const Shape& xs = g.value(n.inputs[0]).shape;
  const Shape& ws = g.value(n.inputs[1]).shape;
  if (xs.size() != 2 || ws.size() != 2) return false;
  const int64_t rows = xs[0], k = xs[1], cols = trans_b ? ws[0] : ws[1];
  if ((trans_b ? ws[1] : ws[0]) != k) return false;
  std::optional<QParams> x = ActivationOf(g, n.inputs[0]);
  std::optional<QParams> w = WeightOf(g, n.inputs[1], trans_b ? 0 : 1, cols);
  if (!x || !w) return false;
  std::optional<HostTensor> bias;
  if (n.HasInput(2)) {
    const Shape& bs = g.value(n.inputs[2]).shape;
    if (bs != Shape{cols} && bs != Shape{1, cols}) return false;
    bias = IntBias(g, n.inputs[2], *x, *w, cols);
    if (!bias) return false;
  }
  std::optional<Tail> tail = TailOf(g, n.outputs[0]);
  if (!tail) return false;
  // The weight as [N, K, 1, 1].
  const HostTensor& wt = *g.value(w->data).constant;
  HostTensor w4 = HostTensor::Zeros(wt.dtype, {cols, k, 1, 1});
  for (int64_t r = 0; r < cols; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      w4.bytes[static_cast<size_t>(r * k + i)] = wt.bytes[static_cast<size_t>(trans_b ? r * k + i : i * cols + r)];
    }
  }
  const int w_value = g.AddConstant(g.UniqueName(n.name + ".weight_1x1"), std::move(w4));
  const int y = g.nodes[static_cast<size_t>(tail->q.node)].outputs[0];
  ir::Value xr;
  xr.name = g.UniqueName(n.name + ".x_1x1");
  xr.dtype = x->dtype;
  xr.shape = {rows, k, 1, 1};
  const int xr_id = g.AddValue(xr);
  ir::Value yr;
  yr.name = g.UniqueName(n.name + ".y_1x1");
  yr.dtype = tail->q.dtype;
  yr.shape = {rows, cols, 1, 1};
  const int yr_id = g.AddValue(yr);
  std::vector<Node> nodes;
  nodes.push_back(MakeReshape(g, n.name + ".to_1x1", x->data, xr.shape, xr_id));
  nodes.push_back(MakeQLinearConv(g, n, xr_id, *x, w_value, *w, bias, *tail, yr_id));
  nodes.push_back(MakeReshape(g, n.name + ".from_1x1", yr_id, {rows, cols}, y));
  for (const Node& node : nodes) MLF_RETURN_IF_ERROR(ops::InferNode(node, g));
  Replace(g, at, std::move(nodes), *tail);
  return true;
}

// DQ(a) + DQ(b) [-> Relu | Clip] -> Q, a and b of one shape, per-tensor
// constant parameters: one QLinearAdd (a residual connection in integers).
Result<bool> LowerAdd(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || n.inputs.size() != 2) return false;
  std::optional<QParams> a = ActivationOf(g, n.inputs[0]);
  std::optional<QParams> b = ActivationOf(g, n.inputs[1]);
  if (!a || !b || g.value(a->data).shape != g.value(b->data).shape ||
      g.value(a->data).shape != g.value(n.outputs[0]).shape) {
    return false;
  }
  std::optional<Tail> tail = TailOf(g, n.outputs[0]);
  quant::AddRule rule;
  if (!tail || !quant::MakeAddRule(a->scale_at(0), b->scale_at(0), tail->q.scale_at(0), &rule)) return false;
  Node q = IntegerNode(g, n, "QLinearAdd",
                       {a->data, a->scale, ZeroPointValue(g, *a, n.name + ".a"), b->data, b->scale,
                        ZeroPointValue(g, *b, n.name + ".b"), tail->q.scale, ZeroPointValue(g, tail->q, n.name + ".y")},
                       *tail, TailOutput(g, *tail));
  MLF_RETURN_IF_ERROR(ops::InferNode(q, g));
  Replace(g, at, {std::move(q)}, *tail);
  return true;
}

// AveragePool's window when the lowering can take it: 2-D, no padding
// (explicit or automatic), ceil_mode 0, dilations 1; GlobalAveragePool's is
// the whole plane. Writes kernel_shape and strides.
bool PoolWindow(const Node& n, const Shape& xs, std::vector<int64_t>* kernel, std::vector<int64_t>* strides) {
  if (xs.size() != 4 || xs[2] < 1 || xs[3] < 1) return false;
  if (n.op == "GlobalAveragePool") {
    *kernel = {xs[2], xs[3]};
    *strides = {1, 1};
    return true;
  }
  Result<std::string> auto_pad = n.String("auto_pad", "NOTSET");
  Result<std::vector<int64_t>> k = n.Ints("kernel_shape", {});
  Result<std::vector<int64_t>> s = n.Ints("strides", {1, 1});
  Result<std::vector<int64_t>> pads = n.Ints("pads", {0, 0, 0, 0});
  Result<std::vector<int64_t>> dilations = n.Ints("dilations", {1, 1});
  Result<int64_t> ceil_mode = n.Int("ceil_mode", 0);
  if (!auto_pad.ok() || !k.ok() || !s.ok() || !pads.ok() || !dilations.ok() || !ceil_mode.ok()) return false;
  if ((*auto_pad != "NOTSET" && *auto_pad != "VALID") || *ceil_mode != 0 || k->size() != 2 || s->size() != 2 ||
      *dilations != std::vector<int64_t>{1, 1}) {
    return false;
  }
  for (int64_t p : *pads) {
    if (p != 0) return false;
  }
  if ((*k)[0] < 1 || (*k)[1] < 1 || (*k)[0] > xs[2] || (*k)[1] > xs[3] || (*s)[0] < 1 || (*s)[1] < 1) return false;
  *kernel = *k;
  *strides = *s;
  return true;
}

// `value`, or the input of the Pad that makes it when that Pad adds nothing
// (constant mode, every pad 0): PyTorch's exporter writes one before each
// AvgPool2d.
int PastEmptyPad(const Graph& g, int value) {
  const int producer = g.Producer(value);
  if (producer < 0) return value;
  const Node& pad = g.nodes[static_cast<size_t>(producer)];
  if (pad.op != "Pad" || !pad.HasInput(0)) return value;
  Result<std::string> mode = pad.String("mode", "constant");
  if (!mode.ok() || *mode != "constant") return value;
  const HostTensor* pads = ConstOf(g, pad, 1);
  Result<std::vector<int64_t>> attr = pad.Ints("pads", {});
  if (pads == nullptr && (pad.HasInput(1) || !attr.ok())) return value;
  const uint64_t count = pads != nullptr ? pads->element_count() : attr->size();
  for (uint64_t i = 0; i < count; ++i) {
    if ((pads != nullptr ? pads->GetInt(i) : (*attr)[i]) != 0) return value;
  }
  return pad.inputs[0];
}

// DQ(x) [-> Pad adding nothing] -> AveragePool | GlobalAveragePool [-> Relu
// | Clip] -> Q, x's parameters per tensor: one QLinearAveragePool (the pool
// on integers).
Result<bool> LowerAveragePool(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || n.inputs.size() != 1) return false;
  std::optional<QParams> x = ActivationOf(g, PastEmptyPad(g, n.inputs[0]));
  std::vector<int64_t> kernel, strides;
  if (!x || !PoolWindow(n, g.value(x->data).shape, &kernel, &strides) || kernel[0] * kernel[1] > (1 << 23)) {
    return false;
  }
  std::optional<Tail> tail = TailOf(g, n.outputs[0]);
  if (!tail) return false;
  Node q = IntegerNode(g, n, "QLinearAveragePool",
                       {x->data, x->scale, ZeroPointValue(g, *x, n.name + ".x"), tail->q.scale,
                        ZeroPointValue(g, tail->q, n.name + ".y")},
                       *tail, TailOutput(g, *tail));
  q.attrs["kernel_shape"] = kernel;
  q.attrs["strides"] = strides;
  MLF_RETURN_IF_ERROR(ops::InferNode(q, g));
  Replace(g, at, {std::move(q)}, *tail);
  return true;
}

// DQ(x_0), ..., DQ(x_k) -> Concat [-> Relu | Clip] -> Q, every parameter
// per tensor: the concatenation on integers. With every input on the Q's
// grid (its scale, zero point and dtype) and no activation, a Concat of the
// xs (the Q/DQ pairs cancel); otherwise one QLinearConcat, which
// requantizes each input to the Q's grid.
Result<bool> LowerConcat(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || n.inputs.empty() || !n.HasAttr("axis")) return false;
  std::vector<QParams> xs;
  for (int v : n.inputs) {
    std::optional<QParams> x = v == ir::kNoValue ? std::nullopt : ActivationOf(g, v);
    if (!x) return false;
    xs.push_back(*x);
  }
  std::optional<Tail> tail = TailOf(g, n.outputs[0]);
  if (!tail) return false;
  bool same_grid = tail->act < 0;
  for (const QParams& x : xs) {
    same_grid = same_grid && x.dtype == tail->q.dtype && x.scale_at(0) == tail->q.scale_at(0) &&
                x.zp_at(0) == tail->q.zp_at(0);
  }
  Node q = n;
  if (same_grid) {
    q.inputs.clear();
    for (const QParams& x : xs) q.inputs.push_back(x.data);
    q.outputs = {TailOutput(g, *tail)};
    q.attrs["mlf.fused_ops"] = std::vector<std::string>{"DequantizeLinear", "QuantizeLinear"};
  } else {
    std::vector<int> inputs = {tail->q.scale, ZeroPointValue(g, tail->q, n.name + ".y")};
    for (size_t i = 0; i < xs.size(); ++i) {
      inputs.insert(inputs.end(),
                    {xs[i].data, xs[i].scale, ZeroPointValue(g, xs[i], n.name + ".x" + std::to_string(i))});
    }
    q = IntegerNode(g, n, "QLinearConcat", std::move(inputs), *tail, TailOutput(g, *tail));
    q.attrs["axis"] = n.attrs.at("axis");
  }
  MLF_RETURN_IF_ERROR(ops::InferNode(q, g));
  Replace(g, at, {std::move(q)}, *tail);
  return true;
}

// DQ(a) * DQ(b) [-> Relu | Clip] -> Q, per-tensor constant parameters, a
// and b broadcast as numpy does: one QLinearMul (a gate in integers).
Result<bool> LowerMul(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || n.inputs.size() != 2) return false;
  std::optional<QParams> a = ActivationOf(g, n.inputs[0]);
  std::optional<QParams> b = ActivationOf(g, n.inputs[1]);
  if (!a || !b || !ops::BroadcastShapes(g.value(a->data).shape, g.value(b->data).shape).ok()) return false;
  std::optional<Tail> tail = TailOf(g, n.outputs[0]);
  if (!tail) return false;
  Node q = IntegerNode(g, n, "QLinearMul",
                       {a->data, a->scale, ZeroPointValue(g, *a, n.name + ".a"), b->data, b->scale,
                        ZeroPointValue(g, *b, n.name + ".b"), tail->q.scale, ZeroPointValue(g, tail->q, n.name + ".y")},
                       *tail, TailOutput(g, *tail));
  MLF_RETURN_IF_ERROR(ops::InferNode(q, g));
  Replace(g, at, {std::move(q)}, *tail);
  return true;
}

// Unary float operators a 256-entry table can stand for between a DQ and
// a Q (Relu and Clip are folded into the operator before them instead).
bool IsTableOp(const std::string& op) {
  static const char* const kOps[] = {"Sigmoid", "Tanh",     "HardSigmoid",     "HardSwish", "LeakyRelu",
                                     "Elu",     "Selu",     "Celu",            "Softplus",  "Softsign",
                                     "Mish",    "Erf",      "ThresholdedRelu", "Shrink",    "Exp",
                                     "Log",     "Sqrt",     "Neg",             "Abs",       "Reciprocal"};
  for (const char* name : kOps) {
    if (op == name) return true;
  }
  return false;
}

// DQ(x) -> a unary operator [-> Relu | Clip] -> Q, per-tensor parameters:
// one QLinearLookup whose 256 entries are the chain evaluated on every value
// x can take (the reference's own float arithmetic, then QuantizeLinear and
// the folded clamp).
Result<bool> LowerLookup(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || n.inputs.size() != 1) return false;
  std::optional<QParams> x = ActivationOf(g, n.inputs[0]);
  if (!x) return false;
  std::optional<Tail> tail = TailOf(g, n.outputs[0]);
  if (!tail) return false;
  HostTensor values = HostTensor::Zeros(DType::kFloat32, {256});
  const int64_t first = x->dtype == DType::kInt8 ? -128 : 0;
  for (int64_t k = 0; k < 256; ++k) {
    values.data<float>()[k] = quant::Dequantize(first + k, x->zp_at(0), x->scale_at(0));
  }
  std::vector<HostTensor> out;
  if (!ops::EvaluateNode(n, {&values}, &out).ok() || out.size() != 1 || out[0].dtype != DType::kFloat32 ||
      out[0].element_count() != 256) {
    return false;
  }
  HostTensor table = HostTensor::Zeros(tail->q.dtype, {256});
  for (uint64_t k = 0; k < 256; ++k) {
    const int64_t q = quant::Quantize(out[0].data<float>()[k], tail->q.scale_at(0), tail->q.zp_at(0),
                                      quant::RangeOf(tail->q.dtype));
    table.SetDouble(k, static_cast<double>(std::max(tail->clamp.min, std::min(tail->clamp.max, q))));
  }
  const int table_id = g.AddConstant(g.UniqueName(n.name + ".table"), std::move(table));
  Node q = IntegerNode(g, n, "QLinearLookup", {x->data, table_id}, *tail, TailOutput(g, *tail));
  q.attrs.erase(quant::kClampAttr);  // in the table already
  MLF_RETURN_IF_ERROR(ops::InferNode(q, g));
  Replace(g, at, {std::move(q)}, *tail);
  return true;
}

bool IsGridOp(const std::string& op) {
  return op == "MaxPool" || op == "Reshape" || op == "Flatten" || op == "Transpose" || op == "Squeeze" ||
         op == "Unsqueeze";
}

// DQ(a) -> op -> Q with the DQ's parameters: op on a's integers.
Result<bool> CancelAround(Graph& g, size_t at) {
  const Node& n = g.nodes[at];
  if (n.outputs.size() != 1 || !n.HasInput(0)) return false;
  std::optional<QParams> dq = ActivationOf(g, n.inputs[0]);
  if (!dq) return false;
  std::optional<QParams> q = ParamsOf(g, SoleConsumer(g, n.outputs[0]), "QuantizeLinear");
  if (!q || !q->per_tensor() || q->dtype != dq->dtype || q->scale_at(0) != dq->scale_at(0) ||
      q->zp_at(0) != dq->zp_at(0)) {
    return false;
  }
  Node moved = n;
  moved.inputs[0] = dq->data;
  moved.outputs[0] = g.nodes[static_cast<size_t>(q->node)].outputs[0];
  std::vector<std::string> fused = {"DequantizeLinear", "QuantizeLinear"};
  moved.attrs["mlf.fused_ops"] = fused;
  MLF_RETURN_IF_ERROR(ops::InferNode(moved, g));
  g.nodes[at] = std::move(moved);
  g.nodes.erase(g.nodes.begin() + q->node);
  return true;
}

// A model's QLinearConv / QLinearMatMul with constant scales, x's per
// tensor: the fixed-point rule (and so the kernel for a convolution).
Result<bool> MarkFixedPoint(Graph& g, size_t at) {
  Node& n = g.nodes[at];
  if (n.HasAttr(quant::kFixedPointAttr)) return false;
  for (size_t i : {1, 4, 6}) {
    if (ConstOf(g, n, i) == nullptr) return false;
  }
  if (ConstOf(g, n, 1)->element_count() != 1) return false;
  n.attrs[quant::kFixedPointAttr] = int64_t{1};
  MLF_RETURN_IF_ERROR(ops::InferNode(n, g));
  return true;
}

}  // namespace

Result<QdqLoweringReport> LowerQdq(Graph& g) {
  QdqLoweringReport report;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < g.nodes.size() && !changed; ++i) {
      const std::string op = g.nodes[i].op;
      if (op == "Conv") {
        MLF_ASSIGN_OR_RETURN(changed, LowerConv(g, i));
        report.convs += changed ? 1 : 0;
      } else if (op == "Gemm" || op == "MatMul") {
        MLF_ASSIGN_OR_RETURN(changed, LowerGemm(g, i));
        report.gemms += changed ? 1 : 0;
      } else if (op == "Add") {
        MLF_ASSIGN_OR_RETURN(changed, LowerAdd(g, i));
        report.adds += changed ? 1 : 0;
      } else if (op == "Mul") {
        MLF_ASSIGN_OR_RETURN(changed, LowerMul(g, i));
        report.muls += changed ? 1 : 0;
      } else if (op == "Concat") {
        MLF_ASSIGN_OR_RETURN(changed, LowerConcat(g, i));
        report.concats += changed ? 1 : 0;
      } else if (op == "AveragePool" || op == "GlobalAveragePool") {
        MLF_ASSIGN_OR_RETURN(changed, LowerAveragePool(g, i));
        report.pools += changed ? 1 : 0;
      } else if (IsTableOp(op)) {
        MLF_ASSIGN_OR_RETURN(changed, LowerLookup(g, i));
        report.lookups += changed ? 1 : 0;
      } else if (IsGridOp(op)) {
        MLF_ASSIGN_OR_RETURN(changed, CancelAround(g, i));
        report.cancelled += changed ? 1 : 0;
      }
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op != "QLinearConv" && g.nodes[i].op != "QLinearMatMul") continue;
    MLF_ASSIGN_OR_RETURN(const bool marked, MarkFixedPoint(g, i));
    report.marked += marked ? 1 : 0;
  }
  return report;
}

}  // namespace mlf::passes
