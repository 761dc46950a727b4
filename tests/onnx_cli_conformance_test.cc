// ONNX conformance as a user meets it: every case of Debian's
// libonnx-testdata (/usr/share/libonnx-testdata/data/{node,
// pytorch-converted, pytorch-operator, simple}, installed by scripts/setup.sh)
// goes through the `mlf` binary and nothing else:
//
//   mlf export model.onnx -o case.tar [--constant NAME=FILE.npy]...
//   mlf run case.tar --input NAME=FILE.npy... --output-dir OUT --json
//
// and each output in OUT is compared with the case's expected output at the
// ONNX backend runner's tolerances (rtol 1e-3, atol 1e-7; integer and bool
// outputs exactly; bfloat16 within one bfloat16 step, see Compare).
//
// --constant and --input-shape are given only as a user would: when `mlf
// export` asks for them ("give its value with --constant NAME=FILE.npy", "fix
// it with --input-shape NAME=..."), with the value or shape of the data set
// at hand (so such a case is exported once per data set). The case's
// .pb tensors become .npy files, as numpy_helper would make them.
//
// Every case ends in one outcome, pinned in tests/onnx_cli_conformance_expected.txt
// ("<outcome> <folder>/<test>" lines):
//   pass            exported and run without flags, outputs match;
//   pass-flags      the same after the --constant / --input-shape flags the
//                   export asked for;
//   pass-folded     passes, and the archive holds no operator (the model folds
//                   to constants, e.g. Shape/Size graphs);
//   refused-<why>   `mlf export` declines the model with an error of kind
//                   "unimplemented"; <why> is the category of issue 15's
//                   point 5 that its message states (RefusalCategory), or
//                   "other" for a refusal outside them: a gap.
//   bad-test-data   a data set does not fit the input shapes its own model
//                   declares (checked here, before anything runs: four
//                   CastLike cases of ONNX 1.12 feed `like` as [1] where the
//                   model declares [3, 4]); nothing can run them as given.
// Anything else fails the test: a wrong output ("wrong"), or any other error,
// crash or time-out (60 s per command) of export or run ("error"). A case
// whose outcome differs from its pinned line fails the test too.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "artifact/format/dtype.h"
#include "artifact/format/npy.h"
#include "codegen/ir/host_tensor.h"
#include "tests/onnx_test_data.h"
#include "tests/run_command.h"

namespace mlf {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

using testing::kOnnxTestDataFolders;
using testing::kOnnxTestDataRoot;
constexpr const char* kExpectedFile = "tests/onnx_cli_conformance_expected.txt";
constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-7;
constexpr const char* kTimeoutSeconds = "60";

struct CaseResult {
  std::string outcome;  // "pass", "pass-flags", "pass-folded", "refused-<why>", "wrong", "error"
  std::string reason;   // for everything but a pass
};

using DataSet = testing::OnnxDataSet;
using testing::ReadWholeFile;

// The case's data sets; a case without any is an error.
Result<std::vector<DataSet>> ReadDataSets(const fs::path& case_dir) {
  MLF_ASSIGN_OR_RETURN(std::vector<DataSet> sets, testing::ReadOnnxDataSets(case_dir));
  if (sets.empty()) return InvalidArgument("no test_data_set_*");
  return sets;
}

// ---------------------------------------------------------------- the model

// A graph input a caller feeds (one without an initializer) and the shape
// the model declares for it: -1 for a symbolic dimension; no rank when the
// model declares none.
struct FedInput {
  std::string name;
  std::optional<std::vector<int64_t>> declared;
};

Result<std::vector<FedInput>> FedInputs(const fs::path& model_path) {
  MLF_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(model_path));
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return InvalidArgument("model.onnx does not parse");
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  std::vector<FedInput> fed;
  for (const auto& in : model.graph().input()) {
    if (inits.count(in.name())) continue;
    FedInput f{in.name(), std::nullopt};
    if (in.type().has_tensor_type() && in.type().tensor_type().has_shape()) {
      f.declared.emplace();
      for (const auto& d : in.type().tensor_type().shape().dim()) {
        f.declared->push_back(d.has_dim_value() ? d.dim_value() : -1);
      }
    }
    fed.push_back(std::move(f));
  }
  return fed;
}

