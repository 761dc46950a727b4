// TfIdfVectorizer (opset 9) on int32/int64 tokens: input [C] or [N, C]
// (each row one sequence), output float32 [max(ngram_indexes) + 1] or
// [N, max(ngram_indexes) + 1]: for each n-gram of the pool (pool_int64s;
// ngram_counts[n - 1] is where the n-grams start in it; the grams are
// numbered in pool order and ngram_indexes maps gram k to its output
// column), how often it occurs in the row, counting the n-grams of length
// min_gram_length..max_gram_length whose tokens are skip + 1 apart for
// every skip in 0..max_skip_count (unigrams once). mode TF gives the count,
// IDF weights[k] when the count is not 0 (else 0), TFIDF count * weights[k]
// (weights default to 1). Columns no gram maps to are 0. String pools
// (pool_strings) are refused.
//
// The pool and the shape come from attributes, so everything is known at
// export: the generated code holds the pool in static tables.
#include <algorithm>
#include <string>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class TfMode { kTf, kIdf, kTfIdf };

struct Gram {
  int64_t n;       // tokens
  int64_t offset;  // first token in the pool
  int64_t column;  // output column
  double weight;
};

struct TfIdfPlan {
  TfMode mode = TfMode::kTf;
  int64_t rows = 1, length = 0, columns = 0, max_skip = 0;
  std::vector<int64_t> pool;
  std::vector<Gram> grams;  // the counted ones (min..max_gram_length)
  Shape out;
};

Result<TfIdfPlan> PlanTfIdf(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const InputInfo& x = in[0];
  if (x.dtype != DType::kInt32 && x.dtype != DType::kInt64) {
    return NodeUnsupported(node, std::string("input X has dtype ") + DTypeName(x.dtype) +
                                     "; supported: int32, int64 (string inputs are not supported)");
  }
  if (x.shape.size() != 1 && x.shape.size() != 2) {
    return NodeError(node, "input X must be [C] or [N, C], got shape " + FormatShape(x.shape));
  }
  if (node.HasAttr("pool_strings")) return NodeUnsupported(node, "attribute 'pool_strings' (a string pool) is not supported");
  TfIdfPlan p;
  p.rows = x.shape.size() == 2 ? x.shape[0] : 1;
  p.length = x.shape.back();
  MLF_ASSIGN_OR_RETURN(std::string mode, node.String("mode", ""));
  if (mode == "TF") {
    p.mode = TfMode::kTf;
  } else if (mode == "IDF") {
    p.mode = TfMode::kIdf;
  } else if (mode == "TFIDF") {
    p.mode = TfMode::kTfIdf;
  } else {
    return NodeError(node, "attribute 'mode' is '" + mode + "' (TF, IDF or TFIDF)");
  }
  MLF_ASSIGN_OR_RETURN(int64_t min_n, node.Int("min_gram_length", 0));
  MLF_ASSIGN_OR_RETURN(int64_t max_n, node.Int("max_gram_length", 0));
  MLF_ASSIGN_OR_RETURN(p.max_skip, node.Int("max_skip_count", 0));
  if (min_n < 1 || max_n < min_n) {
    return NodeError(node, "min_gram_length " + Num(min_n) + " and max_gram_length " + Num(max_n) +
                               " are invalid (1 <= min <= max)");
  }
  if (p.max_skip < 0) return NodeError(node, "attribute 'max_skip_count' is " + Num(p.max_skip) + ", expected 0 or more");
  MLF_ASSIGN_OR_RETURN(p.pool, node.Ints("pool_int64s", {}));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> counts, node.Ints("ngram_counts", {}));
  MLF_ASSIGN_OR_RETURN(std::vector<int64_t> indexes, node.Ints("ngram_indexes", {}));
  std::vector<double> weights;
  if (node.HasAttr("weights")) {
    MLF_ASSIGN_OR_RETURN(weights, node.Floats("weights", {}));
  }
  const int64_t pool_size = static_cast<int64_t>(p.pool.size());
  int64_t id = 0;
  for (size_t level = 0; level < counts.size(); ++level) {
    const int64_t n = static_cast<int64_t>(level) + 1;
    const int64_t begin = counts[level], end = level + 1 < counts.size() ? counts[level + 1] : pool_size;
    if (begin < 0 || end < begin || end > pool_size || (end - begin) % n != 0) {
      return NodeError(node, "attribute 'ngram_counts' " + FormatShape(counts) + " does not divide the " +
                                 Num(pool_size) + " pool entries into whole " + Num(n) + "-grams");
    }
    for (int64_t at = begin; at < end; at += n, ++id) {
      if (id >= static_cast<int64_t>(indexes.size())) {
        return NodeError(node, "attribute 'ngram_indexes' has " + Num(static_cast<int64_t>(indexes.size())) +
                                   " entries, fewer than the pool's n-grams");
      }
      const int64_t column = indexes[static_cast<size_t>(id)];
      if (column < 0) return NodeError(node, "attribute 'ngram_indexes' holds " + Num(column) + ", expected 0 or more");
      p.columns = std::max(p.columns, column + 1);
      if (!weights.empty() && id >= static_cast<int64_t>(weights.size())) {
        return NodeError(node, "attribute 'weights' has " + Num(static_cast<int64_t>(weights.size())) +
                                   " entries, fewer than the pool's n-grams");
      }
      if (n >= min_n && n <= max_n) {
        p.grams.push_back({n, at, column, weights.empty() ? 1.0 : weights[static_cast<size_t>(id)]});
      }
    }
  }
  for (int64_t column : indexes) p.columns = std::max(p.columns, column + 1);
  p.out = x.shape.size() == 2 ? Shape{p.rows, p.columns} : Shape{p.columns};
  return p;
}

