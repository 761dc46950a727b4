// float16 in generated C, for operators that compute in float32 on float16
// tensors (stored as uint16_t bit patterns): C statements converting one
// element each way, exact and with the rounding of artifact/format's
// HalfToFloat / FloatToHalf (to nearest even; NaN keeps its sign as 0x7e00),
// so evaluate() and the generated code agree bit for bit. Cast's float16
// outputs use FloatToHalfC too.
#ifndef MLFKIT_CODEGEN_OPS_HALF_C_H_
#define MLFKIT_CODEGEN_OPS_HALF_C_H_

#include <string>

namespace mlf::ops {

// "float <var>;" set from the uint16_t C expression `bits`, in a block of
// its own (the expression is read once; the block's names end in 16).
inline std::string HalfToFloatC(const std::string& var, const std::string& bits, const std::string& ind) {
  return ind + "float " + var + ";\n" + ind + "{\n" +
         ind + "  const uint32_t h16 = " + bits + ", e16 = (h16 >> 10) & 0x1fu, m16 = h16 & 0x3ffu;\n" +
         ind + "  " + var + " = (float)m16 * 5.96046448e-08f; /* zero or subnormal: m * 2^-24 */\n" +
         ind + "  if (e16 != 0) {\n" +
         ind + "    const uint32_t w16 = e16 == 0x1fu ? 0x7f800000u | (m16 << 13) : ((e16 + 112u) << 23) | (m16 << 13);\n" +
         ind + "    memcpy(&" + var + ", &w16, 4);\n" +
         ind + "  }\n" +
         ind + "  if (h16 & 0x8000u) " + var + " = -" + var + ";\n" +
         ind + "}\n";
}

// "<dst> = (uint16_t)...;" from the float variable `f`.
inline std::string FloatToHalfC(const std::string& dst, const std::string& f, const std::string& ind) {
  return ind + "{\n" +
         ind + "  uint32_t fb, r;\n" +
         ind + "  memcpy(&fb, &" + f + ", 4);\n" +
         ind + "  const uint32_t s = (fb >> 16) & 0x8000u, a = fb & 0x7fffffffu;\n" +
         ind + "  if (a > 0x7f800000u) {\n" +
         ind + "    r = s | 0x7e00u; /* NaN */\n" +
         ind + "  } else if (a >= 0x477ff000u) {\n" +
         ind + "    r = s | 0x7c00u; /* rounds to infinity */\n" +
         ind + "  } else if (a >= 0x38800000u) { /* normal: rebias, round to nearest even */\n" +
         ind + "    const uint32_t n = a - 0x38000000u;\n" +
         ind + "    r = s | ((n + 0xfffu + ((n >> 13) & 1u)) >> 13);\n" +
         ind + "  } else { /* subnormal: units of 2^-24, round to nearest even */\n" +
         ind + "    float q;\n" +
         ind + "    memcpy(&q, &a, 4);\n" +
         ind + "    q *= 16777216.0f;\n" +
         ind + "    uint32_t n = (uint32_t)q;\n" +
         ind + "    const float rest = q - (float)n;\n" +
         ind + "    if (rest > 0.5f || (rest == 0.5f && (n & 1u))) ++n;\n" +
         ind + "    r = s | n;\n" +
         ind + "  }\n" +
         ind + "  " + dst + " = (uint16_t)r;\n" +
         ind + "}\n";
}

}  // namespace mlf::ops

#endif  // MLFKIT_CODEGEN_OPS_HALF_C_H_
