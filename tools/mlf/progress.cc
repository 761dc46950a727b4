#include "tools/mlf/progress.h"

#include <unistd.h>

#include <cstdio>

namespace mlf::cli {

Progress::Progress(std::string label, Units units)
    : label_(std::move(label)), units_(units), enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

std::function<void(uint64_t, uint64_t)> Progress::Callback() {
  if (!enabled_) return nullptr;
  return [this](uint64_t done, uint64_t total) { Update(done, total); };
}

void Progress::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const int percent = total > 0 ? static_cast<int>(100.0 * done / total) : 0;
  const std::string of = units_ == Units::kBytes
                             ? HumanBytes(done) + " of " + HumanBytes(total)
                             : std::to_string(done) + " of " + std::to_string(total) + " runs";
  std::fprintf(stderr, "\r\033[K%s %3d%% (%s)", label_.c_str(), percent > 100 ? 100 : percent,
               of.c_str());
  std::fflush(stderr);
}

std::string HumanBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  }
  return text;
}

}  // namespace mlf::cli
