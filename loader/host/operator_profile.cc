#include "loader/host/operator_profile.h"

#include "loader/host/shared_object.h"

namespace mlf {
namespace {

constexpr char kHookPath[] = "codegen/host/src/mlf_host_profile.c";
constexpr char kInstaller[] = "mlf_host_profile_install";

// The library's side of the hook: one pointer, set once after loading. The
// generated code declares mlf_profile_begin/end itself under MLF_PROFILE.
constexpr char kHookSource[] =
    "/* The MLF_PROFILE hook of a host library built for operator profiles\n"
    " * (mlfkit's loader/host/operator_profile.h): the loader installs the timer. */\n"
    "#include <stdint.h>\n"
    "\n"
    "typedef void (*mlf_host_profile_fn)(uint32_t op, int end);\n"
    "static mlf_host_profile_fn mlf_host_profile_timer;\n"
    "\n"
    "void mlf_host_profile_install(mlf_host_profile_fn timer);\n"
    "void mlf_profile_begin(uint32_t op);\n"
    "void mlf_profile_end(uint32_t op);\n"
    "\n"
    "void mlf_host_profile_install(mlf_host_profile_fn timer) { mlf_host_profile_timer = timer; }\n"
    "\n"
    "void mlf_profile_begin(uint32_t op) {\n"
    "  if (mlf_host_profile_timer) mlf_host_profile_timer(op, 0);\n"
    "}\n"
    "\n"
    "void mlf_profile_end(uint32_t op) {\n"
    "  if (mlf_host_profile_timer) mlf_host_profile_timer(op, 1);\n"
    "}\n";

thread_local OperatorProfile* current_profile = nullptr;

extern "C" void RecordOperatorTime(uint32_t op, int end) {
  OperatorProfile* profile = current_profile;
  if (profile == nullptr) return;
  if (end) {
    profile->End(op);
  } else {
    profile->Begin(op);
  }
}

}  // namespace

StagedFile ProfileHookFile() { return StagedFile{kHookPath, kHookSource}; }

Status InstallProfileHook(SharedObject& object) {
  Result<void*> installer = object.Symbol(kInstaller);
  if (!installer.ok()) {
    return FailedPrecondition("the library was not built for operator profiles (no " +
                              std::string(kInstaller) + ")");
  }
  using Installer = void (*)(void (*)(uint32_t, int));
  reinterpret_cast<Installer>(*installer)(&RecordOperatorTime);
  return Status::Ok();
}

void OperatorProfile::Reset() {
  for (OperatorTime& t : totals_) t = OperatorTime{};
  open_ = UINT32_MAX;
}

void OperatorProfile::Begin(uint32_t op) {
  open_ = op;
  started_ = Clock::now();
}

void OperatorProfile::End(uint32_t op) {
  const Clock::time_point now = Clock::now();
  if (op != open_ || op >= totals_.size()) return;
  open_ = UINT32_MAX;
  OperatorTime& t = totals_[op];
  t.nanoseconds += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - started_).count());
  ++t.calls;
}

ProfileScope::ProfileScope(OperatorProfile* profile) : previous_(current_profile) {
  current_profile = profile;
}

ProfileScope::~ProfileScope() { current_profile = previous_; }

}  // namespace mlf
