// Per-operator time on the host (`mlf bench --profile`; docs/host-loader.md,
// "Per-operator profiles").
//
// Generated code brackets every operator of its run function with
// MLF_PROFILE_BEGIN(i) / MLF_PROFILE_END(i), i the operator's index in the
// module's metadata; they are calls only when the build defines MLF_PROFILE
// (codegen/emit/module_emitter.cc). Firmware implements them with a cycle
// counter (loader/firmware/templates/mlf_profile.c). On the host, a library
// loaded with LoadOptions::profile_operators is compiled from the archive's
// sources with -DMLF_PROFILE plus ProfileHookFile(), whose
// mlf_profile_begin/end call one function pointer that InstallProfileHook
// points at this file's timer.
//
// The hook is called on the thread that called Run() (operators run one
// after the other there; only kernels' tasks run on pool threads), so it
// finds its OperatorProfile in a thread-local slot that ProfileScope sets
// for the duration of one Run(): executors running concurrently each time
// their own operators. An operator's time is wall-clock time on that thread,
// from its start to the end of its last task, waiting for other threads
// included: at T threads it is what the operator costs the run.
#ifndef MLFKIT_LOADER_HOST_OPERATOR_PROFILE_H_
#define MLFKIT_LOADER_HOST_OPERATOR_PROFILE_H_

#include <chrono>
#include <cstdint>
#include <vector>

#include "artifact/base/status.h"
#include "artifact/toolchain/host_build.h"

namespace mlf {

class SharedObject;

// The C source that implements the hook in a profiled host library, staged
// at codegen/host/src/mlf_host_profile.c.
StagedFile ProfileHookFile();

// Points the hook of a library built with ProfileHookFile() at this file's
// timer. kFailedPrecondition when the library lacks the hook's installer.
Status InstallProfileHook(SharedObject& object);

// One operator's totals since the last Reset().
struct OperatorTime {
  uint64_t nanoseconds = 0;
  uint64_t calls = 0;  // runs that reached this operator
};

// Time per operator of one executor.
class OperatorProfile {
 public:
  explicit OperatorProfile(size_t operators) : totals_(operators) {}

  void Reset();
  // Totals by operator index (as in the module's metadata).
  const std::vector<OperatorTime>& totals() const { return totals_; }

  // The hook's two halves. An index beyond the metadata's operators, or an
  // End without its Begin, is ignored.
  void Begin(uint32_t op);
  void End(uint32_t op);

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<OperatorTime> totals_;
  uint32_t open_ = UINT32_MAX;  // the operator begun and not ended
  Clock::time_point started_;
};

// Makes `profile` (may be null: nothing recorded) the one this thread's
// hook calls record into, until the scope ends.
class ProfileScope {
 public:
  explicit ProfileScope(OperatorProfile* profile);
  ~ProfileScope();
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;

 private:
  OperatorProfile* previous_;
};

}  // namespace mlf

#endif  // MLFKIT_LOADER_HOST_OPERATOR_PROFILE_H_
