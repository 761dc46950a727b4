// The numbers the firmware prints (instruction counts, profile ticks, stack
// bytes) and the toolchain's reports hold, read strictly: decimal digits only.
#ifndef MLFKIT_LOADER_FIRMWARE_DECIMAL_H_
#define MLFKIT_LOADER_FIRMWARE_DECIMAL_H_

#include <cstdint>
#include <optional>
#include <string>

namespace mlf::firmware {

// `text` as a decimal integer that fits 64 bits, or nullopt (empty, a sign,
// any other character, or too large).
inline std::optional<uint64_t> ParseDecimal(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  unsigned __int128 value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value > UINT64_MAX) return std::nullopt;
  return static_cast<uint64_t>(value);
}

}  // namespace mlf::firmware

#endif  // MLFKIT_LOADER_FIRMWARE_DECIMAL_H_
