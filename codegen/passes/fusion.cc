#include "codegen/passes/fusion.h"

#include <cmath>

#include "codegen/ops/conv_kernel.h"
#include "codegen/ops/op.h"

namespace mlf::passes {
namespace {

using ir::Graph;
using ir::HostTensor;
using ir::Node;

const HostTensor* ConstantInput(const Graph& g, const Node& n, size_t i) {
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

void RecordFused(Node& producer, const std::string& op) {
  std::vector<std::string> fused;
  auto it = producer.attrs.find("mlf.fused_ops");
  if (it != producer.attrs.end()) fused = std::get<std::vector<std::string>>(it->second);
  fused.push_back(op);
  producer.attrs["mlf.fused_ops"] = fused;
}

// `consumer` is merged into `producer`: the producer now writes the
// consumer's output value (keeping its name), and the consumer goes away.
void Absorb(Graph& g, size_t producer, size_t consumer) {
  g.nodes[producer].outputs[0] = g.nodes[consumer].outputs[0];
  g.nodes.erase(g.nodes.begin() + static_cast<long>(consumer));
}

bool IsFloat32(const HostTensor* t) { return t != nullptr && t->dtype == DType::kFloat32; }

// Per-channel factors of a BatchNormalization: y = x * s + t.
struct Affine {
  std::vector<float> s, t;
};

Result<Affine> BatchNormAffine(const Graph& g, const Node& bn, int64_t channels) {
  Affine a;
  const HostTensor *scale = ConstantInput(g, bn, 1), *bias = ConstantInput(g, bn, 2),
                   *mean = ConstantInput(g, bn, 3), *var = ConstantInput(g, bn, 4);
  for (const HostTensor* t : {scale, bias, mean, var}) {
    if (!IsFloat32(t) || t->element_count() != static_cast<uint64_t>(channels)) return a;
  }
  MLF_ASSIGN_OR_RETURN(double eps, bn.Float("epsilon", 1e-5));
  for (int64_t c = 0; c < channels; ++c) {
    const float s = scale->data<float>()[c] / std::sqrt(var->data<float>()[c] + static_cast<float>(eps));
    a.s.push_back(s);
    a.t.push_back(bias->data<float>()[c] - mean->data<float>()[c] * s);
  }
  return a;
}

// Conv weights [Cout, Cin/g, k...]: scale each output channel's filter.
HostTensor ScaleConvWeights(const HostTensor& w, const std::vector<float>& s) {
  HostTensor out = w;
  const uint64_t per_channel = w.element_count() / static_cast<uint64_t>(w.shape[0]);
  for (uint64_t i = 0; i < out.element_count(); ++i) out.data<float>()[i] *= s[i / per_channel];
  return out;
}

// Gemm B: column n of op(B) is scaled; op(B) = B ([K,N]) or B^T (B is [N,K]).
HostTensor ScaleGemmWeights(const HostTensor& b, bool trans_b, const std::vector<float>& s) {
  HostTensor out = b;
  const uint64_t rows = static_cast<uint64_t>(b.shape[0]), cols = static_cast<uint64_t>(b.shape[1]);
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < cols; ++c) out.data<float>()[r * cols + c] *= s[trans_b ? r : c];
  }
  return out;
}

// Bias after the affine map: b'[c] = b[c] * s[c] + t[c] (b absent: 0).
HostTensor AdjustBias(const HostTensor* bias, const Affine& a) {
  HostTensor out = HostTensor::Zeros(DType::kFloat32, {static_cast<int64_t>(a.s.size())});
  for (size_t c = 0; c < a.s.size(); ++c) {
    const float b = bias ? bias->data<float>()[c] : 0.0f;
    out.data<float>()[c] = b * a.s[c] + a.t[c];
  }
  return out;
}

void SetInput(Graph& g, Node& n, size_t i, int id) {
  if (n.inputs.size() <= i) n.inputs.resize(i + 1, ir::kNoValue);
  n.inputs[i] = id;
  (void)g;
}

// Folds node `bn_index` into its Conv/Gemm producer when possible.
Result<bool> FoldOneBatchNorm(Graph& g, size_t bn_index) {
  const Node& bn = g.nodes[bn_index];
  if (bn.outputs.size() != 1 || !bn.HasInput(0)) return false;
  const int producer = g.Producer(bn.inputs[0]);
  if (producer < 0 || SoleConsumer(g, bn.inputs[0]) != static_cast<int>(bn_index)) return false;
  Node& p = g.nodes[producer];
  const HostTensor* w = ConstantInput(g, p, 1);
  if (!IsFloat32(w) || p.HasAttr("mlf.activation")) return false;
  const ir::Value& x = g.value(bn.inputs[0]);
  if (x.shape.size() < 2) return false;
  MLF_ASSIGN_OR_RETURN(Affine a, BatchNormAffine(g, bn, x.shape[1]));
  if (a.s.empty()) return false;
  if (p.op == "Conv") {
    const HostTensor* bias = ConstantInput(g, p, 2);
    if (p.HasInput(2) && !IsFloat32(bias)) return false;
    const HostTensor new_w = ScaleConvWeights(*w, a.s);
    SetInput(g, p, 2, g.AddConstant(g.UniqueName(p.name + ".folded_bias"), AdjustBias(bias, a)));
    p.inputs[1] = g.AddConstant(g.UniqueName(p.name + ".folded_weight"), new_w);
  } else if (p.op == "Gemm") {
    MLF_ASSIGN_OR_RETURN(int64_t trans_b, p.Int("transB", 0));
    MLF_ASSIGN_OR_RETURN(double alpha, p.Float("alpha", 1.0));
    MLF_ASSIGN_OR_RETURN(double beta, p.Float("beta", 1.0));
    const HostTensor* c = ConstantInput(g, p, 2);
    if (p.HasInput(2) && (!IsFloat32(c) || c->element_count() != a.s.size())) return false;
    HostTensor scaled_c = AdjustBias(nullptr, Affine{a.s, std::vector<float>(a.s.size(), 0)});
    for (size_t n = 0; n < a.s.size(); ++n) {
      scaled_c.data<float>()[n] = (c ? static_cast<float>(beta) * c->data<float>()[n] : 0.0f) * a.s[n] + a.t[n];
    }
    std::vector<float> alpha_s(a.s);
    for (float& s : alpha_s) s *= static_cast<float>(alpha);
    p.inputs[1] = g.AddConstant(g.UniqueName(p.name + ".folded_weight"),
                                ScaleGemmWeights(*w, trans_b != 0, alpha_s));
    SetInput(g, p, 2, g.AddConstant(g.UniqueName(p.name + ".folded_bias"), scaled_c));
    p.attrs["alpha"] = 1.0;
    p.attrs["beta"] = 1.0;
  } else {
    return false;
  }
  RecordFused(p, "BatchNormalization");
  Absorb(g, static_cast<size_t>(producer), bn_index);
  return true;
}

// The per-channel values of a constant broadcast over a [N, C, ...] output,
// or empty when the constant is not per-channel.
std::vector<float> PerChannel(const HostTensor& t, const std::vector<int64_t>& out_shape) {
  if (t.dtype != DType::kFloat32 || out_shape.size() < 2) return {};
  const int64_t channels = out_shape[1];
  std::vector<int64_t> shape = t.shape;
  while (shape.size() < out_shape.size()) shape.insert(shape.begin(), 1);
  if (shape.size() != out_shape.size()) return {};
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1 && !(d == 1 && shape[d] == channels)) return {};
  }
  if (t.element_count() == 1) return std::vector<float>(static_cast<size_t>(channels), t.data<float>()[0]);
  return std::vector<float>(t.data<float>(), t.data<float>() + channels);
}

