// The firmware's output formatter (templates/mlf_print.c), compiled for the
// host and checked against glibc's printf("%.9g"): every float16 and bfloat16
// value; float32 powers of two, subnormals, neighbours of powers of ten,
// exact ties and a million random bit patterns; random and edge-case
// float64 values; integers of every width; and the exact output lines.
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

uint32_t BitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// Checks mlf_format_f32 against glibc's printf("%.9g") for each pattern,
// NaNs included (glibc prints "nan" or "-nan" by the sign bit).
void ExpectFloat32sMatch(const std::vector<uint32_t>& patterns) {
  for (uint32_t bits : patterns) {
    ASSERT_EQ(Format(mlf_format_f32, bits), Printf("%.9g", FloatFromBits(bits))) << std::hex << bits;
  }
}

TEST(MlfPrintTest, Float32EdgesMatchPrintf) {
  std::vector<uint32_t> bits = {0x00000000, 0x80000000, 0x00000001, 0x007fffff, 0x00800000,
                                0x7f7fffff, 0x3f800000, 0x7f800000, 0xff800000, 0x3dcccccd,
                                0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345};
  // Every power of two and its neighbours, both signs.
  for (int e = -149; e <= 127; ++e) {
    const uint32_t power = BitsOf(std::ldexp(1.0f, e));
    for (uint32_t b : {power - 1, power, power + 1}) {
      bits.push_back(b);
      bits.push_back(b | 0x80000000u);
    }
  }
  // A few floats either side of every power of ten: where rounding carries
  // into a new digit (9.99999999e+n) and where %g switches notation.
  for (int e = -45; e <= 38; ++e) {
    const uint32_t near = BitsOf(std::strtof(("1e" + std::to_string(e)).c_str(), nullptr));
    for (uint32_t d = 0; d < 6; ++d) bits.insert(bits.end(), {near + d, near - d});
  }
  // Subnormals: the first and last thousand, and every 997th in between.
  for (uint32_t b = 1; b < 0x800000; b += b < 1000 || b > 0x7ffc00 ? 1 : 997) bits.push_back(b);
  ExpectFloat32sMatch(bits);
}

TEST(MlfPrintTest, RandomFloat32sMatchPrintf) {
  std::mt19937 random(7);
  std::vector<uint32_t> bits(1000000);
  for (uint32_t& b : bits) b = random();
  ExpectFloat32sMatch(bits);
}

// The decimal expansion of a float32 with k fractional bits ends in a 5 at
// decimal place k. When that 5 is its tenth significant digit, "%.9g" must
// round an exact tie, to even. Such floats are made here as n * 2^-k.
TEST(MlfPrintTest, Float32TiesRoundToEven) {
  std::mt19937 random(5);
  std::vector<uint32_t> ties;
  int odd_ninth = 0, even_ninth = 0;
  while (ties.size() < 4 * 1000) {
    const uint32_t n = (random() & 0xffffff) | 1;
    const int k = 1 + static_cast<int>(random() % 40);
    const float f = std::ldexp(static_cast<float>(n), -k);
    char exact[128];
    std::snprintf(exact, sizeof exact, "%.60e", f);  // d.ddd...e-XX, exact for a float
    std::string digits = std::string(exact, 1) + std::string(exact + 2, std::strchr(exact, 'e'));
    digits.erase(digits.find_last_not_of('0') + 1);
    if (digits.size() != 10) continue;
    ASSERT_EQ(digits[9], '5') << exact;
    ((digits[8] - '0') % 2 ? odd_ninth : even_ninth) += 1;
    const uint32_t b = BitsOf(f);
    ties.insert(ties.end(), {b, b | 0x80000000u, b - 1, b + 1});
  }
  EXPECT_GT(odd_ninth, 400);  // both kinds of tie, about half each
  EXPECT_GT(even_ninth, 400);
  ExpectFloat32sMatch(ties);
  // By hand: 1000000.125 rounds down to ...12, 1000000.375 up to ...38.
  EXPECT_EQ(Format(mlf_format_f32, 1000000.125f), "1000000.12");
  EXPECT_EQ(Format(mlf_format_f32, 1000000.375f), "1000000.38");
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
  for (int i = 0; i < 50000; ++i) bits.push_back(random());
  for (int e = -1074; e <= 1023; ++e) {
    uint64_t power;
    const double d = std::ldexp(1.0, e);
    std::memcpy(&power, &d, 8);
    bits.insert(bits.end(), {power, power + 1, power - 1, power | 1ull << 63});
  }
  for (uint64_t b : bits) {
    ASSERT_EQ(Format(mlf_format_f64, b), Printf("%.9g", DoubleFromBits(b))) << std::hex << b;
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
