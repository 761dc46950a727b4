// mlfkit/loader.h - the host loader's API: open an archive, run a module.
// Link mlfkit::loader (CMake) or `pkg-config --libs mlfkit`; C++17.
//
//   mlf::LoadOptions options;                       // signature policy, cache
//   options.foreign_modules = &mlf::tvm_wing::HostModules();  // TVM archives too
//   auto library = mlf::ModelLibrary::Open("model.tar", options);
//   if (!library.ok()) { std::cerr << library.status().message(); ... }
//   auto executor = (*library)->CreateExecutor((*library)->module_names()[0]);
//   (*executor)->SetInput(0, dl_tensor);            // DLPack tensors
//   (*executor)->Run();
//   auto output = (*executor)->GetOutput(0);        // a view of its buffer
//
// Contracts (threads, memory, trust) are written in the headers below:
// loader/host/model_library.h (verification before any code loads, caching,
// sharing a library between threads) and loader/host/aot_executor.h (one
// executor per thread, buffers owned by the executor). Errors are
// mlf::Status / mlf::Result<T> (artifact/base/status.h); no exceptions cross
// the API.
#ifndef MLFKIT_SDK_LOADER_H_
#define MLFKIT_SDK_LOADER_H_

#include "mlfkit/version.h"

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata.h"
#include "loader/host/aot_executor.h"
#include "loader/host/model_library.h"
#include "tvm/tvm.h"

#endif  // MLFKIT_SDK_LOADER_H_
