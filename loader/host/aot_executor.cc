#include "loader/host/aot_executor.h"

#include <cstdlib>
#include <cstring>

#include "loader/host/kernel_isa.h"
#include "loader/host/operator_profile.h"
#include "loader/host/tensor_check.h"
#include "loader/host/thread_pool.h"

namespace mlf {
namespace {

constexpr uint64_t kBufferAlignment = 64;

uint64_t AlignUp(uint64_t n) { return (n + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment; }

Result<int> FindTensor(const char* kind, const std::vector<TensorSpec>& specs,
                       std::string_view name) {
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].name == name || specs[i].c_name == name) return static_cast<int>(i);
  }
  std::string known;
  for (const TensorSpec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
  return NotFound("no " + std::string(kind) + " named '" + std::string(name) + "' (the model's " +
                  kind + "s: " + known + ")");
}

}  // namespace

AotExecutor::AotExecutor(std::shared_ptr<const ModelLibrary> owner, const ModuleBinding* binding)
    : owner_(std::move(owner)), binding_(binding) {}

AotExecutor::~AotExecutor() { std::free(arena_); }

void AotExecutor::ResetOperatorProfile() {
  if (profile_) profile_->Reset();
}

std::string AotExecutor::kernel_isa() const { return KernelIsaName(context_.kernel_isa); }

Status AotExecutor::Configure(const ExecutorOptions& options) {
  if (options.threads < 1 || options.threads > kMaxIntraOpThreads) {
    return InvalidArgument("threads must be between 1 and " + std::to_string(kMaxIntraOpThreads) +
                           ", got " + std::to_string(options.threads));
  }
  std::string isa = options.kernel_isa;
  bool from_env = false;
  if (isa.empty()) {
    const char* env = std::getenv(kKernelIsaEnv);
    if (env != nullptr && *env != '\0') {
      isa = env;
      from_env = true;
    }
  }
  if (!isa.empty()) {
    Result<int32_t> checked = CheckedKernelIsa(isa);
    if (!checked.ok()) return from_env ? checked.status().WithContext(kKernelIsaEnv) : checked.status();
    const std::string source = from_env ? std::string(kKernelIsaEnv) + "=" + isa : isa;
    // Without the run context the choice could not reach the kernels: an
    // error, not a run on whatever the code picks by itself.
    if (binding_->run_ctx == nullptr) {
      return FailedPrecondition("module '" + binding_->module + "' cannot run a forced kernel variant (" +
                                source + "): its code has no " + binding_->entry_symbol +
                                "_ctx (generated for ABI 1, or not by mlfkit's compiler); export it "
                                "again with this mlfkit");
    }
    context_.kernel_isa = *checked;
  }
  if (binding_->run_ctx != nullptr && options.threads > 1) {
    pool_ = std::make_unique<ThreadPool>(options.threads);
    context_.num_threads = options.threads;
    context_.parallel_for = &ThreadPool::Callback;
    context_.pool = pool_.get();
  }
  return Status::Ok();
}

Result<std::unique_ptr<AotExecutor>> AotExecutor::Create(std::shared_ptr<const ModelLibrary> owner,
                                                         const ModuleBinding* binding,
                                                         const ExecutorOptions& options) {
  std::unique_ptr<AotExecutor> e(new AotExecutor(std::move(owner), binding));
  MLF_RETURN_IF_ERROR(e->Configure(options));
  if (binding->profiled) e->profile_ = std::make_unique<OperatorProfile>(binding->operators);
  // One arena: workspace first, then every input and output, each 64-byte aligned.
  uint64_t total = AlignUp(binding->workspace_bytes);
  for (const TensorSpec& t : binding->inputs) total += AlignUp(t.size_bytes);
  for (const TensorSpec& t : binding->outputs) total += AlignUp(t.size_bytes);
  e->arena_ = std::aligned_alloc(kBufferAlignment, total > 0 ? total : kBufferAlignment);
  if (e->arena_ == nullptr) {
    return OutOfRange("module '" + binding->module + "': cannot allocate " +
                      std::to_string(total) + " bytes for workspace and I/O buffers");
  }
  std::memset(e->arena_, 0, total);
  char* next = static_cast<char*>(e->arena_);
  e->pools_.workspace = binding->workspace_bytes > 0 ? next : nullptr;
  e->pools_.constants = binding->constants;
  e->pools_.workspace_size = binding->workspace_bytes;
  next += AlignUp(binding->workspace_bytes);
  for (const TensorSpec& t : binding->inputs) {
    e->own_inputs_.push_back(next);
    next += AlignUp(t.size_bytes);
  }
  for (const TensorSpec& t : binding->outputs) {
    e->own_outputs_.push_back(next);
    next += AlignUp(t.size_bytes);
  }
  e->inputs_ = e->own_inputs_;
  e->outputs_ = e->own_outputs_;
  return e;
}

