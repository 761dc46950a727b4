// The recurrent operators RNN, GRU and LSTM (opsets 7 and 14: attribute
// layout), every direction (forward, reverse, bidirectional), with or without
// bias B, sequence_lens, initial_h, initial_c and peepholes P (LSTM), clip,
// GRU's linear_before_reset, the activations Sigmoid, Tanh and Relu.
//
// Per direction d and time step t (gates in ONNX's order: GRU z, r, h; LSTM
// i, o, f, c), with Xt the input row and H the previous hidden state:
//
//   RNN   H = f(Xt W^T + H R^T + Wb + Rb)
//   GRU   z = f(Xt Wz^T + H Rz^T + Wbz + Rbz),  r = f(... r ...)
//         h = g(Xt Wh^T + (r * H) Rh^T + Rbh + Wbh)          linear_before_reset=0
//         h = g(Xt Wh^T + r * (H Rh^T + Rbh) + Wbh)           linear_before_reset=1
//         H = (1 - z) * h + z * H
//   LSTM  i = f(Xt Wi^T + H Ri^T + Pi * C + Wbi + Rbi),  f = f(... Pf * C ...)
//         c = g(Xt Wc^T + H Rc^T + Wbc + Rbc),  C = f * C + i * c
//         o = f(Xt Wo^T + H Ro^T + Po * C + Wbo + Rbo),  H = o * h(C)
//
// clip, when given, bounds every gate's input to [-clip, clip] before its
// activation. Defaults: f Sigmoid, g and h Tanh (RNN: Tanh).
//
// sequence_lens (run-time int32/int64, one per batch element): element b runs
// the steps t < L (reverse: from L - 1 down to 0); Y is 0 at the steps it does
// not run, Y_h / Y_c are the state after its last step (the initial state
// when L <= 0). Lengths beyond the sequence run every step.
//
// Layouts: layout=0 X [seq, batch, input], Y [seq, dirs, batch, hidden],
// Y_h / Y_c / initial_h / initial_c [dirs, batch, hidden]; layout=1 X
// [batch, seq, input], Y [batch, seq, dirs, hidden], the states [batch, dirs,
// hidden]. W [dirs, G*hidden, input], R [dirs, G*hidden, hidden], B [dirs,
// 2*G*hidden] (Wb then Rb), P [dirs, 3*hidden] (Pi, Po, Pf); G = 1, 3, 4.
//
// The generated code computes in the element type, one batch element and
// step at a time: the input part (Xt W^T + Wb) and the recurrent part (H R^T
// + Rb) of every gate into the scratch buffer, then the state update.
// evaluate() is the same computation in double.
#include <algorithm>
#include <cmath>
#include <functional>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Kind { kRnn, kGru, kLstm };
enum class Act { kSigmoid, kTanh, kRelu };

struct RnnPlan {
  Kind kind = Kind::kRnn;
  int64_t gates = 1;  // G
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool layout1 = false;
  std::vector<bool> reverse;            // per direction
  std::vector<std::vector<Act>> acts;   // per direction: f (, g (, h))
  bool has_clip = false;
  double clip = 0;
  bool linear_before_reset = false;
  bool has_b = false, has_lens = false, has_h0 = false, has_c0 = false, has_p = false;
  Shape y, state;  // Y's and Y_h's shapes
};

// Input indices.
constexpr size_t kX = 0, kW = 1, kR = 2, kB = 3, kLens = 4, kH0 = 5, kC0 = 6, kP = 7;

Result<Act> ParseAct(const ir::Node& node, const std::string& name) {
  if (name == "Sigmoid") return Act::kSigmoid;
  if (name == "Tanh") return Act::kTanh;
  if (name == "Relu") return Act::kRelu;
  return NodeUnsupported(node, "activation '" + name + "' is not supported (Sigmoid, Tanh, Relu)");
}

Status CheckShape(const ir::Node& node, const InputInfo& v, size_t i, const std::string& what, const Shape& want) {
  if (v.shape == want) return Status::Ok();
  return NodeError(node, "input " + std::to_string(i) + " (" + what + ") has shape " + FormatShape(v.shape) +
                             ", expected " + FormatShape(want));
}

