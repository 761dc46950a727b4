#include "codegen/ops/testing/op_harness.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "artifact/format/tensor_values.h"
#include "artifact/toolchain/host_build.h"
#include "codegen/emit/node_function.h"
#include "codegen/kernels/kernels.h"
#include "codegen/ops/op.h"
#include "codegen/reference/interpreter.h"

namespace mlf::ops::testing {
namespace {

// The generated node plus a driver taking one pointer per value id; the
// kernel families the nodes call go to `kernels`.
Result<std::string> DriverSource(const ir::Graph& graph, uint64_t* scratch_bytes,
                                 std::set<std::string>* kernels) {
  std::string src;
  std::string calls;
  *scratch_bytes = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    MLF_ASSIGN_OR_RETURN(emit::NodeFunction f, emit::EmitNodeFunction(graph, n));
    kernels->insert(f.kernels.begin(), f.kernels.end());
    src += f.definition + "\n";
    std::string args;
    for (int id : f.params) {
      args += (args.empty() ? "" : ", ") + std::string("(") +
              (std::find(graph.nodes[n].outputs.begin(), graph.nodes[n].outputs.end(), id) !=
                       graph.nodes[n].outputs.end()
                   ? ""
                   : "const ") +
              CType(graph.value(id).dtype) + "*)values[" + std::to_string(id) + "]";
    }
    if (f.needs_scratch) args += std::string(args.empty() ? "" : ", ") + "scratch";
    if (f.needs_exec) args += std::string(args.empty() ? "" : ", ") + "NULL";  // best variant, serial
    *scratch_bytes = std::max(*scratch_bytes, f.scratch_bytes);
    calls += "  " + f.name + "(" + args + ");\n";
  }
  src = emit::GeneratedSourcePreamble() + emit::KernelIncludes(*kernels) + src;
  src += "void mlf_test_run(void** values, void* scratch);\n"
         "void mlf_test_run(void** values, void* scratch) {\n  (void)scratch;\n" + calls + "}\n";
  return src;
}

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

}  // namespace

OpTest::OpTest(const std::string& op, const std::string& name) {
  ir::Node node;
  node.op = op;
  node.name = name;
  graph_.nodes.push_back(node);
}

int OpTest::Input(const std::string& name, DType dtype, std::vector<int64_t> shape) {
  ir::Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  const int id = graph_.AddValue(v);
  graph_.inputs.push_back(id);
  node().inputs.push_back(id);
  return id;
}

int OpTest::Constant(const std::string& name, ir::HostTensor tensor) {
  const int id = graph_.AddConstant(name, std::move(tensor));
  node().inputs.push_back(id);
  return id;
}

void OpTest::OmittedInput() { node().inputs.push_back(ir::kNoValue); }

int OpTest::Output(const std::string& name) {
  ir::Value v;
  v.name = name;
  const int id = graph_.AddValue(v);
  graph_.outputs.push_back(id);
  node().outputs.push_back(id);
  return id;
}

void OpTest::Attr(const std::string& key, ir::AttrValue value) { node().attrs[key] = std::move(value); }

Status OpTest::Infer() { return InferNode(graph_.nodes[0], graph_); }

Result<std::vector<ir::HostTensor>> OpTest::Evaluate(const std::vector<ir::HostTensor>& inputs) {
  return reference::Interpret(graph_, inputs);
}

