// Det (opset 11): the determinants of the [M, M] matrices in the last two
// axes of X (float32/float64), output X.shape[:-2]. Gaussian elimination
// with partial pivoting (the largest magnitude in the column; a zero column
// gives 0) on a copy of each matrix, in the element type; evaluate() does the
// same in double. An empty matrix (M = 0) has determinant 1.
#include <cmath>
#include <utility>

#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

struct DetPlan {
  int64_t count = 0, m = 0;
  Shape out;
};

Result<DetPlan> PlanDet(const ir::Node& node, const std::vector<InputInfo>& in) {
  MLF_RETURN_IF_ERROR(CheckArity(node, 1, 1));
  const InputInfo& x = in[0];
  MLF_RETURN_IF_ERROR(CheckDType(node, x.dtype, kFloatDTypes, "input 0 (X)"));
  const size_t r = x.shape.size();
  if (r < 2 || x.shape[r - 1] != x.shape[r - 2]) {
    return NodeError(node, "input 0 (X) must end in a square matrix [..., M, M], got shape " + FormatShape(x.shape));
  }
  DetPlan p;
  p.m = x.shape[r - 1];
  p.out.assign(x.shape.begin(), x.shape.end() - 2);
  p.count = Product(p.out, 0, p.out.size());
  return p;
}

Status DetInfer(const ir::Node& node, ir::Graph& graph) {
  const std::vector<InputInfo> in = GraphInputs(node, graph);
  MLF_ASSIGN_OR_RETURN(DetPlan p, PlanDet(node, in));
  SetOutput(node, graph, 0, in[0].dtype, p.out);
  return Status::Ok();
}

Status DetEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                   std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(DetPlan p, PlanDet(node, TensorInputs(inputs)));
  const ir::HostTensor& x = *inputs[0];
  ir::HostTensor y = ir::HostTensor::Zeros(x.dtype, p.out);
  const size_t m = static_cast<size_t>(p.m);
  for (int64_t k = 0; k < p.count; ++k) {
    std::vector<double> a(m * m);
    for (size_t i = 0; i < m * m; ++i) a[i] = x.GetDouble(static_cast<uint64_t>(k) * m * m + i);
    double det = 1;
    for (size_t c = 0; c < m; ++c) {
      size_t pivot = c;
      for (size_t r = c + 1; r < m; ++r) {
        if (std::fabs(a[r * m + c]) > std::fabs(a[pivot * m + c])) pivot = r;
      }
      if (a[pivot * m + c] == 0) {
        det = 0;
        break;
      }
      if (pivot != c) {
        for (size_t j = 0; j < m; ++j) std::swap(a[c * m + j], a[pivot * m + j]);
        det = -det;
      }
      det *= a[c * m + c];
      for (size_t r = c + 1; r < m; ++r) {
        const double f = a[r * m + c] / a[c * m + c];
        for (size_t j = c; j < m; ++j) a[r * m + j] -= f * a[c * m + j];
      }
    }
    y.SetDouble(static_cast<uint64_t>(k), det);
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

// A copy of one matrix.
uint64_t DetScratch(const ir::Node& node, const ir::Graph& graph) {
  Result<DetPlan> p = PlanDet(node, GraphInputs(node, graph));
  if (!p.ok() || p->count == 0 || p->m == 0) return 0;
  return static_cast<uint64_t>(p->m * p->m) * DTypeSize(graph.value(node.inputs[0]).dtype);
}

Status DetEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(DetPlan p, PlanDet(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  const DType d = ctx.input(0).dtype;
  const std::string t = CType(d), m = Num(p.m), mm = Num(p.m * p.m), fabs = MathFn(d, "fabs");
  std::string& s = *body;
  if (p.count > 0 && p.m == 0) {
    s += "  for (size_t k = 0; k < " + Num(p.count) + "; ++k) out0[k] = 1;\n";
  } else if (p.count > 0) {
    s += "  " + t + "* restrict a = (" + t + "*)scratch;\n";
    s += "  for (size_t k = 0; k < " + Num(p.count) + "; ++k) {\n";
    s += "    memcpy(a, in0 + k * " + mm + ", sizeof(*a) * " + mm + ");\n";
    s += "    " + t + " det = 1;\n";
    s += "    for (size_t c = 0; c < " + m + "; ++c) {\n";
    s += "      size_t pivot = c;\n";
    s += "      for (size_t r = c + 1; r < " + m + "; ++r) {\n";
    s += "        if (" + fabs + "(a[r * " + m + " + c]) > " + fabs + "(a[pivot * " + m + " + c])) pivot = r;\n      }\n";
    s += "      if (a[pivot * " + m + " + c] == 0) {\n        det = 0;\n        break;\n      }\n";
    s += "      if (pivot != c) {\n";
    s += "        for (size_t j = 0; j < " + m + "; ++j) {\n";
    s += "          const " + t + " v = a[c * " + m + " + j];\n";
    s += "          a[c * " + m + " + j] = a[pivot * " + m + " + j];\n";
    s += "          a[pivot * " + m + " + j] = v;\n        }\n";
    s += "        det = -det;\n      }\n";
    s += "      det *= a[c * " + m + " + c];\n";
    s += "      for (size_t r = c + 1; r < " + m + "; ++r) {\n";
    s += "        const " + t + " f = a[r * " + m + " + c] / a[c * " + m + " + c];\n";
    s += "        for (size_t j = c; j < " + m + "; ++j) a[r * " + m + " + j] -= f * a[c * " + m + " + j];\n";
    s += "      }\n    }\n";
    s += "    out0[k] = det;\n  }\n";
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterDetOps(std::vector<OpDef>* table) {
  table->push_back({"Det", DetInfer, DetEvaluate, DetEmit, nullptr, DetScratch});
}

}  // namespace mlf::ops
