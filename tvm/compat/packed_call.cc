#include "tvm/compat/packed_call.h"

namespace mlf::tvm_compat {

std::string PackedFunctionDeclaration(const std::string& function) {
  return "int32_t " + function +
         "(void* args, int32_t* type_codes, int32_t num_args, void* out_ret_value,\n"
         "    int32_t* out_ret_tcode, void* resource_handle);\n";
}

std::string RunWithWorkspaceDeclaration() {
  return "int32_t mlf_tvm_run_with_workspace(void* workspace, uint64_t workspace_size,\n"
         "                                   int32_t (*entry)(void*, void*), void* inputs,\n"
         "                                   void* outputs);\n";
}

std::string SetTensorHelper() {
  return "/* One DLTensor argument of a packed function (TVM's packed calling convention). */\n"
         "static void set_tensor(DLTensor* tensor, TVMValue* value, int32_t* type_code, void* data,\n"
         "                       int32_t ndim, const int64_t* shape, uint8_t dtype_code, uint8_t bits) {\n"
         "  tensor->data = data;\n"
         "  tensor->device.device_type = kDLCPU;\n"
         "  tensor->device.device_id = 0;\n"
         "  tensor->ndim = ndim;\n"
         "  tensor->dtype.code = dtype_code;\n"
         "  tensor->dtype.bits = bits;\n"
         "  tensor->dtype.lanes = 1;\n"
         "  tensor->shape = (int64_t*)shape;\n"
         "  tensor->strides = NULL;\n"
         "  tensor->byte_offset = 0;\n"
         "  value->v_handle = tensor;\n"
         "  *type_code = kTVMDLTensorHandle;\n"
         "}\n\n";
}

}  // namespace mlf::tvm_compat
