// Emits one module's C code from a graph: a function per node, constants
// (linked as const arrays, or laid out in a parameter blob), the memory plan,
// and tvmgen_<mod>_run calling the nodes in order with pointers into the
// caller's buffers, the workspace and the constants. Also fills in the
// metadata that follows from the graph (inputs, outputs, memory, parameters,
// operators). The interface header and metadata function come from
// codegen/c_interface.h when the archive is assembled.
#ifndef MLFKIT_CODEGEN_EMIT_MODULE_EMITTER_H_
#define MLFKIT_CODEGEN_EMIT_MODULE_EMITTER_H_

#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"
#include "codegen/ir/graph.h"

namespace mlf::emit {

struct ModuleEmitOptions {
  bool link_params = false;  // const arrays in the code instead of a blob
};

struct EmittedModule {
  ModuleMetadata metadata;          // inputs, outputs, memory, parameters, operators
  std::vector<StagedFile> sources;  // file names (no directory), e.g. "<c>_lib0.c"
  // Files the sources include from their own directory and that are not
  // compiled on their own: the kernel headers (codegen/kernels) they call.
  std::vector<StagedFile> support_files;
  std::string parameter_blob;       // for file storage; empty otherwise
};

Result<EmittedModule> EmitModule(const std::string& module, const ir::Graph& graph,
                                 const ModuleEmitOptions& options);

}  // namespace mlf::emit

#endif  // MLFKIT_CODEGEN_EMIT_MODULE_EMITTER_H_
