// The integer semantics of ONNX's quantized operators, in one place: how a
// real value becomes a quantized integer (QuantizeLinear, DynamicQuantize-
// Linear), how a quantized integer becomes a real value (DequantizeLinear),
// and how an int32 accumulator of products of zero-point-adjusted integers
// becomes the output's quantized integer (QLinearMatMul, QLinearConv).
// quantize.cc and qlinear.cc evaluate with these functions and emit C text
// from the Emit* functions here, which computes the same bits; a later
// lowering pass (issue 14, step 2) reuses both.
//
// The rules (ONNX's, with the choices ONNX leaves open made explicit):
//
//   quantize    q = saturate(round_half_even(x / scale) + zero_point), the
//               division in float32 (as ONNX's reference and ONNX Runtime);
//               NaN gives the zero point; +-inf saturate;
//   dequantize  y = (float)(x - zero_point) * scale in float32, the
//               difference taken in int64 (exact for int32 inputs);
//   requantize  q = saturate(round_half_even(acc * m) + zero_point) with the
//               real multiplier m = (double)in_scale * (double)w_scale /
//               (double)out_scale and the product acc * m in double: the
//               exact value of the integer pipeline up to double rounding.
//               This is the rule of a node whose multiplier is only known at
//               run time (a scale computed by the graph, or a per-row scale
//               of a MatMul's a);
//   requantize, fixed point (issue 14 step 2; every QLinearConv and
//               QLinearMatMul whose x, w and y scales are constants, x's and
//               y's per tensor): the real multiplier is the float32 value
//               RequantScale (w_scale * in_scale, times 1 / out_scale, each
//               step rounded to float32, as PyTorch's int8 kernels compute
//               their requantization scale), turned once, at export, into
//               TFLite's Q31 multiplier and shift (QuantizeMultiplier: a
//               float32 fits a Q31 multiplier exactly) and
//               q = saturate(FixedMultiply(acc) + zero_point), the rule of
//               the integer kernels (codegen/kernels/mlf_kernel_gemm_s8.h
//               mlfk_s8_fixmul): the 64-bit product acc * multiplier
//               rounded once, ties up, by a right shift of 31 - shift bits
//               (TFLite's single-rounding form). evaluate, the reference C
//               and the kernels all use it for such a node, so `mlf run`,
//               constant folding and the generated code agree bit for bit.
//               Against the double rule it is at most 1 apart (before
//               saturation), and only where the exact value is within
//               2^-22 * |acc * m| of a rounding boundary (the float32
//               multiplier's error, three roundings: below 2^-14 of a step
//               for any unsaturated output) or exactly on a tie (up here, to even
//               there). Why float32 and not the exact ratio: the scales are
//               float32 already, so the exact ratio is no truer to the
//               model; and in a deep network one output that rounds the
//               other way changes the next layer's rounding elsewhere, so
//               agreement with the framework that made the model depends on
//               using the number it multiplies by. On torchvision's int8
//               MobileNetV2 (tests/int8_fixtures/export_quantized_
//               mobilenet_v2.py, conditioned) the float32 value gives
//               PyTorch's integers bit for bit in all 66 quantized tensors
//               of one image, where the exact ratio parts from them at a
//               near tie in the second depthwise layer (7642 * 0.011973306f
//               = 91.5000014; exactly, 91.4999971). What is left is
//               PyTorch's float32 product, which can round onto a tie.
//               The double-rounding form of TFLite's reference (a
//               rounding doubling high multiply, then a rounding shift) is
//               not used: its first rounding moves values by up to 2^-(e+1)
//               of a step for a right shift e, which on torchvision's int8
//               MobileNetV2 changed 0.4% of the first convolution's outputs
//               against PyTorch's (and ONNX's) one rounding, and those
//               differences grew to 25 steps at the classifier. Matching
//               the kernels rather than ONNX's double rule is what keeps the
//               archive one program: a 1-step tolerance would make constant
//               folding and the generated code disagree;
//   accumulate  sum of (a - a_zero_point) * (b - b_zero_point) (+ bias) in
//               int32 that wraps on overflow (computed as uint32), as the
//               integer kernels of every runtime do.
//
// round_half_even is written out (floor, then a tie to the even neighbour),
// not rint/nearbyint, so the result does not depend on the floating-point
// environment's rounding mode of the process that runs the code.
#ifndef MLFKIT_CODEGEN_OPS_REQUANTIZE_H_
#define MLFKIT_CODEGEN_OPS_REQUANTIZE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "artifact/format/dtype.h"
#include "codegen/ops/op_util.h"

