#include "python/native/executor_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "artifact/archive/signature.h"
#include "loader/host/model_library.h"
#include "python/native/status_error.h"
#include "python/native/tensor_arrays.h"
#include "tvm/tvm.h"

namespace mlf::py {
namespace {

namespace pb = pybind11;

// What Python sees of an input or output.
struct PyTensorInfo {
  std::string name, c_name, dtype;
  std::vector<int64_t> shape;
  uint64_t size_bytes = 0;
  std::optional<QuantizationInfo> quantization;
};

PyTensorInfo InfoOf(const TensorSpec& spec) {
  return {spec.name, spec.c_name, DTypeName(spec.dtype), spec.shape, spec.size_bytes, spec.quantization};
}

// {"scale": [...], "zero_point": [...], "axis": int or None}, or None.
pb::object QuantizationObject(const std::optional<QuantizationInfo>& q) {
  if (!q) return pb::none();
  pb::dict d;
  d["scale"] = pb::cast(q->scale);
  d["zero_point"] = pb::cast(q->zero_point);
  d["axis"] = q->axis ? pb::object(pb::int_(*q->axis)) : pb::object(pb::none());
  return std::move(d);
}

class PyExecutor {
 public:
  explicit PyExecutor(std::unique_ptr<AotExecutor> exec)
      : exec_(std::move(exec)), bound_(exec_->num_inputs()) {}

  AotExecutor& exec() { return *exec_; }

  std::vector<PyTensorInfo> Infos(bool inputs) const {
    std::vector<PyTensorInfo> out;
    const int n = inputs ? exec_->num_inputs() : exec_->num_outputs();
    for (int i = 0; i < n; ++i) {
      out.push_back(InfoOf(ValueOrRaise(inputs ? exec_->input_info(i) : exec_->output_info(i))));
    }
    return out;
  }

  int InputIndex(const std::variant<int, std::string>& key) const {
    return Index(key, exec_->num_inputs(), true);
  }
  int OutputIndex(const std::variant<int, std::string>& key) const {
    return Index(key, exec_->num_outputs(), false);
  }

  // Copies; ends zero-copy binding of that input.
  void SetInput(const std::variant<int, std::string>& key, const pb::object& value) {
    const int index = InputIndex(key);
    const TensorSpec spec = ValueOrRaise(exec_->input_info(index));
    pb::array array = pb::array::ensure(value, pb::array::c_style);
    if (!array) RaiseInvalidArgument("input '" + spec.name + "': the value is not an array");
    std::vector<int64_t> shape, strides;
    const DLTensor t = DescribeArray(array, "input '" + spec.name + "'", &shape, &strides);
    OkOrRaise(exec_->SetInput(index, t));
    bound_[index] = pb::object();
  }

  // Zero-copy: the executor reads `array` itself until the next set_input or
  // bind_input of that input; a reference keeps it alive.
  void BindInput(const std::variant<int, std::string>& key, const pb::array& array) {
    const int index = InputIndex(key);
    const TensorSpec spec = ValueOrRaise(exec_->input_info(index));
    std::vector<int64_t> shape, strides;
    const DLTensor t = DescribeArray(array, "input '" + spec.name + "'", &shape, &strides);
    OkOrRaise(exec_->SetInputZeroCopy(index, t));
    bound_[index] = array;
  }

  void Run() {
    Status s;
    {
      pb::gil_scoped_release release;
      s = exec_->Run();
    }
    OkOrRaise(s);
  }

 private:
  int Index(const std::variant<int, std::string>& key, int count, bool input) const {
    const char* kind = input ? "input" : "output";
    if (const int* i = std::get_if<int>(&key)) {
      const int index = *i < 0 ? *i + count : *i;
      if (index < 0 || index >= count) {
        Raise(OutOfRange(std::string(kind) + " index " + std::to_string(*i) + " is out of range (the model has " +
                         std::to_string(count) + " " + kind + (count == 1 ? ")" : "s)")));
      }
      return index;
    }
    const std::string& name = std::get<std::string>(key);
    return ValueOrRaise(input ? exec_->input_index(name) : exec_->output_index(name));
  }

