// mlf run: one inference of an archive's module on this host.
#include <sys/stat.h>

#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "artifact/base/display_text.h"
#include "artifact/format/npy.h"
#include "artifact/format/tensor_values.h"
#include "tools/mlf/assignments.h"
#include "tools/mlf/command.h"
#include "tools/mlf/model_io.h"
#include "tools/mlf/output_path.h"

namespace mlf::cli {
namespace {

constexpr char kUsage[] =
    "usage: mlf run ARCHIVE [--module M] [--input NAME=FILE.npy]... [--random-inputs SEED]\n"
    "               [--output-dir DIR] [--expect-dir DIR | --expect NAME=FILE.npy...]\n"
    "               [--rtol R] [--atol A] [--quantize-inputs] [--dequantize-outputs]\n"
    "               [--threads T] [--isa NAME]\n"
    "               [--key NAME.pub] [--require-signature] [--json]\n\n"
    "Loads ARCHIVE with the host loader (verified before any code is loaded), runs\n"
    "one module once and prints each output's shape and a summary of its values.\n\n"
    "options:\n"
    "  --module M            the module to run (needed when the archive has several)\n"
    "  --input NAME=FILE     an input from a NumPy .npy file (format 1.0/2.0, little-\n"
    "                        endian, C order); NAME is the raw or the C name;\n"
    "                        bfloat16 travels as its uint16 bit patterns (.npy\n"
    "                        has no bfloat16), here and in the files below\n"
    "  --random-inputs SEED  fill inputs not given with reproducible random values\n"
    "  --output-dir DIR      write each output to DIR/<c_name>.npy\n"
    "  --expect-dir DIR      compare each output with DIR/<c_name>.npy; fails (exit 1)\n"
    "                        when any element is off by more than atol + rtol*|expected|\n"
    "  --expect NAME=FILE    compare output NAME (raw or C name) with FILE.npy; may be\n"
    "                        repeated, once per output; outputs not named are not\n"
    "                        compared (not with --expect-dir)\n"
    "  --rtol R, --atol A    tolerances (default 1e-5 and 1e-6)\n"
    "  --quantize-inputs     a float32 .npy file for a quantized (e.g. int8) input is\n"
    "                        quantized with the input's scale and zero point from\n"
    "                        the metadata, as ONNX QuantizeLinear does\n"
    "  --dequantize-outputs  quantized outputs are summarised, written and compared\n"
    "                        as float32: (value - zero point) * scale\n"
    MLF_EXECUTION_FLAGS_HELP
    "  --key, --require-signature   as for `mlf verify`\n"
    "  --json                print a JSON report\n\n"
    "Operator-style TVM modules (one or more TVM operators, no model): TVM does not\n"
    "say which buffers an operator writes, so every buffer is an input and an\n"
    "output under the same name (its binding, e.g. A; <function>.<binding> with\n"
    "several functions). Buffers not given start as zeros, as in `mlf project`;\n"
    "the outputs are every buffer after the operators ran (DIR/<c_name>.npy each).\n";

Result<double> ParseTolerance(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0) || std::isinf(v)) {
    return InvalidArgument("--" + flag + " needs a non-negative number, got '" + text + "'");
  }
  return v;
}

// Every flag value, checked before anything is loaded (bad usage is exit 2).
struct RunConfig {
  std::vector<std::pair<std::string, std::string>> inputs;   // NAME, FILE
  std::vector<std::pair<std::string, std::string>> expects;  // NAME, FILE
  std::string expect_dir;
  std::optional<uint64_t> seed;
  double rtol = 1e-5, atol = 1e-6;
  bool quantize_inputs = false, dequantize_outputs = false;
  ExecutorOptions execution;
};

