// ONNX conformance: every test of Debian's libonnx-testdata
// (/usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator,
// simple}) whose operators are all in kOps (plus helpers that only feed
// constant folding) is imported, run on each test_data_set_*, and compared
// with the reference outputs (rtol 1e-3, atol 1e-4).
//
// Outcomes: passed; failed (wrong result, or an error that is not a
// refusal); refused (the front end or an operator says "unsupported":
// kUnimplemented or "... not supported" — a missing operator is one); out of
// scope (a helper op such as Cast survives folding, so the test is about
// that helper). Tests that feed shapes/axes/scales as graph inputs are run
// with those inputs frozen to the test's values (OnnxImportOptions::
// constant_inputs), since mlfkit needs them as constants.
//
// The harness is independent of how a graph is executed: RunConformance
// takes a Runner (graph + inputs -> outputs). The reference interpreter is
// one runner; exporting to an archive and running it through the host loader
// is another (add a TEST with that runner).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/frontend/onnx_frontend.h"
#include "codegen/frontend/tensor_proto.h"
#include "codegen/ops/op.h"
#include "codegen/archive_export.h"
#include "codegen/compiler.h"
#include "codegen/reference/interpreter.h"
#include "loader/host/model_library.h"
#include "loader/host/tensor_check.h"

namespace mlf {
namespace {

namespace fs = std::filesystem;

using Runner = std::function<Result<std::vector<ir::HostTensor>>(
    const ir::Graph& graph, const std::vector<ir::HostTensor>& inputs)>;

constexpr const char* kRoot = "/usr/share/libonnx-testdata/data";
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

const std::set<std::string> kOps = {
    "Add", "Sub", "Mul", "Div", "Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid",
    "HardSwish", "Softmax", "LogSoftmax", "MatMul", "Gemm", "Conv", "ConvTranspose", "MaxPool",
    "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization", "Flatten",
    "Reshape", "Transpose", "Concat", "Split", "Slice", "Squeeze", "Unsqueeze", "Pad",
    "ReduceMean", "ReduceSum", "ReduceMax", "Identity", "Dropout", "Exp", "Log", "Sqrt", "Pow",
    "Abs", "Neg", "Erf", "Gather", "Resize"};
// Operators allowed only because they normally fold away.
const std::set<std::string> kHelpers = {"Constant", "Shape", "Size", "Cast", "ConstantOfShape",
                                        "Range", "Expand"};

enum class Outcome { kPassed, kFailed, kRefused, kOutOfScope };

struct CaseResult {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

struct Summary {
  int passed = 0, failed = 0, refused = 0, out_of_scope = 0, frozen = 0;
  std::map<std::string, int> refusals;  // reason -> count
  std::vector<std::string> failures;    // "<test>: <reason>"
};

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return IoError("cannot read " + path.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// "node 'conv1' (Conv): group 3 ..." -> "Conv: group 3 ...", for grouping.
std::string Normalise(const std::string& message) {
  std::string m = message;
  if (m.rfind("node '", 0) == 0) {
    const size_t open = m.find("' (");
    const size_t close = m.find("): ", open == std::string::npos ? 0 : open);
    if (open != std::string::npos && close != std::string::npos) {
      m = m.substr(open + 3, close - open - 3) + ": " + m.substr(close + 3);
    }
  }
  return m;
}

bool IsRefusal(const Status& s) {
  return s.code() == StatusCode::kUnimplemented ||
         s.message().find("not supported") != std::string::npos;
}

CaseResult Refused(const Status& s) { return {Outcome::kRefused, Normalise(s.message())}; }
CaseResult Failed(const std::string& reason) { return {Outcome::kFailed, reason}; }

struct DataSet {
  std::vector<ir::HostTensor> inputs;
  std::vector<ir::HostTensor> outputs;
};

Result<std::vector<ir::HostTensor>> ReadTensors(const fs::path& dir, const std::string& prefix) {
  std::vector<ir::HostTensor> out;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    MLF_ASSIGN_OR_RETURN(std::string bytes, ReadFile(p));
    Result<ir::HostTensor> t = frontend::ParseTensorProto(bytes);
    if (!t.ok()) return t.status().WithContext(p.filename().string());
    out.push_back(std::move(*t));
  }
  return out;
}

Result<std::vector<DataSet>> ReadDataSets(const fs::path& test_dir) {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(test_dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<DataSet> sets;
  for (const fs::path& d : dirs) {
    DataSet s;
    MLF_ASSIGN_OR_RETURN(s.inputs, ReadTensors(d, "input_"));
    MLF_ASSIGN_OR_RETURN(s.outputs, ReadTensors(d, "output_"));
    sets.push_back(std::move(s));
  }
  return sets;
}

bool Close(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= kAtol + kRtol * std::fabs(want);
}

// "" when equal, else why not.
std::string Compare(const ir::HostTensor& got, const ir::HostTensor& want) {
  if (got.dtype != want.dtype) {
    return std::string("dtype ") + DTypeName(got.dtype) + ", expected " + DTypeName(want.dtype);
  }
  if (got.shape != want.shape) {
    return "shape " + FormatShape(got.shape) + ", expected " + FormatShape(want.shape);
  }
  uint64_t bad = 0, first = 0;
  double worst = 0;
  for (uint64_t i = 0; i < want.element_count(); ++i) {
    const double g = got.GetDouble(i), w = want.GetDouble(i);
    if (!Close(g, w)) {
      if (bad++ == 0) first = i;
      if (std::isfinite(g) && std::isfinite(w)) worst = std::max(worst, std::fabs(g - w));
    }
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os.precision(7);
  os << bad << " of " << want.element_count() << " elements differ; first at " << first << ": "
     << got.GetDouble(first) << " vs expected " << want.GetDouble(first)
     << "; max abs diff " << worst;
  return os.str();
}

// Non-initializer graph inputs, in order.
std::vector<std::string> GraphInputs(const onnx::ModelProto& model) {
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> names;
  for (const auto& in : model.graph().input()) {
    if (!inits.count(in.name())) names.push_back(in.name());
  }
  return names;
}

// Runs one data set of an imported graph.
CaseResult RunDataSet(const ir::Graph& graph, const std::vector<ir::HostTensor>& inputs,
                      const DataSet& set, const Runner& runner) {
  Result<std::vector<ir::HostTensor>> out = runner(graph, inputs);
  if (!out.ok()) return IsRefusal(out.status()) ? Refused(out.status()) : Failed(out.status().ToString());
  if (out->size() != set.outputs.size()) {
    return Failed("produced " + std::to_string(out->size()) + " outputs, expected " +
                  std::to_string(set.outputs.size()));
  }
  for (size_t j = 0; j < out->size(); ++j) {
    const std::string diff = Compare((*out)[j], set.outputs[j]);
    if (!diff.empty()) {
      return Failed("output " + std::to_string(j) + " ('" + graph.value(graph.outputs[j]).name +
                    "'): " + diff);
    }
  }
  return {};
}

CaseResult RunCase(const fs::path& dir, const Runner& runner, bool* in_scope, bool* frozen) {
  *in_scope = false;
  *frozen = false;
  Result<std::string> bytes = ReadFile(dir / "model.onnx");
  if (!bytes.ok()) return Failed(bytes.status().ToString());
  onnx::ModelProto model;
  if (!model.ParseFromString(*bytes)) return Failed("model.onnx does not parse");
  std::set<std::string> helpers_used;
  for (const auto& n : model.graph().node()) {
    if (kOps.count(n.op_type())) continue;
    if (!kHelpers.count(n.op_type())) return {};
    helpers_used.insert(n.op_type());
  }
  *in_scope = true;
  for (const auto* list : {&model.graph().input(), &model.graph().output()}) {
    for (const auto& v : *list) {
      if (!v.type().has_tensor_type()) {
        return Refused(Unimplemented("graph input or output '" + v.name() + "' is not a tensor"));
      }
      Result<DType> dtype = frontend::DTypeFromOnnx(v.type().tensor_type().elem_type());
      if (!dtype.ok()) return Refused(dtype.status().WithContext("graph input or output"));
    }
  }
  Result<std::vector<DataSet>> sets = ReadDataSets(dir);
  if (!sets.ok()) return Failed(sets.status().ToString());
  if (sets->empty()) return Failed("no test_data_set_*");
  const std::vector<std::string> input_names = GraphInputs(model);

  frontend::OnnxImportOptions options;
  Result<ir::Graph> graph = frontend::ImportOnnx(*bytes, options);
  auto needs_constants = [&] {
    return !graph.ok() && graph.status().message().find("must be a constant") != std::string::npos;
  };
  const bool freeze = needs_constants();
  if (!graph.ok() && !freeze) {
    return IsRefusal(graph.status()) ? Refused(graph.status()) : Failed(graph.status().ToString());
  }
  *frozen = freeze;
  for (const DataSet& set : *sets) {
    if (set.inputs.size() != input_names.size()) {
      return Failed("test data has " + std::to_string(set.inputs.size()) + " inputs, the model " +
                    std::to_string(input_names.size()));
    }
    std::vector<ir::HostTensor> inputs = set.inputs;
    // Parameters the ops need as constants: first every input but the first
    // (data, then shapes/axes/scales...), then all of them.
    for (size_t first : {size_t{1}, size_t{0}}) {
      if (!freeze) break;
      options.constant_inputs.clear();
      for (size_t i = first; i < input_names.size(); ++i) {
        options.constant_inputs[input_names[i]] = set.inputs[i];
      }
      inputs.assign(set.inputs.begin(), set.inputs.begin() + std::min(first, set.inputs.size()));
      graph = frontend::ImportOnnx(*bytes, options);
      if (!needs_constants()) break;
    }
    if (!graph.ok()) {
      return IsRefusal(graph.status()) ? Refused(graph.status()) : Failed(graph.status().ToString());
    }
    for (const ir::Node& node : graph->nodes) {
      if (!kOps.count(node.op)) {
        return {Outcome::kOutOfScope, node.op + " remains after constant folding"};
      }
    }
    CaseResult r = RunDataSet(*graph, inputs, set, runner);
    if (r.outcome != Outcome::kPassed) return r;
  }
  return {};
}

// `quiet`: only the final line (for self-tests of the harness).
Summary RunConformance(const std::string& mode, const Runner& runner, bool quiet = false) {
  Summary s;
  std::ostringstream log;
  std::vector<fs::path> dirs;
  for (const char* folder : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    const fs::path root = fs::path(kRoot) / folder;
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::directory_iterator(root)) {
      if (fs::exists(e.path() / "model.onnx")) dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  std::map<std::string, int> out_of_scope;
  for (const fs::path& dir : dirs) {
    const std::string name = dir.parent_path().filename().string() + "/" + dir.filename().string();
    bool in_scope = false, frozen = false;
    const auto start = std::chrono::steady_clock::now();
    CaseResult r = RunCase(dir, runner, &in_scope, &frozen);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!in_scope) continue;
    if (seconds > 5) log << "slow: " << name << " took " << seconds << " s\n";
    switch (r.outcome) {
      case Outcome::kPassed:
        ++s.passed;
        s.frozen += frozen ? 1 : 0;
        break;
      case Outcome::kFailed:
        ++s.failed;
        s.failures.push_back(name + ": " + r.reason);
        log << "FAIL " << name << ": " << r.reason << "\n";
        break;
      case Outcome::kRefused:
        ++s.refused;
        ++s.refusals[r.reason];
        break;
      case Outcome::kOutOfScope:
        ++s.out_of_scope;
        ++out_of_scope[r.reason];
        break;
    }
  }
  std::vector<std::pair<int, std::string>> grouped;
  for (const auto& [reason, n] : s.refusals) grouped.emplace_back(-n, reason);
  std::sort(grouped.begin(), grouped.end());
  for (const auto& [n, reason] : grouped) log << "refused " << -n << "x: " << reason << "\n";
  for (const auto& [reason, n] : out_of_scope) log << "out of scope " << n << "x: " << reason << "\n";
  std::string missing;
  const std::vector<std::string> supported = ops::SupportedOps();
  for (const std::string& op : kOps) {
    if (!std::binary_search(supported.begin(), supported.end(), op)) missing += " " + op;
  }
  if (!missing.empty()) log << "operators of the list not registered yet:" << missing << "\n";
  log << "(" << s.frozen << " of the passed tests ran with parameter inputs frozen to "
      << "constants; " << s.out_of_scope << " tests out of scope)\n";
  if (!quiet) std::cout << log.str();
  std::cout << "onnx conformance (" << mode << "): " << s.passed << " passed, " << s.failed
            << " failed, " << s.refused << " refused\n";
  return s;
}

TEST(OnnxConformance, ReferenceInterpreter) {
  if (!fs::exists(kRoot)) GTEST_SKIP() << kRoot << " is missing (install libonnx-testdata)";
  Summary s = RunConformance("reference interpreter", reference::Interpret);
  EXPECT_GT(s.passed + s.refused, 0);
  EXPECT_EQ(s.failed, 0) << "first failure: " << (s.failures.empty() ? "" : s.failures[0]);
}

// The compiler end to end: each graph is compiled (passes, memory plan, C
// emission), exported to an archive with its host library, opened with the
// host loader and run; outputs come back through AotExecutor.
Result<std::vector<ir::HostTensor>> RunExported(const ir::Graph& graph,
                                                const std::vector<ir::HostTensor>& inputs) {
  static int counter = 0;
  const std::string dir = std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp";
  const std::string archive = dir + "/conformance_" + std::to_string(counter++) + ".tar";
  MLF_ASSIGN_OR_RETURN(ModuleArtifacts module, CompileGraph("default", graph, {}));
  MLF_RETURN_IF_ERROR(ExportArchive({module}, archive, {}).status());
  LoadOptions options;
  options.cache_dir = dir + "/cache";
  MLF_ASSIGN_OR_RETURN(std::shared_ptr<ModelLibrary> lib, ModelLibrary::Open(archive, options));
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<AotExecutor> exec, lib->CreateExecutor("default"));
  for (size_t i = 0; i < inputs.size(); ++i) {
    MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec->input_info(static_cast<int>(i)));
    ir::HostTensor copy = inputs[i];
    copy.bytes.reserve(copy.bytes.size() + 1);  // a valid address even when empty
    MLF_RETURN_IF_ERROR(exec->SetInput(static_cast<int>(i), MakeTensorView(spec, copy.bytes.data())));
  }
  MLF_RETURN_IF_ERROR(exec->Run());
  std::vector<ir::HostTensor> outputs;
  for (int o = 0; o < exec->num_outputs(); ++o) {
    MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec->output_info(o));
    MLF_ASSIGN_OR_RETURN(DLTensor t, exec->GetOutput(o));
    ir::HostTensor out = ir::HostTensor::Zeros(spec.dtype, spec.shape);
    if (!out.bytes.empty()) std::memcpy(out.bytes.data(), t.data, out.bytes.size());
    outputs.push_back(std::move(out));
  }
  std::filesystem::remove(archive);
  return outputs;
}

TEST(OnnxConformance, ExportedArchivesOnTheHostLoader) {
  if (!fs::exists(kRoot)) GTEST_SKIP() << kRoot << " is missing (install libonnx-testdata)";
  Summary s = RunConformance("exported archives on the host loader", RunExported);
  EXPECT_GT(s.passed, 0);
  EXPECT_EQ(s.failed, 0) << "first failure: " << (s.failures.empty() ? "" : s.failures[0]);
}

// The harness itself: a runner whose every output is wrong must fail every
// test that runs (so passing means the comparison really happened).
TEST(OnnxConformance, HarnessDetectsWrongOutputs) {
  if (!fs::exists(kRoot)) GTEST_SKIP() << kRoot << " is missing (install libonnx-testdata)";
  const Runner wrong = [](const ir::Graph& graph, const std::vector<ir::HostTensor>& inputs)
      -> Result<std::vector<ir::HostTensor>> {
    MLF_ASSIGN_OR_RETURN(std::vector<ir::HostTensor> out, reference::Interpret(graph, inputs));
    for (ir::HostTensor& t : out) {
      if (t.element_count() == 0) {
        t.shape.push_back(1);
      } else {
        const double v = t.GetDouble(0);
        const bool is_float = t.dtype == DType::kFloat32 || t.dtype == DType::kFloat64 ||
                              t.dtype == DType::kFloat16 || t.dtype == DType::kBFloat16;
        t.SetDouble(0, is_float ? (std::isfinite(v) ? v + 1 : 0) : (v == 0 ? 1 : 0));
      }
    }
    return out;
  };
  Summary s = RunConformance("self-test: corrupted outputs", wrong, /*quiet=*/true);
  EXPECT_EQ(s.passed, 0);
  EXPECT_GT(s.failed, 0);
}

}  // namespace
}  // namespace mlf
