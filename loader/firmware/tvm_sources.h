// The C files of a TVM archive's firmware project that come from the plan
// (project_plan.h, tvm_support.h): main.c and the graph parameters.
//
// main.c (templates/tvm_main.c) calls each module its own way:
//   - AOT, C interface (templates/tvm_aot_module.c): tvmgen_<mod>_run(&inputs,
//     &outputs) through mlf_tvm_run_with_workspace, which puts the module's
//     static workspace behind TVMBackendAllocWorkspace;
//   - graph executor: the packed functions of the graph's tvm_op nodes in
//     node order, each with DLTensor arguments over static storage, one array
//     per storage id; parameters are const arrays (GraphParametersSource);
//   - operator style: each operator's packed function with its buffers,
//     which are all printed after the call.
#ifndef MLFKIT_LOADER_FIRMWARE_TVM_SOURCES_H_
#define MLFKIT_LOADER_FIRMWARE_TVM_SOURCES_H_

#include <string>

#include "artifact/status.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

// src/main.c of a TVM archive's project.
Result<std::string> TvmMainSource(const ProjectPlan& plan);

// parameters/<mod>_params.c: a graph module's parameters as const arrays.
std::string GraphParametersSource(const ModulePlan& module);

// The path of that file.
std::string GraphParametersPath(const ModulePlan& module);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_TVM_SOURCES_H_