// Why a data set does not fit the shapes its model declares, or "" when it
// fits (a few cases of ONNX 1.12's data feed a tensor of another shape).
std::string Misfit(const std::vector<FedInput>& fed, const DataSet& set) {
  for (size_t i = 0; i < fed.size() && i < set.inputs.size(); ++i) {
    if (!fed[i].declared) continue;
    const std::vector<int64_t>& declared = *fed[i].declared;
    const std::vector<int64_t>& shape = set.inputs[i].shape;
    bool fits = declared.size() == shape.size();
    for (size_t d = 0; fits && d < shape.size(); ++d) {
      fits = declared[d] < 0 || declared[d] == shape[d];
    }
    if (!fits) {
      return "input '" + fed[i].name + "': the test data has shape " + FormatShape(shape) +
             ", the model declares " + FormatShape(declared) + " (-1: symbolic)";
    }
  }
  return "";
}

Status WriteNpy(const fs::path& path, const ir::HostTensor& t) {
  NpyArray a;
  a.dtype = t.dtype;
  a.shape = t.shape;
  a.data = t.bytes;
  return WriteNpyFile(path.string(), a);
}

// ---------------------------------------------------------------- comparing

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 ||
         d == DType::kBFloat16;
}

// "" when `got` matches `want`, else why not. `got_dtype` is the dtype
// `mlf run` reported: a bfloat16 output is written as its uint16 bit
// patterns (.npy has no bfloat16), and the test data holds bfloat16 the same
// way, made by truncating float32 where mlfkit rounds to nearest even
// (codegen/ops/README.md): such outputs are compared within one bfloat16 step.
std::string Compare(ir::HostTensor got, ir::HostTensor want, DType got_dtype) {
  double rtol = kRtol;
  if (got_dtype == DType::kBFloat16 && got.dtype == DType::kUInt16 && want.dtype == DType::kUInt16) {
    got.dtype = want.dtype = DType::kBFloat16;
    rtol = 1.0 / 128;
  }
  if (got.dtype != want.dtype) {
    return std::string("dtype ") + DTypeName(got.dtype) + ", expected " + DTypeName(want.dtype);
  }
  if (got.shape != want.shape) {
    return "shape " + FormatShape(got.shape) + ", expected " + FormatShape(want.shape);
  }
  if (got.bytes.size() != want.bytes.size()) return "size differs";
  if (!IsFloat(want.dtype)) {
    // Integers and bools: exactly.
    const size_t size = DTypeSize(want.dtype);
    for (uint64_t i = 0; i < want.element_count(); ++i) {
      if (std::memcmp(got.bytes.data() + i * size, want.bytes.data() + i * size, size) != 0) {
        std::ostringstream os;
        os << "element " << i << ": " << got.GetInt(i) << " vs expected " << want.GetInt(i);
        return os.str();
      }
    }
    return "";
  }
  uint64_t bad = 0, first = 0;
  double worst = 0;
  for (uint64_t i = 0; i < want.element_count(); ++i) {
    const double g = got.GetDouble(i), w = want.GetDouble(i);
    const bool close = std::isnan(w)   ? std::isnan(g)
                       : std::isinf(w) ? g == w
                                       : std::fabs(g - w) <= kAtol + rtol * std::fabs(w);
    if (!close) {
      if (bad++ == 0) first = i;
      if (std::isfinite(g) && std::isfinite(w)) worst = std::max(worst, std::fabs(g - w));
    }
  }
  if (bad == 0) return "";
  std::ostringstream os;
  os.precision(9);
  os << bad << " of " << want.element_count() << " elements differ; first at " << first << ": "
     << got.GetDouble(first) << " vs expected " << want.GetDouble(first) << "; max abs diff "
     << worst;
  return os.str();
}

// ---------------------------------------------------------------- refusals

// The category of issue 15's point 5 that a refusal's message states, or
// "other". The messages come from the front end and the operators
// (codegen/frontend, codegen/ops); each pattern is the wording of one kind.
std::string RefusalCategory(const std::string& message) {
  static const std::vector<std::pair<std::string, std::regex>> kCategories = {
      {"training", std::regex(R"(inference only)")},
      {"sequence", std::regex(R"(sequences, maps and optionals are not supported)")},
      {"string", std::regex(R"((dtype STRING|to string) is not supported)")},
      {"random", std::regex(R"(it draws random numbers)")},
      {"data-dependent-shape", std::regex(R"(output shape depends on the input values)")},
  };
  for (const auto& [category, pattern] : kCategories) {
    if (std::regex_search(message, pattern)) return category;
  }
  return "other";
}

