// AotExecutor: runs one module of a loaded archive (docs/design.md, "Host loader").
//
// The Module-based Model Runtime Interface on DLPack tensors:
//
//   MLF_ASSIGN_OR_RETURN(auto lib, ModelLibrary::Open("model.tar", {}));
//   MLF_ASSIGN_OR_RETURN(auto exec, lib->CreateExecutor("default"));
//   MLF_RETURN_IF_ERROR(exec->SetInput("input:0", my_tensor));   // copies
//   MLF_RETURN_IF_ERROR(exec->Run());
//   MLF_ASSIGN_OR_RETURN(DLTensor out, exec->GetOutput(0));     // a view
//
// Memory: each executor owns its input and output buffers and its workspace,
// allocated once (64-byte aligned) when it is created; Run() allocates
// nothing. Parameters belong to the ModelLibrary and are shared read-only by
// all its executors. Zero-copy: SetInputZeroCopy / SetOutputZeroCopy make the
// executor use the caller's buffer (checked like a copy) until the next
// SetInput / SetOutputZeroCopy of that index or ResetZeroCopy().
//
// Threads: an executor is used by one thread at a time; executors of one
// library run concurrently without locks (generated code is reentrant).
// Intra-op threads (ExecutorOptions::threads): the executor creates its
// thread pool once, with itself; each Run() hands the generated code the
// pool's parallel-for through the run context (mlf/model_abi.h), and the
// kernels split work over output elements only, so every thread count gives
// the same bits. Code without tvmgen_<mod>_run_ctx (ABI 1, TVM) runs serially.
// Kernel variant (ExecutorOptions::kernel_isa, else MLF_KERNEL_ISA): forced
// per executor, through the run context, never a global; a variant this CPU
// lacks, or one forced on code that cannot take it, fails CreateExecutor.
// Exception: modules from TVM archives, whose code may keep scratch memory in
// static arrays (USMP pools), run one at a time per module (a lock in Run()).
//
// Checks: every tensor handed in must be on the CPU, of the model's dtype and
// shape, dense in C order (strides absent or compact), and (for zero-copy)
// aligned to its element size; the error names the tensor and both values.
#ifndef MLFKIT_LOADER_HOST_AOT_EXECUTOR_H_
#define MLFKIT_LOADER_HOST_AOT_EXECUTOR_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/format/dtype.h"
#include "artifact/format/metadata.h"
#include "mlf/model_abi.h"

namespace mlf {

class ModelLibrary;
class OperatorProfile;
class ThreadPool;

// What the model declares for one input or output.
struct TensorSpec {
  std::string name;    // raw name, e.g. "input:0"
  std::string c_name;  // e.g. "input_0"
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;
  uint64_t size_bytes = 0;
  // Scale and zero point(s) when metadata (version 9) records them.
  std::optional<QuantizationInfo> quantization;
};

// The entry point of generated code: tvmgen_<mod>_run with its structs seen
// as arrays of void* (mlf/model_abi.h, "Calling convention").
using ModelRunFn = int32_t (*)(void* const* inputs, void* const* outputs, void* pools);
// tvmgen_<mod>_run_ctx the same way (ABI 2, optional).
using ModelRunCtxFn = int32_t (*)(void* const* inputs, void* const* outputs, void* pools,
                                  const mlf_run_context* ctx);

// Most intra-op threads an executor takes.
inline constexpr int kMaxIntraOpThreads = 256;

struct ExecutorOptions {
  // Threads one Run() uses, 1 to kMaxIntraOpThreads (the caller's included).
  int threads = 1;
  // "portable", "avx2" or "avx512" forces that kernel variant; empty: the
  // environment variable MLF_KERNEL_ISA when set, else the best this CPU runs.
  std::string kernel_isa;
};

// Everything an executor needs from its library; built by ModelLibrary.
struct ModuleBinding {
  std::string module;
  std::string entry_symbol;  // "tvmgen_<c name>_run", for messages
  ModelRunFn run = nullptr;
  ModelRunCtxFn run_ctx = nullptr;  // null: the code has no run context
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  uint64_t workspace_bytes = 0;
  const void* constants = nullptr;  // shared parameters, or null when linked
  // Built with the MLF_PROFILE hook (LoadOptions::profile_operators), and
  // the metadata's operator count.
  bool profiled = false;
  size_t operators = 0;
  // TVM modules (tvm/compat): the runtime's last error message, added
  // to Run()'s error, and the lock that serialises runs of the module.
  const char* (*last_error)() = nullptr;
  std::mutex* serialize = nullptr;
};

class AotExecutor {
 public:
  // Used by ModelLibrary::CreateExecutor; `owner` keeps the library loaded.
  static Result<std::unique_ptr<AotExecutor>> Create(std::shared_ptr<const ModelLibrary> owner,
                                                     const ModuleBinding* binding,
                                                     const ExecutorOptions& options = {});
  ~AotExecutor();
  AotExecutor(const AotExecutor&) = delete;
  AotExecutor& operator=(const AotExecutor&) = delete;