Result<RunConfig> ConfigFromArgs(const ParsedArgs& args) {
  RunConfig c;
  MLF_ASSIGN_OR_RETURN(c.inputs, Assignments(args, "input"));
  MLF_ASSIGN_OR_RETURN(c.expects, Assignments(args, "expect"));
  c.expect_dir = args.Get("expect-dir");
  c.quantize_inputs = args.Has("quantize-inputs");
  c.dequantize_outputs = args.Has("dequantize-outputs");
  if (args.Has("random-inputs")) {
    MLF_ASSIGN_OR_RETURN(c.seed, ParseUnsigned("random-inputs", args.Get("random-inputs")));
  }
  if (args.Has("expect-dir") && !c.expects.empty()) {
    return InvalidArgument("--expect and --expect-dir cannot be combined: use one of them");
  }
  if ((args.Has("rtol") || args.Has("atol")) && !args.Has("expect-dir") && c.expects.empty()) {
    return InvalidArgument("--rtol and --atol need --expect-dir or --expect");
  }
  MLF_ASSIGN_OR_RETURN(c.rtol, ParseTolerance("rtol", args.Get("rtol", "1e-5")));
  MLF_ASSIGN_OR_RETURN(c.atol, ParseTolerance("atol", args.Get("atol", "1e-6")));
  MLF_ASSIGN_OR_RETURN(c.execution, ExecutorOptionsFromArgs(args));
  return c;
}

// Sets every input from --input and --random-inputs; all must be covered,
// unless `zeros_allowed` (operator style: the executor's buffers start as
// zeros, as the firmware's static ones do).
Status SetInputs(AotExecutor& exec, const RunConfig& config, bool zeros_allowed) {
  std::vector<bool> given(exec.num_inputs(), false);
  for (const auto& [name, path] : config.inputs) {
    MLF_ASSIGN_OR_RETURN(int index, exec.input_index(name));
    if (given[index]) {
      MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec.input_info(index));
      return InvalidArgument("--input names input " + QuoteForMessage(spec.name) +
                             " twice (by its raw and its C name)");
    }
    MLF_RETURN_IF_ERROR(SetInputFromNpy(exec, index, path, config.quantize_inputs));
    given[index] = true;
  }
  if (config.seed) return SetRandomInputs(exec, given, *config.seed);
  if (zeros_allowed) return Status::Ok();
  for (int i = 0; i < exec.num_inputs(); ++i) {
    if (given[i]) continue;
    MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec.input_info(i));
    return InvalidArgument("input " + QuoteForMessage(spec.name) + " has no value: pass --input " +
                           spec.c_name + "=FILE.npy or --random-inputs SEED");
  }
  return Status::Ok();
}

struct OutputReport {
  TensorSpec spec;
  NpyArray values;           // as run's files hold them (float32 when dequantized)
  bool dequantized = false;  // --dequantize-outputs applied
  double min = 0, max = 0, mean = 0;
  std::vector<std::string> first;
  std::optional<Comparison> comparison;
};

Result<OutputReport> Summarise(const AotExecutor& exec, int index, bool dequantize) {
  OutputReport r;
  MLF_ASSIGN_OR_RETURN(r.spec, exec.output_info(index));
  MLF_ASSIGN_OR_RETURN(r.values, OutputAsNpy(exec, index, dequantize));
  r.dequantized = r.values.dtype != r.spec.dtype;
  MLF_ASSIGN_OR_RETURN(uint64_t count, ElementCount(r.spec.shape));
  const DType dtype = r.values.dtype;
  double sum = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const double v = ReadElement(dtype, r.values.data.data(), i);
    if (i == 0 || v < r.min) r.min = v;
    if (i == 0 || v > r.max) r.max = v;
    sum += v;
    if (i < 8) r.first.push_back(FormatElement(dtype, v));
  }
  r.mean = count ? sum / static_cast<double>(count) : 0;
  return r;
}

// What `run` reads, which --output-dir and the files written there must not be.
std::vector<NamedPath> ReadPaths(const ParsedArgs& args, const RunConfig& config) {
  std::vector<NamedPath> read = {FlagPath("ARCHIVE", args.positionals()[0])};
  if (args.Has("key")) read.push_back(FlagPath("--key", args.Get("key")));
  for (const auto& [name, path] : config.inputs) read.push_back(FlagPath("--input", path));
  for (const auto& [name, path] : config.expects) read.push_back(FlagPath("--expect", path));
  if (args.Has("expect-dir")) read.push_back(FlagPath("--expect-dir", args.Get("expect-dir")));
  return read;
}