// ---------------------------------------------------------------- one case

struct Mlf {
  CommandResult result;
  json report;  // the --json report; null when stdout is not JSON
  bool ok() const { return result.exit_code == 0 && !report.is_null() && report.value("ok", false); }
};

// Runs `mlf ARGS... --json` under a time limit.
Mlf RunMlf(std::vector<std::string> args) {
  std::vector<std::string> argv = {"timeout", "--kill-after=5", kTimeoutSeconds, MlfBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  Mlf m;
  m.result = RunCommand(argv);
  m.report = json::parse(m.result.out, nullptr, /*allow_exceptions=*/false);
  if (m.report.is_discarded()) m.report = nullptr;
  return m;
}

std::string Failure(const std::string& what, const Mlf& m) {
  if (m.result.exit_code == 124 || m.result.exit_code == 137) {
    return what + " timed out (" + kTimeoutSeconds + " s)";
  }
  if (!m.report.is_null() && m.report.contains("error")) {
    return what + ": " + m.report["error"].get<std::string>();
  }
  return what + " exited " + std::to_string(m.result.exit_code) + ": " + m.result.err;
}

// "/path/model.onnx: node 'x' (Op): ..." -> "node 'x' (Op): ...".
std::string WithoutPath(const std::string& message, const fs::path& model) {
  const std::string prefix = model.string() + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

// The inputs `mlf export` asks a --constant for ("give its value with
// --constant x=FILE.npy" or "give their values with --constant a=FILE.npy
// --constant b=FILE.npy"), in its order; empty when it asks none.
std::vector<std::string> AskedConstants(const std::string& message) {
  static const std::regex kAsk(R"(give (its value|their values) with ((--constant \S+=FILE\.npy ?)+))");
  static const std::regex kFlag(R"(--constant (\S+)=FILE\.npy)");
  std::smatch m;
  if (!std::regex_search(message, m, kAsk)) return {};
  const std::string flags = m[2].str();
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(flags.begin(), flags.end(), kFlag); it != std::sregex_iterator();
       ++it) {
    names.push_back((*it)[1].str());
  }
  return names;
}

// The input `mlf export` asks an --input-shape for, or "".
std::string AskedShape(const std::string& message) {
  static const std::regex kAsk(R"(is symbolic; fix it with --input-shape ([^=\s]+)=)");
  std::smatch m;
  return std::regex_search(message, m, kAsk) ? m[1].str() : "";
}

std::string Dims(const std::vector<int64_t>& shape) {
  std::string text;
  for (int64_t d : shape) text += (text.empty() ? "" : ",") + std::to_string(d);
  return text;
}

struct Export {
  bool ok = false;
  CaseResult failure;                     // when !ok
  std::set<std::string> constants;        // the --constant inputs it took
  std::set<std::string> shapes;           // the --input-shape inputs it took
  int operators = 0;
};

// Exports `model` to `archive`, adding the --constant and --input-shape
// flags the export asks for, with this data set's values and shapes. `set`
// is null when the test data does not read: then anything asked is an error.
Export ExportCase(const fs::path& model, const std::vector<std::string>& inputs,
                  const DataSet* set, const fs::path& work, const fs::path& archive) {
  Export e;
  auto index = [&](const std::string& name) {
    return static_cast<size_t>(std::find(inputs.begin(), inputs.end(), name) - inputs.begin());
  };
  for (;;) {
    std::vector<std::string> args = {"export", model.string(), "-o", archive.string()};
    for (const std::string& name : e.shapes) {
      args.insert(args.end(), {"--input-shape", name + "=" + Dims(set->inputs[index(name)].shape)});
    }
    for (const std::string& name : e.constants) {
      const size_t i = index(name);
      const fs::path file = work / ("constant_" + std::to_string(i) + ".npy");
      Status written = WriteNpy(file, set->inputs[i]);
      if (!written.ok()) {
        e.failure = {"error", "--constant " + name + ": " + written.ToString()};
        return e;
      }
      args.insert(args.end(), {"--constant", name + "=" + file.string()});
    }
    Mlf m = RunMlf(args);
    if (m.ok()) {
      e.ok = true;
      for (const json& module : m.report["modules"]) e.operators += module.value("operators", 0);
      return e;
    }
    const std::string message = m.report.is_null() ? "" : m.report.value("error", "");
    const std::string shape = AskedShape(message);
    bool asked_new = false;
    for (const std::string& constant : AskedConstants(message)) {
      if (set != nullptr && index(constant) < set->inputs.size() && !e.constants.count(constant)) {
        e.constants.insert(constant);
        asked_new = true;
      }
    }
    if (asked_new) continue;
    if (set != nullptr && index(shape) < set->inputs.size() && !e.shapes.count(shape)) {
      e.shapes.insert(shape);
      continue;
    }
    if (m.report.is_object() && m.report.value("error_code", "") == "unimplemented") {
      const std::string why = WithoutPath(message, model);
      e.failure = {"refused-" + RefusalCategory(why), why};
    } else {
      e.failure = {"error", Failure("mlf export", m)};
    }
    return e;
  }
}

// Runs `archive` on the data set's inputs (all but the constants) and
// compares its outputs.
CaseResult RunAndCompare(const fs::path& archive, const std::vector<std::string>& inputs,
                         const DataSet& set, const std::set<std::string>& constants,
                         const fs::path& work) {
  const fs::path out_dir = work / "out";
  fs::remove_all(out_dir);
  std::vector<std::string> args = {"run", archive.string(), "--output-dir", out_dir.string()};
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (constants.count(inputs[i])) continue;
    const fs::path file = work / ("input_" + std::to_string(i) + ".npy");
    Status written = WriteNpy(file, set.inputs[i]);
    if (!written.ok()) return {"error", "input " + inputs[i] + ": " + written.ToString()};
    args.insert(args.end(), {"--input", inputs[i] + "=" + file.string()});
  }
  Mlf m = RunMlf(args);
  if (!m.ok()) return {"error", Failure("mlf run", m)};
  const json& outputs = m.report["outputs"];
  if (outputs.size() != set.outputs.size()) {
    return {"wrong", "produced " + std::to_string(outputs.size()) + " outputs, expected " +
                         std::to_string(set.outputs.size())};
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    const std::string c_name = outputs[j].value("c_name", "");
    Result<NpyArray> got = ReadNpyFile((out_dir / (c_name + ".npy")).string());
    if (!got.ok()) return {"error", "output " + c_name + ": " + got.status().ToString()};
    Result<DType> dtype = ParseDType(outputs[j].value("dtype", ""));
    if (!dtype.ok()) return {"error", "output " + c_name + ": " + dtype.status().ToString()};
    ir::HostTensor tensor{got->dtype, got->shape, got->data};
    const std::string diff = Compare(std::move(tensor), set.outputs[j], *dtype);
    if (!diff.empty()) return {"wrong", "output " + std::to_string(j) + " (" + c_name + "): " + diff};
  }
  return {"pass", ""};
}

