// Progress for long work, shown on stderr only when it is a terminal (never
// in pipes or CI logs). Redraws at most ten times a second.
#ifndef MLFKIT_TOOLS_MLF_PROGRESS_H_
#define MLFKIT_TOOLS_MLF_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace mlf::cli {

class Progress {
 public:
  // What done/total count: bytes ("writing  42% (1.5 MiB of 3.6 MiB)") or
  // runs of a model ("bench  42% (420 of 1000 runs)").
  enum class Units { kBytes, kRuns };

  explicit Progress(std::string label, Units units = Units::kBytes);
  ~Progress();  // clears the line

  // A callback for library functions taking (done, total) progress.
  std::function<void(uint64_t, uint64_t)> Callback();

  void Update(uint64_t done, uint64_t total);

 private:
  std::string label_;
  Units units_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

// "1.5 MiB", "312 B": sizes for people.
std::string HumanBytes(uint64_t bytes);

}  // namespace mlf::cli

#endif  // MLFKIT_TOOLS_MLF_PROGRESS_H_
