// ONNX conformance: every test of Debian's libonnx-testdata
// (/usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator,
// simple}, installed by scripts/setup.sh) whose operators are all in kOps
// (plus helpers that only feed constant folding, and kLowered) is imported, run on each
// test_data_set_*, and compared with the reference outputs (rtol 1e-3,
// atol 1e-4).
//
// Outcomes of a case:
//   pass       every data set matches; one of three kinds:
//     cli           imported as `mlf export` imports it, and something is
//                   computed at run time: the headline figure;
//     frozen-input  imports only with parameter inputs (shapes, axes,
//                   scales, ...) frozen to the test's values through
//                   OnnxImportOptions::constant_inputs, which the CLI does
//                   not offer;
//     fold-away     nothing is left to compute: the compiler's passes leave
//                   no operator node (Shape/Size/Constant graphs);
//   refused    the front end or the compiler declines the model with
//              kUnimplemented and one of the fixed refusal messages of
//              RefusalKinds(); anything else (another code or message, or
//              any error while exporting, loading or running) is an error;
//   wrong      an output differs from the reference;
//   error      see above, or the test data does not fit the model;
//   out of scope  a helper op such as Cast survives folding, so the test is
//              about that helper.
//
// The passes are pinned in tests/onnx_conformance_expected.txt ("<kind>
// <case>" lines): a listed case that does not pass as listed fails the test,
// and so does a pass missing from the list. Wrong results and errors fail
// the test whether listed or not.
//
// The harness is independent of how a graph is executed: a Backend compiles
// a graph (the step whose refusals count as refusals) into a Program that
// runs it. Here the backend is the reference interpreter (the operators'
// evaluate(), which constant folding and the operator tests trust): this test
// checks it against ONNX's data. The compiled code is checked the way a user
// meets it, through `mlf export` and `mlf run`, by
// tests/onnx_cli_conformance_test.cc.
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
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/compiler.h"
#include "codegen/frontend/onnx_frontend.h"
#include "codegen/frontend/tensor_proto.h"
#include "codegen/ops/op.h"
#include "codegen/reference/interpreter.h"
#include "tests/onnx_test_data.h"

