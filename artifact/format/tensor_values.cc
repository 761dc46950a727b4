#include "artifact/format/tensor_values.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace mlf {
namespace {

template <typename T>
T Load(const void* data, uint64_t index) {
  T v;
  std::memcpy(&v, static_cast<const char*>(data) + index * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void Store(void* data, uint64_t index, T v) {
  std::memcpy(static_cast<char*>(data) + index * sizeof(T), &v, sizeof(T));
}

template <typename T>
T Saturate(double v) {
  if (std::isnan(v)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  const double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v <= lo) return std::numeric_limits<T>::min();
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool IsFloat(DType d) {
  return d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}

bool IsSigned(DType d) {
  return d == DType::kInt8 || d == DType::kInt16 || d == DType::kInt32 || d == DType::kInt64;
}

}  // namespace

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                         : std::numeric_limits<float>::infinity();
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), static_cast<int>(exponent) - 25);
  }
  return sign ? -magnitude : magnitude;
}

uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if (std::isnan(value)) return sign | 0x7e00;
  const float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f) return sign | 0x7c00;  // rounds to infinity
  if (magnitude < std::ldexp(1.0f, -25)) return sign;
  int exponent;
  std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
  if (exponent < -13) {              // subnormal: units of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
  }
  // Normal: 10 fraction bits; rounding may carry into the exponent, which
  // the encoding absorbs.
  const uint32_t scaled = static_cast<uint32_t>(std::nearbyint(std::ldexp(magnitude, 11 - exponent)));
  const uint32_t encoded = (static_cast<uint32_t>(exponent + 14) << 10) + (scaled - 0x400);
  return sign | static_cast<uint16_t>(encoded);
}

double ReadElement(DType dtype, const void* data, uint64_t i) {
  switch (dtype) {
    case DType::kBool: return Load<uint8_t>(data, i) != 0;
    case DType::kInt8: return Load<int8_t>(data, i);
    case DType::kInt16: return Load<int16_t>(data, i);
    case DType::kInt32: return Load<int32_t>(data, i);
    case DType::kInt64: return static_cast<double>(Load<int64_t>(data, i));
    case DType::kUInt8: return Load<uint8_t>(data, i);
    case DType::kUInt16: return Load<uint16_t>(data, i);
    case DType::kUInt32: return Load<uint32_t>(data, i);
    case DType::kUInt64: return static_cast<double>(Load<uint64_t>(data, i));
    case DType::kFloat16: return HalfToFloat(Load<uint16_t>(data, i));
    case DType::kBFloat16: {
      const uint32_t bits = static_cast<uint32_t>(Load<uint16_t>(data, i)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::kFloat32: return Load<float>(data, i);
    case DType::kFloat64: return Load<double>(data, i);
  }
  return 0;
}

void WriteElement(DType dtype, void* data, uint64_t i, double v) {
  switch (dtype) {
    case DType::kBool: Store<uint8_t>(data, i, v != 0); return;
    case DType::kInt8: Store(data, i, Saturate<int8_t>(v)); return;
    case DType::kInt16: Store(data, i, Saturate<int16_t>(v)); return;
    case DType::kInt32: Store(data, i, Saturate<int32_t>(v)); return;
    case DType::kInt64: Store(data, i, Saturate<int64_t>(v)); return;
    case DType::kUInt8: Store(data, i, Saturate<uint8_t>(v)); return;
    case DType::kUInt16: Store(data, i, Saturate<uint16_t>(v)); return;
    case DType::kUInt32: Store(data, i, Saturate<uint32_t>(v)); return;
    case DType::kUInt64: Store(data, i, Saturate<uint64_t>(v)); return;
    case DType::kFloat16: Store(data, i, FloatToHalf(static_cast<float>(v))); return;
    case DType::kBFloat16: {
      const float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
      Store(data, i, static_cast<uint16_t>(bits >> 16));
      return;
    }
    case DType::kFloat32: Store(data, i, static_cast<float>(v)); return;
    case DType::kFloat64: Store(data, i, v); return;
  }
}

void FillRandom(DType dtype, void* data, uint64_t count, uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t r = SplitMix64(state);
    double v;
    if (IsFloat(dtype)) {
      v = static_cast<double>(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    } else if (dtype == DType::kBool) {
      v = static_cast<double>(r & 1);
    } else if (IsSigned(dtype)) {
      v = static_cast<double>(r % 21) - 10.0;
    } else {
      v = static_cast<double>(r % 21);
    }
    WriteElement(dtype, data, i, v);
  }
}

std::string FormatElement(DType dtype, double value) {
  char text[64];
  if (IsFloat(dtype)) {
    std::snprintf(text, sizeof text, "%.9g", value);
  } else {
    std::snprintf(text, sizeof text, "%.0f", value);
  }
  return text;
}

}  // namespace mlf
