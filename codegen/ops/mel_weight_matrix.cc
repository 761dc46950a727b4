// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins] matrix
// of triangular filters that maps a one-sided DFT magnitude spectrum to mel
// bands. Every input must be a constant: num_mel_bins and dft_length fix the
// output's shape, and the values depend on nothing else, so they are
// computed here and the generated code copies them from a static table.
//
// ONNX's definition: num_mel_bins + 2 points equally spaced on the mel scale
// (mel = 2595 log10(1 + hz / 700)) from lower_edge_hertz, with a step of
// (mel(upper) - mel(lower)) / (num_mel_bins + 2); each back in hertz and to
// the spectrogram bin floor((dft_length + 1) hz / sample_rate). Filter i
// rises linearly from bin b[i] (0) to b[i+1] (1) and falls to b[i+2]; a
// filter whose rising edge is empty is 1 at its centre.
#include <cmath>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

// Above this many elements the table is not worth compiling in.
constexpr uint64_t kMaxElements = uint64_t{1} << 24;

struct MelPlan {
  DType dtype = DType::kFloat32;
  int64_t bins = 0;    // spectrogram bins: dft_length / 2 + 1 (rows)
  int64_t filters = 0; // num_mel_bins (columns)
  std::vector<int64_t> edges;  // num_mel_bins + 2 spectrogram bins
};

Result<double> ScalarInput(const ir::Node& node, const std::vector<InputInfo>& in, size_t i,
                           const std::string& what, bool integer) {
  MLF_ASSIGN_OR_RETURN(const InputInfo* x, RequiredInput(node, in, i, what));
  const bool ok_type = integer ? (x->dtype == DType::kInt32 || x->dtype == DType::kInt64)
                               : (x->dtype == DType::kFloat32 || x->dtype == DType::kFloat64);
  if (!ok_type) {
    return NodeError(node, what + " must be " + (integer ? "int32 or int64" : "float32 or float64") +
                               ", got " + DTypeName(x->dtype));
  }
  if (x->data == nullptr) return NodeError(node, what + " must be a constant");
  if (Elements(x->shape) != 1) {
    return NodeError(node, what + " must hold one value, got shape " + FormatShape(x->shape));
  }
  return x->data->GetDouble(0);
}

Result<MelPlan> PlanMel(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 5, 5));
  MLF_ASSIGN_OR_RETURN(double mel_bins, ScalarInput(node, in, 0, "input 0 (num_mel_bins)", true));
  MLF_ASSIGN_OR_RETURN(double dft_length, ScalarInput(node, in, 1, "input 1 (dft_length)", true));
  MLF_ASSIGN_OR_RETURN(double rate, ScalarInput(node, in, 2, "input 2 (sample_rate)", true));
  MLF_ASSIGN_OR_RETURN(double lower, ScalarInput(node, in, 3, "input 3 (lower_edge_hertz)", false));
  MLF_ASSIGN_OR_RETURN(double upper, ScalarInput(node, in, 4, "input 4 (upper_edge_hertz)", false));
  if (mel_bins < 1 || dft_length < 1 || rate < 1) {
    return NodeError(node, "num_mel_bins, dft_length and sample_rate must be 1 or more, got " +
                               Num(static_cast<int64_t>(mel_bins)) + ", " +
                               Num(static_cast<int64_t>(dft_length)) + ", " +
                               Num(static_cast<int64_t>(rate)));
  }
  if (!(lower >= 0) || !(upper > lower)) {
    return NodeError(node, "the band must satisfy 0 <= lower_edge_hertz < upper_edge_hertz");
  }
  MelPlan p;
  p.bins = static_cast<int64_t>(dft_length) / 2 + 1;
  p.filters = static_cast<int64_t>(mel_bins);
  if (static_cast<double>(p.bins) * static_cast<double>(p.filters) > static_cast<double>(kMaxElements)) {
    return NodeUnsupported(node, "the matrix would have more than " + Num(kMaxElements) + " elements");
  }
  MLF_ASSIGN_OR_RETURN(int64_t type, node.Int("output_datatype", 1));
  if (type != 1 && type != 11) {
    return NodeUnsupported(node, "output_datatype " + Num(type) +
                                     " is not supported (1: float32, 11: float64)");
  }
  p.dtype = type == 1 ? DType::kFloat32 : DType::kFloat64;
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double step = (mel(upper) - mel(lower)) / (mel_bins + 2);
  for (int64_t k = 0; k < p.filters + 2; ++k) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(k) * step + mel(lower)) / 2595) - 1);
    p.edges.push_back(static_cast<int64_t>(std::floor((dft_length + 1) * hz / rate)));
  }
  // Each filter's centre is a row; the falling edge may end one past the last.
  if (p.edges[static_cast<size_t>(p.filters)] >= p.bins || p.edges.back() > p.bins) {
    return NodeError(node, "upper_edge_hertz " + std::to_string(upper) +
                               " lies above the spectrum's last bin (sample_rate / 2 for "
                               "dft_length " + Num(static_cast<int64_t>(dft_length)) + ")");
  }
  return p;
}

// The matrix, row-major [bins, filters].
std::vector<double> Matrix(const MelPlan& p) {
  std::vector<double> m(static_cast<size_t>(p.bins * p.filters), 0.0);
  auto at = [&](int64_t row, int64_t col) -> double& {
    return m[static_cast<size_t>(row * p.filters + col)];
  };
  for (int64_t i = 0; i < p.filters; ++i) {
    const int64_t low = p.edges[static_cast<size_t>(i)];
    const int64_t centre = p.edges[static_cast<size_t>(i + 1)];
    const int64_t high = p.edges[static_cast<size_t>(i + 2)];
    if (centre == low) {
      at(centre, i) = 1;
    } else {
      for (int64_t j = low; j <= centre; ++j) {
        at(j, i) = static_cast<double>(j - low) / static_cast<double>(centre - low);
      }
    }
    for (int64_t j = centre; j < high; ++j) {
      at(j, i) = static_cast<double>(high - j) / static_cast<double>(high - centre);
    }
  }
  return m;
}

Status MelInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(MelPlan p, PlanMel(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.dtype, {p.bins, p.filters});
  return Status::Ok();
}

Status MelEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(MelPlan p, PlanMel(node, TensorInputs(inputs)));
  const std::vector<double> m = Matrix(p);
  ir::HostTensor y = ir::HostTensor::Zeros(p.dtype, {p.bins, p.filters});
  for (size_t k = 0; k < m.size(); ++k) y.SetDouble(k, m[k]);
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status MelEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(MelPlan p, PlanMel(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  *body += StaticFloatTable("  ", p.dtype, "mel", Matrix(p));
  *body += "  memcpy(out0, mel, sizeof(mel));\n";
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterMelWeightMatrixOps(std::vector<OpDef>* table) {
  table->push_back({"MelWeightMatrix", MelInfer, MelEvaluate, MelEmit});
}

}  // namespace mlf::ops
