// Compiler benchmark (issue 4): inference latency of exported conv nets and
// MLPs — the libonnx-testdata models of those kinds plus larger synthetic
// ones written in mlfkit's YAML — run through the host loader, against the
// same models run by the naive reference implementation
// (codegen/reference/interpreter.h), with GFLOP/s (2 x MACs / latency).
// Not a test: it prints figures; both sides are measured in the same run.
//
//   bazel run -c opt //bench:compiler_bench -- [--min-seconds 0.3]
#include <dlpack/dlpack.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "artifact/format/tensor_values.h"
#include "bench/bench_args.h"
#include "codegen/archive_export.h"
#include "codegen/compiler.h"
#include "codegen/frontend/onnx_frontend.h"
#include "codegen/frontend/yaml_frontend.h"
#include "codegen/reference/interpreter.h"
#include "loader/host/model_library.h"
#include "loader/host/tensor_check.h"

namespace mlf {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr char kTestData[] = "/usr/share/libonnx-testdata/data/";

struct Model {
  std::string name;
  std::string kind;  // "conv net" / "MLP"
  std::string onnx_path;  // or
  std::string yaml_text;
};

// A VGG-style conv net on 3x64x64 images (about 40 MMACs).
std::string SyntheticConvNet() {
  return R"(mlf_model: 1
name: synthetic_convnet
inputs: [{name: image, dtype: float32, shape: [1, 3, 64, 64]}]
parameters:
  w1: {dtype: float32, shape: [16, 3, 3, 3], random: {seed: 1, distribution: uniform, low: -0.2, high: 0.2}}
  b1: {dtype: float32, shape: [16], fill: 0.01}
  w2: {dtype: float32, shape: [32, 16, 3, 3], random: {seed: 2, distribution: uniform, low: -0.1, high: 0.1}}
  b2: {dtype: float32, shape: [32], fill: 0.01}
  w3: {dtype: float32, shape: [64, 32, 3, 3], random: {seed: 3, distribution: uniform, low: -0.06, high: 0.06}}
  b3: {dtype: float32, shape: [64], fill: 0.01}
  w4: {dtype: float32, shape: [10, 64], random: {seed: 4, distribution: uniform, low: -0.1, high: 0.1}}
  b4: {dtype: float32, shape: [10], fill: 0.0}
nodes:
  - {op: Conv, inputs: [image, w1, b1], outputs: [c1], attrs: {pads: [1, 1, 1, 1]}}
  - {op: Relu, inputs: [c1], outputs: [r1]}
  - {op: Conv, inputs: [r1, w2, b2], outputs: [c2], attrs: {pads: [1, 1, 1, 1]}}
  - {op: Relu, inputs: [c2], outputs: [r2]}
  - {op: MaxPool, inputs: [r2], outputs: [p2], attrs: {kernel_shape: [2, 2], strides: [2, 2]}}
  - {op: Conv, inputs: [p2, w3, b3], outputs: [c3], attrs: {pads: [1, 1, 1, 1]}}
  - {op: Relu, inputs: [c3], outputs: [r3]}
  - {op: GlobalAveragePool, inputs: [r3], outputs: [g]}
  - {op: Flatten, inputs: [g], outputs: [f]}
  - {op: Gemm, inputs: [f, w4, b4], outputs: [logits], attrs: {transB: 1}}
outputs: [logits]
)";
}

// A 1024-1024-1024-10 MLP (about 2.1 MMACs per sample, batch 8).
std::string SyntheticMlp() {
  return R"(mlf_model: 1
name: synthetic_mlp
inputs: [{name: x, dtype: float32, shape: [8, 1024]}]
parameters:
  w1: {dtype: float32, shape: [1024, 1024], random: {seed: 1, distribution: uniform, low: -0.03, high: 0.03}}
  b1: {dtype: float32, shape: [1024], fill: 0.0}
  w2: {dtype: float32, shape: [1024, 1024], random: {seed: 2, distribution: uniform, low: -0.03, high: 0.03}}
  b2: {dtype: float32, shape: [1024], fill: 0.0}
  w3: {dtype: float32, shape: [10, 1024], random: {seed: 3, distribution: uniform, low: -0.03, high: 0.03}}
  b3: {dtype: float32, shape: [10], fill: 0.0}
nodes:
  - {op: Gemm, inputs: [x, w1, b1], outputs: [h1], attrs: {transB: 1}}
  - {op: Relu, inputs: [h1], outputs: [a1]}
  - {op: Gemm, inputs: [a1, w2, b2], outputs: [h2], attrs: {transB: 1}}
  - {op: Relu, inputs: [h2], outputs: [a2]}
  - {op: Gemm, inputs: [a2, w3, b3], outputs: [y], attrs: {transB: 1}}
outputs: [y]
)";
}