Status AotExecutor::CheckIndex(const char* kind, int index, int count) const {
  if (index >= 0 && index < count) return Status::Ok();
  return OutOfRange(std::string(kind) + " index " + std::to_string(index) +
                    " is out of range (module '" + binding_->module + "' has " +
                    std::to_string(count) + " " + kind + (count == 1 ? ")" : "s)"));
}

Result<TensorSpec> AotExecutor::input_info(int index) const {
  MLF_RETURN_IF_ERROR(CheckIndex("input", index, num_inputs()));
  return binding_->inputs[index];
}

Result<TensorSpec> AotExecutor::output_info(int index) const {
  MLF_RETURN_IF_ERROR(CheckIndex("output", index, num_outputs()));
  return binding_->outputs[index];
}

Result<int> AotExecutor::input_index(std::string_view name) const {
  return FindTensor("input", binding_->inputs, name);
}

Result<int> AotExecutor::output_index(std::string_view name) const {
  return FindTensor("output", binding_->outputs, name);
}

Status AotExecutor::SetInput(int index, const DLTensor& tensor) {
  MLF_RETURN_IF_ERROR(CheckIndex("input", index, num_inputs()));
  const TensorSpec& spec = binding_->inputs[index];
  MLF_ASSIGN_OR_RETURN(void* data, CheckTensor("input", spec, tensor, false));
  inputs_[index] = own_inputs_[index];
  if (spec.size_bytes > 0) std::memcpy(inputs_[index], data, spec.size_bytes);
  return Status::Ok();
}

Status AotExecutor::SetInput(std::string_view name, const DLTensor& tensor) {
  MLF_ASSIGN_OR_RETURN(int index, input_index(name));
  return SetInput(index, tensor);
}

Status AotExecutor::SetInputZeroCopy(int index, const DLTensor& tensor) {
  MLF_RETURN_IF_ERROR(CheckIndex("input", index, num_inputs()));
  MLF_ASSIGN_OR_RETURN(inputs_[index], CheckTensor("input", binding_->inputs[index], tensor, true));
  return Status::Ok();
}

Status AotExecutor::SetOutputZeroCopy(int index, const DLTensor& tensor) {
  MLF_RETURN_IF_ERROR(CheckIndex("output", index, num_outputs()));
  MLF_ASSIGN_OR_RETURN(outputs_[index],
                       CheckTensor("output", binding_->outputs[index], tensor, true));
  return Status::Ok();
}

void AotExecutor::ResetZeroCopy() {
  inputs_ = own_inputs_;
  outputs_ = own_outputs_;
}

Result<DLTensor> AotExecutor::GetInput(int index) const {
  MLF_RETURN_IF_ERROR(CheckIndex("input", index, num_inputs()));
  return MakeTensorView(binding_->inputs[index], inputs_[index]);
}

Result<DLTensor> AotExecutor::GetOutput(int index) const {
  MLF_RETURN_IF_ERROR(CheckIndex("output", index, num_outputs()));
  return MakeTensorView(binding_->outputs[index], outputs_[index]);
}

Status AotExecutor::CopyOutputTo(int index, DLTensor* dest) const {
  MLF_RETURN_IF_ERROR(CheckIndex("output", index, num_outputs()));
  if (dest == nullptr) return InvalidArgument("CopyOutputTo: destination tensor is null");
  const TensorSpec& spec = binding_->outputs[index];
  MLF_ASSIGN_OR_RETURN(void* data, CheckTensor("output", spec, *dest, false));
  if (spec.size_bytes > 0) std::memcpy(data, outputs_[index], spec.size_bytes);
  return Status::Ok();
}

Status AotExecutor::Run() {
  std::unique_lock<std::mutex> lock;
  if (binding_->serialize != nullptr) lock = std::unique_lock<std::mutex>(*binding_->serialize);
  ProfileScope profiling(profile_.get());
  const int32_t rc = binding_->run_ctx != nullptr
                         ? binding_->run_ctx(inputs_.data(), outputs_.data(), &pools_, &context_)
                         : binding_->run(inputs_.data(), outputs_.data(), &pools_);
  if (rc == 0) return Status::Ok();
  std::string why;
  if (binding_->run_ctx != nullptr && rc == MLF_RUN_ERROR_KERNEL_ISA) {
    why = ": the code does not run kernel variant " + kernel_isa();
  }
  if (binding_->last_error != nullptr) {
    const char* text = binding_->last_error();
    if (text != nullptr && *text != '\0') why = ": " + std::string(text);
  }
  return Internal("module '" + binding_->module + "': " + binding_->entry_symbol +
                  (binding_->run_ctx != nullptr ? "_ctx" : "") + " returned " + std::to_string(rc) + why);
}

}  // namespace mlf