Result<std::vector<ir::HostTensor>> OpTest::RunGenerated(const std::vector<ir::HostTensor>& inputs) {
  if (inputs.size() != graph_.inputs.size()) return InvalidArgument("wrong number of inputs");
  uint64_t scratch_bytes = 0;
  std::set<std::string> kernel_families;
  MLF_ASSIGN_OR_RETURN(std::string source, DriverSource(graph_, &scratch_bytes, &kernel_families));
  MLF_ASSIGN_OR_RETURN(std::vector<StagedFile> files, kernels::KernelFiles(kernel_families));
  files.push_back({"node.c", source});
  static std::atomic<int> counter{0};
  const std::string so = TempDir() + "/op_harness_" + std::to_string(getpid()) + "_" +
                         std::to_string(counter++) + ".so";
  HostBuildConfig config;
  config.flags = {"-O2", "-fPIC", "-std=c99", "-Wall", "-Wextra", "-Werror"};
  config.include_dirs = {};
  MLF_RETURN_IF_ERROR(BuildHostLibrary(files, {"node.c"}, so, config)
                          .WithContext("generated code:\n" + source));
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return Internal(std::string("dlopen: ") + dlerror());
  auto run = reinterpret_cast<void (*)(void**, void*)>(dlsym(handle, "mlf_test_run"));

  std::vector<ir::HostTensor> storage(graph_.values.size());
  std::vector<void*> pointers(graph_.values.size(), nullptr);
  for (size_t v = 0; v < graph_.values.size(); ++v) {
    const ir::Value& value = graph_.values[v];
    if (value.is_constant()) storage[v] = *value.constant;
    else storage[v] = ir::HostTensor::Zeros(value.dtype, value.shape);
  }
  for (size_t i = 0; i < inputs.size(); ++i) storage[graph_.inputs[i]] = inputs[i];
  for (size_t v = 0; v < storage.size(); ++v) {
    // One spare byte so empty tensors still have a valid address.
    storage[v].bytes.reserve(storage[v].bytes.size() + 1);
    pointers[v] = storage[v].bytes.data();
  }
  std::vector<char> scratch(scratch_bytes + 64);
  run(pointers.data(), scratch.data());
  dlclose(handle);
  std::filesystem::remove(so);
  std::vector<ir::HostTensor> out;
  for (int id : graph_.outputs) out.push_back(storage[id]);
  return out;
}

Status AllClose(const std::vector<ir::HostTensor>& got, const std::vector<ir::HostTensor>& want,
                double rtol, double atol) {
  if (got.size() != want.size()) return InvalidArgument("different numbers of tensors");
  for (size_t t = 0; t < got.size(); ++t) {
    const std::string where = "tensor " + std::to_string(t);
    if (got[t].dtype != want[t].dtype) {
      return InvalidArgument(where + ": dtype " + DTypeName(got[t].dtype) + " vs " + DTypeName(want[t].dtype));
    }
    if (got[t].shape != want[t].shape) {
      return InvalidArgument(where + ": shape " + FormatShape(got[t].shape) + " vs " + FormatShape(want[t].shape));
    }
    for (uint64_t i = 0; i < got[t].element_count(); ++i) {
      const double g = got[t].GetDouble(i), w = want[t].GetDouble(i);
      if (std::isnan(g) && std::isnan(w)) continue;
      if (g == w) continue;
      if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
        return InvalidArgument(where + " element " + std::to_string(i) + ": got " +
                               std::to_string(g) + ", want " + std::to_string(w));
      }
    }
  }
  return Status::Ok();
}

Status GeneratedMatchesReference(OpTest& t, const std::vector<ir::HostTensor>& inputs, double rtol,
                                 double atol) {
  Result<std::vector<ir::HostTensor>> want = t.Evaluate(inputs);
  if (!want.ok()) return want.status();
  Result<std::vector<ir::HostTensor>> got = t.RunGenerated(inputs);
  if (!got.ok()) return got.status();
  return AllClose(*got, *want, rtol, atol);
}

std::vector<double> Values(const ir::HostTensor& t) {
  std::vector<double> v;
  for (uint64_t i = 0; i < t.element_count(); ++i) v.push_back(t.GetDouble(i));
  return v;
}

ir::HostTensor MakeTensor(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, std::move(shape));
  for (size_t i = 0; i < values.size() && i < t.element_count(); ++i) t.SetDouble(i, values[i]);
  return t;
}

ir::HostTensor RandomTensor(DType dtype, std::vector<int64_t> shape, uint64_t seed) {
  ir::HostTensor t = ir::HostTensor::Zeros(dtype, std::move(shape));
  FillRandom(dtype, t.bytes.data(), t.element_count(), seed);
  return t;
}

}  // namespace mlf::ops::testing