namespace mlf::ops::quant {

// The integers of a quantized dtype: int8 [-128, 127], uint8 [0, 255],
// int32 (the accumulator and bias dtype) its full range.
struct QRange {
  int64_t min = 0, max = 0;
};
inline QRange RangeOf(DType dtype) {
  switch (dtype) {
    case DType::kInt8: return {-128, 127};
    case DType::kUInt8: return {0, 255};
    default: return {INT32_MIN, INT32_MAX};
  }
}

// Rounds to the nearest integer, ties to even (v finite or infinite).
inline double RoundHalfEven(double v) {
  double r = std::floor(v);
  const double f = v - r;  // exact: v and floor(v) are close in magnitude
  if (f > 0.5 || (f == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  return r;
}

// saturate(round_half_even(v) + zero_point) into `range`; NaN gives the zero
// point.
inline int64_t SaturateRound(double v, int64_t zero_point, QRange range) {
  double r = std::isnan(v) ? 0.0 : RoundHalfEven(v);
  r += static_cast<double>(zero_point);
  if (r < static_cast<double>(range.min)) return range.min;
  if (r > static_cast<double>(range.max)) return range.max;
  return static_cast<int64_t>(r);
}

// QuantizeLinear of one element.
inline int64_t Quantize(float x, float scale, int64_t zero_point, QRange range) {
  const float v = x / scale;  // float32, as ONNX specifies
  return SaturateRound(static_cast<double>(v), zero_point, range);
}

// DequantizeLinear of one element.
inline float Dequantize(int64_t x, int64_t zero_point, float scale) {
  return static_cast<float>(x - zero_point) * scale;
}

// The real multiplier of requantization.
inline double Multiplier(float in_scale, float w_scale, float out_scale) {
  return static_cast<double>(in_scale) * static_cast<double>(w_scale) /
         static_cast<double>(out_scale);
}

// The real multiplier of fixed-point requantization (see the rules
// above): in float32, (w_scale * in_scale) * (1 / out_scale). Where a step
// of that leaves float32's normal range (a product below 2^-126, a
// reciprocal that overflows) the exact ratio is taken instead: nothing to
// agree with there, and a float32 zero would silence the output.
inline double RequantScale(float in_scale, float w_scale, float out_scale) {
  const float inverse = 1.0f / out_scale;
  const float product = w_scale * in_scale;
  const float scale = product * inverse;
  if (!std::isnormal(inverse) || !std::isnormal(product) || !std::isnormal(scale)) {
    return Multiplier(in_scale, w_scale, out_scale);
  }
  return static_cast<double>(scale);
}

// Requantization of one int32 accumulator.
inline int64_t Requantize(int32_t acc, double multiplier, int64_t zero_point, QRange range) {
  return SaturateRound(static_cast<double>(acc) * multiplier, zero_point, range);
}

// TFLite's fixed-point form of a real multiplier: m = multiplier * 2^(shift
// - 31), multiplier a Q31 value in [2^30, 2^31) (or its negative) and
// shift <= 31; 0 and multipliers below 2^-32 give {0, 0} (every output the
// zero point). Computed here, at export, and written into the generated
// code as constants.
struct FixedMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
};
inline FixedMultiplier QuantizeMultiplier(double m) {
  if (m == 0 || !std::isfinite(m)) return {};
  int exponent = 0;
  const double fraction = std::frexp(m, &exponent);  // m = fraction * 2^exponent, |fraction| in [0.5, 1)
  int64_t q = static_cast<int64_t>(std::llround(fraction * 2147483648.0));
  if (q == (int64_t{1} << 31) || q == -(int64_t{1} << 31)) {  // rounded to +-1.0
    q /= 2;
    ++exponent;
  }
  if (exponent < -31) return {};
  if (exponent > 31) return {q < 0 ? INT32_MIN : INT32_MAX, 31};  // saturates every non-zero acc
  return {static_cast<int32_t>(q), exponent};
}

// acc * multiplier * 2^(shift - 31) as mlfk_s8_fixmul computes it: with
// t = 31 - shift (shift in [-31, 30]), floor((acc * multiplier + 2^(t-1)) /
// 2^t), one rounding with ties up; shift 31 (t = 0) takes the product as it
// is; saturated to int32. |acc * multiplier| <= 2^62, so the sum fits
// int64.
inline int32_t FixedMultiply(int32_t acc, FixedMultiplier f) {
  const int t = f.shift > 31 ? 0 : (f.shift < -31 ? 62 : 31 - f.shift);
  int64_t p = int64_t{acc} * f.multiplier;
  if (t > 0) p = (p + (int64_t{1} << (t - 1))) >> t;  // arithmetic shift: a floor
  return static_cast<int32_t>(std::max<int64_t>(INT32_MIN, std::min<int64_t>(INT32_MAX, p)));
}

// FixedMultiply with ties to even: the product acc * multiplier, shifted
// right by t = 31 - shift bits, rounds to the nearest integer and, exactly
// half-way, to the even one (ONNX QuantizeLinear's rule). Average pooling
// uses it: its multiplier x_scale / (y_scale * count) is often a power of
// two (the same scale in and out, a 2x2 window), so exact ties are common
// there, where an accumulator of products of arbitrary scales almost never
// lands on one. Saturated to int32.
inline int32_t FixedMultiplyHalfEven(int32_t acc, FixedMultiplier f) {
  const int t = f.shift > 31 ? 0 : (f.shift < -31 ? 62 : 31 - f.shift);
  int64_t p = int64_t{acc} * f.multiplier;
  if (t > 0) {
    const int64_t q = p >> t;  // arithmetic shift: a floor
    const int64_t rem = p - q * (int64_t{1} << t), half = int64_t{1} << (t - 1);
    p = q + ((rem > half || (rem == half && (q & 1) != 0)) ? 1 : 0);
  }
  return static_cast<int32_t>(std::max<int64_t>(INT32_MIN, std::min<int64_t>(INT32_MAX, p)));
}

// clamp(zero_point + FixedMultiplyHalfEven(acc)) into `range`.
inline int64_t RequantizeHalfEven(int32_t acc, FixedMultiplier f, int64_t zero_point, QRange range) {
  const int64_t q = static_cast<int64_t>(FixedMultiplyHalfEven(acc, f)) + zero_point;
  return std::max(range.min, std::min(range.max, q));
}

// Fixed-point requantization of one accumulator.
inline int64_t RequantizeFixed(int32_t acc, FixedMultiplier f, int64_t zero_point, QRange range) {
  const int64_t q = static_cast<int64_t>(FixedMultiply(acc, f)) + zero_point;
  return std::max(range.min, std::min(range.max, q));
}

// The integer rule of a quantized addition (QLinearAdd, what the lowering
// makes of DQ(a) + DQ(b) -> Q): with the real ratios fa = a_scale / y_scale
// and fb = b_scale / y_scale (double), both are turned into integers of one
// common scale 2^-shift, ma = round(fa * 2^shift), mb = round(fb * 2^shift),
// shift the largest in [0, 30] that keeps both at most 2^21, and
//   y = saturate(((ma * da + mb * db + 2^(shift - 1)) >> shift) + y_zero_point)
// for the zero-point-adjusted inputs da, db (|da|, |db| <= 255), the shift
// arithmetic (a floor: ties round up). Every term fits in int32:
// 2 * 255 * 2^21 + 2^29 < 2^31. One 32-bit multiply-add per input instead of
// TFLite's three fixed-point multiplications, and closer to the real result:
// ma and mb are each within 1/2 of their real value times 2^shift, so the
// sum is within 255 * 2^-shift of a step of the real one before the one
// rounding: below fmax / 4096 for the larger ratio fmax (2^(shift+1) * fmax
// exceeds 2^21 unless shift is 30), and at most 0.032 since shift >= 13
// (fmax <= 256). None when fmax is larger (an input step worth more than
// 256 output steps: the lowering keeps the float operators) or either ratio
// is not finite and positive.
struct AddRule {
  int32_t ma = 0, mb = 0;
  int32_t shift = 0;
};
inline bool MakeAddRule(float a_scale, float b_scale, float y_scale, AddRule* rule) {
  const double fa = static_cast<double>(a_scale) / y_scale, fb = static_cast<double>(b_scale) / y_scale;
  if (!(fa > 0) || !(fb > 0) || !std::isfinite(fa) || !std::isfinite(fb)) return false;
  const double fmax = std::max(fa, fb), limit = 2097152.0;  // 2^21
  if (fmax > 256.0) return false;
  int shift = 0;
  while (shift < 30 && std::llround(std::ldexp(fmax, shift + 1)) <= static_cast<long long>(limit)) ++shift;
  rule->ma = static_cast<int32_t>(std::llround(std::ldexp(fa, shift)));
  rule->mb = static_cast<int32_t>(std::llround(std::ldexp(fb, shift)));
  rule->shift = shift;
  return true;
}
// The sum before the zero point, da and db zero-point-adjusted inputs.
inline int32_t AddFixed(int32_t da, int32_t db, AddRule r) {
  const int32_t half = r.shift > 0 ? int32_t{1} << (r.shift - 1) : 0;
  return (r.ma * da + r.mb * db + half) >> r.shift;
}

// Node attributes of QLinearConv / QLinearMatMul / ConvInteger set by the
// lowering pass (codegen/passes/qdq_lowering.h); models may not carry
// mlf.* attributes, so an ONNX node keeps the rules above.
//   kFixedPointAttr (int 1): requantize with the fixed-point rule (scales
//       must be constants, x's and y's per tensor);
//   kClampAttr (ints [lo, hi]): the output is clamped to [lo, hi] (output
//       integers) as well as saturated: a Relu or Clip folded in.
inline constexpr char kFixedPointAttr[] = "mlf.fixed_point";
inline constexpr char kClampAttr[] = "mlf.clamp";

// int32 accumulation that wraps: acc + a * b computed in uint32.
inline int32_t AccumulateWrapping(int32_t acc, int64_t a, int64_t b) {
  const uint32_t sum = static_cast<uint32_t>(acc) + static_cast<uint32_t>(a * b);
  return static_cast<int32_t>(sum);
}

// A constant scale (input `what`, e.g. "input 1 (y_scale)") must be finite
// and non-zero in every element; a scale computed at run time is not checked
// (0 then gives infinities and NaN, which saturate and quantize as above).
inline Status CheckConstantScale(const ir::Node& node, const InputInfo& scale,
                                 const std::string& what) {
  if (scale.data == nullptr) return Status::Ok();
  for (uint64_t i = 0; i < scale.data->element_count(); ++i) {
    const double s = scale.data->GetDouble(i);
    if (s == 0 || !std::isfinite(s)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", s);
      return NodeError(node, what + " element " + std::to_string(i) + " is " + text +
                                 "; a scale must be finite and non-zero");
    }
  }
  return Status::Ok();
}

// ---- The same in generated C ----
//
// Statements (each line starting with `indent`) that store into the C lvalue
// `dst` of C type `ctype`: saturate(round_half_even(`value`) + `zero_point`)
// into `range`, where `value` is a C expression of type double (evaluated
// once) and `zero_point` one of an integer type. Opens its own block, so it
// may be used several times in one scope.
inline std::string EmitSaturateRound(const std::string& indent, const std::string& dst,
                                     const std::string& ctype, const std::string& value,
                                     const std::string& zero_point, QRange range) {
  const std::string lo = std::to_string(range.min) + ".0", hi = std::to_string(range.max) + ".0";
  std::string s;
  s += indent + "{\n";
  s += indent + "  const double v_ = " + value + ";\n";
  s += indent + "  double r_ = floor(v_);\n";
  s += indent + "  const double f_ = v_ - r_;\n";
  s += indent + "  if (f_ > 0.5 || (f_ == 0.5 && fmod(r_, 2.0) != 0.0)) r_ += 1.0;\n";
  s += indent + "  if (v_ != v_) r_ = 0.0; /* NaN: the zero point */\n";
  s += indent + "  r_ += (double)(" + zero_point + ");\n";
  s += indent + "  " + dst + " = (" + ctype + ")(r_ < " + lo + " ? " + lo + " : (r_ > " + hi +
       " ? " + hi + " : r_));\n";
  s += indent + "}\n";
  return s;
}

// Statements that store QuantizeLinear of the float expression `x` with the
// float expression `scale` and the integer expression `zero_point` into the C
// lvalue `dst` of C type `ctype`, for an int8 or uint8 `range`: the same bits
// as Quantize, in float32 and int32 only, so that a single-precision FPU
// needs no software double arithmetic and no floor/fmod calls (about 550
// instructions a value on a Cortex-M4F before, 25 after). v = x / scale is
// the float32 quotient either way; it is clamped to [-1024, 1024] (every
// value beyond saturates, |round(v) + zero point| then exceeding 255), which
// makes (int32_t)v, a truncation whatever the rounding mode, exact; one step
// down gives floor(v); f = v - floor(v) is exact for v >= 0 and v <= -1
// (Sterbenz), and for v in (-1, 0) it can only round up to 0.5 or 1 when
// v > -0.5, where rounding up from -1 is right either way; a tie goes to the
// even neighbour. NaN gives the zero point.
inline std::string EmitQuantizeFloat(const std::string& indent, const std::string& dst,
                                     const std::string& ctype, const std::string& x,
                                     const std::string& scale, const std::string& zero_point,
                                     QRange range) {
  const std::string lo = std::to_string(range.min), hi = std::to_string(range.max);
  std::string s;
  s += indent + "{\n";
  s += indent + "  float v_ = (float)(" + x + ") / (" + scale + ");\n";
  s += indent + "  int32_t r_;\n";
  s += indent + "  if (v_ != v_) v_ = 0.0f; /* NaN: the zero point */\n";
  s += indent + "  v_ = v_ < -1024.0f ? -1024.0f : (v_ > 1024.0f ? 1024.0f : v_);\n";
  s += indent + "  r_ = (int32_t)v_;\n";
  s += indent + "  if ((float)r_ > v_) r_ -= 1; /* floor */\n";
  s += indent + "  {\n";
  s += indent + "    const float f_ = v_ - (float)r_;\n";
  s += indent + "    if (f_ > 0.5f || (f_ == 0.5f && (r_ & 1) != 0)) r_ += 1;\n";
  s += indent + "  }\n";
  s += indent + "  r_ += (int32_t)(" + zero_point + ");\n";
  s += indent + "  " + dst + " = (" + ctype + ")(r_ < " + lo + " ? " + lo + " : (r_ > " + hi + " ? " + hi +
       " : r_));\n";
  s += indent + "}\n";
  return s;
}

// Statements that store clamp(zy + FixedMultiplyHalfEven(acc)) into the C
// lvalue `dst` of C type `ctype`, `acc` a C expression of the exact integer
// sum or product (int64_t, within int32): the same bits as
// FixedMultiplyHalfEven followed by the zero point and [range].
inline std::string EmitFixedMultiplyHalfEven(const std::string& indent, const std::string& dst,
                                             const std::string& ctype, const std::string& acc,
                                             FixedMultiplier f, int64_t zero_point, QRange range) {
  const int t = f.shift > 31 ? 0 : (f.shift < -31 ? 62 : 31 - f.shift);
  const std::string lo = std::to_string(range.min), hi = std::to_string(range.max);
  std::string s = indent + "{\n";
  s += indent + "  int64_t q_ = (int64_t)(" + acc + ") * " + std::to_string(f.multiplier) + ";\n";
  if (t > 0) {
    const std::string half = "((int64_t)1 << " + std::to_string(t - 1) + ")";
    s += indent + "  const int64_t floor_ = q_ >> " + std::to_string(t) + ", rem_ = q_ - floor_ * ((int64_t)1 << " +
         std::to_string(t) + ");\n";
    s += indent + "  q_ = floor_ + ((rem_ > " + half + " || (rem_ == " + half + " && (floor_ & 1))) ? 1 : 0);\n";
  }
  s += indent + "  q_ = (q_ > INT32_MAX ? INT32_MAX : (q_ < INT32_MIN ? INT32_MIN : q_)) + " +
       std::to_string(zero_point) + ";\n";
  s += indent + "  " + dst + " = (" + ctype + ")(q_ < " + lo + " ? " + lo + " : (q_ > " + hi + " ? " + hi + " : q_));\n";
  s += indent + "}\n";
  return s;
}

// The C expression of Dequantize (float).
inline std::string EmitDequantize(const std::string& x, const std::string& zero_point,
                                  const std::string& scale) {
  return "(float)((int64_t)(" + x + ") - (int64_t)(" + zero_point + ")) * (" + scale + ")";
}

// The C expression of Multiplier (double), from three float expressions.
inline std::string EmitMultiplier(const std::string& in_scale, const std::string& w_scale,
                                  const std::string& out_scale) {
  return "(double)(" + in_scale + ") * (double)(" + w_scale + ") / (double)(" + out_scale + ")";
}

}  // namespace mlf::ops::quant

#endif  // MLFKIT_CODEGEN_OPS_REQUANTIZE_H_