namespace mlf {
namespace {

namespace fs = std::filesystem;

using Outputs = std::vector<ir::HostTensor>;
// Runs a compiled graph on its inputs.
using Program = std::function<Result<Outputs>(const std::vector<ir::HostTensor>& inputs)>;

// How graphs are executed. `compile` may refuse a graph (a refusal of the
// compiler); the Program it returns runs it, and any error there is an error.
struct Backend {
  std::string name;
  std::function<Result<Program>(const ir::Graph& graph)> compile;
};

using testing::ReadWholeFile;
constexpr const char* kRoot = testing::kOnnxTestDataRoot;
const auto& kFolders = testing::kOnnxTestDataFolders;
// The pinned passes: a data dependency of the test, and where `bazel run`
// with MLF_CONFORMANCE_UPDATE=1 rewrites it (see its header).
constexpr const char* kExpectedFile = "tests/onnx_conformance_expected.txt";
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

const std::set<std::string> kOps = {
    "Add", "Sub", "Mul", "Div", "Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid",
    "HardSwish", "Softmax", "LogSoftmax", "MatMul", "Gemm", "Conv", "ConvTranspose", "MaxPool",
    "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization", "Flatten",
    "Reshape", "Transpose", "Concat", "Split", "Slice", "Squeeze", "Unsqueeze", "Pad",
    "ReduceMean", "ReduceSum", "ReduceMax", "Identity", "Dropout", "Exp", "Log", "Sqrt", "Pow",
    "Abs", "Neg", "Erf", "Gather", "Resize",
    // codegen/ops/quantize.cc, qlinear.cc
    "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "QLinearMatMul", "QLinearConv",
    "MatMulInteger", "ConvInteger",
    // codegen/ops/math.cc, compare.cc, arith.cc
    "Reciprocal", "Sign", "Floor", "Ceil", "Round", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
    "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "IsNaN", "IsInf", "Not", "Elu", "Selu", "Celu",
    "Softplus", "Softsign", "ThresholdedRelu", "Shrink", "Mish", "Equal", "Less", "Greater",
    "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor", "Where", "Min", "Max", "Mean", "Sum",
    "Mod", "PRelu", "BitShift",
    // codegen/ops/layer_norm.cc, expand.cc, generate.cc, select.cc, scatter.cc, normalize.cc, reduce.cc
    "LayerNormalization", "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "Range", "EyeLike",
    "OneHot", "Trilu", "ArgMax", "ArgMin", "Hardmax", "TopK", "CumSum", "GatherElements",
    "GatherND", "ScatterElements", "Scatter", "ScatterND", "InstanceNormalization",
    "MeanVarianceNormalization", "LpNormalization", "LRN", "ReduceMin", "ReduceProd",
    "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
    // codegen/ops/loss.cc, cast.cc, window.cc, rnn.cc, reverse_sequence.cc, det.cc,
    // max_unpool.cc, einsum.cc; Upsample (lowered to Resize)
    "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss", "Cast", "CastLike", "HannWindow",
    "HammingWindow", "BlackmanWindow", "RNN", "GRU", "LSTM", "ReverseSequence", "Det", "MaxUnpool",
    "Einsum",
    // codegen/ops/compress.cc, grid_sample.cc, dft.cc, tfidf.cc, roi_align.cc
    "STFT", "Compress", "GridSample", "DFT", "TfIdfVectorizer", "RoiAlign"};
// Operators the front end rewrites into others of kOps (Upsample into Resize).
const std::set<std::string> kLowered = {"Upsample"};
// Operators allowed only because they normally fold away.
const std::set<std::string> kHelpers = {"Constant", "Shape", "Size", "Cast", "ConstantOfShape",
                                        "Range", "Expand"};

enum class Outcome { kPassed, kWrong, kError, kRefused, kOutOfScope };
// The kinds of pass (see the top of the file); their names are the first
// word of the lines of kExpectedFile.
enum class PassKind { kCli, kFrozenInput, kFoldAway };

const char* PassKindName(PassKind kind) {
  switch (kind) {
    case PassKind::kCli: return "cli";
    case PassKind::kFrozenInput: return "frozen-input";
    case PassKind::kFoldAway: return "fold-away";
  }
  return "?";
}

struct CaseResult {
  Outcome outcome = Outcome::kPassed;
  PassKind kind = PassKind::kCli;  // for kPassed
  std::string reason;              // for the others
};

// Every in-scope case by name ("node/test_abs"), and the counts.
struct Summary {
  std::map<std::string, CaseResult> cases;
  int cli = 0, frozen_input = 0, fold_away = 0, refused = 0, wrong = 0, errors = 0,
      out_of_scope = 0;
  int passed() const { return cli + frozen_input + fold_away; }
};


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

// The refusals of the front end and the compiler: kUnimplemented with one of
// these messages (codegen/ops/registry.cc; the operators' attribute, mode
// and dtype checks through op_util.h; codegen/emit; the
// front end's domain, dtype and value-kind checks). `kind` names it in the
// log. Anything else, of any code, is an error.
struct RefusalKind {
  const char* kind;
  std::regex pattern;
};

const std::vector<RefusalKind>& RefusalKinds() {
  static const std::vector<RefusalKind> kinds = {
      {"operator not supported",
       std::regex(R"(node '[^']*' \((\w+)\): operator \1 is not supported)")},
      {"no C code generator",
       std::regex(R"(node '[^']*' \((\w+)\): no C code generator for \1)")},
      {"inference only", std::regex(R"(node '[^']*' \(\w+\): .+; mlfkit compiles inference only)")},
      {"operator dtype not supported",
       std::regex(R"(node '[^']*' \(\w+\): (cannot evaluate dtypes? .+|.+ has dtype \w+; supported: .+))")},
      {"attribute, mode or output not supported",
       std::regex(R"(node '[^']*' \(\w+\): .+ (is|are) not supported\b.*)")},
      {"dtype not supported", std::regex(R"((input '[^']*': )?ONNX dtype \w+ is not supported)")},
      {"input not a tensor",
       std::regex(R"(input '[^']*' is not a tensor \(sequences, maps and optionals are not supported\))")},
  };
  return kinds;
}

// The refusal's kind, or nullptr if `s` is not a refusal.
const char* RefusalKindOf(const Status& s) {
  if (s.code() != StatusCode::kUnimplemented) return nullptr;
  for (const RefusalKind& k : RefusalKinds()) {
    if (std::regex_match(s.message(), k.pattern)) return k.kind;
  }
  return nullptr;
}

CaseResult Error(const std::string& reason) { return {Outcome::kError, PassKind::kCli, reason}; }
CaseResult Wrong(const std::string& reason) { return {Outcome::kWrong, PassKind::kCli, reason}; }

// A failure of importing or compiling: a refusal if it is one, else an error.
CaseResult Declined(const Status& s) {
  const char* kind = RefusalKindOf(s);
  if (kind == nullptr) return Error(s.ToString());
  return {Outcome::kRefused, PassKind::kCli, std::string(kind) + ": " + Normalise(s.message())};
}

using DataSet = testing::OnnxDataSet;

bool Close(double got, double want, double rtol = kRtol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= kAtol + rtol * std::fabs(want);
}

// "" when equal, else why not.
std::string Compare(const ir::HostTensor& got, const ir::HostTensor& want_in) {
  ir::HostTensor want = want_in;
  double rtol = kRtol;
  if (got.dtype == DType::kBFloat16 && want.dtype == DType::kUInt16) {
    // The test data holds bfloat16 outputs as their uint16 bit patterns, made
    // by truncating float32 where mlfkit rounds to nearest even
    // (codegen/ops/README.md): compared as bfloat16 within one step of it.
    want.dtype = DType::kBFloat16;
    rtol = 1.0 / 128;
  }
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
    if (!Close(g, w, rtol)) {
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

// True when the compiler's passes leave no operator node: the module would
// compute nothing at run time.
bool FoldsAway(const ir::Graph& graph) {
  ir::Graph copy = graph;
  CompileReport report;
  return OptimizeGraph(copy, {}, &report).ok() && report.nodes_emitted == 0;
}

// Compiles and runs one data set of an imported graph.
CaseResult RunDataSet(const ir::Graph& graph, const std::vector<ir::HostTensor>& inputs,
                      const DataSet& set, const Backend& backend) {
  Result<Program> program = backend.compile(graph);
  if (!program.ok()) return Declined(program.status());
  Result<Outputs> out = (*program)(inputs);
  if (!out.ok()) return Error(out.status().ToString());
  if (out->size() != set.outputs.size()) {
    return Wrong("produced " + std::to_string(out->size()) + " outputs, expected " +
                 std::to_string(set.outputs.size()));
  }
  for (size_t j = 0; j < out->size(); ++j) {
    const std::string diff = Compare((*out)[j], set.outputs[j]);
    if (!diff.empty()) {
      return Wrong("output " + std::to_string(j) + " ('" + graph.value(graph.outputs[j]).name +
                   "'): " + diff);
    }
  }
  return {};
}

// The case in `dir`; nullopt when it is not about the operators of kOps.
std::optional<CaseResult> RunCase(const fs::path& dir, const Backend& backend) {
  Result<std::string> bytes = ReadWholeFile(dir / "model.onnx");
  if (!bytes.ok()) return Error(bytes.status().ToString());
  onnx::ModelProto model;
  if (!model.ParseFromString(*bytes)) return Error("model.onnx does not parse");
  for (const auto& n : model.graph().node()) {
    if (!kOps.count(n.op_type()) && !kHelpers.count(n.op_type()) && !kLowered.count(n.op_type())) {
      return std::nullopt;
    }
  }
  frontend::OnnxImportOptions options;
  Result<ir::Graph> graph = frontend::ImportOnnx(*bytes, options);
  auto needs_constants = [&] {
    return !graph.ok() && graph.status().message().find("must be a constant") != std::string::npos;
  };
  const bool freeze = needs_constants();
  if (!graph.ok() && !freeze) return Declined(graph.status());
  Result<std::vector<DataSet>> sets = testing::ReadOnnxDataSets(dir);
  if (!sets.ok()) return Error(sets.status().ToString());
  if (sets->empty()) return Error("no test_data_set_*");
  const std::vector<std::string> input_names = GraphInputs(model);
  bool folds_away = true;
  for (const DataSet& set : *sets) {
    if (set.inputs.size() != input_names.size()) {
      return Error("test data has " + std::to_string(set.inputs.size()) + " inputs, the model " +
                   std::to_string(input_names.size()));
    }
    std::vector<ir::HostTensor> inputs = set.inputs;
    // The test data holds bfloat16 inputs as their uint16 bit patterns.
    for (size_t i = 0; graph.ok() && i < inputs.size() && i < graph->inputs.size(); ++i) {
      if (graph->value(graph->inputs[i]).dtype == DType::kBFloat16 && inputs[i].dtype == DType::kUInt16) {
        inputs[i].dtype = DType::kBFloat16;
      }
    }
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
    if (!graph.ok()) return Declined(graph.status());
    for (const ir::Node& node : graph->nodes) {
      if (!kOps.count(node.op)) {
        return CaseResult{Outcome::kOutOfScope, PassKind::kCli,
                          node.op + " remains after constant folding"};
      }
    }
    folds_away = folds_away && FoldsAway(*graph);
    CaseResult r = RunDataSet(*graph, inputs, set, backend);
    if (r.outcome != Outcome::kPassed) return r;
  }
  // A frozen case is frozen-input even when it then folds away: the CLI
  // cannot reach it at all.
  if (freeze) return CaseResult{Outcome::kPassed, PassKind::kFrozenInput, ""};
  if (folds_away) return CaseResult{Outcome::kPassed, PassKind::kFoldAway, ""};
  return CaseResult{};
}


// Runs every in-scope case. `quiet`: only the summary line (for self-tests
// of the harness).
Summary RunConformance(const Backend& backend, bool quiet = false) {
  Summary s;
  std::ostringstream log;
  std::map<std::string, int> refusals, out_of_scope;  // reason -> count
  for (const auto& [name, dir] : testing::OnnxCaseDirs()) {
    const auto start = std::chrono::steady_clock::now();
    std::optional<CaseResult> r = RunCase(dir, backend);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!r) continue;
    if (seconds > 5) log << "slow: " << name << " took " << seconds << " s\n";
    switch (r->outcome) {
      case Outcome::kPassed:
        ++(r->kind == PassKind::kCli ? s.cli
           : r->kind == PassKind::kFrozenInput ? s.frozen_input : s.fold_away);
        break;
      case Outcome::kWrong:
        ++s.wrong;
        log << "WRONG " << name << ": " << r->reason << "\n";
        break;
      case Outcome::kError:
        ++s.errors;
        log << "ERROR " << name << ": " << r->reason << "\n";
        break;
      case Outcome::kRefused:
        ++s.refused;
        ++refusals[r->reason];
        break;
      case Outcome::kOutOfScope:
        ++s.out_of_scope;
        ++out_of_scope[r->reason];
        break;
    }
    s.cases[name] = std::move(*r);
  }
  std::vector<std::pair<int, std::string>> grouped;
  for (const auto& [reason, n] : refusals) grouped.emplace_back(-n, reason);
  std::sort(grouped.begin(), grouped.end());
  for (const auto& [n, reason] : grouped) log << "refused " << -n << "x: " << reason << "\n";
  for (const auto& [reason, n] : out_of_scope) log << "out of scope " << n << "x: " << reason << "\n";
  std::string missing;
  const std::vector<std::string> supported = ops::SupportedOps();
  for (const std::string& op : kOps) {
    if (!std::binary_search(supported.begin(), supported.end(), op)) missing += " " + op;
  }
  if (!missing.empty()) log << "operators of the list not registered:" << missing << "\n";
  if (!quiet) std::cout << log.str();
  std::cout << "conformance (" << backend.name << "): " << s.cli << " pass (CLI), "
            << s.frozen_input << " frozen-input pass, " << s.fold_away << " fold-away pass, "
            << s.refused << " refused, " << s.wrong << " wrong, " << s.errors << " error, "
            << s.out_of_scope << " out of scope" << std::endl;
  return s;
}

// The lines of the expected file: case -> kind name.
Result<std::map<std::string, std::string>> ReadExpected() {
  MLF_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(kExpectedFile));
  std::map<std::string, std::string> expected;
  std::istringstream in(text);
  std::string line, previous;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const std::string at = std::string(kExpectedFile) + ":" + std::to_string(number) + ": ";
    std::istringstream words(line);
    std::string kind, name, extra;
    words >> kind >> name;
    if (name.empty() || (words >> extra)) {
      return InvalidArgument(at + "expected '<kind> <folder>/<test>', got '" + line + "'");
    }
    if (kind != "cli" && kind != "frozen-input" && kind != "fold-away") {
      return InvalidArgument(at + "unknown kind '" + kind + "' (cli, frozen-input or fold-away)");
    }
    if (line <= previous) {
      return InvalidArgument(at + "not sorted after '" + previous + "' (or a duplicate)");
    }
    if (!expected.emplace(name, kind).second) {
      return InvalidArgument(at + "case " + name + " is listed twice");
    }
    previous = line;
  }
  return expected;
}

// The expected file's contents for these results.
std::string ExpectedText(const Summary& s) {
  std::vector<std::string> lines;
  for (const auto& [name, r] : s.cases) {
    if (r.outcome == Outcome::kPassed) lines.push_back(std::string(PassKindName(r.kind)) + " " + name);
  }
  std::sort(lines.begin(), lines.end());
  std::string text =
      "# The libonnx-testdata cases that pass tests/onnx_conformance_test.cc, with\n"
      "# both backends, as '<kind> <folder>/<test>' lines sorted (LC_ALL=C):\n"
      "#   cli           imported as `mlf export` would, computes at run time;\n"
      "#   frozen-input  needs parameter inputs frozen to constants\n"
      "#                 (OnnxImportOptions::constant_inputs);\n"
      "#   fold-away     nothing left to compute after the compiler's passes.\n"
      "# The test fails when a listed case does not pass as listed, and when a case\n"
      "# passes that is not listed: add new passes deliberately, with the change\n"
      "# that makes them pass. To rewrite this file from a run:\n"
      "#   MLF_CONFORMANCE_UPDATE=1 bazel run //tests:onnx_conformance_test -- \\\n"
      "#     --gtest_filter=OnnxConformance.ReferenceInterpreter\n"
      "# and review the diff.\n";
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// Checks the results against the expected file, records the counts in the
// test's XML, and rewrites the file when asked to (MLF_CONFORMANCE_UPDATE=1
// under `bazel run`).
void CheckAgainstExpected(const Summary& s) {
  ::testing::Test::RecordProperty("pass_cli", s.cli);
  ::testing::Test::RecordProperty("pass_frozen_input", s.frozen_input);
  ::testing::Test::RecordProperty("pass_fold_away", s.fold_away);
  ::testing::Test::RecordProperty("refused", s.refused);
  ::testing::Test::RecordProperty("wrong", s.wrong);
  ::testing::Test::RecordProperty("error", s.errors);
  ::testing::Test::RecordProperty("out_of_scope", s.out_of_scope);
  const char* update = std::getenv("MLF_CONFORMANCE_UPDATE");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update != nullptr && std::string(update) == "1") {
    ASSERT_NE(workspace, nullptr) << "MLF_CONFORMANCE_UPDATE=1 needs `bazel run`";
    const fs::path path = fs::path(workspace) / kExpectedFile;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << ExpectedText(s);
    std::cout << "wrote " << path << "\n";
  }
  for (const auto& [name, r] : s.cases) {
    if (r.outcome == Outcome::kWrong) ADD_FAILURE() << name << ": wrong result: " << r.reason;
    if (r.outcome == Outcome::kError) ADD_FAILURE() << name << ": error: " << r.reason;
  }
  Result<std::map<std::string, std::string>> expected = ReadExpected();
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  for (const auto& [name, kind] : *expected) {
    auto it = s.cases.find(name);
    if (it == s.cases.end()) {
      ADD_FAILURE() << name << " is listed in " << kExpectedFile << " (" << kind
                    << ") but is not an in-scope case of " << kRoot;
    } else if (it->second.outcome != Outcome::kPassed) {
      const Outcome o = it->second.outcome;
      ADD_FAILURE() << name << " is listed in " << kExpectedFile << " (" << kind
                    << ") but no longer passes: "
                    << (o == Outcome::kRefused ? "refused: " : o == Outcome::kWrong ? "wrong: "
                        : o == Outcome::kError ? "error: " : "out of scope: ")
                    << it->second.reason;
    } else if (PassKindName(it->second.kind) != kind) {
      ADD_FAILURE() << name << " is listed in " << kExpectedFile << " as " << kind
                    << " but passes as " << PassKindName(it->second.kind)
                    << ": change its line to '" << PassKindName(it->second.kind) << " " << name
                    << "'";
    }
  }
  for (const auto& [name, r] : s.cases) {
    if (r.outcome == Outcome::kPassed && !expected->count(name)) {
      ADD_FAILURE() << name << " passes (" << PassKindName(r.kind) << ") but is not in "
                    << kExpectedFile << ": add the line '" << PassKindName(r.kind) << " " << name
                    << "' if the pass is intended";
    }
  }
}

// Every folder of the test data is there (scripts/setup.sh installs it).
void RequireTestData() {
  for (const char* folder : kFolders) {
    ASSERT_TRUE(fs::is_directory(fs::path(kRoot) / folder))
        << kRoot << "/" << folder << " is missing (scripts/setup.sh installs libonnx-testdata)";
  }
}

Backend InterpreterBackend() {
  return {"reference interpreter", [](const ir::Graph& graph) -> Result<Program> {
            return Program([graph](const std::vector<ir::HostTensor>& inputs) {
              return reference::Interpret(graph, inputs);
            });
          }};
}

TEST(OnnxConformance, ReferenceInterpreter) {
  ASSERT_NO_FATAL_FAILURE(RequireTestData());
  CheckAgainstExpected(RunConformance(InterpreterBackend()));
}

// The harness itself: a backend whose every output is wrong must make every
// case that runs wrong (so passing means the comparison really happened).
TEST(OnnxConformance, HarnessDetectsWrongOutputs) {
  ASSERT_NO_FATAL_FAILURE(RequireTestData());
  const Backend wrong = {"self-test: corrupted outputs", [](const ir::Graph& graph) -> Result<Program> {
    return Program([graph](const std::vector<ir::HostTensor>& inputs) -> Result<Outputs> {
      MLF_ASSIGN_OR_RETURN(Outputs out, reference::Interpret(graph, inputs));
      for (ir::HostTensor& t : out) {
        if (t.element_count() == 0) {
          t.shape.push_back(1);
        } else {
          const double v = t.GetDouble(0);
          const bool is_float = t.dtype == DType::kFloat32 || t.dtype == DType::kFloat64 ||
                                t.dtype == DType::kFloat16 || t.dtype == DType::kBFloat16;
          // v + 1 + |v|: beyond rtol 1e-3 for large values too (|v| >= 1000).
          t.SetDouble(0, is_float ? (std::isfinite(v) ? v + 1 + std::fabs(v) : 0) : (v == 0 ? 1 : 0));
        }
      }
      return out;
    });
  }};
  Summary s = RunConformance(wrong, /*quiet=*/true);
  EXPECT_EQ(s.passed(), 0);
  EXPECT_GT(s.wrong, 0);
  EXPECT_EQ(s.errors, 0);
}

// Refusals are recognised by their exact kinds only.
TEST(OnnxConformance, RefusalKinds) {
  EXPECT_STREQ(RefusalKindOf(Unimplemented("node 'det' (Det): operator Det is not supported")),
               "operator not supported");
  EXPECT_STREQ(RefusalKindOf(Unimplemented("node 'r' (Resize): mode 'cubic' is not supported "
                                           "(nearest and linear are)")),
               "attribute, mode or output not supported");
  EXPECT_STREQ(RefusalKindOf(Unimplemented("node 'd' (Dropout): training_mode (input 2) is true; "
                                           "mlfkit compiles inference only")),
               "inference only");
  EXPECT_STREQ(RefusalKindOf(Unimplemented("input 'x': ONNX dtype STRING is not supported")),
               "dtype not supported");
  // Not refusals: another code, or a message of another form.
  EXPECT_EQ(RefusalKindOf(InvalidArgument("node 'det' (Det): operator Det is not supported")),
            nullptr);
  EXPECT_EQ(RefusalKindOf(Unimplemented("host library: dlopen is not supported here")), nullptr);
  EXPECT_EQ(RefusalKindOf(Unimplemented("node 'a' (Add): the planner ran out of arenas")), nullptr);
  EXPECT_EQ(RefusalKindOf(Internal("node 'a' (Add): broken")), nullptr);
}

}  // namespace
}  // namespace mlf