  std::unique_ptr<AotExecutor> exec_;
  std::vector<pb::object> bound_;  // arrays bound zero-copy, by input index
};

std::shared_ptr<ModelLibrary> Load(const std::string& path, const std::optional<std::string>& key,
                                   bool require_signature) {
  LoadOptions options;
  options.require_signature = require_signature;
  options.foreign_modules = &tvm_wing::HostModules();  // TVM archives (5-7) run too
  if (key) options.public_key_pem = ValueOrRaise(ReadKeyFile(*key));
  Result<std::shared_ptr<ModelLibrary>> lib = [&] {
    pb::gil_scoped_release release;
    return ModelLibrary::Open(path, options);
  }();
  return ValueOrRaise(std::move(lib));
}

const char kGetOutputDoc[] =
    "The output as a NumPy array that views the executor's own buffer: no copy.\n"
    "It stays valid as long as you hold it (it keeps the executor alive), but its\n"
    "values are those of the latest run(): the next run() overwrites them. Copy it\n"
    "(array.copy()) to keep a result. NumPy's __dlpack__ gives a DLPack capsule of\n"
    "the same memory.";

}  // namespace

void BindExecutor(pb::module_& m) {
  pb::class_<PyTensorInfo>(m, "TensorInfo", "An input or output of a module.")
      .def_readonly("name", &PyTensorInfo::name, "the name in the source model")
      .def_readonly("c_name", &PyTensorInfo::c_name, "the sanitised C name")
      .def_readonly("dtype", &PyTensorInfo::dtype, "the dtype name, e.g. 'float32'")
      .def_property_readonly(
          "shape", [](const PyTensorInfo& t) { return pb::tuple(pb::cast(t.shape)); },
          "the shape as a tuple")
      .def_readonly("size_bytes", &PyTensorInfo::size_bytes)
      .def_property_readonly(
          "quantization", [](const PyTensorInfo& t) { return QuantizationObject(t.quantization); },
          "{'scale': [...], 'zero_point': [...], 'axis': int or None} of a quantized\n"
          "tensor (real = (q - zero_point) * scale; one pair, or one per index of\n"
          "`axis`), as metadata records it; None for float tensors and archives\n"
          "written before metadata version 9")
      .def("__repr__", [](const PyTensorInfo& t) {
        std::string shape;
        for (int64_t d : t.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
        return "TensorInfo(" + pb::repr(pb::str(t.name)).cast<std::string>() + ", " + t.dtype + "[" +
               shape + "])";
      });

  pb::class_<PyExecutor>(m, "Executor",
                         "Runs one module. Use it from one thread at a time; executors of one\n"
                         "library run concurrently (run() releases the GIL).")
      .def_property_readonly("module", [](PyExecutor& e) { return e.exec().module_name(); })
      .def_property_readonly("threads", [](PyExecutor& e) { return e.exec().threads(); },
                             "threads one run uses (1 for code without a run context)")
      .def_property_readonly("isa", [](PyExecutor& e) { return e.exec().kernel_isa(); },
                             "the forced kernel variant, or 'auto'")
      .def_property_readonly("inputs", [](const PyExecutor& e) { return e.Infos(true); })
      .def_property_readonly("outputs", [](const PyExecutor& e) { return e.Infos(false); })
      .def("set_input", &PyExecutor::SetInput, pb::arg("key"), pb::arg("array"),
           "Copies `array` into input `key` (index, raw name or C name). The array must\n"
           "have the input's dtype and shape exactly (nothing is cast).")
      .def("bind_input", &PyExecutor::BindInput, pb::arg("key"), pb::arg("array"),
           "Zero-copy: run() reads `array` itself (a reference is kept) until the next\n"
           "set_input or bind_input of that input. The array must be C-contiguous,\n"
           "aligned, and of the input's dtype and shape.")
      .def("run", &PyExecutor::Run, "Runs the module once (the GIL is released meanwhile).")
      .def(
          "get_output",
          [](pb::object self, const std::variant<int, std::string>& key) {
            PyExecutor& e = self.cast<PyExecutor&>();
            const int index = e.OutputIndex(key);
            const TensorSpec spec = ValueOrRaise(e.exec().output_info(index));
            const DLTensor t = ValueOrRaise(e.exec().GetOutput(index));
            return ViewTensor(t, spec.dtype, self);
          },
          pb::arg("key"), kGetOutputDoc);

  pb::class_<ModelLibrary, std::shared_ptr<ModelLibrary>>(
      m, "Library", "A verified archive loaded on this host (mlfkit.load).")
      .def_property_readonly("modules", &ModelLibrary::module_names)
      .def(
          "_create_executor",
          [](const ModelLibrary& lib, const std::string& module, int threads, const std::string& isa) {
            ExecutorOptions options;
            options.threads = threads;
            options.kernel_isa = isa;
            return std::make_unique<PyExecutor>(ValueOrRaise(lib.CreateExecutor(module, options)));
          },
          pb::arg("module"), pb::arg("threads") = 1, pb::arg("isa") = "");

  m.def("_load", &Load, pb::arg("path"), pb::arg("key") = pb::none(),
        pb::arg("require_signature") = false);
}

}  // namespace mlf::py
