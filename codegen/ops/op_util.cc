#include "codegen/ops/op_util.h"

#include <algorithm>

#include "codegen/ops/op.h"

namespace mlf::ops {

const std::vector<DType> kFloatDTypes = {DType::kFloat32, DType::kFloat64};
const std::vector<DType> kSignedDTypes = {DType::kInt8,  DType::kInt16,   DType::kInt32,
                                          DType::kInt64, DType::kFloat32, DType::kFloat64};
const std::vector<DType> kNumericDTypes = {
    DType::kInt8,   DType::kInt16,  DType::kInt32,  DType::kInt64,   DType::kUInt8,
    DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kFloat32, DType::kFloat64};

bool IsFloatDType(DType dtype) { return dtype == DType::kFloat32 || dtype == DType::kFloat64; }

bool IsSignedIntDType(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt16 || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

bool IsUnsignedIntDType(DType dtype) {
  return dtype == DType::kUInt8 || dtype == DType::kUInt16 || dtype == DType::kUInt32 ||
         dtype == DType::kUInt64;
}

int DTypeBits(DType dtype) { return static_cast<int>(DTypeSize(dtype) * 8); }

Status NodeError(const ir::Node& node, const std::string& reason) {
  return InvalidArgument(node.Describe() + ": " + reason);
}

Status NodeUnsupported(const ir::Node& node, const std::string& reason) {
  return Unimplemented(node.Describe() + ": " + reason);
}

namespace {

std::string Range(size_t lo, size_t hi) {
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + " to " + std::to_string(hi);
}

}  // namespace

Status CheckArity(const ir::Node& node, size_t min_inputs, size_t max_inputs, size_t min_outputs,
                  size_t max_outputs) {
  if (node.inputs.size() < min_inputs || node.inputs.size() > max_inputs) {
    return NodeError(node, "expects " + Range(min_inputs, max_inputs) + " inputs, got " +
                               std::to_string(node.inputs.size()));
  }
  if (node.outputs.size() < min_outputs || node.outputs.size() > max_outputs) {
    return NodeError(node, "expects " + Range(min_outputs, max_outputs) + " outputs, got " +
                               std::to_string(node.outputs.size()));
  }
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    if (node.outputs[j] == ir::kNoValue) {
      return NodeError(node, "output " + std::to_string(j) + " is omitted");
    }
  }
  return Status::Ok();
}

Status CheckPresent(const ir::Node& node, size_t index, const std::string& what) {
  if (!node.HasInput(index)) return NodeError(node, what + " (input " + std::to_string(index) + ") is missing");
  return Status::Ok();
}

Status CheckDType(const ir::Node& node, const std::string& what, DType dtype,
                  const std::vector<DType>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), dtype) != allowed.end()) return Status::Ok();
  std::string list;
  for (DType d : allowed) list += (list.empty() ? "" : ", ") + std::string(DTypeName(d));
  return NodeUnsupported(node, what + " has dtype " + DTypeName(dtype) + "; supported: " + list);
}

Result<size_t> NormalizeAxis(const ir::Node& node, int64_t axis, size_t rank, const std::string& what) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    if (r == 0) return NodeError(node, what + " " + std::to_string(axis) + " is out of range for a rank-0 input");
    return NodeError(node, what + " " + std::to_string(axis) + " is out of range for rank " +
                               std::to_string(r) + " (expected " + std::to_string(-r) + " to " +
                               std::to_string(r - 1) + ")");
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

void SetOutput(const ir::Node& node, ir::Graph& graph, size_t j, DType dtype,
               std::vector<int64_t> shape) {
  ir::Value& v = graph.value(node.outputs.at(j));
  v.dtype = dtype;
  v.shape = std::move(shape);
}

const char* WrapCType(DType dtype) { return DTypeSize(dtype) > 4 ? "uint64_t" : "uint32_t"; }

std::string MathFn(DType dtype, const std::string& base) {
  return dtype == DType::kFloat32 ? base + "f" : base;
}

std::string UnusedParams(const ir::Node& node, const std::vector<size_t>& inputs) {
  std::string s;
  for (size_t i : inputs) {
    if (node.HasInput(i)) s += "  (void)" + EmitContext::In(i) + ";\n";
  }
  return s;
}

uint64_t Elements(const std::vector<int64_t>& shape) {
  uint64_t n = 1;
  for (int64_t d : shape) n *= static_cast<uint64_t>(d);
  return n;
}

}  // namespace mlf::ops
