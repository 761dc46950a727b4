#include "tools/mlf/model_io.h"

#include <cmath>

#include "artifact/archive/signature.h"
#include "artifact/base/display_text.h"
#include "artifact/format/quantized_values.h"
#include "artifact/format/tensor_values.h"
#include "loader/host/kernel_isa.h"
#include "loader/host/tensor_check.h"
#include "tools/mlf/archive_formats.h"

namespace mlf::cli {
namespace {

// Module names from the archive, for a message: escaped, not quoted.
std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + DisplayText(n);
  return out;
}

Status CheckNpyMatches(const char* kind, const std::string& name, DType dtype,
                       const std::vector<int64_t>& shape, const NpyArray& array) {
  if (array.dtype != dtype) {
    return InvalidArgument(std::string(kind) + " " + QuoteForMessage(name) +
                           ": the .npy file holds " + DTypeName(array.dtype) +
                           ", the model expects " + DTypeName(dtype));
  }
  if (array.shape != shape) {
    return InvalidArgument(std::string(kind) + " " + QuoteForMessage(name) +
                           ": the .npy file has shape " + FormatShape(array.shape) +
                           ", the model expects " + FormatShape(shape));
  }
  return Status::Ok();
}

// An .npy file's array for a tensor of `dtype`: uint16 bit patterns stand
// for bfloat16 (see ForNpyFile).
NpyArray FromNpyFile(NpyArray array, DType dtype) {
  if (dtype == DType::kBFloat16 && array.dtype == DType::kUInt16) array.dtype = DType::kBFloat16;
  return array;
}

bool HoldsQuantizedValues(const TensorSpec& spec) {
  return spec.quantization.has_value() && IsQuantizedDType(spec.dtype);
}

// A float32 file for an integer input: quantized with --quantize-inputs and
// the input's parameters; else an error saying what would make it work.
Status QuantizeInput(const TensorSpec& spec, bool quantize, NpyArray& array) {
  const std::string prefix = "input " + QuoteForMessage(spec.name) +
                             ": the .npy file holds float32, the model expects " +
                             DTypeName(spec.dtype);
  if (!HoldsQuantizedValues(spec)) {
    return InvalidArgument(prefix + (quantize ? " and the archive records no scale and zero point "
                                                "for it, so --quantize-inputs cannot quantize it"
                                              : ""));
  }
  if (!quantize) {
    return InvalidArgument(prefix + " (" + DescribeQuantization(*spec.quantization) +
                           "): pass --quantize-inputs to quantize float data with them");
  }
  MLF_RETURN_IF_ERROR(CheckNpyMatches("input", spec.name, DType::kFloat32, spec.shape, array));
  Result<std::string> bytes =
      QuantizeFloat32(array.data, spec.shape, spec.dtype, *spec.quantization);
  if (!bytes.ok()) return bytes.status().WithContext("input " + QuoteForMessage(spec.name));
  array.dtype = spec.dtype;
  array.data = std::move(*bytes);
  return Status::Ok();
}

}  // namespace

std::vector<FlagSpec> TrustFlags() {
  return {{"key", true, false, ""}, {"require-signature", false, false, ""}};
}

Result<LoadOptions> LoadOptionsFromArgs(const ParsedArgs& args) {
  LoadOptions options;
  options.foreign_modules = cli::ForeignModules();
  options.require_signature = args.Has("require-signature");
  if (args.Has("key")) {
    MLF_ASSIGN_OR_RETURN(std::string key, ReadKeyFile(args.Get("key")));
    options.public_key_pem = key;
  }
  return options;
}

std::vector<FlagSpec> ExecutionFlags() { return {{"threads", true, false, ""}, {"isa", true, false, ""}}; }

Result<ExecutorOptions> ExecutorOptionsFromArgs(const ParsedArgs& args) {
  ExecutorOptions options;
  const std::string threads = args.Get("threads", "1");
  Result<uint64_t> count = ParseUnsigned("threads", threads);
  if (!count.ok() || *count < 1 || *count > static_cast<uint64_t>(kMaxIntraOpThreads)) {
    return InvalidArgument("--threads must be between 1 and " + std::to_string(kMaxIntraOpThreads) +
                           ", got " + QuoteForMessage(threads));
  }
  options.threads = static_cast<int>(*count);
  if (args.Has("isa")) {
    options.kernel_isa = args.Get("isa");
    Result<int32_t> isa = ParseKernelIsa(options.kernel_isa);
    if (!isa.ok()) return isa.status().WithContext("--isa");
  }
  return options;
}

Status CheckIsaFlag(const ExecutorOptions& options) {
  if (options.kernel_isa.empty()) return Status::Ok();
  return CheckedKernelIsa(options.kernel_isa).status().WithContext("--isa");
}

