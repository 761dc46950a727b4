// Comparison, logic and selection with multidirectional (numpy) broadcasting:
// Equal, Less, Greater, LessOrEqual, GreaterOrEqual (two inputs of one
// numeric dtype, or bool for Equal; bool output), And, Or, Xor (bool), and
// Where (a bool condition choosing between X and Y of any one dtype, all three
// broadcast together).
//
// Semantics (the same in evaluate() and the generated C): comparisons are
// C's, so any comparison with NaN is false (Equal(NaN, NaN) too) and -0
// equals +0; a bool input byte counts as true when it is not 0, and bool
// outputs are 0 or 1.
//
// The shape of gather.cc: PlanCompare checks the node once for infer,
// evaluate and emit; each operator's element is written as C++ (Compare*) and
// as C (CompareC) side by side.
#include <cstring>
#include <type_traits>

#include "codegen/ops/broadcast.h"
#include "codegen/ops/op.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops {
namespace {

using Shape = std::vector<int64_t>;

enum class Cmp { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual, kAnd, kOr, kXor, kWhere };

struct CompareSpec {
  const char* name;
  Cmp op;
};

const CompareSpec kCompare[] = {
    {"Equal", Cmp::kEqual},
    {"Less", Cmp::kLess},
    {"Greater", Cmp::kGreater},
    {"LessOrEqual", Cmp::kLessOrEqual},
    {"GreaterOrEqual", Cmp::kGreaterOrEqual},
    {"And", Cmp::kAnd},
    {"Or", Cmp::kOr},
    {"Xor", Cmp::kXor},
    {"Where", Cmp::kWhere},
};

bool IsLogic(Cmp op) { return op == Cmp::kAnd || op == Cmp::kOr || op == Cmp::kXor; }

struct ComparePlan {
  Cmp op = Cmp::kEqual;
  DType in = DType::kFloat32;   // of the compared inputs (Where: of X and Y)
  DType out = DType::kBool;     // bool, or Where's X dtype
  BroadcastPlan shape;          // operand 0 the output, k + 1 input k
};

Result<ComparePlan> PlanCompare(const ir::Node& node, const std::vector<InputInfo>& in) {
  ComparePlan p;
  const CompareSpec* spec = nullptr;
  for (const CompareSpec& s : kCompare) {
    if (node.op == s.name) spec = &s;
  }
  if (spec == nullptr) return Internal(node.Describe() + ": not a comparison operator");
  p.op = spec->op;
  if (p.op == Cmp::kWhere) {
    MLF_RETURN_IF_ERROR(CheckArity(node, 3, 3));
    MLF_ASSIGN_OR_RETURN(const InputInfo* x, RequiredInput(node, in, 1, "X"));
    MLF_ASSIGN_OR_RETURN(const InputInfo* y, RequiredInput(node, in, 2, "Y"));
    if (in[0].dtype != DType::kBool) {
      return NodeError(node, std::string("input 0 (condition) must be bool, got ") + DTypeName(in[0].dtype));
    }
    if (x->dtype != y->dtype) {
      return NodeError(node, std::string("inputs X and Y have different dtypes (") + DTypeName(x->dtype) + " and " +
                                 DTypeName(y->dtype) + ")");
    }
    p.in = p.out = x->dtype;
  } else {
    MLF_RETURN_IF_ERROR(CheckArity(node, 2, 2));
    MLF_ASSIGN_OR_RETURN(const InputInfo* b, RequiredInput(node, in, 1, "B"));
    if (in[0].dtype != b->dtype) {
      return NodeError(node, std::string("inputs A and B have different dtypes (") + DTypeName(in[0].dtype) +
                                 " and " + DTypeName(b->dtype) + ")");
    }
    p.in = in[0].dtype;
    if (IsLogic(p.op)) {
      MLF_RETURN_IF_ERROR(CheckDType(node, p.in, {DType::kBool}, "input A"));
    } else if (p.op == Cmp::kEqual) {
      std::vector<DType> allowed = kNumericDTypes;
      allowed.push_back(DType::kBool);
      MLF_RETURN_IF_ERROR(CheckDType(node, p.in, allowed, "input A"));
    } else {
      MLF_RETURN_IF_ERROR(CheckDType(node, p.in, kNumericDTypes, "input A"));
    }
  }
  std::vector<Shape> shapes;
  for (const InputInfo& i : in) shapes.push_back(i.shape);
  Result<BroadcastPlan> shape = PlanBroadcast(shapes);
  if (!shape.ok()) return NodeError(node, shape.status().message());
  p.shape = std::move(*shape);
  return p;
}

// One comparison of a and b (numeric X).
template <typename X>
bool CompareValues(Cmp op, X a, X b) {
  switch (op) {
    case Cmp::kEqual: return a == b;
    case Cmp::kLess: return a < b;
    case Cmp::kGreater: return a > b;
    case Cmp::kLessOrEqual: return a <= b;
    default: return a >= b;
  }
}

// One element of a logic operator or a bool Equal (bytes read as truth).
bool CompareBools(Cmp op, uint8_t a, uint8_t b) {
  const bool x = a != 0, y = b != 0;
  switch (op) {
    case Cmp::kAnd: return x && y;
    case Cmp::kOr: return x || y;
    default: return x != y;  // Xor; Equal negates it
  }
}

// The C expression of one element of out0 from `a` and `b` (the comparisons
// and logic operators) as the same expressions as above.
std::string CompareC(const ComparePlan& p) {
  if (p.in == DType::kBool) {
    switch (p.op) {
      case Cmp::kAnd: return "(uint8_t)(a != 0 && b != 0)";
      case Cmp::kOr: return "(uint8_t)(a != 0 || b != 0)";
      case Cmp::kXor: return "(uint8_t)((a != 0) != (b != 0))";
      default: return "(uint8_t)((a != 0) == (b != 0))";  // Equal
    }
  }
  switch (p.op) {
    case Cmp::kEqual: return "(uint8_t)(a == b)";
    case Cmp::kLess: return "(uint8_t)(a < b)";
    case Cmp::kGreater: return "(uint8_t)(a > b)";
    case Cmp::kLessOrEqual: return "(uint8_t)(a <= b)";
    default: return "(uint8_t)(a >= b)";
  }
}

Status CompareInfer(const ir::Node& node, ir::Graph& graph) {
  MLF_ASSIGN_OR_RETURN(ComparePlan p, PlanCompare(node, GraphInputs(node, graph)));
  SetOutput(node, graph, 0, p.out, p.shape.out);
  return Status::Ok();
}

Status CompareEvaluate(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                       std::vector<ir::HostTensor>* outputs) {
  MLF_ASSIGN_OR_RETURN(ComparePlan p, PlanCompare(node, TensorInputs(inputs)));
  ir::HostTensor y = ir::HostTensor::Zeros(p.out, p.shape.out);
  const std::vector<std::vector<uint64_t>> at = p.shape.nest.Offsets();
  const size_t n = Elements(p.shape.out) == 0 ? 0 : at[0].size();
  if (p.op == Cmp::kWhere) {
    const size_t es = DTypeSize(p.out);
    for (size_t i = 0; i < n; ++i) {
      const bool c = inputs[0]->data<uint8_t>()[at[1][i]] != 0;
      const ir::HostTensor& from = c ? *inputs[1] : *inputs[2];
      std::memcpy(&y.bytes[at[0][i] * es], &from.bytes[at[c ? 2 : 3][i] * es], es);
    }
  } else if (p.in == DType::kBool) {
    for (size_t i = 0; i < n; ++i) {
      const bool v = CompareBools(p.op, inputs[0]->data<uint8_t>()[at[1][i]], inputs[1]->data<uint8_t>()[at[2][i]]);
      y.data<uint8_t>()[at[0][i]] = p.op == Cmp::kEqual ? !v : v;
    }
  } else {
    VisitNumeric(p.in, [&](auto tag) {
      using X = typename decltype(tag)::type;
      for (size_t i = 0; i < n; ++i) {
        y.data<uint8_t>()[at[0][i]] =
            CompareValues<X>(p.op, inputs[0]->data<X>()[at[1][i]], inputs[1]->data<X>()[at[2][i]]);
      }
    });
  }
  outputs->assign(1, std::move(y));
  return Status::Ok();
}

Status CompareEmit(const EmitContext& ctx, std::string* body) {
  MLF_ASSIGN_OR_RETURN(ComparePlan p, PlanCompare(ctx.node, GraphInputs(ctx.node, ctx.graph)));
  if (Elements(p.shape.out) > 0) {
    const std::string t = CType(p.in);
    *body += p.shape.nest.Emit([&](const std::vector<std::string>& at) {
      if (p.op == Cmp::kWhere) {
        return "out0[" + at[0] + "] = in0[" + at[1] + "] ? in1[" + at[2] + "] : in2[" + at[3] + "];";
      }
      return "const " + t + " a = in0[" + at[1] + "];\nconst " + t + " b = in1[" + at[2] + "];\nout0[" + at[0] +
             "] = " + CompareC(p) + ";";
    });
  }
  VoidUnusedParams(ctx, body);
  return Status::Ok();
}

}  // namespace

void RegisterCompareOps(std::vector<OpDef>* table) {
  for (const CompareSpec& s : kCompare) table->push_back({s.name, CompareInfer, CompareEvaluate, CompareEmit});
}

}  // namespace mlf::ops
