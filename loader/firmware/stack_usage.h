// The stack of a firmware (issue 19 point 4): the high-water mark measured
// in the run by painting (templates/mlf_stack.[ch]: `stack <module> <bytes>`
// after each module's run), beside a static bound computed from the
// compiler's own figures.
//
// The bound: the project is compiled with -fstack-usage -fcallgraph-info=su
// (gcc writes <object>.ci: every function's frame and the calls it makes,
// after inlining). The deepest path from reset_handler is summed, plus, when
// the SysTick exception is enabled (instruction counting), one exception
// frame (32 bytes, 104 with an FPU's lazy state, 4 for alignment) and the
// handler's own path. Calls without figures (the C library, libgcc) count a
// stated allowance, kLibraryCallAllowance, each. An indirect call (a kernel's
// task function called through mlfk_exec_run) may reach any function whose
// address its own translation unit takes: the model's table of task
// functions (arm-none-eabi-readelf -r of the object; the output printer's
// format functions and the vector table are other units). A
// cycle (recursion) or a frame gcc calls dynamic makes the bound unbounded,
// with the reason.
#ifndef MLFKIT_LOADER_FIRMWARE_STACK_USAGE_H_
#define MLFKIT_LOADER_FIRMWARE_STACK_USAGE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "artifact/base/status.h"
#include "loader/firmware/instruction_count.h"
#include "loader/firmware/platform.h"

namespace mlf::firmware {

// Stack counted for each call into code without figures: newlib-nano's
// memcpy/memset, floor/fmod and exit, librdimon's _write and the
// semihosting calls behind it, libgcc's arithmetic. Read from the pushes and
// stack adjustments of the DS-CNN's image on mps2-an386
// (loader/firmware/README.md, "Stack"): calls the inference makes reach at
// most 68 bytes (fmod -> __ieee754_fmod -> __aeabi_ddiv), the deepest chain
// of all 392 (initialise_monitor_handles -> _get_semihosting_exts ->
// _swiopen -> _stat -> _swiopen -> _stat -> _close, librdimon's open and
// stat calling each other once).
inline constexpr uint64_t kLibraryCallAllowance = 512;

// The compiler's call graph: the merged .ci files.
struct CallGraph {
  // Frame bytes of every function gcc compiled (static functions of the same
  // name in several files: the largest). Absent: no figures (a library).
  std::map<std::string, uint64_t> frames;
  std::set<std::string> dynamic;  // frames gcc reports as dynamic
  // Indirect calls are calls to "__indirect_call:<unit>", which may reach
  // indirect_targets[<unit>]: the functions its object takes the address of.
  std::map<std::string, std::set<std::string>> calls;
  std::map<std::string, std::set<std::string>> indirect_targets;
};

// Adds the functions and calls of one .ci file's text (gcc's VCG format),
// the translation unit `unit`.
Status AddCallGraph(const std::string& ci_text, const std::string& unit, CallGraph* graph);

struct StackBound {
  std::string module;  // the metadata key; empty for the whole program
  bool bounded = false;
  uint64_t bytes = 0;                     // when bounded
  std::vector<std::string> deepest_path;  // from the entry, when bounded
  std::string why_unbounded;              // e.g. "recursion: f -> g -> f"
  uint64_t exception_bytes = 0;           // the exception frame and handler counted
  uint64_t library_calls = 0;             // calls counted with kLibraryCallAllowance on the deepest path
};

// The frames of `chain` (the callers, outermost first; a function gcc
// inlined, absent from the graph, is skipped) plus the deepest path from
// any of `roots`, with `handler` (may be empty) taken once at the deepest
// point through an exception frame of `frame_bytes`. A root without figures
// is unbounded.
StackBound BoundStack(const CallGraph& graph, const std::vector<std::string>& chain,
                      const std::vector<std::string>& roots, const std::string& handler, uint64_t frame_bytes);

struct StackBounds {
  StackBound program;                  // from reset_handler: the whole firmware, printing included
  std::vector<StackBound> inferences;  // per module: what its painted run can reach
};

// The static bounds of the project built in `dir` (its build/ tree: make or
// CMake) for `platform`, with the SysTick exception (instruction counting).
// A module's inference is reset_handler -> main -> run_<mod> (the frames
// above the call) and the deepest of tvmgen_<mod>_run and the harness's
// calls inside the painted window (mlf_cycles_now, mlf_stack_used,
// mlf_profile_reset). kFailedPrecondition when the build has no .ci files
// (not compiled with -fcallgraph-info=su).
Result<StackBounds> StaticStackBounds(const std::string& dir, const Platform& platform,
                                      const std::vector<CountedModule>& modules);

// The compile flags that make the figures.
std::vector<std::string> StackUsageFlags();

struct StackMeasurement {
  std::string module;  // the metadata key
  uint64_t bytes = 0;  // painted high-water mark of its run, from the stack's top
};

// The `stack <module C name> <bytes>` lines of `output`, for `modules`;
// malformed lines and unknown modules are kDataLoss naming the line.
Result<std::vector<StackMeasurement>> ReadStackMeasurements(const std::string& output,
                                                            const std::vector<CountedModule>& modules);

// Per module "module a: stack 1724 bytes used (painted), static bound 2345
// bytes (-fstack-usage, -fcallgraph-info=su: reset_handler -> main -> ...;
// 256 bytes per C library call; 120 bytes for the SysTick exception's frame
// and handler), of 8192", then the whole program's bound on a line of its own.
std::string FormatStack(const std::vector<StackMeasurement>& measured, const StackBounds& bounds,
                        uint64_t stack_bytes);

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_STACK_USAGE_H_