  const std::string& module_name() const { return binding_->module; }
  int num_inputs() const { return static_cast<int>(binding_->inputs.size()); }
  int num_outputs() const { return static_cast<int>(binding_->outputs.size()); }
  Result<TensorSpec> input_info(int index) const;
  Result<TensorSpec> output_info(int index) const;

  // The index of an input or output by raw name or C name.
  Result<int> input_index(std::string_view name) const;
  Result<int> output_index(std::string_view name) const;

  // Copies `tensor` into the executor's input buffer (and ends zero-copy for it).
  Status SetInput(int index, const DLTensor& tensor);
  Status SetInput(std::string_view name, const DLTensor& tensor);
  // Uses the caller's memory directly; it must outlive its use by Run().
  Status SetInputZeroCopy(int index, const DLTensor& tensor);
  Status SetOutputZeroCopy(int index, const DLTensor& tensor);
  // Returns every input and output to the executor's own buffers.
  void ResetZeroCopy();

  // Views of the buffers Run() reads and writes (shape owned by the executor).
  Result<DLTensor> GetInput(int index) const;
  Result<DLTensor> GetOutput(int index) const;
  // Copies output `index` into `dest` (checked like SetInput).
  Status CopyOutputTo(int index, DLTensor* dest) const;

  // Runs the model once. Allocation-free; kInternal when the generated code
  // returns non-zero.
  Status Run();

  // Workspace bytes this executor holds (for reports).
  uint64_t workspace_bytes() const { return binding_->workspace_bytes; }
  // Threads a Run() uses: the requested count, or 1 for code without a run
  // context.
  int threads() const { return context_.num_threads; }
  // The forced kernel variant ("portable", "avx2", "avx512"), or "auto".
  std::string kernel_isa() const;

  // Time per operator of this executor's runs since it was created or
  // ResetOperatorProfile() (operator_profile.h); null unless the library
  // was opened with LoadOptions::profile_operators.
  const OperatorProfile* operator_profile() const { return profile_.get(); }
  void ResetOperatorProfile();

 private:
  AotExecutor(std::shared_ptr<const ModelLibrary> owner, const ModuleBinding* binding);
  Status CheckIndex(const char* kind, int index, int count) const;

  Status Configure(const ExecutorOptions& options);

  std::shared_ptr<const ModelLibrary> owner_;
  const ModuleBinding* binding_;
  std::unique_ptr<ThreadPool> pool_;  // null for one thread
  std::unique_ptr<OperatorProfile> profile_;  // null unless profiled
  mlf_run_context context_{MLF_KERNEL_ISA_AUTO, 1, nullptr, nullptr};
  void* arena_ = nullptr;  // own I/O buffers and workspace, one allocation
  std::vector<void*> own_inputs_, own_outputs_;
  std::vector<void*> inputs_, outputs_;  // what Run() passes
  // tvmgen_<mod>_workspace_pools of mlf/model_abi.h; TVM modules' wrappers
  // also read the size (tvm/compat/compat.h).
  struct Pools {
    void* workspace;
    const void* constants;
    uint64_t workspace_size;
  } pools_{};
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_AOT_EXECUTOR_H_