// The case in `dir`, worked on in `work`.
CaseResult RunCase(const fs::path& dir, const fs::path& work) {
  const fs::path model = dir / "model.onnx";
  Result<std::vector<FedInput>> fed = FedInputs(model);
  if (!fed.ok()) return {"error", fed.status().ToString()};
  std::vector<std::string> names;
  for (const FedInput& f : *fed) names.push_back(f.name);
  const std::vector<std::string>* inputs = &names;
  const fs::path archive = work / "case.tar";
  Result<std::vector<DataSet>> sets = ReadDataSets(dir);
  if (!sets.ok()) {
    // Sequence, optional and string data (which .pb tensors cannot hold for
    // us): the export's refusal of such a model is the case's outcome. The
    // inputs may still read (an If's condition before an optional output),
    // and give what the export asks for.
    Result<DataSet> just_inputs = testing::ReadFirstDataSetInputs(dir);
    Export e = ExportCase(model, *inputs, just_inputs.ok() ? &*just_inputs : nullptr, work, archive);
    if (!e.ok && e.failure.outcome != "error") return e.failure;
    return {"error", "the test data does not read: " + sets.status().ToString()};
  }
  Export exported;
  bool folded = true;
  for (size_t k = 0; k < sets->size(); ++k) {
    const DataSet& set = (*sets)[k];
    if (set.inputs.size() != inputs->size()) {
      return {"error", "test data has " + std::to_string(set.inputs.size()) +
                           " inputs, the model " + std::to_string(inputs->size())};
    }
    const std::string misfit = Misfit(*fed, set);
    if (!misfit.empty()) return {"bad-test-data", misfit};
    // Constants and shapes are the data set's own: one export per data set.
    if (k == 0 || !exported.constants.empty() || !exported.shapes.empty()) {
      exported = ExportCase(model, *inputs, &set, work, archive);
      if (!exported.ok) return exported.failure;
      folded = folded && exported.operators == 0;
    }
    CaseResult r = RunAndCompare(archive, *inputs, set, exported.constants, work);
    if (r.outcome != "pass") return r;
  }
  if (folded) return {"pass-folded", ""};
  return {exported.constants.empty() && exported.shapes.empty() ? "pass" : "pass-flags", ""};
}

