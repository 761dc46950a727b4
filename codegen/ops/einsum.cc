// Einsum (opset 12): the sum over every label not in the output of the
// product of the inputs' elements, e.g. "bij,bjk->bik" (batched matrix
// product), "ii->i" (diagonal), "ij->" (sum), "ij->ji" (transpose). One
// "..." per term stands for the dimensions the letters leave (broadcast
// across inputs, right-aligned as numpy does). Without "->" the output is
// the "..." dimensions then the letters used once, in alphabetical order.
// float32/float64; the sum is in the element type, in the order of the
// summed labels (row-major), in evaluate() (double) and the generated code
// alike.
//
// The generated code is the naive loop nest: one loop per output label, then
// one per summed label, each input read at its strides (0 for a broadcast
// dimension).
#include <algorithm>
#include <cctype>
#include <map>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

// Labels are letters, or '0' + k for the k-th "..." dimension.
struct EinsumPlan {
  std::vector<char> out_labels, sum_labels;
  std::map<char, int64_t> size;
  // Per input, per label of the loop nest (out then sum): its stride.
  std::vector<std::vector<int64_t>> strides;
  Shape out;
};

// One term's labels, with "..." expanded to `ellipsis` labels '0'.. (the
// last ones of the broadcast ellipsis dims).
Result<std::vector<char>> TermLabels(const ir::Node& node, const std::string& term, size_t ellipsis_total,
                                     size_t ellipsis_here) {
  std::vector<char> labels;
  bool seen = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.compare(i, 3, "...") == 0) {
      if (seen) return NodeError(node, "equation term '" + term + "' has \"...\" twice");
      seen = true;
      for (size_t k = ellipsis_total - ellipsis_here; k < ellipsis_total; ++k) labels.push_back(static_cast<char>('0' + k));
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
      labels.push_back(term[i]);
    } else if (term[i] != ' ') {
      return NodeError(node, std::string("equation term '") + term + "' has '" + term[i] + "' (letters and \"...\" only)");
    }
  }
  return labels;
}

size_t Letters(const std::string& term) {
  return static_cast<size_t>(std::count_if(term.begin(), term.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }));
}

Result<EinsumPlan> PlanEinsum(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, kNoMax));
  MLF_ASSIGN_OR_RETURN(std::string equation, node.String("equation", ""));
  for (size_t i = 0; i < in.size(); ++i) {
    if (!Has(in, i)) return NodeError(node, "input " + std::to_string(i) + " is required");
    MLF_RETURN_IF_ERROR(CheckDType(node, in[i].dtype, kFloatDTypes, "input " + std::to_string(i)));
    if (in[i].dtype != in[0].dtype) {
      return NodeError(node, "input " + std::to_string(i) + " has dtype " + DTypeName(in[i].dtype) + ", expected " +
                                 DTypeName(in[0].dtype) + " as input 0");
    }
  }
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != in.size()) {
    return NodeError(node, "equation '" + equation + "' has " + std::to_string(terms.size()) + " input terms for " +
                               std::to_string(in.size()) + " inputs");
  }
  // The "..." dimensions: how many each input has, and their broadcast sizes.
  std::vector<size_t> ellipsis(in.size(), 0);
  size_t ellipsis_total = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t letters = Letters(terms[i]), rank = in[i].shape.size();
    const bool has = terms[i].find("...") != std::string::npos;
    if (rank < letters || (!has && rank != letters)) {
      return NodeError(node, "equation term '" + terms[i] + "' does not fit input " + std::to_string(i) + " of shape " +
                                 FormatShape(in[i].shape));
    }
    ellipsis[i] = rank - letters;
    ellipsis_total = std::max(ellipsis_total, ellipsis[i]);
  }
  EinsumPlan p;
  std::vector<std::vector<char>> labels(in.size());
  std::map<char, int> count;
  for (size_t i = 0; i < in.size(); ++i) {
    MLF_ASSIGN_OR_RETURN(labels[i], TermLabels(node, terms[i], ellipsis_total, ellipsis[i]));
    for (size_t k = 0; k < labels[i].size(); ++k) {
      const char l = labels[i][k];
      const int64_t n = in[i].shape[k];
      ++count[l];
      auto it = p.size.find(l);
      if (it == p.size.end()) {
        p.size[l] = n;
      } else if (n != it->second) {
        const bool ellipsis_dim = l < 'A';  // these broadcast
        if (!ellipsis_dim || (n != 1 && it->second != 1)) {
          return NodeError(node, (ellipsis_dim ? std::string("\"...\" dimensions have") : std::string("label '") + l + "' has") +
                                     " sizes " + std::to_string(it->second) + " and " + std::to_string(n));
        }
        it->second = std::max(n, it->second);
      }
    }
  }
  if (arrow != std::string::npos) {
    MLF_ASSIGN_OR_RETURN(p.out_labels, TermLabels(node, equation.substr(arrow + 2), ellipsis_total, ellipsis_total));
    for (char l : p.out_labels) {
      if (!p.size.count(l)) return NodeError(node, std::string("output label '") + l + "' is in no input");
      if (std::count(p.out_labels.begin(), p.out_labels.end(), l) > 1) {
        return NodeError(node, std::string("output label '") + l + "' appears twice");
      }
    }
  } else {
    for (size_t k = 0; k < ellipsis_total; ++k) p.out_labels.push_back(static_cast<char>('0' + k));
    for (const auto& [l, n] : count) {
      if (l >= 'A' && n == 1) p.out_labels.push_back(l);
    }
  }
  for (const auto& [l, n] : p.size) {
    if (std::find(p.out_labels.begin(), p.out_labels.end(), l) == p.out_labels.end()) p.sum_labels.push_back(l);
  }
  for (char l : p.out_labels) p.out.push_back(p.size[l]);
  for (size_t i = 0; i < in.size(); ++i) {
    const Shape strides = Strides(in[i].shape);
    std::vector<int64_t> s;
    for (const std::vector<char>* loop : {&p.out_labels, &p.sum_labels}) {
      for (char l : *loop) {
        int64_t stride = 0;  // absent or broadcast: 0
        for (size_t k = 0; k < labels[i].size(); ++k) {
          if (labels[i][k] == l && in[i].shape[k] != 1) stride += strides[k];
        }
        s.push_back(stride);
      }
    }
    p.strides.push_back(s);
  }
  return p;
}