Result<bool> FuseOneBias(Graph& g, size_t add_index) {
  const Node& add = g.nodes[add_index];
  if (add.inputs.size() != 2) return false;
  for (int side = 0; side < 2; ++side) {
    const HostTensor* c = ConstantInput(g, add, 1 - side);
    const int producer = add.HasInput(side) ? g.Producer(add.inputs[side]) : -1;
    if (c == nullptr || producer < 0 ||
        SoleConsumer(g, add.inputs[side]) != static_cast<int>(add_index)) {
      continue;
    }
    Node& p = g.nodes[producer];
    if ((p.op != "Conv" && p.op != "Gemm") || p.HasAttr("mlf.activation")) continue;
    const ir::Value& out = g.value(add.inputs[side]);
    if (g.value(add.outputs[0]).shape != out.shape) continue;  // the Add must not broadcast the output
    std::vector<float> per_channel = PerChannel(*c, out.shape);
    if (per_channel.empty()) continue;
    const HostTensor* bias = ConstantInput(g, p, 2);
    if (p.HasInput(2) && (!IsFloat32(bias) || bias->element_count() != per_channel.size())) continue;
    if (p.op == "Gemm" && p.HasInput(2)) {
      MLF_ASSIGN_OR_RETURN(double beta, p.Float("beta", 1.0));
      if (beta != 1.0) continue;
    }
    HostTensor combined = AdjustBias(bias, Affine{std::vector<float>(per_channel.size(), 1.0f), per_channel});
    SetInput(g, p, 2, g.AddConstant(g.UniqueName(p.name + ".fused_bias"), combined));
    RecordFused(p, "Add");
    Absorb(g, static_cast<size_t>(producer), add_index);
    return true;
  }
  return false;
}

// MatMul of [M,K] by a constant [K,N] becomes Gemm, so that a following
// bias Add can fuse into it.
void MatMulToGemm(Graph& g) {
  for (Node& n : g.nodes) {
    if (n.op != "MatMul" || n.inputs.size() != 2) continue;
    const HostTensor* b = ConstantInput(g, n, 1);
    if (!IsFloat32(b) || b->shape.size() != 2 || g.value(n.inputs[0]).shape.size() != 2) continue;
    n.op = "Gemm";
    n.attrs["mlf.source_op"] = std::string("MatMul");  // metadata names what the model had
  }
}