// ---------------------------------------------------------------- all cases

// Runs every case on two threads (each command is its own process).
std::map<std::string, CaseResult> RunAll() {
  const std::map<std::string, fs::path> dirs = testing::OnnxCaseDirs();
  std::vector<std::pair<std::string, fs::path>> cases(dirs.begin(), dirs.end());
  std::vector<CaseResult> results(cases.size());
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path root = fs::path(tmp != nullptr ? tmp : "/tmp") / "cli_conformance";
  std::atomic<size_t> next{0};
  std::mutex log_mutex;
  auto worker = [&] {
    for (size_t i; (i = next++) < cases.size();) {
      const fs::path work = root / std::to_string(i);
      fs::create_directories(work);
      const auto start = std::chrono::steady_clock::now();
      results[i] = RunCase(cases[i].second, work);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      fs::remove_all(work);
      if (seconds > 10) {
        std::lock_guard<std::mutex> lock(log_mutex);
        std::cout << "slow: " << cases[i].first << " took " << seconds << " s\n";
      }
    }
  };
  std::thread second(worker);
  worker();
  second.join();
  std::map<std::string, CaseResult> by_name;
  for (size_t i = 0; i < cases.size(); ++i) by_name[cases[i].first] = results[i];
  return by_name;
}

// "node 'Bernoulli_0' (Bernoulli): ..." -> "Bernoulli: ...", for grouping.
std::string Grouped(const std::string& reason) {
  static const std::regex kNode(R"(^node '[^']*' \((\w+)\): )");
  return std::regex_replace(reason, kNode, "$1: ", std::regex_constants::format_first_only);
}

void PrintSummary(const std::map<std::string, CaseResult>& results) {
  std::map<std::string, int> by_outcome;
  std::map<std::pair<std::string, std::string>, int> refusals;
  for (const auto& [name, r] : results) {
    ++by_outcome[r.outcome];
    if (r.outcome == "wrong" || r.outcome == "error") {
      std::cout << (r.outcome == "wrong" ? "WRONG " : "ERROR ") << name << ": " << r.reason << "\n";
    } else if (r.outcome.rfind("refused-", 0) == 0) {
      ++refusals[{r.outcome, Grouped(r.reason)}];
    }
  }
  for (const auto& [key, n] : refusals) {
    std::cout << key.first << " " << n << "x: " << key.second << "\n";
  }
  int passed = 0, refused = 0;
  for (const auto& [outcome, n] : by_outcome) {
    if (outcome.rfind("pass", 0) == 0) passed += n;
    if (outcome.rfind("refused-", 0) == 0) refused += n;
  }
  std::cout << "conformance through the CLI: " << passed << " of " << results.size()
            << " pass, " << by_outcome["wrong"] << " wrong, " << by_outcome["error"]
            << " error, " << refused << " refused (" << by_outcome["refused-other"]
            << " outside issue 15's point 5), " << by_outcome["bad-test-data"]
            << " with test data that does not fit its model\n  ";
  for (const auto& [outcome, n] : by_outcome) std::cout << " " << outcome << " " << n;
  std::cout << std::endl;
  for (const auto& [outcome, n] : by_outcome) ::testing::Test::RecordProperty(outcome, n);
}

// ---------------------------------------------------------------- the pins

