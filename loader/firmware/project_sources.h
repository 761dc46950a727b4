// The C files of a firmware project that come from the plan rather than from
// the archive: main.c, model_data.h, the parameter arrays and the sample
// inputs (see project_plan.h for where each one goes).
#ifndef MLFKIT_LOADER_FIRMWARE_PROJECT_SOURCES_H_
#define MLFKIT_LOADER_FIRMWARE_PROJECT_SOURCES_H_

#include <string>

#include "artifact/base/status.h"
#include "loader/firmware/project_plan.h"

namespace mlf::firmware {

// src/main.c: static buffers and workspaces, one run_<mod>() per module,
// one mlf_print_output() per output (templates/main.c and module.c).
Result<std::string> MainSource(const ProjectPlan& plan);

// The main.c parts each module adds: an #include line (or none), its block
// (buffers and run_<mod>()) and the call of run_<mod>() in main().
struct MainParts {
  std::string includes, modules, calls;
};

// Fills main.c template `template_name` (main.c, tvm_main.c) with the
// project's title, the output label format and `parts`.
Result<std::string> FillMainTemplate(const std::string& template_name, const ProjectPlan& plan,
                                     const MainParts& parts);

// src/model_data.h: extern declarations of the parameter and sample arrays.
std::string ModelDataHeader(const ProjectPlan& plan);

// parameters/<mod>_params.c: the module's parameter blob as a const array,
// MLF_WORKSPACE_ALIGNMENT-aligned, described tensor by tensor.
std::string ParametersSource(const ModulePlan& module, const std::string& blob);

// Pieces of a module's block in main.c, shared with tvm/firmware/tvm_sources.h: the
// tensor as a comment ("name": dtype[shape]), the sample copies and
// `inputs.<c_name> = buffer;` lines, the `outputs.<c_name> = buffer;` lines,
// and one mlf_print_output() call per output.
std::string Describe(const TensorPlan& t);
std::string SetInputs(const ModulePlan& m);
std::string SetOutputs(const ModulePlan& m);
std::string Prints(const ModulePlan& m);

// src/sample_inputs.c: every sample input as a const array.
std::string SampleInputsSource(const ProjectPlan& plan);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_PROJECT_SOURCES_H_
