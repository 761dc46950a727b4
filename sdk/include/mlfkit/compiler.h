// mlfkit/compiler.h - the compiler's API: a model file (ONNX or mlfkit's YAML)
// to an archive, the step `mlf export` takes. Link mlfkit::compiler (CMake)
// or `pkg-config --libs mlfkit`; C++17.
//
//   mlf::ModelFileOptions options;                  // compile options, --keep-source
//   auto artifacts = mlf::CompileModelFile("model.onnx", "default", options);
//   if (!artifacts.ok()) { std::cerr << artifacts.status().message(); ... }
//   mlf::ExportOptions export_options;              // codegen/archive_export.h
//   auto written = mlf::ExportArchive({*artifacts}, "model.tar", export_options);
//
// What each option means is written in codegen/compiler.h,
// codegen/model_export.h and codegen/archive_export.h.
#ifndef MLFKIT_SDK_COMPILER_H_
#define MLFKIT_SDK_COMPILER_H_

#include "mlfkit/version.h"

#include "artifact/base/status.h"
#include "codegen/archive_export.h"
#include "codegen/compiler.h"
#include "codegen/model_export.h"

#endif  // MLFKIT_SDK_COMPILER_H_
