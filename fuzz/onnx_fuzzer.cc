// ImportOnnx (parse, onnx::checker, opset conversion, shape inference,
// lowering, constant folding) over arbitrary protobuf bytes, with small
// bounds so that no input can ask for more than a few MiB. libonnx and
// protobuf are the system's, uninstrumented: a crash inside them is still
// reported (ASan catches SEGV), with their frames in the stack.
#include "codegen/frontend/onnx_frontend.h"
#include "fuzz/fuzz_target.h"

MLF_FUZZ_TARGET(onnx) {
  mlf::frontend::OnnxImportOptions options;
  options.max_model_bytes = 1 << 20;
  options.max_nodes = 256;
  options.tensor_limits.max_rank = 6;
  options.tensor_limits.max_elements = 1 << 16;
  options.folding.max_output_bytes = 1 << 20;
  mlf::frontend::OnnxModelInfo info;
  auto graph = mlf::frontend::ImportOnnx(mlf::fuzz::AsView(data, size), options, &info);
  (void)graph;
  return 0;
}
