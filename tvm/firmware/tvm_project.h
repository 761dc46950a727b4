// TVM modules in the firmware projects of loader/firmware, behind its seam
// (loader/firmware/foreign_project.h): Prepare is PrepareTvmMetadata
// (tvm_support.h), a graph module is planned by tvm/compat/graph_plan.h, and
// the files are those of tvm_sources.h and the compatibility runtime
// (tvm/compat).
#ifndef MLFKIT_TVM_FIRMWARE_TVM_PROJECT_H_
#define MLFKIT_TVM_FIRMWARE_TVM_PROJECT_H_

#include "loader/firmware/foreign_project.h"

namespace mlf::firmware {

// One immutable instance, safe to share between threads.
const ForeignProjectModules& TvmProjectModules();

}  // namespace mlf::firmware

#endif  // MLFKIT_TVM_FIRMWARE_TVM_PROJECT_H_