Result<std::map<std::string, std::string>> ReadExpected(const std::string& text) {
  std::map<std::string, std::string> expected;
  std::istringstream in(text);
  std::string line, previous_name;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const std::string at = std::string(kExpectedFile) + ":" + std::to_string(number) + ": ";
    std::istringstream words(line);
    std::string outcome, name, extra;
    words >> outcome >> name;
    if (name.empty() || (words >> extra)) {
      return InvalidArgument(at + "expected '<outcome> <folder>/<test>', got '" + line + "'");
    }
    if (outcome.rfind("pass", 0) != 0 && outcome.rfind("refused-", 0) != 0 &&
        outcome != "bad-test-data") {
      return InvalidArgument(at + "unknown outcome '" + outcome +
                             "' (pass..., refused-..., bad-test-data)");
    }
    if (name <= previous_name) {
      return InvalidArgument(at + "not sorted by case after '" + previous_name + "' (or a duplicate)");
    }
    expected[name] = outcome;
    previous_name = name;
  }
  return expected;
}

std::string ExpectedText(const std::map<std::string, CaseResult>& results) {
  std::string text =
      "# The outcome of every libonnx-testdata case through the mlf CLI\n"
      "# (tests/onnx_cli_conformance_test.cc), as '<outcome> <folder>/<test>' lines\n"
      "# sorted by case. The test fails when a case's outcome differs. To rewrite\n"
      "# this file from a run, and review the diff:\n"
      "#   MLF_CONFORMANCE_UPDATE=1 bazel run //tests:onnx_cli_conformance_test\n";
  for (const auto& [name, r] : results) {
    if (r.outcome != "wrong" && r.outcome != "error") text += r.outcome + " " + name + "\n";
  }
  return text;
}

void CheckAgainstExpected(const std::map<std::string, CaseResult>& results) {
  const char* update = std::getenv("MLF_CONFORMANCE_UPDATE");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update != nullptr && std::string(update) == "1") {
    ASSERT_NE(workspace, nullptr) << "MLF_CONFORMANCE_UPDATE=1 needs `bazel run`";
    const fs::path path = fs::path(workspace) / kExpectedFile;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << ExpectedText(results);
    std::cout << "wrote " << path << "\n";
  }
  Result<std::string> text = ReadWholeFile(kExpectedFile);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<std::map<std::string, std::string>> expected = ReadExpected(*text);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  for (const auto& [name, r] : results) {
    if (r.outcome == "wrong" || r.outcome == "error") {
      ADD_FAILURE() << name << ": " << r.outcome << ": " << r.reason;
      continue;
    }
    auto it = expected->find(name);
    if (it == expected->end()) {
      ADD_FAILURE() << name << " is not in " << kExpectedFile << ": it is now '" << r.outcome
                    << "'" << (r.reason.empty() ? "" : ": " + r.reason);
    } else if (it->second != r.outcome) {
      ADD_FAILURE() << name << " is pinned as '" << it->second << "' in " << kExpectedFile
                    << " but is now '" << r.outcome << "'"
                    << (r.reason.empty() ? "" : ": " + r.reason);
    }
  }
  for (const auto& [name, outcome] : *expected) {
    if (!results.count(name)) {
      ADD_FAILURE() << name << " is pinned in " << kExpectedFile << " but is not a case of "
                    << kOnnxTestDataRoot;
    }
  }
}

TEST(OnnxCliConformance, EveryCaseThroughExportAndRun) {
  for (const char* folder : kOnnxTestDataFolders) {
    ASSERT_TRUE(fs::is_directory(fs::path(kOnnxTestDataRoot) / folder))
        << kOnnxTestDataRoot << "/" << folder << " is missing (scripts/setup.sh installs libonnx-testdata)";
  }
  const std::map<std::string, CaseResult> results = RunAll();
  ASSERT_EQ(results.size(), 1072u) << "libonnx-testdata of ONNX 1.12 has 1072 cases";
  PrintSummary(results);
  CheckAgainstExpected(results);
}

