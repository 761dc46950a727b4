#include "loader/host/model_library.h"

#include "artifact/format/c_name.h"
#include "artifact/format/dtype.h"
#include "loader/host/abi_check.h"
#include "loader/host/archive_capture.h"
#include "loader/host/compile_cache.h"
#include "loader/host/operator_profile.h"
#include "loader/host/parameter_buffer.h"
#include "loader/host/shared_object.h"
#include "loader/host/verification_memo.h"
#include "mlf/model_abi.h"

namespace mlf {

// Carries out ModelLibrary::Open step by step (see model_library.h).
class LibraryLoader {
 public:
  LibraryLoader(const ArchiveSource& source, const LoadOptions& options)
      : source_(source), options_(options), library_(new ModelLibrary()) {}

  Result<std::shared_ptr<ModelLibrary>> Load() {
    ArchiveCapture capture(source_, options_.foreign_modules, options_.profile_operators);
    VerifyOptions verify;
    verify.public_key_pem = options_.public_key_pem;
    verify.require_signature = options_.require_signature;
    verify.limits = options_.limits;
    if (options_.foreign_modules != nullptr) verify.foreign_format = &options_.foreign_modules->format();
    verify.progress = options_.progress;
    // The identity before anything is read: the memo records it only if it
    // is unchanged once every digest has been checked.
    const std::optional<FileIdentity> before = options_.use_verification_memo && source_.fd() >= 0
                                                   ? VerificationMemo::Identify(source_.fd())
                                                   : std::nullopt;
    if (before) {
      MLF_ASSIGN_OR_RETURN(const PrivateCacheDir* cache, Cache(/*create=*/false));
      if (cache != nullptr) verify.trusted_metadata_sha256 = VerificationMemo(*cache).Lookup(*before);
    }
    // One source for every pass: the file verified is the file mapped.
    MLF_ASSIGN_OR_RETURN(VerifyReport report, VerifyArchive(source_, verify, &capture));
    if (before && before->settled && report.digests_checked) {
      // Not being able to create the cache only costs the next open a rehash.
      Result<const PrivateCacheDir*> cache = Cache(/*create=*/true);
      if (cache.ok() && *cache != nullptr) {
        VerificationMemo(**cache).Record(*before, source_.fd(), report.metadata_sha256);
      }
    }
    library_->digests_checked_ = report.digests_checked;
    library_->metadata_ = std::move(report.metadata);
    parameters_ = capture.TakeParameters();
    for (const auto& [name, module] : library_->metadata_.modules) {
      MLF_RETURN_IF_ERROR(Bind(name, module, capture));
    }
    for (auto& [path, buffer] : parameters_) library_->parameters_.push_back(std::move(buffer));
    return std::move(library_);
  }

 private:
  Result<SharedObject*> LoadCode(const std::string& module, ArchiveCapture& capture) {
    std::unique_ptr<SharedObject> object;
    if (capture.HasLibraryFor(module)) {
      MLF_ASSIGN_OR_RETURN(object, SharedObject::Load(capture.Library(module),
                                                      "'" + capture.LibraryPath(module) + "'"));
      library_->code_origin_[module] = "archive";
    } else {
      MLF_ASSIGN_OR_RETURN(HostLibrary compiled, CompileModule(module, capture));
      MLF_ASSIGN_OR_RETURN(object, SharedObject::Load(*compiled.image,
                                                      "compiled for module '" + module + "'"));
    }
    library_->objects_.push_back(std::move(object));
    return library_->objects_.back().get();
  }

  // The private cache directory, opened and checked once (compile_cache.h);
  // nullptr when none is configured, or when it does not exist and `create`
  // is false.
  Result<const PrivateCacheDir*> Cache(bool create) {
    if (cache_) return &*cache_;
    const std::optional<CacheLocation> where =
        options_.cache_dir.empty() ? DefaultCacheLocation()
                                   : std::optional<CacheLocation>(CacheLocation{options_.cache_dir, ""});
    if (!where) return nullptr;
    MLF_ASSIGN_OR_RETURN(cache_, PrivateCacheDir::Open(*where, create));
    if (!cache_) return nullptr;
    return &*cache_;
  }