std::vector<Model> Models() {
  std::vector<Model> models;
  for (const char* t : {"test_Conv2d", "test_Conv2d_depthwise", "test_Conv2d_groups",
                        "test_Conv2d_strided", "test_Conv1d", "test_Conv3d"}) {
    models.push_back({t, "conv net", std::string(kTestData) + "pytorch-converted/" + t + "/model.onnx", ""});
  }
  for (const char* t : {"test_Linear", "test_Linear_no_bias"}) {
    models.push_back({t, "MLP", std::string(kTestData) + "pytorch-converted/" + t + "/model.onnx", ""});
  }
  models.push_back({"synthetic_convnet (YAML)", "conv net", "", SyntheticConvNet()});
  models.push_back({"synthetic_mlp (YAML)", "MLP", "", SyntheticMlp()});
  return models;
}

Result<ir::Graph> Import(const Model& m) {
  if (!m.onnx_path.empty()) return frontend::ImportOnnxFile(m.onnx_path);
  return frontend::ImportYaml(m.yaml_text, "");
}

// Seconds per call of `fn`: calls repeated until `min_seconds` pass, best of 3.
template <typename Fn>
double TimePerCall(Fn fn, double min_seconds) {
  double best = 1e30;
  for (int round = 0; round < 3; ++round) {
    uint64_t calls = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      fn();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < min_seconds / 3);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

struct Row {
  std::string name, kind;
  uint64_t macs = 0;
  double generated_s = 0, reference_s = 0;
};

Result<Row> Measure(const Model& m, const std::string& work, double min_seconds) {
  Row row{m.name, m.kind};
  MLF_ASSIGN_OR_RETURN(ir::Graph graph, Import(m));
  std::vector<ir::HostTensor> inputs;
  for (int id : graph.inputs) {
    ir::HostTensor t = ir::HostTensor::Zeros(graph.value(id).dtype, graph.value(id).shape);
    FillRandom(t.dtype, t.bytes.data(), t.element_count(), 7);
    inputs.push_back(std::move(t));
  }
  MLF_ASSIGN_OR_RETURN(ModuleArtifacts module, CompileGraph("m", graph, {}));
  for (const OperatorInfo& op : module.metadata.operators) row.macs += op.macs;
  const std::string archive = work + "/model.tar";
  MLF_RETURN_IF_ERROR(ExportArchive({module}, archive, {}).status());
  LoadOptions options;
  options.cache_dir = work + "/cache";
  MLF_ASSIGN_OR_RETURN(auto lib, ModelLibrary::Open(archive, options));
  MLF_ASSIGN_OR_RETURN(auto exec, lib->CreateExecutor("m"));
  for (size_t i = 0; i < inputs.size(); ++i) {
    MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec->input_info(static_cast<int>(i)));
    MLF_RETURN_IF_ERROR(exec->SetInput(static_cast<int>(i), MakeTensorView(spec, inputs[i].bytes.data())));
  }
  Status failed;
  row.generated_s = TimePerCall([&] { if (!exec->Run().ok()) failed = Internal("run failed"); }, min_seconds);
  MLF_RETURN_IF_ERROR(failed);
  row.reference_s = TimePerCall([&] { (void)reference::Interpret(graph, inputs); }, min_seconds);
  return row;
}

double Flag(int argc, char** argv, const char* name, double fallback) {
  const char* value = bench::FlagValue(argc, argv, name);
  return value != nullptr ? std::atof(value) : fallback;
}

}  // namespace
}  // namespace mlf

int main(int argc, char** argv) {
  if (mlf::bench::WantsHelp(argc, argv)) {
    std::printf("usage: compiler_bench [--min-seconds S]\n");
    return 0;
  }
  const double min_seconds = mlf::Flag(argc, argv, "--min-seconds", 0.3);
  const std::string work = mlf::bench::MakeWorkDir("mlf-compiler-bench");
  if (work.empty()) return 1;
  std::printf("%-28s %-9s %12s %14s %10s %14s %10s %9s\n", "model", "kind", "MACs", "generated us",
              "GFLOP/s", "reference us", "GFLOP/s", "speed-up");
  std::string json = "[";
  for (const mlf::Model& m : mlf::Models()) {
    auto row = mlf::Measure(m, work, min_seconds);
    if (!row.ok()) {
      std::printf("%-28s error: %s\n", m.name.c_str(), row.status().ToString().c_str());
      continue;
    }
    const double flops = 2.0 * static_cast<double>(row->macs);
    std::printf("%-28s %-9s %12llu %14.2f %10.2f %14.2f %10.3f %8.1fx\n", row->name.c_str(),
                row->kind.c_str(), static_cast<unsigned long long>(row->macs), row->generated_s * 1e6,
                flops / row->generated_s / 1e9, row->reference_s * 1e6, flops / row->reference_s / 1e9,
                row->reference_s / row->generated_s);
    char entry[512];
    std::snprintf(entry, sizeof entry,
                  "%s{\"model\": \"%s\", \"macs\": %llu, \"generated_us\": %.3f, \"reference_us\": %.3f}",
                  json.size() > 1 ? ", " : "", row->name.c_str(),
                  static_cast<unsigned long long>(row->macs), row->generated_s * 1e6, row->reference_s * 1e6);
    json += entry;
  }
  std::printf("JSON %s]\n", json.c_str());
  std::filesystem::remove_all(work);
  return 0;
}