// Each output file is checked as well: DIR/<c_name>.npy may be an --input.
Status WriteOutputs(const std::vector<OutputReport>& reports, const std::string& dir,
                    const std::vector<NamedPath>& read) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError("cannot create output directory '" + dir + "'");
  }
  for (const OutputReport& r : reports) {
    const std::string path = dir + "/" + r.spec.c_name + ".npy";
    MLF_RETURN_IF_ERROR(CheckOutputFile({path, "output '" + path + "'"}, read));
    MLF_RETURN_IF_ERROR(WriteNpyFile(path, ForNpyFile(r.values)));
  }
  return Status::Ok();
}

// Compares an output with the .npy file at `path`.
Status CompareWithFile(const std::string& path, const RunConfig& config, OutputReport& report) {
  // Bounded like --input: the output's size plus room for any header.
  MLF_ASSIGN_OR_RETURN(NpyArray expected, ReadNpyFile(path, report.values.data.size() + (1 << 20)));
  Result<Comparison> c =
      CompareOutput(report.spec.name, report.values, expected, config.rtol, config.atol);
  if (!c.ok()) return c.status().WithContext(path);
  report.comparison = *c;
  return Status::Ok();
}

// --expect-dir: every output; --expect: the outputs named.
Status Compare(const AotExecutor& exec, const RunConfig& config,
               std::vector<OutputReport>& reports) {
  if (!config.expect_dir.empty()) {
    for (int i = 0; i < exec.num_outputs(); ++i) {
      const std::string path = config.expect_dir + "/" + reports[i].spec.c_name + ".npy";
      MLF_RETURN_IF_ERROR(CompareWithFile(path, config, reports[i]));
    }
    return Status::Ok();
  }
  for (const auto& [name, path] : config.expects) {
    MLF_ASSIGN_OR_RETURN(int index, exec.output_index(name));
    if (reports[index].comparison) {
      return InvalidArgument("--expect names output " + QuoteForMessage(reports[index].spec.name) +
                             " twice (by its raw and its C name)");
    }
    MLF_RETURN_IF_ERROR(CompareWithFile(path, config, reports[index]));
  }
  return Status::Ok();
}

void PrintText(const std::string& module, const std::vector<OutputReport>& reports) {
  std::cout << "module " << DisplayText(module) << "\n";
  for (const OutputReport& r : reports) {
    const DType dtype = r.values.dtype;
    std::cout << "output " << DisplayText(r.spec.name) << " " << DTypeName(dtype)
              << FormatShape(r.spec.shape);
    if (r.dequantized) std::cout << " (dequantized from " << DTypeName(r.spec.dtype) << ")";
    std::cout << "  min " << FormatElement(dtype, r.min) << "  max " << FormatElement(dtype, r.max)
              << "  mean " << r.mean << "\n  values";
    for (const std::string& v : r.first) std::cout << " " << v;
    std::cout << (r.first.size() == 8 ? " ..." : "") << "\n";
    if (r.comparison) {
      const Comparison& c = *r.comparison;
      std::cout << "  expected: " << (c.mismatches ? "MISMATCH " : "match ") << c.mismatches << "/"
                << c.elements << " elements off; worst at " << c.worst_index << ": got " << c.got
                << ", expected " << c.want << " (abs error " << c.abs_error << ")\n";
    }
  }
}

void PrintJson(const std::string& module, const std::vector<OutputReport>& reports, bool ok) {
  nlohmann::json j = {{"module", module}, {"ok", ok}, {"outputs", nlohmann::json::array()}};
  for (const OutputReport& r : reports) {
    nlohmann::json o = {{"name", r.spec.name}, {"c_name", r.spec.c_name},
                        {"dtype", DTypeName(r.values.dtype)}, {"shape", r.spec.shape},
                        {"min", r.min}, {"max", r.max}, {"mean", r.mean}};
    if (r.dequantized) o["dequantized_from"] = DTypeName(r.spec.dtype);
    if (r.comparison) {
      o["comparison"] = {{"elements", r.comparison->elements},
                         {"mismatches", r.comparison->mismatches},
                         {"worst_index", r.comparison->worst_index},
                         {"got", r.comparison->got}, {"expected", r.comparison->want},
                         {"abs_error", r.comparison->abs_error}};
    }
    j["outputs"].push_back(o);
  }
  PrintJsonReport(j);
}