  Result<HostLibrary> CompileModule(const std::string& module, ArchiveCapture& capture) {
    const ModuleMetadata& m = library_->metadata_.modules.at(module);
    if (!options_.profile_operators) return CompileCached(module, capture.staged_files(), m.sources, options_.build);
    // The same build with the hook (operator_profile.h).
    std::vector<StagedFile> files = capture.staged_files();
    std::vector<std::string> sources = m.sources;
    HostBuildConfig config = options_.build;
    files.push_back(ProfileHookFile());
    sources.push_back(files.back().path);
    config.defines.push_back("MLF_PROFILE");
    return CompileCached(module, files, sources, config);
  }

  Result<HostLibrary> CompileCached(const std::string& module, const std::vector<StagedFile>& files,
                                    const std::vector<std::string>& sources,
                                    const HostBuildConfig& config) {
    MLF_ASSIGN_OR_RETURN(const PrivateCacheDir* cache, Cache(/*create=*/true));
    Result<HostLibrary> library = CachedHostLibrary(cache, files, sources, config);
    if (!library.ok()) {
      return library.status().WithContext("module '" + module + "' has no host library for " +
                                          HostTriple() + " and compiling its sources failed");
    }
    library_->code_origin_[module] = library->from_cache ? "cache" : "compiled";
    return library;
  }

  // A foreign (TVM) module: built as the runner says (foreign_module.h), or
  // refused with the runner's reason (kept for CreateExecutor; other modules
  // of the archive still load).
  Status BindForeign(const std::string& name, const ModuleMetadata& module,
                     ArchiveCapture& capture) {
    if (options_.foreign_modules == nullptr) {
      return Internal("module '" + name + "' is a TVM module, but no TVM support was passed in");
    }
    Result<ForeignModuleBuild> made = options_.foreign_modules->Build(
        name, module, capture.staged_files(), capture.foreign_members(), options_.build);
    if (!made.ok()) {  // e.g. no C interface, a graph the generated code cannot run
      library_->refused_.emplace(name, made.status());
      return Status::Ok();
    }
    const ForeignModuleBuild& build = *made;
    MLF_ASSIGN_OR_RETURN(HostLibrary compiled,
                         CompileCached(name, build.files, build.sources, build.config));
    MLF_ASSIGN_OR_RETURN(std::unique_ptr<SharedObject> object,
                         SharedObject::Load(*compiled.image, "compiled for module '" + name + "'"));
    MLF_ASSIGN_OR_RETURN(void* run_fn, object->Symbol(build.entry_symbol));
    MLF_ASSIGN_OR_RETURN(void* last_error, object->Symbol(build.last_error_symbol));
    ModuleBinding& b = library_->bindings_[name];
    b.module = name;
    b.entry_symbol = build.run_symbol;
    b.run = reinterpret_cast<ModelRunFn>(run_fn);
    b.last_error = reinterpret_cast<const char* (*)()>(last_error);
    b.workspace_bytes = build.workspace_bytes;
    b.inputs = build.inputs;
    b.outputs = build.outputs;
    if (!build.constants.empty()) {
      // The graph's parameters, shared read-only by every executor.
      MLF_ASSIGN_OR_RETURN(std::unique_ptr<ParameterBuffer> blob,
                           ParameterBuffer::Allocate(build.constants.size(), name + " parameters"));
      MLF_RETURN_IF_ERROR(blob->Append(build.constants.data(), build.constants.size()));
      b.constants = blob->data();
      library_->parameters_.push_back(std::move(blob));
    }
    if (!build.reentrant) {
      b.serialize = (library_->run_locks_[name] = std::make_unique<std::mutex>()).get();
    }
    library_->objects_.push_back(std::move(object));
    return Status::Ok();
  }


