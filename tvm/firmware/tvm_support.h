// Which modules of TVM archives (metadata versions 5-7) `mlf project` builds,
// for which platform, and the view of their metadata a project works from.
//
// Built: AOT modules with the C interface (either inner entry point,
// TVMBackendAllocWorkspace or USMP pools as static arrays), graph executor
// modules (tvm/compat/graph_plan.h) and operator-style modules. Refused, with a message
// saying why and what to do instead: code for a target the platform's core
// cannot run (the message names the target and the platforms that can, as
// the host loader's refusal does), the packed API without a graph, entry
// points taking caller-provided pools or devices, object files without C
// sources, tensors whose dtype or size the archive does not say.
#ifndef MLFKIT_TVM_FIRMWARE_TVM_SUPPORT_H_
#define MLFKIT_TVM_FIRMWARE_TVM_SUPPORT_H_

#include <map>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "loader/firmware/platform.h"
#include "loader/firmware/vendor_source.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

// How main.c calls TVM module `name`, or kFailedPrecondition /
// kUnimplemented saying why it cannot be built for `platform`: the firmware
// verdict of its plan (tvm/plan/tvm_plan.h).
// `vendor`: what the user's --vendor-source libraries provide.
Result<ModuleKind> TvmModuleKind(const std::string& name, const ModuleMetadata& m,
                                 const Platform& platform, const VendorProvision& vendor = {});

// Checks every module of a TVM archive (TvmModuleKind) and rewrites its
// metadata into what the project works from: tensors whose shape is unknown
// become flat ([size / element size], as `mlf run` shows them); an
// operator-style module's buffers become both its inputs (so that
// --sample-input can fill them) and its outputs (all printed after the call:
// TVM's metadata does not say which buffers an operator writes). Returns the
// kind of each module.
Result<std::map<std::string, ModuleKind>> PrepareTvmMetadata(Metadata* metadata,
                                                            const Platform& platform,
                                                            const VendorProvision& vendor = {});

}  // namespace mlf::firmware

#endif  // MLFKIT_TVM_FIRMWARE_TVM_SUPPORT_H_