Result<std::string> SelectModule(const ModelLibrary& library, const std::string& requested) {
  const std::vector<std::string> names = library.module_names();
  if (!requested.empty()) {
    for (const std::string& n : names) {
      if (n == requested) return n;
    }
    return NotFound("no module named " + QuoteForMessage(requested) +
                    " (the archive has: " + Join(names) + ")");
  }
  if (names.size() == 1) return names[0];
  return InvalidArgument("the archive has " + std::to_string(names.size()) +
                         " modules; choose one with --module (" + Join(names) + ")");
}

Status SetInputFromNpy(AotExecutor& executor, int index, const std::string& path,
                       bool quantize) {
  MLF_ASSIGN_OR_RETURN(TensorSpec spec, executor.input_info(index));
  // A quantized input may come as float32: 4 bytes per element.
  uint64_t data_bytes = spec.size_bytes;
  if (HoldsQuantizedValues(spec)) {
    MLF_ASSIGN_OR_RETURN(data_bytes, ByteSize(DType::kFloat32, spec.shape));
  }
  MLF_ASSIGN_OR_RETURN(NpyArray array, ReadNpyFile(path, data_bytes + (1 << 20)));
  array = FromNpyFile(array, spec.dtype);
  if (array.dtype == DType::kFloat32 && spec.dtype != DType::kFloat32) {
    MLF_RETURN_IF_ERROR(QuantizeInput(spec, quantize, array).WithContext(path));
  }
  MLF_RETURN_IF_ERROR(
      CheckNpyMatches("input", spec.name, spec.dtype, spec.shape, array).WithContext(path));
  DLTensor t = MakeTensorView(spec, array.data.data());
  return executor.SetInput(index, t);
}

Status SetRandomInputs(AotExecutor& executor, const std::vector<bool>& given, uint64_t seed) {
  for (int i = 0; i < executor.num_inputs(); ++i) {
    if (given[i]) continue;
    MLF_ASSIGN_OR_RETURN(TensorSpec spec, executor.input_info(i));
    std::string data(spec.size_bytes, '\0');
    MLF_ASSIGN_OR_RETURN(uint64_t count, ElementCount(spec.shape));
    FillRandom(spec.dtype, data.data(), count, seed * 1000003u + static_cast<uint64_t>(i));
    MLF_RETURN_IF_ERROR(executor.SetInput(i, MakeTensorView(spec, data.data())));
  }
  return Status::Ok();
}

Result<NpyArray> OutputAsNpy(const AotExecutor& executor, int index, bool dequantize) {
  MLF_ASSIGN_OR_RETURN(TensorSpec spec, executor.output_info(index));
  MLF_ASSIGN_OR_RETURN(DLTensor t, executor.GetOutput(index));
  NpyArray array;
  array.dtype = spec.dtype;
  array.shape = spec.shape;
  array.data.assign(static_cast<const char*>(t.data), spec.size_bytes);
  if (!dequantize || !HoldsQuantizedValues(spec)) return array;
  Result<std::string> floats =
      DequantizeToFloat32(array.data, spec.shape, spec.dtype, *spec.quantization);
  if (!floats.ok()) return floats.status().WithContext("output " + QuoteForMessage(spec.name));
  array.dtype = DType::kFloat32;
  array.data = std::move(*floats);
  return array;
}

NpyArray ForNpyFile(NpyArray array) {
  if (array.dtype == DType::kBFloat16) array.dtype = DType::kUInt16;
  return array;
}

Result<Comparison> CompareOutput(const std::string& name, const NpyArray& got_array,
                                 const NpyArray& expected_file, double rtol, double atol) {
  const NpyArray expected = FromNpyFile(expected_file, got_array.dtype);
  MLF_RETURN_IF_ERROR(CheckNpyMatches("output", name, got_array.dtype, got_array.shape, expected));
  MLF_ASSIGN_OR_RETURN(uint64_t count, ElementCount(got_array.shape));
  const DType dtype = got_array.dtype;
  Comparison c;
  c.elements = count;
  double worst = -1;
  for (uint64_t i = 0; i < count; ++i) {
    const double got = ReadElement(dtype, got_array.data.data(), i);
    const double want = ReadElement(dtype, expected.data.data(), i);
    const double err = std::fabs(got - want);
    const double allowed = atol + rtol * std::fabs(want);
    const bool both_nan = std::isnan(got) && std::isnan(want);
    const bool bad = !both_nan && !(err <= allowed) && got != want;
    if (bad) ++c.mismatches;
    const double score = both_nan ? 0 : (std::isnan(err) ? INFINITY : err / (allowed > 0 ? allowed : 1e-300));
    if (score > worst) {
      worst = score;
      c.worst_index = i;
      c.got = got;
      c.want = want;
      c.abs_error = err;
    }
  }
  return c;
}

}  // namespace mlf::cli
