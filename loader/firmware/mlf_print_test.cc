// The firmware's output formatter (templates/mlf_print.c), compiled for the
// host and checked against the C library: every float16 and bfloat16 value,
// random and edge-case float32 and float64 values, integers of every width,
// and the exact output lines.
#include "mlf_print.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

std::string Printf(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

template <typename T>
std::string Format(mlf_format_fn format, T value) {
  char text[MLF_ELEMENT_TEXT_MAX + 1] = {};
  const size_t n = format(text, &value, 0);
  EXPECT_LE(n, static_cast<size_t>(MLF_ELEMENT_TEXT_MAX));
  return std::string(text, n);
}

float FloatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

double DoubleFromBits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// IEEE half to float (every half is exactly a float).
float HalfToFloat(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
  float value = exponent == 0    ? std::ldexp(static_cast<float>(fraction), -24)
                : exponent == 31 ? (fraction ? std::numeric_limits<float>::quiet_NaN()
                                             : std::numeric_limits<float>::infinity())
                                 : std::ldexp(static_cast<float>(fraction | 0x400), exponent - 25);
  return (h & 0x8000) ? -value : value;
}

TEST(MlfPrintTest, Float32MatchesPrintf) {
  std::mt19937 random(7);
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x00000001, 0x007fffff, 0x00800000,
                                0x7f7fffff, 0x3f800000, 0x7f800000, 0xff800000, 0x3dcccccd};
  for (int i = 0; i < 200000; ++i) bits.push_back(random());
  for (float f : {1234567.125f, 1234567.375f, 99999999.5f, 999999999.f, 1e9f, 1e8f, 1e-4f, 1e-5f,
                  0.1f, 123456789.f, 0.000123456789f}) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    bits.push_back(b);
  }
  for (int e = -149; e <= 127; ++e) {
    const float power = std::ldexp(1.0f, e);
    uint32_t b;
    std::memcpy(&b, &power, 4);
    bits.push_back(b);
  }
  for (uint32_t b : bits) {
    const float f = FloatFromBits(b);
    if (std::isnan(f)) continue;  // printf's "nan" sign is checked below
    ASSERT_EQ(Format(mlf_format_f32, f), Printf("%.9g", f)) << std::hex << b;
  }
}

TEST(MlfPrintTest, EveryFloat16AndBFloat16MatchesPrintf) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const float as_half = HalfToFloat(half), as_bf16 = FloatFromBits(h << 16);
    if (!std::isnan(as_half)) {
      ASSERT_EQ(Format(mlf_format_f16, half), Printf("%.9g", as_half)) << h;
    }
    if (!std::isnan(as_bf16)) {
      ASSERT_EQ(Format(mlf_format_bf16, half), Printf("%.9g", as_bf16)) << h;
    }
  }
}

TEST(MlfPrintTest, Float64MatchesPrintf) {
  std::mt19937_64 random(11);
  std::vector<uint64_t> bits = {0x0000000000000001ull, 0x000fffffffffffffull,
                                0x0010000000000000ull, 0x7fefffffffffffffull,
                                0x3ff0000000000000ull, 0x8000000000000000ull};
  for (int i = 0; i < 20000; ++i) bits.push_back(random());
  for (uint64_t b : bits) {
    const double d = DoubleFromBits(b);
    if (std::isnan(d)) continue;
    ASSERT_EQ(Format(mlf_format_f64, d), Printf("%.9g", d)) << std::hex << b;
  }
  for (double d : {0.5, 1.5, 2.5, 1e300, 1e-300, 123456789012.0, 0.1, 1.0000000005, 1.0000000015}) {
    EXPECT_EQ(Format(mlf_format_f64, d), Printf("%.9g", d));
  }
}

TEST(MlfPrintTest, SpecialValues) {
  EXPECT_EQ(Format(mlf_format_f32, std::numeric_limits<float>::infinity()), "inf");
  EXPECT_EQ(Format(mlf_format_f32, -std::numeric_limits<float>::infinity()), "-inf");
  EXPECT_EQ(Format(mlf_format_f32, FloatFromBits(0x7fc00000)), "nan");
  EXPECT_EQ(Format(mlf_format_f32, FloatFromBits(0xffc00000)), "-nan");  // as glibc prints it
  EXPECT_EQ(Format(mlf_format_f32, -0.0f), "-0");
  EXPECT_EQ(Format(mlf_format_f64, DoubleFromBits(0x7ff8000000000000ull)), "nan");
}

TEST(MlfPrintTest, IntegersInFull) {
  std::mt19937_64 random(3);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t u = random() >> (random() % 64);
    const int64_t s = static_cast<int64_t>(random()) >> (random() % 64);
    char expected[32];
    std::snprintf(expected, sizeof expected, "%llu", static_cast<unsigned long long>(u));
    ASSERT_EQ(Format(mlf_format_u64, u), expected);
    std::snprintf(expected, sizeof expected, "%lld", static_cast<long long>(s));
    ASSERT_EQ(Format(mlf_format_i64, s), expected);
  }
  EXPECT_EQ(Format(mlf_format_i64, std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(Format(mlf_format_u64, std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(Format(mlf_format_i32, std::numeric_limits<int32_t>::min()), "-2147483648");
  EXPECT_EQ(Format(mlf_format_u32, std::numeric_limits<uint32_t>::max()), "4294967295");
  EXPECT_EQ(Format(mlf_format_i8, static_cast<int8_t>(-128)), "-128");
  EXPECT_EQ(Format(mlf_format_u8, static_cast<uint8_t>(255)), "255");
  EXPECT_EQ(Format(mlf_format_i16, static_cast<int16_t>(-32768)), "-32768");
  EXPECT_EQ(Format(mlf_format_u16, static_cast<uint16_t>(65535)), "65535");
  EXPECT_EQ(Format(mlf_format_bool, static_cast<uint8_t>(7)), "1");
  EXPECT_EQ(Format(mlf_format_bool, static_cast<uint8_t>(0)), "0");
}

// Captures what `print` writes to file descriptor `fd`.
template <typename F>
std::string Capture(int fd, F print) {
  int pipe_fds[2];
  EXPECT_EQ(pipe(pipe_fds), 0);
  const int saved = dup(fd);
  dup2(pipe_fds[1], fd);
  print();
  dup2(saved, fd);
  close(saved);
  close(pipe_fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, n);
  close(pipe_fds[0]);
  return out;
}

TEST(MlfPrintTest, PrintsOneLinePerOutput) {
  const float y[3] = {0.1f, 0.0f, -2.5f};
  EXPECT_EQ(Capture(1, [&] { mlf_print_output("y", y, 3, mlf_format_f32); }),
            "output y 3 0.100000001 0 -2.5\n");
  EXPECT_EQ(Capture(1, [&] { mlf_print_output("m.empty", y, 0, mlf_format_f32); }),
            "output m.empty 0\n");
  EXPECT_EQ(Capture(2, [] { mlf_print_failure("tiny", -3); }),
            "error: tvmgen_tiny_run returned -3\n");
}

TEST(MlfPrintTest, LongLinesAreComplete) {
  std::vector<int64_t> values(1000);
  std::string expected = "output big 1000";
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = -static_cast<int64_t>(i) * 1000000007;
    expected += " " + std::to_string(values[i]);
  }
  EXPECT_EQ(Capture(1, [&] { mlf_print_output("big", values.data(), 1000, mlf_format_i64); }),
            expected + "\n");
}

}  // namespace
