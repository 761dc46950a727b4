// Emits the C interface of a compiled module (generated-code ABI version 2,
// schemas/model_abi.h): the header tvmgen_<mod>.h and a source defining
// tvmgen_<mod>_metadata(). The text comes from artifact/format/c_interface.h, which
// mlf upgrade uses too, so every code path that produces an archive gives
// the same interface for the same metadata.
#ifndef MLFKIT_CODEGEN_C_INTERFACE_H_
#define MLFKIT_CODEGEN_C_INTERFACE_H_

#include <string>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"

namespace mlf {

// The sanitised C name of module `module` ("tvmgen_<this>_run").
std::string ModuleCName(const std::string& module);

// tvmgen_<mod>.h: size macros, the inputs/outputs/workspace_pools structs and
// the prototypes of tvmgen_<mod>_run and tvmgen_<mod>_metadata.
Result<std::string> EmitInterfaceHeader(const std::string& module, const ModuleMetadata& metadata);

// A C99 translation unit defining tvmgen_<mod>_metadata() (static const data
// only: no mutable globals). It includes "tvmgen_<mod>.h".
Result<std::string> EmitMetadataSource(const std::string& module, const ModuleMetadata& metadata);

}  // namespace mlf

#endif  // MLFKIT_CODEGEN_C_INTERFACE_H_