  Status Bind(const std::string& name, const ModuleMetadata& module, ArchiveCapture& capture) {
    if (module.tvm) return BindForeign(name, module, capture);
    MLF_ASSIGN_OR_RETURN(SharedObject * object, LoadCode(name, capture));
    const std::string prefix = "tvmgen_" + SanitizeCName(name);
    MLF_ASSIGN_OR_RETURN(void* metadata_fn, object->Symbol(prefix + "_metadata"));
    MLF_ASSIGN_OR_RETURN(void* run_fn, object->Symbol(prefix + "_run"));
    auto describe = reinterpret_cast<const mlf_model_metadata* (*)()>(metadata_fn);
    const mlf_model_metadata* described = describe();
    if (described == nullptr) {
      return FailedPrecondition("module '" + name + "': " + prefix + "_metadata() returned null");
    }
    MLF_RETURN_IF_ERROR(CheckAbi(name, *described, module));
    if (options_.profile_operators) {
      MLF_RETURN_IF_ERROR(InstallProfileHook(*object).WithContext("module '" + name + "'"));
    }

    ModuleBinding& b = library_->bindings_[name];
    b.module = name;
    b.entry_symbol = prefix + "_run";
    b.run = reinterpret_cast<ModelRunFn>(run_fn);
    // ABI 2's optional entry point (mlf/model_abi.h, "Run context"); ABI 1
    // code is not asked for it, so a symbol of that name there means nothing.
    if (module.abi_version >= 2) {
      Result<void*> run_ctx = object->Symbol(prefix + "_run_ctx");
      if (run_ctx.ok()) b.run_ctx = reinterpret_cast<ModelRunCtxFn>(*run_ctx);
    }
    b.workspace_bytes = module.memory.workspace_size_bytes;
    b.profiled = options_.profile_operators;
    b.operators = module.operators.size();
    MLF_ASSIGN_OR_RETURN(b.inputs, Specs(module.inputs));
    MLF_ASSIGN_OR_RETURN(b.outputs, Specs(module.outputs));
    if (module.parameters && module.parameters->storage == ParamStorage::kFile) {
      auto it = parameters_.find(module.parameters->path);
      if (it == parameters_.end()) {
        return Internal("module '" + name + "': parameters '" + module.parameters->path +
                        "' were not captured");
      }
      b.constants = it->second->data();
    }
    return Status::Ok();
  }

  static Result<std::vector<TensorSpec>> Specs(const std::vector<TensorInfo>& tensors) {
    std::vector<TensorSpec> specs;
    for (const TensorInfo& t : tensors) {
      MLF_ASSIGN_OR_RETURN(DType dtype, t.dtype.Known());
      specs.push_back(TensorSpec{t.name, t.c_name, dtype, t.shape, t.size_bytes, t.quantization});
    }
    return specs;
  }

  const ArchiveSource& source_;
  const LoadOptions& options_;
  std::shared_ptr<ModelLibrary> library_;
  std::map<std::string, std::unique_ptr<ParameterBuffer>> parameters_;
  std::optional<PrivateCacheDir> cache_;
};

Result<std::shared_ptr<ModelLibrary>> ModelLibrary::Open(const ArchiveSource& source,
                                                         const LoadOptions& options) {
  LibraryLoader loader(source, options);
  Result<std::shared_ptr<ModelLibrary>> library = loader.Load();
  if (!library.ok()) return library.status().WithContext(source.name());
  return library;
}

Result<std::shared_ptr<ModelLibrary>> ModelLibrary::Open(const std::string& path,
                                                         const LoadOptions& options) {
  Result<std::unique_ptr<ArchiveSource>> source = ArchiveSource::OpenFile(path);
  if (!source.ok()) return source.status().WithContext(path);
  return Open(**source, options);
}

ModelLibrary::~ModelLibrary() = default;

std::vector<std::string> ModelLibrary::module_names() const {
  std::vector<std::string> names;
  for (const auto& [name, module] : metadata_.modules) names.push_back(name);
  return names;
}

Result<std::unique_ptr<AotExecutor>> ModelLibrary::CreateExecutor(const std::string& module,
                                                                  const ExecutorOptions& options) const {
  auto refused = refused_.find(module);
  if (refused != refused_.end()) return refused->second;
  auto it = bindings_.find(module);
  if (it == bindings_.end()) {
    std::string known;
    for (const auto& [name, b] : bindings_) known += (known.empty() ? "" : ", ") + name;
    return NotFound("no module named '" + module + "' (the archive has: " + known + ")");
  }
  return AotExecutor::Create(shared_from_this(), &it->second, options);
}

std::string ModelLibrary::code_origin(const std::string& module) const {
  auto it = code_origin_.find(module);
  return it == code_origin_.end() ? "" : it->second;
}

}  // namespace mlf
