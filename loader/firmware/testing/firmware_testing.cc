#include "loader/firmware/testing/firmware_testing.h"

#include <sstream>

#include "artifact/base/subprocess.h"
#include "artifact/format/c_name.h"
#include "artifact/format/npy.h"
#include "artifact/format/tensor_values.h"
#include "loader/host/model_library.h"
#include "loader/host/tensor_check.h"

namespace mlf::firmware::testing {

Result<Samples> WriteSamples(const Metadata& metadata, const std::string& dir, uint64_t seed) {
  Samples samples;
  const bool qualified = metadata.modules.size() > 1;
  for (const auto& [module, m] : metadata.modules) {
    for (size_t i = 0; i < m.inputs.size(); ++i) {
      const TensorInfo& t = m.inputs[i];
      NpyArray array;
      MLF_ASSIGN_OR_RETURN(array.dtype, t.dtype.Known());
      array.shape = t.shape;
      array.data.assign(t.size_bytes, '\0');
      MLF_ASSIGN_OR_RETURN(uint64_t count, ElementCount(t.shape));
      FillRandom(array.dtype, array.data.data(), count, seed++);
      const std::string name = qualified ? SanitizeCName(module) + "." + t.c_name : t.c_name;
      const std::string path = dir + "/" + SanitizeCName(module) + "." + t.c_name + ".npy";
      MLF_RETURN_IF_ERROR(WriteNpyFile(path, array));
      samples.specs.push_back({name, path});
      samples.bytes[{module, static_cast<int>(i)}] = array.data;
    }
  }
  return samples;
}

Result<Outputs> HostReference(const std::string& archive, const Samples& samples,
                              const std::string& cache_dir,
                              const ForeignModuleRunner* foreign) {
  LoadOptions options;
  options.cache_dir = cache_dir;
  options.foreign_modules = foreign;
  MLF_ASSIGN_OR_RETURN(std::shared_ptr<ModelLibrary> library, ModelLibrary::Open(archive, options));
  const bool qualified = library->metadata().modules.size() > 1;
  Outputs outputs;
  for (const auto& [module, m] : library->metadata().modules) {
    MLF_ASSIGN_OR_RETURN(std::unique_ptr<AotExecutor> exec, library->CreateExecutor(module));
    for (int i = 0; i < exec->num_inputs(); ++i) {
      MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec->input_info(i));
      std::string data = samples.bytes.at({module, i});
      MLF_RETURN_IF_ERROR(exec->SetInput(i, MakeTensorView(spec, data.data())));
    }
    MLF_RETURN_IF_ERROR(exec->Run());
    for (int i = 0; i < exec->num_outputs(); ++i) {
      MLF_ASSIGN_OR_RETURN(TensorSpec spec, exec->output_info(i));
      MLF_ASSIGN_OR_RETURN(DLTensor tensor, exec->GetOutput(i));
      MLF_ASSIGN_OR_RETURN(uint64_t count, ElementCount(spec.shape));
      OutputValues& out =
          outputs[qualified ? SanitizeCName(module) + "." + spec.c_name : spec.c_name];
      out.dtype = spec.dtype;
      for (uint64_t k = 0; k < count; ++k) {
        out.values.push_back(ReadElement(spec.dtype, tensor.data, k));
        out.text.push_back(FormatElement(spec.dtype, out.values.back()));
      }
    }
  }
  return outputs;
}

Result<std::map<std::string, std::vector<std::string>>> ParseOutputLines(const std::string& text) {
  std::map<std::string, std::vector<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word, label;
    uint64_t count = 0;
    if (!(words >> word) || word != "output") continue;
    if (!(words >> label >> count)) return InvalidArgument("malformed output line: " + line);
    std::vector<std::string> values;
    while (words >> word) values.push_back(word);
    if (values.size() != count) {
      return InvalidArgument("output line with " + std::to_string(values.size()) +
                             " values but count " + std::to_string(count) + ": " + line);
    }
    lines[label] = values;
  }
  return lines;
}

namespace {

// The symbols that would mean an allocator (and so a heap) got linked.
const char* const kHeapSymbols[] = {"malloc",   "_malloc_r",   "free",         "_free_r",
                                    "calloc",   "_calloc_r",   "realloc",      "_realloc_r",
                                    "_sbrk_r",  "__malloc_av_", "__malloc_free_list"};

Result<std::string> ToolOutput(const std::vector<std::string>& argv) {
  MLF_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(argv, {}));
  if (r.exit_code != 0) {
    return Internal(CommandLine(argv) + " exited with " + std::to_string(r.exit_code) + ":\n" +
                    r.output);
  }
  return r.output;
}

}  // namespace

Status CheckNoHeap(const std::string& elf) {
  MLF_ASSIGN_OR_RETURN(std::string symbols, ToolOutput({"arm-none-eabi-nm", elf}));
  std::istringstream lines(symbols);
  std::string found;
  for (std::string line; std::getline(lines, line);) {
    const std::string name = line.substr(line.rfind(' ') + 1);
    for (const char* heap : kHeapSymbols) {
      if (name == heap) found += "\n  " + line;
    }
  }
  MLF_ASSIGN_OR_RETURN(std::string code, ToolOutput({"arm-none-eabi-objdump", "-d", elf}));
  if (code.find("<_sbrk>\n") != std::string::npos) found += "\n  a call of _sbrk";
  if (!found.empty()) return Internal(elf + " has a heap:" + found);
  return Status::Ok();
}

}  // namespace mlf::firmware::testing