Result<bool> RunModel(const ParsedArgs& args, const RunConfig& config) {
  MLF_RETURN_IF_ERROR(CheckIsaFlag(config.execution));
  MLF_ASSIGN_OR_RETURN(LoadOptions options, LoadOptionsFromArgs(args));
  const std::string path = args.positionals()[0];
  MLF_ASSIGN_OR_RETURN(std::shared_ptr<ModelLibrary> lib, ModelLibrary::Open(path, options));
  MLF_ASSIGN_OR_RETURN(std::string module, SelectModule(*lib, args.Get("module")));
  MLF_ASSIGN_OR_RETURN(std::unique_ptr<AotExecutor> exec, lib->CreateExecutor(module, config.execution));
  MLF_RETURN_IF_ERROR(
      SetInputs(*exec, config, lib->metadata().modules.at(module).style == ModuleStyle::kOperator));
  MLF_RETURN_IF_ERROR(exec->Run());
  std::vector<OutputReport> reports;
  for (int i = 0; i < exec->num_outputs(); ++i) {
    MLF_ASSIGN_OR_RETURN(OutputReport r, Summarise(*exec, i, config.dequantize_outputs));
    reports.push_back(std::move(r));
  }
  if (args.Has("output-dir")) {
    MLF_RETURN_IF_ERROR(WriteOutputs(reports, args.Get("output-dir"), ReadPaths(args, config)));
  }
  MLF_RETURN_IF_ERROR(Compare(*exec, config, reports));
  bool ok = true;
  for (const OutputReport& r : reports) ok = ok && (!r.comparison || r.comparison->mismatches == 0);
  if (args.Has("json")) {
    PrintJson(module, reports, ok);
  } else {
    PrintText(module, reports);
  }
  return ok;
}

int RunRun(const ParsedArgs& args) {
  int code = kExitOk;
  if (!ExpectPositionals("run", args, 1, 1, &code)) return code;
  Result<RunConfig> config = ConfigFromArgs(args);
  if (!config.ok()) return ReportUsageError("run", config.status().message());
  if (args.Has("output-dir")) {
    Status distinct =
        CheckOutputFile(FlagPath("--output-dir", args.Get("output-dir")), ReadPaths(args, *config));
    if (!distinct.ok()) return ReportUsageError("run", distinct.message());
  }
  Result<bool> ok = RunModel(args, *config);
  if (!ok.ok()) return ReportFailure(ok.status());
  if (!*ok) {
    if (config->expect_dir.empty()) {
      std::cerr << "mlf: error: outputs differ from the --expect files\n";
    } else {
      std::cerr << "mlf: error: outputs differ from " << config->expect_dir << "\n";
    }
    return kExitFailure;
  }
  return kExitOk;
}

std::vector<FlagSpec> RunFlags() {
  std::vector<FlagSpec> flags = {{"module", true, false, ""},        {"input", true, true, ""},
                                 {"random-inputs", true, false, ""}, {"output-dir", true, false, ""},
                                 {"expect-dir", true, false, ""},    {"expect", true, true, ""},
                                 {"rtol", true, false, ""},
                                 {"quantize-inputs", false, false, ""},
                                 {"dequantize-outputs", false, false, ""},
                                 {"atol", true, false, ""},          {"json", false, false, ""}};
  for (const FlagSpec& f : TrustFlags()) flags.push_back(f);
  for (const FlagSpec& f : ExecutionFlags()) flags.push_back(f);
  return flags;
}

}  // namespace

const Command& RunCommand() {
  static const Command command{"run", "run a module once on this host (.npy in and out)", kUsage,
                               RunFlags(), RunRun};
  return command;
}

}  // namespace mlf::cli
