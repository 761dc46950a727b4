#include "codegen/emit/node_function.h"

#include <cctype>

#include "artifact/base/c_text.h"
#include "codegen/kernels/kernels.h"
#include "codegen/ops/op.h"

namespace mlf::emit {
namespace {

std::string LowerIdentifier(const std::string& op) {
  std::string out;
  for (char c : op) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

}  // namespace

std::string GeneratedSourcePreamble() {
  return "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n";
}

std::string KernelIncludes(const std::set<std::string>& families) {
  std::string out;
  for (const std::string& f : families) out += "#include \"" + kernels::KernelFileName(f) + "\"\n";
  return out.empty() ? out : out + "\n";
}

Result<NodeFunction> EmitNodeFunction(const ir::Graph& graph, size_t index) {
  const ir::Node& node = graph.nodes.at(index);
  const ops::OpDef* def = ops::FindOp(node.op);
  if (def == nullptr || def->emit == nullptr) {
    return Unimplemented(node.Describe() + ": no C code generator for " + node.op);
  }
  NodeFunction f;
  f.name = "node_" + std::to_string(index) + "_" + LowerIdentifier(node.op);
  std::string params;
  auto add = [&](const std::string& decl) { params += (params.empty() ? "" : ", ") + decl; };
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == ir::kNoValue) continue;
    add(std::string("const ") + ops::CType(graph.value(node.inputs[i]).dtype) + "* restrict " +
        ops::EmitContext::In(i));
    f.params.push_back(node.inputs[i]);
  }
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    add(std::string(ops::CType(graph.value(node.outputs[j]).dtype)) + "* restrict " +
        ops::EmitContext::Out(j));
    f.params.push_back(node.outputs[j]);
  }
  f.scratch_bytes = def->scratch ? def->scratch(node, graph) : 0;
  f.needs_scratch = f.scratch_bytes > 0;
  if (f.needs_scratch) add("void* restrict scratch");
  std::string body;
  ops::EmitContext ctx{node, graph, &f.kernels};
  MLF_RETURN_IF_ERROR(def->emit(ctx, &body));
  f.needs_exec = !f.kernels.empty();
  if (f.needs_exec) add("const mlfk_exec* " + std::string(ops::EmitContext::kExec));
  f.definition = "/* " + CCommentText(node.Describe()) + " */\nstatic void " + f.name + "(" + params + ") {\n" +
                 body + "}\n";
  return f;
}

}  // namespace mlf::emit