Status TfIdfInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(TfIdfPlan p, PlanTfIdf(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, DType::kFloat32, p.out);
  return Status::Ok();
}

// The value of a column from a gram's count.
float Score(const TfIdfPlan& p, const Gram& g, int64_t count) {
  switch (p.mode) {
    case TfMode::kTf: return static_cast<float>(count);
    case TfMode::kIdf: return count > 0 ? static_cast<float>(g.weight) : 0.0f;
    default: return static_cast<float>(count) * static_cast<float>(g.weight);
  }
}

Status TfIdfEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(TfIdfPlan p, PlanTfIdf(node, TensorInputs(inputs)));
  const std::vector<int64_t> x = inputs[0]->ToInts();
  ir::HostTensor y = ir::HostTensor::Zeros(DType::kFloat32, p.out);
  for (int64_t r = 0; r < p.rows; ++r) {
    const int64_t* row = x.data() + r * p.length;
    for (const Gram& g : p.grams) {
      int64_t count = 0;
      for (int64_t skip = 0; skip <= (g.n == 1 ? 0 : p.max_skip); ++skip) {
        const int64_t span = (g.n - 1) * (skip + 1);
        for (int64_t i = 0; i + span < p.length; ++i) {
          bool match = true;
          for (int64_t t = 0; t < g.n && match; ++t) match = row[i + t * (skip + 1)] == p.pool[static_cast<size_t>(g.offset + t)];
          count += match ? 1 : 0;
        }
      }
      y.data<float>()[r * p.columns + g.column] = Score(p, g, count);
    }
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status TfIdfEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(TfIdfPlan p, PlanTfIdf(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  std::string& s = *body;
  if (p.rows * p.columns > 0) {
    s += "  memset(out0, 0, sizeof(*out0) * " + Num(p.rows * p.columns) + ");\n";
  }
  if (p.rows * p.columns > 0 && !p.grams.empty()) {
    std::vector<int64_t> n, offset, column;
    std::vector<double> weight;
    for (const Gram& g : p.grams) {
      n.push_back(g.n), offset.push_back(g.offset), column.push_back(g.column), weight.push_back(g.weight);
    }
    const std::string t = CType(ctx.input(0).dtype);
    s += "  static const " + t + " pool[" + Num(static_cast<int64_t>(p.pool.size())) + "] = {";
    for (size_t i = 0; i < p.pool.size(); ++i) {
      s += (i ? ", " : "") + (ctx.input(0).dtype == DType::kInt64 ? "INT64_C(" + Num(p.pool[i]) + ")" : Num(p.pool[i]));
    }
    s += "};\n";
    s += StaticTable("  ", "int64_t", "gram_n", n);
    s += StaticTable("  ", "int64_t", "gram_offset", offset);
    s += StaticTable("  ", "int64_t", "gram_column", column);
    if (p.mode != TfMode::kTf) s += StaticFloatTable("  ", DType::kFloat32, "gram_weight", weight);
    const int64_t grams = static_cast<int64_t>(p.grams.size());
    s += "  for (size_t r = 0; r < " + Num(p.rows) + "; ++r) {\n";
    s += "    const " + t + "* row = in0 + r * " + Num(p.length) + ";\n";
    s += "    for (size_t g = 0; g < " + Num(grams) + "; ++g) {\n";
    s += "      int64_t count = 0;\n";
    s += "      const int64_t skips = gram_n[g] == 1 ? 0 : " + Num(p.max_skip) + ";\n";
    s += "      for (int64_t skip = 0; skip <= skips; ++skip) {\n";
    s += "        const int64_t span = (gram_n[g] - 1) * (skip + 1);\n";
    s += "        for (int64_t i = 0; i + span < " + Num(p.length) + "; ++i) {\n";
    s += "          int match = 1;\n";
    s += "          for (int64_t k = 0; k < gram_n[g] && match; ++k) match = row[i + k * (skip + 1)] == pool[gram_offset[g] + k];\n";
    s += "          count += match;\n";
    s += "        }\n      }\n";
    std::string value;
    switch (p.mode) {
      case TfMode::kTf: value = "(float)count"; break;
      case TfMode::kIdf: value = "count > 0 ? gram_weight[g] : 0.0f"; break;
      default: value = "(float)count * gram_weight[g]"; break;
    }
    s += "      out0[r * " + Num(p.columns) + " + (size_t)gram_column[g]] = " + value + ";\n";
    s += "    }\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterTfIdfOps(std::vector<OpDef>* table) {
  table->push_back({"TfIdfVectorizer", TfIdfInfer, TfIdfEvaluate, TfIdfEmit});
}

}  // namespace mlf::ops
