// One ONNX operator in mlfkit's compiler: its shape rules, its reference
// semantics and its C code generator, side by side.
//
//   infer     checks attributes and inputs, and sets every output's dtype and
//             static shape; anything unsupported is an error naming the node,
//             the op and the reason (InvalidArgument / Unimplemented);
//   evaluate  computes outputs from inputs on the host with plain, obviously
//             correct loops: it folds constants, is the naive reference
//             implementation that benchmarks compare against, and is what the
//             generated C is tested against;
//   emit      writes the body of one C99 function specialised for the node's
//             shapes (constant loop bounds, contiguous innermost loops,
//             restrict pointers), see EmitContext;
//   macs      multiply-accumulates of one run (0 when not meaningful);
//   scratch   bytes of workspace the emitted code needs besides its output.
//
// Families of operators live in one file each (elementwise.cc, conv.cc, ...),
// each with its Register function below, called in registry.cc. To add an
// operator, copy the example gather.cc (README.md, "Adding an operator").
#ifndef MLFKIT_CODEGEN_OPS_OP_H_
#define MLFKIT_CODEGEN_OPS_OP_H_

#include <set>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "codegen/ir/graph.h"

namespace mlf::ops {

// What emit() sees of its node. The generated function is
//
//   static void <name>(const T0* restrict in0, const T1* restrict in1, ...,
//                      U0* restrict out0, ..., [void* restrict scratch])
//
// with one `in<i>` per PRESENT input i (omitted optional inputs have no
// parameter; the index i is the ONNX input index, so in0, in2 when input 1 is
// omitted), one `out<j>` per output, `scratch` only when scratch() > 0, and
// `const mlfk_exec* ex` last when the body calls a kernel (UseKernel).
// Constants are passed like any other input. `T` is the C type of the value's
// dtype (CType). Outputs never alias inputs.
struct EmitContext {
  const ir::Node& node;
  const ir::Graph& graph;
  // The kernel families (codegen/kernels) the body calls; null when the
  // caller does not collect them (then UseKernel does nothing).
  std::set<std::string>* kernels = nullptr;

  // Records that the body calls kernel family `family` (mlf_kernel_<family>.h
  // is then included before the function and written into the archive).
  void UseKernel(const std::string& family) const {
    if (kernels != nullptr) kernels->insert(family);
  }

  const ir::Value& input(size_t i) const { return graph.value(node.inputs.at(i)); }
  const ir::Value& output(size_t j) const { return graph.value(node.outputs.at(j)); }
  static std::string In(size_t i) { return "in" + std::to_string(i); }
  // The parameter a body that calls a kernel gets last: `const mlfk_exec*
  // ex`, to pass to the kernel's _exec entry point (the run's variant and
  // intra-op threads, mlf/model_abi.h "Run context").
  static constexpr char kExec[] = "ex";
  static std::string Out(size_t j) { return "out" + std::to_string(j); }

  // A fused activation applied to the C expression `value` of dtype float,
  // from node attribute "mlf.activation" (set by the fusion pass): "Relu",
  // "Clip", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh" with
  // their ONNX attributes prefixed "mlf.activation." (e.g.
  // "mlf.activation.alpha"). Returns `value` unchanged when there is none.
  Result<std::string> Activation(const std::string& value) const;
};

// The C type for a dtype: float, double, int8_t, ..., uint8_t for bool,
// uint16_t for float16/bfloat16 (storage only).
const char* CType(DType dtype);
// A C literal of `value` for `dtype`: "1.5f", "-3", "9.99999975e-05f".
std::string CLiteral(DType dtype, double value);

struct OpDef {
  const char* name;
  Status (*infer)(const ir::Node& node, ir::Graph& graph) = nullptr;
  Status (*evaluate)(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                     std::vector<ir::HostTensor>* outputs) = nullptr;
  Status (*emit)(const EmitContext& ctx, std::string* body) = nullptr;
  uint64_t (*macs)(const ir::Node& node, const ir::Graph& graph) = nullptr;
  uint64_t (*scratch)(const ir::Node& node, const ir::Graph& graph) = nullptr;
  // Whether emit() honours a fused "mlf.activation".
  bool fuses_activation = false;
};

// The operator named `op`, or null.
const OpDef* FindOp(const std::string& op);
// Every supported operator name, sorted.
std::vector<std::string> SupportedOps();

// Runs infer() of the node's op; kUnimplemented naming the node when the op
// is not supported.
Status InferNode(const ir::Node& node, ir::Graph& graph);
// Runs evaluate() on inputs taken from `inputs` (null for omitted ones).
Status EvaluateNode(const ir::Node& node, const std::vector<const ir::HostTensor*>& inputs,
                    std::vector<ir::HostTensor>* outputs);

// Family registration (one per ops/<family>.cc).
void RegisterElementwiseOps(std::vector<OpDef>* table);
void RegisterMatMulOps(std::vector<OpDef>* table);
void RegisterConvOps(std::vector<OpDef>* table);
void RegisterPoolOps(std::vector<OpDef>* table);
void RegisterNormalizationOps(std::vector<OpDef>* table);
void RegisterReduceOps(std::vector<OpDef>* table);
void RegisterShapeOps(std::vector<OpDef>* table);
void RegisterSlicePadOps(std::vector<OpDef>* table);
void RegisterGatherOps(std::vector<OpDef>* table);
void RegisterCastOps(std::vector<OpDef>* table);
void RegisterResizeOps(std::vector<OpDef>* table);
void RegisterQuantizeOps(std::vector<OpDef>* table);
void RegisterQLinearOps(std::vector<OpDef>* table);
void RegisterQLinearAddOps(std::vector<OpDef>* table);
void RegisterQLinearPoolOps(std::vector<OpDef>* table);
void RegisterQLinearConcatOps(std::vector<OpDef>* table);
void RegisterQLinearMulOps(std::vector<OpDef>* table);
void RegisterQLinearLookupOps(std::vector<OpDef>* table);
void RegisterMathOps(std::vector<OpDef>* table);
void RegisterCompareOps(std::vector<OpDef>* table);
void RegisterArithOps(std::vector<OpDef>* table);
void RegisterExpandOps(std::vector<OpDef>* table);
void RegisterGenerateOps(std::vector<OpDef>* table);
void RegisterSelectOps(std::vector<OpDef>* table);
void RegisterLayerNormOps(std::vector<OpDef>* table);
void RegisterScatterOps(std::vector<OpDef>* table);
void RegisterNormalizeOps(std::vector<OpDef>* table);
void RegisterLossOps(std::vector<OpDef>* table);
void RegisterWindowOps(std::vector<OpDef>* table);
void RegisterMelWeightMatrixOps(std::vector<OpDef>* table);
void RegisterRnnOps(std::vector<OpDef>* table);
void RegisterReverseSequenceOps(std::vector<OpDef>* table);
void RegisterDetOps(std::vector<OpDef>* table);
void RegisterMaxUnpoolOps(std::vector<OpDef>* table);
void RegisterEinsumOps(std::vector<OpDef>* table);
void RegisterCompressOps(std::vector<OpDef>* table);
void RegisterGridSampleOps(std::vector<OpDef>* table);
void RegisterDftOps(std::vector<OpDef>* table);
void RegisterTfIdfOps(std::vector<OpDef>* table);
void RegisterRoiAlignOps(std::vector<OpDef>* table);

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_OP_H_