Status EinsumInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(EinsumPlan p, PlanEinsum(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status EinsumEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                      std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(EinsumPlan p, PlanEinsum(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(inputs[0]->dtype, p.out);
  Shape sums;
  for (char l : p.sum_labels) sums.push_back(p.size[l]);
  const uint64_t sum_count = Elements(sums);
  const size_t n_out = p.out_labels.size();
  for (uint64_t o = 0; o < y.element_count(); ++o) {
    const Shape oi = Unravel(o, p.out);
    double acc = 0;
    for (uint64_t s = 0; s < sum_count; ++s) {
      const Shape si = Unravel(s, sums);
      double product = 1;
      for (size_t i = 0; i < inputs.size(); ++i) {
        int64_t offset = 0;
        for (size_t k = 0; k < n_out; ++k) offset += oi[k] * p.strides[i][k];
        for (size_t k = 0; k < si.size(); ++k) offset += si[k] * p.strides[i][n_out + k];
        product *= inputs[i]->GetDouble(static_cast<uint64_t>(offset));
      }
      acc += product;
    }
    y.SetDouble(o, acc);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status EinsumEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(EinsumPlan p, PlanEinsum(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  const std::string t = CType(ctx.input(0).dtype);
  if (Elements(p.out) > 0) {
    std::vector<char> loops = p.out_labels;
    loops.insert(loops.end(), p.sum_labels.begin(), p.sum_labels.end());
    std::string ind = "  ";
    s += ind + "size_t o = 0;\n";
    for (size_t k = 0; k < p.out_labels.size(); ++k) {
      s += ind + "for (size_t l" + std::to_string(k) + " = 0; l" + std::to_string(k) + " < " + Num(p.size[loops[k]]) +
           "; ++l" + std::to_string(k) + ") {\n";
      ind += "  ";
    }
    s += ind + t + " acc = 0;\n";
    const std::string out_ind = ind;
    Shape sums;
    for (char l : p.sum_labels) sums.push_back(p.size[l]);
    // No summed element: acc stays 0 (and no loop compares against 0).
    if (Elements(sums) == 0) loops.resize(p.out_labels.size());
    for (size_t k = p.out_labels.size(); k < loops.size(); ++k) {
      s += ind + "for (size_t l" + std::to_string(k) + " = 0; l" + std::to_string(k) + " < " + Num(p.size[loops[k]]) +
           "; ++l" + std::to_string(k) + ") {\n";
      ind += "  ";
    }
    std::string product;
    for (size_t i = 0; i < p.strides.size(); ++i) {
      Terms terms;
      for (size_t k = 0; k < loops.size(); ++k) {
        if (p.strides[i][k] != 0) terms.push_back({"l" + std::to_string(k), p.strides[i][k]});
      }
      product += (i == 0 ? "" : " * ") + ctx.In(i) + "[" + IndexExpr(0, terms) + "]";
    }
    if (Elements(sums) > 0) s += ind + "acc += " + product + ";\n";
    for (size_t k = p.out_labels.size(); k < loops.size(); ++k) {
      ind.resize(ind.size() - 2);
      s += ind + "}\n";
    }
    s += out_ind + "out0[o++] = acc;\n";
    for (size_t k = 0; k < p.out_labels.size(); ++k) {
      ind.resize(ind.size() - 2);
      s += ind + "}\n";
    }
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterEinsumOps(std::vector<OpDef>* table) {
  table->push_back({"Einsum", EinsumInfer, EinsumEvaluate, EinsumEmit});
}

}  // namespace mlf::ops
