// mlfkit_demo: a program outside mlfkit's build that uses the SDK, as a
// user's application would (sdk/README.md). Built by the SDK test with CMake
// (find_package(mlfkit)) and with pkg-config.
//
//   mlfkit_demo export MODEL ARCHIVE              compile MODEL (.onnx/.yaml) into ARCHIVE
//   mlfkit_demo run ARCHIVE INPUT.npy OUTPUT.npy  run the archive's only module on one input
#include <cstdio>
#include <cstring>
#include <string>

#include <mlfkit/compiler.h>
#include <mlfkit/loader.h>

#include "artifact/format/npy.h"

namespace {

int Fail(const mlf::Status& status) {
  std::fprintf(stderr, "mlfkit_demo: %s\n", status.message().c_str());
  return 1;
}

int Export(const std::string& model, const std::string& archive) {
  auto artifacts = mlf::CompileModelFile(model, "default", mlf::ModelFileOptions{});
  if (!artifacts.ok()) return Fail(artifacts.status());
  auto written = mlf::ExportArchive({*artifacts}, archive, mlf::ExportOptions{});
  if (!written.ok()) return Fail(written.status());
  std::printf("wrote %s (metadata version %d)\n", archive.c_str(), written->version);
  return 0;
}

DLTensor View(mlf::NpyArray& array) {
  DLTensor t{};
  t.data = array.data.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int32_t>(array.shape.size());
  t.dtype = mlf::ToDLPack(array.dtype);
  t.shape = array.shape.data();
  return t;
}

int Run(const std::string& archive, const std::string& input_path, const std::string& output_path) {
  mlf::LoadOptions options;
  options.foreign_modules = &mlf::tvm_wing::HostModules();
  auto library = mlf::ModelLibrary::Open(archive, options);
  if (!library.ok()) return Fail(library.status());
  auto executor = (*library)->CreateExecutor((*library)->module_names().at(0));
  if (!executor.ok()) return Fail(executor.status());
  auto input = mlf::ReadNpyFile(input_path);
  if (!input.ok()) return Fail(input.status());
  if (auto s = (*executor)->SetInput(0, View(*input)); !s.ok()) return Fail(s);
  if (auto s = (*executor)->Run(); !s.ok()) return Fail(s);
  auto spec = (*executor)->output_info(0);
  if (!spec.ok()) return Fail(spec.status());
  mlf::NpyArray output;
  output.dtype = spec->dtype;
  output.shape = spec->shape;
  output.data.resize(spec->size_bytes);
  DLTensor dest = View(output);
  if (auto s = (*executor)->CopyOutputTo(0, &dest); !s.ok()) return Fail(s);
  if (auto s = mlf::WriteNpyFile(output_path, output); !s.ok()) return Fail(s);
  std::printf("ran %s with mlfkit %s: output %s\n", (*executor)->module_name().c_str(),
              MLFKIT_VERSION_STRING, spec->name.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  static_assert(MLFKIT_VERSION_AT_LEAST(0, 1, 0), "this example needs mlfkit 0.1.0 or newer");
  if (argc == 4 && std::strcmp(argv[1], "export") == 0) return Export(argv[2], argv[3]);
  if (argc == 5 && std::strcmp(argv[1], "run") == 0) return Run(argv[2], argv[3], argv[4]);
  std::fprintf(stderr,
               "usage: mlfkit_demo export MODEL ARCHIVE\n"
               "       mlfkit_demo run ARCHIVE INPUT.npy OUTPUT.npy\n");
  return 2;
}