bool IsFusableActivation(const Graph& g, const Node& act) {
  static const char* kOps[] = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Clip"};
  bool known = false;
  for (const char* op : kOps) known = known || act.op == op;
  if (!known || act.outputs.size() != 1) return false;
  if (act.op != "Clip") return true;
  for (size_t i = 1; i < act.inputs.size(); ++i) {
    if (act.HasInput(i) && ConstantInput(g, act, i) == nullptr) return false;
  }
  return true;
}

Status CopyActivationAttributes(const Graph& g, const Node& act, Node& p) {
  p.attrs["mlf.activation"] = act.op;
  for (const auto& [key, value] : act.attrs) p.attrs["mlf.activation." + key] = value;
  if (act.op == "Clip") {
    if (const HostTensor* lo = ConstantInput(g, act, 1)) p.attrs["mlf.activation.min"] = lo->GetDouble(0);
    if (const HostTensor* hi = ConstantInput(g, act, 2)) p.attrs["mlf.activation.max"] = hi->GetDouble(0);
  }
  return Status::Ok();
}

// Add(Conv(...), r) with both operands float32 of one shape, the Conv's
// output read by the Add only and the Conv taking conv_f32
// (ops::ConvSuitsKernel) without an activation yet: the Conv takes r as its
// residual (ops::kResidualInput) and writes the Add's output, saving a pass
// over memory and keeping the sum on the core that computed it when threads
// split the Conv. The Conv moves to the Add's place: r may be computed after
// the Conv's old place, and everything the Conv reads is computed before the
// Add. Results are the same bits: the kernel adds r to the finished sum, as
// the Add did.
Result<bool> FuseOneResidual(Graph& g, size_t add_index) {
  const Node& add = g.nodes[add_index];
  if (add.inputs.size() != 2 || !add.HasInput(0) || !add.HasInput(1) || add.outputs.size() != 1 ||
      add.inputs[0] == add.inputs[1]) {
    return false;
  }
  const ir::Value& a = g.value(add.inputs[0]);
  const ir::Value& b = g.value(add.inputs[1]);
  if (a.dtype != DType::kFloat32 || b.dtype != DType::kFloat32 || a.shape != b.shape) return false;
  for (size_t side = 0; side < 2; ++side) {
    const int operand = add.inputs[side], residual = add.inputs[1 - side];
    const int producer = g.Producer(operand);
    if (producer < 0 || SoleConsumer(g, operand) != static_cast<int>(add_index)) continue;
    const Node& p = g.nodes[producer];
    if (p.op != "Conv" || p.outputs.size() != 1 || p.HasAttr("mlf.activation") ||
        p.HasAttr(ops::kResidualAttr) || !ops::ConvSuitsKernel(p, g)) {
      continue;
    }
    Node fused = p;
    SetInput(g, fused, ops::kResidualInput, residual);
    fused.attrs[ops::kResidualAttr] = int64_t{1};
    fused.outputs[0] = add.outputs[0];
    RecordFused(fused, "Add");
    g.nodes[add_index] = std::move(fused);
    g.nodes.erase(g.nodes.begin() + producer);
    return true;
  }
  return false;
}

// Calls fuse_one(g, i) on every node whose op is `op`, counting the nodes
// it fused. A fusion removes one node at or before i, so the node now at i
// is the next one to look at.
template <typename FuseOne>
Result<int> FuseEach(Graph& g, const std::string& op, FuseOne fuse_one) {
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op != op) continue;
    MLF_ASSIGN_OR_RETURN(bool done, fuse_one(g, i));
    if (done) {
      ++fused;
      --i;
    }
  }
  return fused;
}

}  // namespace

Result<int> FoldBatchNormalization(Graph& g) {
  return FuseEach(g, "BatchNormalization", FoldOneBatchNorm);
}

Result<int> FuseBias(Graph& g) {
  MatMulToGemm(g);
  return FuseEach(g, "Add", FuseOneBias);
}

Result<int> FuseResidualAdds(Graph& g) { return FuseEach(g, "Add", FuseOneResidual); }

Result<int> FuseActivations(Graph& g) {
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& act = g.nodes[i];
    if (!IsFusableActivation(g, act) || !act.HasInput(0)) continue;
    const int producer = g.Producer(act.inputs[0]);
    if (producer < 0 || SoleConsumer(g, act.inputs[0]) != static_cast<int>(i)) continue;
    Node& p = g.nodes[producer];
    const ops::OpDef* def = ops::FindOp(p.op);
    if (def == nullptr || !def->fuses_activation || p.HasAttr("mlf.activation") ||
        p.outputs.size() != 1 || g.value(p.outputs[0]).dtype != DType::kFloat32) {
      continue;
    }
    MLF_RETURN_IF_ERROR(CopyActivationAttributes(g, act, p));
    Absorb(g, static_cast<size_t>(producer), i);
    ++fused;
    --i;
  }
  return fused;
}

}  // namespace mlf::passes
