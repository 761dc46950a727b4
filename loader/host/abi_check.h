// The ABI check: what a host library says about itself
// (tvmgen_<mod>_metadata(), mlf/model_abi.h) against metadata.json.
// Loading code whose buffers disagree with metadata would corrupt memory, so
// every disagreement is refused, naming the module, the field and both values.
#ifndef MLFKIT_LOADER_HOST_ABI_CHECK_H_
#define MLFKIT_LOADER_HOST_ABI_CHECK_H_

#include <string>

#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "mlf/model_abi.h"

namespace mlf {

Status CheckAbi(const std::string& module, const mlf_model_metadata& library,
                const ModuleMetadata& metadata);

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_ABI_CHECK_H_
