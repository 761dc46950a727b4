#include "loader/firmware/sample_input.h"

#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "artifact/format/npy.h"
#include "artifact/format/quantized_values.h"

namespace mlf::firmware {
namespace {

using InputRef = std::pair<std::string, int>;

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Inputs of `module` called `name` (raw or C name).
void MatchInModule(const std::string& module, const ModuleMetadata& m, const std::string& name,
                   std::vector<InputRef>* found) {
  for (size_t i = 0; i < m.inputs.size(); ++i) {
    if (m.inputs[i].name == name || m.inputs[i].c_name == name) {
      found->push_back({module, static_cast<int>(i)});
    }
  }
}

// "MODULE.NAME" for every '.' whose prefix names a module.
std::vector<InputRef> MatchQualified(const Metadata& metadata, const std::string& name) {
  std::vector<InputRef> found;
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
    const std::string module = name.substr(0, dot);
    for (const auto& [key, m] : metadata.modules) {
      if (key == module || SanitizeCName(key) == module) {
        MatchInModule(key, m, name.substr(dot + 1), &found);
      }
    }
  }
  return found;
}

Result<InputRef> Resolve(const Metadata& metadata, const std::string& name) {
  std::vector<InputRef> found;
  for (const auto& [key, m] : metadata.modules) MatchInModule(key, m, name, &found);
  if (found.empty()) found = MatchQualified(metadata, name);
  if (found.size() == 1) return found[0];
  if (found.empty()) {
    std::vector<std::string> inputs;
    for (const auto& [key, m] : metadata.modules) {
      for (const TensorInfo& t : m.inputs) {
        inputs.push_back(metadata.modules.size() > 1 ? key + "." + t.name : t.name);
      }
    }
    return NotFound("no input named '" + name + "' (the inputs: " + Join(inputs) + ")");
  }
  std::vector<std::string> modules;
  for (const InputRef& ref : found) modules.push_back(ref.first);
  return InvalidArgument("input name '" + name + "' is ambiguous: modules " + Join(modules) +
                         " have it; write MODULE." + name);
}

Status CheckArray(const TensorInfo& input, const NpyArray& array) {
  MLF_ASSIGN_OR_RETURN(DType dtype, input.dtype.Known());
  if (array.dtype != dtype) {
    return InvalidArgument("the .npy file holds " + std::string(DTypeName(array.dtype)) +
                           ", the input is " + DTypeName(dtype));
  }
  if (array.shape != input.shape) {
    return InvalidArgument("the .npy file has shape " + FormatShape(array.shape) +
                           ", the input has shape " + FormatShape(input.shape));
  }
  return Status::Ok();
}

// A float32 array for an integer input: quantized when asked and possible,
// else an error saying what would make it work.
Status QuantizeSample(const TensorInfo& input, DType dtype, bool quantize, NpyArray& array) {
  const std::string prefix =
      std::string("the .npy file holds float32, the input is ") + DTypeName(dtype);
  const bool quantized = input.quantization.has_value() && IsQuantizedDType(dtype);
  if (!quantized) {
    return InvalidArgument(prefix + (quantize ? " and the archive records no scale and zero point "
                                                "for it, so --quantize-inputs cannot quantize it"
                                              : ""));
  }
  if (!quantize) {
    return InvalidArgument(prefix + " (" + DescribeQuantization(*input.quantization) +
                           "): pass --quantize-inputs to quantize float data with them");
  }
  if (array.shape != input.shape) {
    return InvalidArgument("the .npy file has shape " + FormatShape(array.shape) +
                           ", the input has shape " + FormatShape(input.shape));
  }
  MLF_ASSIGN_OR_RETURN(array.data,
                       QuantizeFloat32(array.data, input.shape, dtype, *input.quantization));
  array.dtype = dtype;
  return Status::Ok();
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<SampleInputs> ReadSampleInputs(const Metadata& metadata,
                                      const std::vector<SampleInputSpec>& specs, bool quantize) {
  SampleInputs samples;
  for (const SampleInputSpec& spec : specs) {
    const std::string context = "sample input '" + spec.name + "'";
    Result<InputRef> ref = Resolve(metadata, spec.name);
    if (!ref.ok()) return ref.status().WithContext(context);
    if (samples.count(*ref)) return InvalidArgument(context + ": this input was given twice");
    const TensorInfo& input = metadata.modules.at(ref->first).inputs[ref->second];
    // A quantized input may come as float32: 4 bytes per element.
    uint64_t data_bytes = input.size_bytes;
    if (input.quantization) {
      Result<uint64_t> floats = ByteSize(DType::kFloat32, input.shape);
      if (floats.ok() && *floats > data_bytes) data_bytes = *floats;
    }
    Result<NpyArray> array = ReadNpyFile(spec.path, data_bytes + (1 << 20));
    if (!array.ok()) return array.status().WithContext(context);
    Status matches = Status::Ok();
    Result<DType> dtype = input.dtype.Known();
    if (dtype.ok() && array->dtype == DType::kFloat32 && *dtype != DType::kFloat32) {
      matches = QuantizeSample(input, *dtype, quantize, *array);
    }
    if (matches.ok()) matches = CheckArray(input, *array);
    if (!matches.ok()) return matches.WithContext(context + " (" + spec.path + ")");
    samples[*ref] = SampleData{std::move(array->data), BaseName(spec.path)};
  }
  return samples;
}

}  // namespace mlf::firmware
