
/* A DLTensor argument of a packed function (TVM's packed calling
 * convention: TVMValue args[], type codes, count, return value, code). */
static void set_tensor(DLTensor* tensor, TVMValue* value, int32_t* type_code, void* data,
                       int32_t ndim, const int64_t* shape, uint8_t dtype_code, uint8_t bits) {
  tensor->data = data;
  tensor->device.device_type = kDLCPU;
  tensor->device.device_id = 0;
  tensor->ndim = ndim;
  tensor->dtype.code = dtype_code;
  tensor->dtype.bits = bits;
  tensor->dtype.lanes = 1;
  tensor->shape = (int64_t*)shape;
  tensor->strides = NULL;
  tensor->byte_offset = 0;
  value->v_handle = tensor;
  *type_code = kTVMDLTensorHandle;
}