// The comparison itself: exact for integers, tolerances for floats, one
// bfloat16 step for bfloat16.
TEST(OnnxCliConformance, CompareHoldsTheBackendRunnersTolerances) {
  auto f32 = [](std::vector<float> v) {
    ir::HostTensor t = ir::HostTensor::Zeros(DType::kFloat32, {static_cast<int64_t>(v.size())});
    std::memcpy(t.bytes.data(), v.data(), v.size() * sizeof(float));
    return t;
  };
  EXPECT_EQ(Compare(f32({1.0f, 0.0f}), f32({1.0009f, 5e-8f}), DType::kFloat32), "");
  EXPECT_EQ(Compare(f32({1.0f, 0.0f}), f32({1.0f, 2e-7f}), DType::kFloat32),
            "1 of 2 elements differ; first at 1: 0 vs expected 2.00000002e-07; max abs diff "
            "2.00000002e-07");
  EXPECT_NE(Compare(f32({1.0f}), f32({1.002f}), DType::kFloat32), "");
  EXPECT_EQ(Compare(f32({NAN}), f32({NAN}), DType::kFloat32), "");
  EXPECT_NE(Compare(f32({0.0f}), f32({NAN}), DType::kFloat32), "");
  ir::HostTensor a = ir::HostTensor::Zeros(DType::kInt64, {2});
  ir::HostTensor b = a;
  b.data<int64_t>()[1] = 1;
  EXPECT_EQ(Compare(a, b, DType::kInt64), "element 1: 0 vs expected 1");
  EXPECT_EQ(Compare(a, a, DType::kInt64), "");
  // bfloat16 as uint16 bit patterns: 0x3F80 is 1.0, 0x3F81 one step above.
  ir::HostTensor x = ir::HostTensor::Zeros(DType::kUInt16, {1}), y = x;
  x.data<uint16_t>()[0] = 0x3F80;
  y.data<uint16_t>()[0] = 0x3F81;
  EXPECT_EQ(Compare(x, y, DType::kBFloat16), "");
  EXPECT_NE(Compare(x, y, DType::kUInt16), "");
}

TEST(OnnxCliConformance, RefusalCategories) {
  EXPECT_EQ(RefusalCategory("node 'd' (Dropout): training_mode (input 2) is true; mlfkit "
                            "compiles inference only"),
            "training");
  EXPECT_EQ(RefusalCategory("input 'x' is not a tensor (sequences, maps and optionals are not "
                            "supported)"),
            "sequence");
  EXPECT_EQ(RefusalCategory("input 'x': ONNX dtype STRING is not supported"), "string");
  EXPECT_EQ(RefusalCategory("node 'c' (Cast): Cast to string is not supported"), "string");
  EXPECT_EQ(RefusalCategory("node 'b' (BatchNormalization): training_mode=1 is not supported "
                            "(inference only)"),
            "training");
  EXPECT_EQ(RefusalCategory("node 'b' (Bernoulli): operator Bernoulli is not supported: it draws "
                            "random numbers, and a compiled model gives the same outputs"),
            "random");
  EXPECT_EQ(RefusalCategory("node 'u' (Unique): operator Unique is not supported: its output "
                            "shape depends on the input values, and compiled models have static "
                            "shapes"),
            "data-dependent-shape");
  EXPECT_EQ(RefusalCategory("node 'l' (Loop): attribute 'body' is a subgraph"), "other");
}

TEST(OnnxCliConformance, MisfitComparesDeclaredStaticDimensions) {
  DataSet set;
  set.inputs.push_back(ir::HostTensor::Zeros(DType::kFloat32, {1}));
  EXPECT_EQ(Misfit({{"like", std::vector<int64_t>{3, 4}}}, set),
            "input 'like': the test data has shape [1], the model declares [3, 4] (-1: symbolic)");
  EXPECT_EQ(Misfit({{"like", std::vector<int64_t>{-1}}}, set), "");
  EXPECT_EQ(Misfit({{"like", std::nullopt}}, set), "");
  EXPECT_EQ(Misfit({{"like", std::vector<int64_t>{1}}}, set), "");
}

TEST(OnnxCliConformance, AskedShape) {
  EXPECT_EQ(AskedShape("input 'X': dimension 0 ('n') is symbolic; fix it with --input-shape X=1"),
            "X");
  EXPECT_EQ(AskedShape("input 'X' has shape [1]"), "");
}

TEST(OnnxCliConformance, AskedConstants) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(AskedConstants("node 'r' (Reshape): input 1 (shape) must be a constant (it is graph "
                           "input 'shape': give its value with --constant shape=FILE.npy)"),
            Names{"shape"});
  EXPECT_EQ(AskedConstants("node 'l' (Loop): input 0 (M) must be a constant: ... (it is computed "
                           "from graph inputs 'start', 'limit': give their values with --constant "
                           "start=FILE.npy --constant limit=FILE.npy)"),
            (Names{"start", "limit"}));
  EXPECT_EQ(AskedConstants("node 'r' (Reshape): operator Reshape is not supported"), Names{});
}

}  // namespace
}  // namespace mlf
