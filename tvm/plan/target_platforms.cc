#include "tvm/plan/target_platforms.h"

#include "loader/firmware/platform.h"
#include "tvm/format/tvm_code.h"

namespace mlf {
namespace {

// The architecture level a Cortex-M target needs (see the header); -1 for
// targets that are not a Cortex-M core.
int CortexMLevel(const std::string& target) {
  if (target == "cortex-m0" || target == "cortex-m0plus" || target == "cortex-m1") return 0;
  if (target == "cortex-m3") return 1;
  // The DSP extension (and the Arm C Language Extensions' SIMD32
  // intrinsics) needs a Cortex-M4 or M7.
  if (target == "cortex-m4" || target == CodeArchName(CodeArch::kArmCortexM)) return 2;
  if (target == "cortex-m7") return 3;
  return -1;
}

// The core a board's compiler flags select ("" when none).
std::string BoardCore(const firmware::Platform& platform) {
  const std::string flag = "-mcpu=";
  for (const std::string& f : platform.arch_flags) {
    if (f.rfind(flag, 0) == 0) return f.substr(flag.size());
  }
  return "";
}

}  // namespace

std::vector<std::string> PlatformsForTarget(const std::string& target) {
  const int needs = CortexMLevel(target);
  std::vector<std::string> out;
  if (needs < 0) return out;
  for (const std::string& name : firmware::PlatformNames()) {
    Result<firmware::Platform> platform = firmware::FindPlatform(name);
    if (!platform.ok() || !platform->cortex_m) continue;
    if (CortexMLevel(BoardCore(*platform)) >= needs) out.push_back(name);
  }
  return out;
}

}  // namespace mlf
