// Which boards of `mlf project` can run code built for a TVM target: the one
// map from a target CPU to the platforms of loader/firmware/platform.h, used
// by the TVM module plan (tvm_plan.h) for the host's refusal ("build a
// firmware project for it: --platform ...") and for the firmware's check
// alike.
//
// Code built for a Cortex-M core runs on every core that implements at least
// its architecture: ARMv6-M (cortex-m0, -m0plus, -m1) < ARMv7-M (cortex-m3) <
// ARMv7E-M with the DSP extension (cortex-m4, and code that uses the DSP
// intrinsics without naming a core) < cortex-m7 (ARMv7E-M with a
// double-precision FPU). A board's core is the -mcpu of its compiler flags.
#ifndef MLFKIT_TVM_PLAN_TARGET_PLATFORMS_H_
#define MLFKIT_TVM_PLAN_TARGET_PLATFORMS_H_

#include <string>
#include <vector>

namespace mlf {

// The platforms whose core runs code built for TVM target `target` (an -mcpu
// such as "cortex-m4", or the architecture family the code scan names,
// CodeArchName(CodeArch::kArmCortexM)), in PlatformNames() order; empty when
// none does (other architectures, cores no board has).
std::vector<std::string> PlatformsForTarget(const std::string& target);

}  // namespace mlf

#endif  // MLFKIT_TVM_PLAN_TARGET_PLATFORMS_H_
