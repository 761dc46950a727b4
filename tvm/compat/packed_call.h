// C text shared by the generators of tvm/compat that call TVM packed
// functions (graph_source.h, operator_source.h): TVM's packed calling
// convention, int32_t f(TVMValue* args, int32_t* type_codes, int32_t
// num_args, TVMValue* ret, int32_t* ret_code, void* resource_handle), with
// DLTensor arguments (type code kTVMDLTensorHandle).
#ifndef MLFKIT_TVM_COMPAT_PACKED_CALL_H_
#define MLFKIT_TVM_COMPAT_PACKED_CALL_H_

#include <string>

namespace mlf::tvm_compat {

// The prototype of packed function `function`, with a trailing ";\n".
std::string PackedFunctionDeclaration(const std::string& function);

// The prototype of the runtime's mlf_tvm_run_with_workspace (compat.h).
std::string RunWithWorkspaceDeclaration();

// A static C helper, set_tensor(tensor, value, type_code, data, ndim, shape,
// dtype_code, bits), that makes one DLTensor argument (CPU, lanes 1, dense).
std::string SetTensorHelper();

}  // namespace mlf::tvm_compat

#endif  // MLFKIT_TVM_COMPAT_PACKED_CALL_H_