Result<RnnPlan> PlanRnn(const ir::Node& node, const std::vector<InputInfo>& in) {
  RnnPlan p;
  p.kind = node.op == "GRU" ? Kind::kGru : node.op == "LSTM" ? Kind::kLstm : Kind::kRnn;
  p.gates = p.kind == Kind::kGru ? 3 : p.kind == Kind::kLstm ? 4 : 1;
  const bool lstm = p.kind == Kind::kLstm;
  MLF_RETURN_IF_ERROR(CheckArity(node, 3, lstm ? 8 : 6, 1, lstm ? 3 : 2));
  const InputInfo& x = in[kX];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input 0 (X)"));
  for (size_t i = 1; i < in.size(); ++i) {
    if (!Has(in, i) || i == kLens) continue;
    if (in[i].dtype != x.dtype) {
      return NodeError(node, "input " + std::to_string(i) + " has dtype " + DTypeName(in[i].dtype) + ", expected " +
                                 DTypeName(x.dtype) + " as X");
    }
  }
  MLF_ASSIGN_OR_RETURN(int64_t layout, node.Int("layout", 0));
  if (layout != 0 && layout != 1) return NodeError(node, "layout " + std::to_string(layout) + " is invalid (0 or 1)");
  p.layout1 = layout == 1;
  if (x.shape.size() != 3) {
    return NodeError(node, "input 0 (X) must have rank 3, got shape " + FormatShape(x.shape));
  }
  p.seq = x.shape[p.layout1 ? 1 : 0];
  p.batch = x.shape[p.layout1 ? 0 : 1];
  p.input = x.shape[2];

  MLF_ASSIGN_OR_RETURN(std::string direction, node.String("direction", "forward"));
  if (direction == "forward" || direction == "reverse") {
    p.reverse = {direction == "reverse"};
  } else if (direction == "bidirectional") {
    p.reverse = {false, true};
  } else {
    return NodeError(node, "direction '" + direction + "' is invalid (forward, reverse, bidirectional)");
  }
  p.dirs = static_cast<int64_t>(p.reverse.size());

  const InputInfo& r = in[kR];
  if (r.shape.size() != 3) return NodeError(node, "input 2 (R) must have rank 3, got shape " + FormatShape(r.shape));
  p.hidden = r.shape[2];
  if (node.HasAttr("hidden_size")) {
    MLF_ASSIGN_OR_RETURN(int64_t hidden, node.Int("hidden_size", 0));
    if (hidden != p.hidden) {
      return NodeError(node, "hidden_size " + std::to_string(hidden) + " does not match input 2 (R) of shape " +
                                 FormatShape(r.shape));
    }
  }
  const int64_t gh = p.gates * p.hidden;
  MLF_RETURN_IF_ERROR(CheckShape(node, in[kW], kW, "W", {p.dirs, gh, p.input}));
  MLF_RETURN_IF_ERROR(CheckShape(node, r, kR, "R", {p.dirs, gh, p.hidden}));
  const Shape state = p.layout1 ? Shape{p.batch, p.dirs, p.hidden} : Shape{p.dirs, p.batch, p.hidden};
  p.has_b = Has(in, kB);
  if (p.has_b) MLF_RETURN_IF_ERROR(CheckShape(node, in[kB], kB, "B", {p.dirs, 2 * gh}));
  p.has_lens = Has(in, kLens);
  if (p.has_lens) {
    if (in[kLens].dtype != DType::kInt32 && in[kLens].dtype != DType::kInt64) {
      return NodeError(node, std::string("input 4 (sequence_lens) must be int32 or int64, got ") +
                                 DTypeName(in[kLens].dtype));
    }
    MLF_RETURN_IF_ERROR(CheckShape(node, in[kLens], kLens, "sequence_lens", {p.batch}));
  }
  p.has_h0 = Has(in, kH0);
  if (p.has_h0) MLF_RETURN_IF_ERROR(CheckShape(node, in[kH0], kH0, "initial_h", state));
  if (lstm) {
    p.has_c0 = Has(in, kC0);
    if (p.has_c0) MLF_RETURN_IF_ERROR(CheckShape(node, in[kC0], kC0, "initial_c", state));
    p.has_p = Has(in, kP);
    if (p.has_p) MLF_RETURN_IF_ERROR(CheckShape(node, in[kP], kP, "P", {p.dirs, 3 * p.hidden}));
    MLF_ASSIGN_OR_RETURN(int64_t input_forget, node.Int("input_forget", 0));
    if (input_forget != 0) return NodeUnsupported(node, "input_forget=1 is not supported");
  }
  if (p.kind == Kind::kGru) {
    MLF_ASSIGN_OR_RETURN(int64_t lbr, node.Int("linear_before_reset", 0));
    p.linear_before_reset = lbr != 0;
  }
  if (node.HasAttr("clip")) {
    MLF_ASSIGN_OR_RETURN(p.clip, node.Float("clip", 0));
    if (!(p.clip > 0)) return NodeError(node, "clip " + std::to_string(p.clip) + " is not positive");
    p.has_clip = true;
  }

  const size_t per_dir = p.kind == Kind::kRnn ? 1 : p.kind == Kind::kGru ? 2 : 3;
  std::vector<std::string> names;
  if (node.HasAttr("activations")) {
    auto it = node.attrs.find("activations");
    const auto* list = std::get_if<std::vector<std::string>>(&it->second);
    if (list == nullptr) return NodeError(node, "attribute 'activations' must be a list of strings");
    names = *list;
    if (names.size() != per_dir * p.reverse.size()) {
      return NodeError(node, "attribute 'activations' has " + std::to_string(names.size()) + " names, expected " +
                                 std::to_string(per_dir * p.reverse.size()) + " (" + std::to_string(per_dir) +
                                 " per direction)");
    }
  } else {
    const std::vector<std::string> defaults =
        p.kind == Kind::kRnn ? std::vector<std::string>{"Tanh"}
        : p.kind == Kind::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                               : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (size_t d = 0; d < p.reverse.size(); ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  p.acts.resize(p.reverse.size());
  for (size_t d = 0; d < p.reverse.size(); ++d) {
    for (size_t k = 0; k < per_dir; ++k) {
      MLF_ASSIGN_OR_RETURN(Act a, ParseAct(node, names[d * per_dir + k]));
      p.acts[d].push_back(a);
    }
  }
  p.y = p.layout1 ? Shape{p.batch, p.seq, p.dirs, p.hidden} : Shape{p.seq, p.dirs, p.batch, p.hidden};
  p.state = state;
  return p;
}

Status RnnInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(RnnPlan p, PlanRnn(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.y);
  for (size_t j = 1; j < node.outputs.size(); ++j) SetOutput(node, graph, j, in[0].dtype, p.state);
  return Status::Ok();
}

// Flat indices of the tensors (see the layouts at the top of the file).
struct Index {
  const RnnPlan& p;
  int64_t X(int64_t t, int64_t b) const {
    return ((p.layout1 ? b * p.seq + t : t * p.batch + b)) * p.input;
  }
  int64_t Y(int64_t t, int64_t d, int64_t b) const {
    return (p.layout1 ? (b * p.seq + t) * p.dirs + d : (t * p.dirs + d) * p.batch + b) * p.hidden;
  }
  int64_t State(int64_t d, int64_t b) const {
    return (p.layout1 ? b * p.dirs + d : d * p.batch + b) * p.hidden;
  }
};

double Apply(Act a, double v) {
  switch (a) {
    case Act::kSigmoid: return 1 / (1 + std::exp(-v));
    case Act::kTanh: return std::tanh(v);
    case Act::kRelu: return v > 0 ? v : 0;
  }
  return v;
}

Status RnnEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(RnnPlan p, PlanRnn(node, TensorInputs(inputs)));
  const auto value = [&](size_t i, int64_t k) { return inputs[i]->GetDouble(static_cast<uint64_t>(k)); };
  const DType dtype = inputs[0]->dtype;
  ir::HostTensor y = ir::HostTensor::Zeros(dtype, p.y);
  ir::HostTensor yh = ir::HostTensor::Zeros(dtype, p.state), yc = ir::HostTensor::Zeros(dtype, p.state);
  const Index at{p};
  const int64_t hs = p.hidden, gh = p.gates * hs;
  const auto clip = [&](double v) { return p.has_clip ? std::clamp(v, -p.clip, p.clip) : v; };
  for (int64_t d = 0; d < p.dirs; ++d) {
    const std::vector<Act>& act = p.acts[static_cast<size_t>(d)];
    for (int64_t b = 0; b < p.batch; ++b) {
      std::vector<double> h(static_cast<size_t>(hs), 0.0), c(static_cast<size_t>(hs), 0.0);
      for (int64_t j = 0; j < hs; ++j) {
        if (p.has_h0) h[j] = value(kH0, at.State(d, b) + j);
        if (p.has_c0) c[j] = value(kC0, at.State(d, b) + j);
      }
      const int64_t len = p.has_lens ? static_cast<int64_t>(value(kLens, b)) : p.seq;
      for (int64_t s = 0; s < p.seq; ++s) {
        const int64_t t = p.reverse[static_cast<size_t>(d)] ? p.seq - 1 - s : s;
        if (t >= len) continue;
        // gx: Xt W^T + Wb; gr: H R^T + Rb (GRU without linear_before_reset:
        // the h gate's recurrent part comes later, from r * H).
        std::vector<double> gx(static_cast<size_t>(gh)), gr(static_cast<size_t>(gh));
        for (int64_t k = 0; k < gh; ++k) {
          double sx = p.has_b ? value(kB, d * 2 * gh + k) : 0, sr = p.has_b ? value(kB, d * 2 * gh + gh + k) : 0;
          for (int64_t i = 0; i < p.input; ++i) sx += value(kX, at.X(t, b) + i) * value(kW, (d * gh + k) * p.input + i);
          for (int64_t j = 0; j < hs; ++j) sr += h[j] * value(kR, (d * gh + k) * hs + j);
          gx[k] = sx;
          gr[k] = sr;
        }
        std::vector<double> next(static_cast<size_t>(hs));
        for (int64_t j = 0; j < hs; ++j) {
          if (p.kind == Kind::kRnn) {
            next[j] = Apply(act[0], clip(gx[j] + gr[j]));
          } else if (p.kind == Kind::kGru) {
            const double z = Apply(act[0], clip(gx[j] + gr[j]));
            const double r = Apply(act[0], clip(gx[hs + j] + gr[hs + j]));
            double rec;
            if (p.linear_before_reset) {
              rec = r * gr[2 * hs + j];
            } else {
              rec = p.has_b ? value(kB, d * 2 * gh + gh + 2 * hs + j) : 0;
              for (int64_t m = 0; m < hs; ++m) {
                const double rm = Apply(act[0], clip(gx[hs + m] + gr[hs + m]));
                rec += rm * h[m] * value(kR, (d * gh + 2 * hs + j) * hs + m);
              }
            }
            const double cand = Apply(act[1], clip(gx[2 * hs + j] + rec));
            next[j] = (1 - z) * cand + z * h[j];
          } else {
            const double pi = p.has_p ? value(kP, d * 3 * hs + j) : 0;
            const double po = p.has_p ? value(kP, d * 3 * hs + hs + j) : 0;
            const double pf = p.has_p ? value(kP, d * 3 * hs + 2 * hs + j) : 0;
            const double ig = Apply(act[0], clip(gx[j] + gr[j] + pi * c[j]));
            const double fg = Apply(act[0], clip(gx[2 * hs + j] + gr[2 * hs + j] + pf * c[j]));
            const double cand = Apply(act[1], clip(gx[3 * hs + j] + gr[3 * hs + j]));
            c[j] = fg * c[j] + ig * cand;
            const double og = Apply(act[0], clip(gx[hs + j] + gr[hs + j] + po * c[j]));
            next[j] = og * Apply(act[2], c[j]);
          }
        }
        h = next;
        for (int64_t j = 0; j < hs; ++j) y.SetDouble(static_cast<uint64_t>(at.Y(t, d, b) + j), h[j]);
      }
      for (int64_t j = 0; j < hs; ++j) {
        yh.SetDouble(static_cast<uint64_t>(at.State(d, b) + j), h[j]);
        yc.SetDouble(static_cast<uint64_t>(at.State(d, b) + j), c[j]);
      }
    }
  }
  outputs->clear();
  outputs->push_back(std::move(y));
  if (node.outputs.size() > 1) outputs->push_back(std::move(yh));
  if (node.outputs.size() > 2) outputs->push_back(std::move(yc));
  return Status::Ok();
}

// h, c (LSTM) [batch * hidden], gx, gr [G * hidden], rh [hidden] (GRU).
uint64_t RnnScratch(const ir::Node& node, const ir::Graph& graph) {
  Result<RnnPlan> p = PlanRnn(node, GraphInputs(node, graph));
  if (!p.ok() || p->batch * p->hidden == 0) return 0;
  const uint64_t elements = static_cast<uint64_t>(2 * p->batch * p->hidden + 2 * p->gates * p->hidden + p->hidden);
  return elements * DTypeSize(graph.value(node.inputs[0]).dtype);
}

std::string ActC(Act a, DType d, const std::string& v) {
  switch (a) {
    case Act::kSigmoid:
      return CLiteral(d, 1) + " / (" + CLiteral(d, 1) + " + " + MathFn(d, "exp") + "(-(" + v + ")))";
    case Act::kTanh: return MathFn(d, "tanh") + "(" + v + ")";
    case Act::kRelu: return "((" + v + ") > 0 ? (" + v + ") : 0)";
  }
  return v;
}

Status RnnEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(RnnPlan p, PlanRnn(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType dt = ctx.input(0).dtype;
  const std::string T = CType(dt);
  const int64_t hs = p.hidden, gh = p.gates * hs;
  const std::string H = Num(hs), GH = Num(gh), I = Num(p.input);
  const size_t outs = ctx.node.outputs.size();
  std::string& b = *body;
  const auto clip = [&](const std::string& v) {
    if (!p.has_clip) return v;
    const std::string c = CLiteral(dt, p.clip), m = CLiteral(dt, -p.clip);
    return "(" + v + " < " + m + " ? " + m + " : " + v + " > " + c + " ? " + c + " : " + v + ")";
  };
  // Y is 0 where a sequence is shorter (sequence_lens).
  if (p.has_lens && Elements(p.y) > 0) b += "  memset(out0, 0, sizeof(*out0) * " + Num(static_cast<int64_t>(Elements(p.y))) + ");\n";
  if (p.batch * hs > 0) {
    b += "  " + T + "* restrict h = (" + T + "*)scratch;\n";
    b += "  " + T + "* restrict c = h + " + Num(p.batch * hs) + ";\n";
    b += "  " + T + "* restrict gx = c + " + Num(p.batch * hs) + ";\n";
    b += "  " + T + "* restrict gr = gx + " + GH + ";\n";
    b += "  " + T + "* restrict rh = gr + " + GH + ";\n";
    if (p.kind != Kind::kGru || p.linear_before_reset) b += "  (void)rh;\n";
  }
  for (int64_t d = 0; d < p.dirs && p.batch * hs > 0; ++d) {
    const std::vector<Act>& act = p.acts[static_cast<size_t>(d)];
    const bool reverse = p.reverse[static_cast<size_t>(d)];
    const std::string D = Num(d);
    b += "  /* direction " + D + (reverse ? " (reverse)" : " (forward)") + " */\n";
    b += "  for (size_t b = 0; b < " + Num(p.batch) + "; ++b) {\n";
    b += "    " + T + "* restrict hb = h + b * " + H + ";\n";
    b += "    " + T + "* restrict cb = c + b * " + H + ";\n";
    const std::string state = p.layout1 ? "(b * " + Num(p.dirs) + " + " + D + ") * " + H
                                         : "(" + Num(d * p.batch) + " + b) * " + H;
    b += "    for (size_t j = 0; j < " + H + "; ++j) {\n";
    b += std::string("      hb[j] = ") + (p.has_h0 ? "in5[" + state + " + j]" : "0") + ";\n";
    b += std::string("      cb[j] = ") + (p.has_c0 ? "in6[" + state + " + j]" : "0") + ";\n";
    b += "    }\n";
    if (p.seq > 0) {
      b += "    for (size_t s = 0; s < " + Num(p.seq) + "; ++s) {\n";
      b += "      const size_t t = " + (reverse ? Num(p.seq - 1) + " - s" : std::string("s")) + ";\n";
      if (p.has_lens) b += "      if ((int64_t)t >= (int64_t)in4[b]) continue;\n";
      const std::string x = p.layout1 ? "in0 + (b * " + Num(p.seq) + " + t) * " + I : "in0 + (t * " + Num(p.batch) + " + b) * " + I;
      b += "      const " + T + "* restrict x = " + x + ";\n";
      b += "      for (size_t k = 0; k < " + GH + "; ++k) {\n";
      b += "        const " + T + "* restrict w = in1 + (" + Num(d * gh) + " + k) * " + I + ";\n";
      b += "        const " + T + "* restrict r = in2 + (" + Num(d * gh) + " + k) * " + H + ";\n";
      b += "        " + T + " sx = " + (p.has_b ? "in3[" + Num(d * 2 * gh) + " + k]" : "0") + ", sr = " +
           (p.has_b ? "in3[" + Num(d * 2 * gh + gh) + " + k]" : "0") + ";\n";
      b += "        for (size_t i = 0; i < " + I + "; ++i) sx += x[i] * w[i];\n";
      b += "        for (size_t j = 0; j < " + H + "; ++j) sr += hb[j] * r[j];\n";
      b += "        gx[k] = sx;\n        gr[k] = sr;\n      }\n";
      if (p.kind == Kind::kRnn) {
        b += "      for (size_t j = 0; j < " + H + "; ++j) hb[j] = " + ActC(act[0], dt, clip("(gx[j] + gr[j])")) + ";\n";
      } else if (p.kind == Kind::kGru) {
        // z into gx[0..H), r into gx[H..2H).
        b += "      for (size_t j = 0; j < " + Num(2 * hs) + "; ++j) gx[j] = " + ActC(act[0], dt, clip("(gx[j] + gr[j])")) + ";\n";
        if (!p.linear_before_reset) {
          b += "      for (size_t m = 0; m < " + H + "; ++m) rh[m] = gx[" + H + " + m] * hb[m];\n";
          b += "      for (size_t j = 0; j < " + H + "; ++j) {\n";
          b += "        const " + T + "* restrict r = in2 + (" + Num(d * gh + 2 * hs) + " + j) * " + H + ";\n";
          b += "        " + T + " sr = " + (p.has_b ? "in3[" + Num(d * 2 * gh + gh + 2 * hs) + " + j]" : "0") + ";\n";
          b += "        for (size_t m = 0; m < " + H + "; ++m) sr += rh[m] * r[m];\n";
          b += "        gr[" + Num(2 * hs) + " + j] = sr;\n      }\n";
        }
        const std::string rec = p.linear_before_reset ? "gx[" + H + " + j] * gr[" + Num(2 * hs) + " + j]"
                                                      : "gr[" + Num(2 * hs) + " + j]";
        b += "      for (size_t j = 0; j < " + H + "; ++j) {\n";
        b += "        const " + T + " cand = " + ActC(act[1], dt, clip("(gx[" + Num(2 * hs) + " + j] + " + rec + ")")) + ";\n";
        b += "        hb[j] = (" + CLiteral(dt, 1) + " - gx[j]) * cand + gx[j] * hb[j];\n      }\n";
      } else {
        const auto peep = [&](int64_t offset, const std::string& v) {
          return p.has_p ? " + in7[" + Num(d * 3 * hs + offset) + " + j] * " + v : std::string();
        };
        b += "      for (size_t j = 0; j < " + H + "; ++j) {\n";
        b += "        const " + T + " ig = " + ActC(act[0], dt, clip("(gx[j] + gr[j]" + peep(0, "cb[j]") + ")")) + ";\n";
        b += "        const " + T + " fg = " + ActC(act[0], dt, clip("(gx[" + Num(2 * hs) + " + j] + gr[" + Num(2 * hs) + " + j]" + peep(2 * hs, "cb[j]") + ")")) + ";\n";
        b += "        const " + T + " cand = " + ActC(act[1], dt, clip("(gx[" + Num(3 * hs) + " + j] + gr[" + Num(3 * hs) + " + j])")) + ";\n";
        b += "        cb[j] = fg * cb[j] + ig * cand;\n";
        b += "        const " + T + " og = " + ActC(act[0], dt, clip("(gx[" + H + " + j] + gr[" + H + " + j]" + peep(hs, "cb[j]") + ")")) + ";\n";
        b += "        hb[j] = og * " + ActC(act[2], dt, "cb[j]") + ";\n      }\n";
      }
      const std::string y = p.layout1 ? "out0 + ((b * " + Num(p.seq) + " + t) * " + Num(p.dirs) + " + " + D + ") * " + H
                                      : "out0 + ((t * " + Num(p.dirs) + " + " + D + ") * " + Num(p.batch) + " + b) * " + H;
      b += "      memcpy(" + y + ", hb, sizeof(*hb) * " + H + ");\n";
      b += "    }\n";
    }
    if (outs > 1) b += "    memcpy(out1 + " + state + ", hb, sizeof(*hb) * " + H + ");\n";
    if (outs > 2) b += "    memcpy(out2 + " + state + ", cb, sizeof(*cb) * " + H + ");\n";
    b += "  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterRnnOps(std::vector<OpDef>* table) {
  for (const char* name : {"RNN", "GRU", "LSTM"}) {
    table->push_back({name, RnnInfer, RnnEvaluate, RnnEmit, nullptr, RnnScratch});
  }
}

}  // namespace mlf::ops
