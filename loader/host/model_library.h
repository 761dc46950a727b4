// ModelLibrary: an archive loaded on this host (docs/design.md, "Host loader").
//
// Open() reads the archive once, in this order, and loads no code before
// all of it has passed:
//   1. structure, metadata.json (schema and rules) and the signature policy
//      (artifact/archive/verify.h: with a key configured an unsigned or wrongly
//      signed archive is refused before any other member is read);
//   2. the SHA-256 of every member (parameter blobs excepted when the
//      verification memo vouches for this unchanged file, see
//      verification_memo.h; code never), while the members the loader needs
//      are captured: the host library into a memfd, hashed as it is copied
//      and sealed only when its digest is the one metadata.json lists (the
//      signed one, under a key), parameters (see below), and, when the
//      archive has no library for this host, the sources, which are
//      compiled once into the private content-addressed cache
//      (compile_cache.h);
//   3. only then dlopen of the sealed memfd (shared_object.h: the bytes
//      mapped are the bytes hashed), followed by the ABI check of every
//      module (tvmgen_<mod>_metadata() against metadata.json).
// The archive is opened once (an ArchiveSource, artifact/archive/archive_source.h)
// and every pass reads that source, so replacing the file meanwhile cannot
// swap verified content for unverified content. A source in memory (bytes,
// not a file) loads the same way; its parameters are copied, and it has no
// verification memo (there is no file to identify).
//
// Parameters in "file" storage are mapped once per library and shared
// read-only by all executors: in an uncompressed archive they are mmapped
// straight out of the archive file (the writer aligns them to 4096 bytes);
// otherwise they are copied once into an aligned buffer.
//
// A ModelLibrary is immutable after Open() and safe to share between
// threads; CreateExecutor may be called from any thread.
//
// TVM archives (metadata versions 5–7) are opened too (verified as
// artifact/archive/verify.h describes for them, no signature possible): their AOT
// modules with the C interface and graph executor modules are compiled with
// mlfkit's TVM compatibility layer (tvm_wing::HostModules() of tvm/tvm.h, passed in as
// LoadOptions::foreign_modules); modules that
// cannot run on this host (operator style, the packed API, another
// architecture, ...) are refused by CreateExecutor with the reason.
#ifndef MLFKIT_LOADER_HOST_MODEL_LIBRARY_H_
#define MLFKIT_LOADER_HOST_MODEL_LIBRARY_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "artifact/archive/archive_reader.h"
#include "artifact/archive/archive_source.h"
#include "artifact/base/status.h"
#include "artifact/format/metadata.h"
#include "artifact/toolchain/host_build.h"
#include "loader/host/aot_executor.h"
#include "loader/host/foreign_module.h"

namespace mlf {

struct LoadOptions {
  // When set, the archive must be signed by this Ed25519 key (PEM).
  std::optional<std::string> public_key_pem;
  // Refuse unsigned archives even without a key (the signer is not proven).
  bool require_signature = false;
  // Where compiled host libraries and the verification memo are kept: a
  // private directory (compile_cache.h; refused when another user owns it
  // or it grants group or other access). Empty: DefaultCacheLocation(), or
  // none at all when no variable names one.
  std::string cache_dir;
  // Skip rehashing the parameter blobs of an archive file that this user has
  // fully verified before and that has not changed since
  // (verification_memo.h). Code is hashed on every open regardless.
  bool use_verification_memo = true;
  // Called as member data is checked (artifact/archive/verify.h VerifyOptions::progress).
  std::function<void(uint64_t done, uint64_t total)> progress;
  // How archives without a host library are compiled.
  HostBuildConfig build;
  // Time every operator (operator_profile.h, AotExecutor::operator_profile):
  // every mlfkit module is compiled from its sources with the MLF_PROFILE
  // hook, the archive's own library unused (the same flags otherwise, so
  // the kernels are the same code; each operator costs two clock reads
  // more). Code exported before mlfkit wrote the hook has nothing to time:
  // its profile stays empty.
  bool profile_operators = false;
  ReaderLimits limits;
  // Modules this loader cannot run itself (TVM's: tvm_wing::HostModules() of the
  // TVM wing, tvm/tvm.h), through the seam of foreign_module.h.
  // Null: only mlfkit archives open; a TVM archive is refused
  // (kUnimplemented, artifact/archive/verify.h).
  const ForeignModuleRunner* foreign_modules = nullptr;
};

class ParameterBuffer;
class SharedObject;

class ModelLibrary : public std::enable_shared_from_this<ModelLibrary> {
 public:
  // Loads the archive in `source`; errors start with source.name().
  static Result<std::shared_ptr<ModelLibrary>> Open(const ArchiveSource& source,
                                                    const LoadOptions& options = {});
  // The same for the file at `path` (ArchiveSource::OpenFile).
  static Result<std::shared_ptr<ModelLibrary>> Open(const std::string& path,
                                                    const LoadOptions& options = {});
  ~ModelLibrary();
  ModelLibrary(const ModelLibrary&) = delete;
  ModelLibrary& operator=(const ModelLibrary&) = delete;

  const Metadata& metadata() const { return metadata_; }
  std::vector<std::string> module_names() const;

  // A new executor for `module`, with its own buffers and workspace (and
  // thread pool, ExecutorOptions::threads).
  Result<std::unique_ptr<AotExecutor>> CreateExecutor(const std::string& module,
                                                      const ExecutorOptions& options = {}) const;

  // Whether Open() recomputed every member digest (false: the verification
  // memo vouched for this unchanged file's parameter blobs).
  bool digests_checked() const { return digests_checked_; }

  // How the host code was obtained for `module`: "archive" (the shipped
  // library), "cache" (compiled earlier) or "compiled" (compiled now).
  std::string code_origin(const std::string& module) const;

 private:
  friend class LibraryLoader;
  ModelLibrary() = default;

  Metadata metadata_;
  std::vector<std::unique_ptr<SharedObject>> objects_;
  std::vector<std::unique_ptr<ParameterBuffer>> parameters_;
  std::map<std::string, ModuleBinding> bindings_;
  std::map<std::string, std::string> code_origin_;
  std::map<std::string, Status> refused_;  // modules that cannot run here, and why
  std::map<std::string, std::unique_ptr<std::mutex>> run_locks_;  // TVM modules
  bool digests_checked_ = true;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_MODEL_LIBRARY_H_
