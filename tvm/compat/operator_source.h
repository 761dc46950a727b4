// A TVM operator-style module (TVM's export of single operators: no model
// entry point, one or more packed functions, and in metadata.json per
// function the buffers it takes, by binding name, with dtype and shape) as
// one C function, so that every loader runs it the same way:
//
//   int32_t mlf_tvm_<c>_operators_run(void* const* inputs, void* const* outputs,
//                                     void* workspace, uint64_t workspace_size);
//
// TVM's metadata does not say which buffers an operator reads and which it
// writes, so every buffer is both an input and an output (OperatorBuffers,
// in metadata order). The function first copies each input into the output
// buffer of the same index (nothing when both are the same memory; memmove
// for overlap), then calls each function once, in the order of its first
// buffer in the metadata, with DLTensor arguments over the output buffers
// (the function's buffers in metadata order), inside
// mlf_tvm_run_with_workspace over `workspace` (TVMBackendAllocWorkspace;
// may be null with size 0). So the inputs are never written: after a run the
// outputs hold every buffer as the operators left it. Returns 0, a packed
// function's non-zero status (the later functions are not called), or the
// runtime's codes (compat.h). Shapes are static const arrays; no mutable
// static data: reentrant.
//
// The users: the host loader (OperatorEntryWrapperSource in compat.h calls
// it with the executor's own input and output buffers and workspace) and
// `mlf project` (main.c passes the same static buffers as inputs and
// outputs, so nothing is copied). `mlf upgrade` refuses operator style
// (docs/archive-format.md says why).
#ifndef MLFKIT_TVM_COMPAT_OPERATOR_SOURCE_H_
#define MLFKIT_TVM_COMPAT_OPERATOR_SOURCE_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf::tvm_compat {

// The buffers of an operator-style module as tensors, in metadata order:
// named "<binding>", or "<function>.<binding>" when the module has several
// functions (C names: the sanitised binding, or "<function>_<binding>").
// `who` starts each error. Refused: no buffers, a size its dtype and shape
// contradict, two buffers with one C name (kFailedPrecondition); a dtype
// mlfkit does not know; a function name that is not a C identifier the code
// can call (kInvalidArgument, graph_plan.h CheckPackedFunctionName).
Result<std::vector<TensorInfo>> OperatorBuffers(const std::string& who, const TvmModuleInfo& tvm);

// "mlf_tvm_<c_module>_operators_run".
std::string OperatorRunSymbol(const std::string& c_module);

// The C prototype of that function, with a trailing ";\n".
std::string OperatorRunDeclaration(const std::string& c_module);

// The C source defining OperatorRunSymbol(c_module) for module `module`,
// whose buffers `buffers` are OperatorBuffers(tvm). It includes
// tvm/runtime/c_runtime_api.h (DLTensor, TVMValue).
std::string OperatorRunSource(const std::string& module, const std::string& c_module,
                              const TvmModuleInfo& tvm, const std::vector<TensorInfo>& buffers);

}  // namespace mlf::tvm_compat

#endif  // MLFKIT_TVM_COMPAT_OPERATOR_SOURCE_H_
