// The int8 agreement criterion (tests/int8_agreement.h) on hand-made rows:
// each bound is met at its edge and broken just past it.
#include "tests/int8_agreement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace mlf::testing {
namespace {

constexpr double kStep = 0.5;

// 100 rows of 10 classes: class 0 ahead by 10 steps.
std::vector<double> Reference() {
  std::vector<double> v(1000, 0.0);
  for (size_t r = 0; r < 100; ++r) {
    for (size_t c = 0; c < 10; ++c) v[r * 10 + c] = c == 0 ? 10 * kStep : (c % 3) * kStep;
  }
  return v;
}

Int8Agreement Compare(const std::vector<double>& got, size_t row = 10) {
  std::string error;
  Int8Agreement a = CompareInt8(got, Reference(), kStep, row, &error);
  EXPECT_EQ(error, "");
  return a;
}

TEST(Int8Agreement, EqualOutputsPass) {
  const Int8Agreement a = Compare(Reference());
  EXPECT_TRUE(a.Passes()) << a.Summary();
  EXPECT_EQ(a.exact, 1000u);
  EXPECT_EQ(a.decisive_rows, 100u);
  EXPECT_EQ(a.Summary(), "within 2 steps 1000/1000, max 0.00 steps, exact 1000, argmax 100/100 decisive rows equal");
}

TEST(Int8Agreement, OnePercentBeyondTwoStepsPassesAndOneMoreFails) {
  std::vector<double> got = Reference();
  for (size_t i = 0; i < 10; ++i) got[i * 10 + 5] += 3 * kStep;  // 10 of 1000: 1%
  Int8Agreement a = Compare(got);
  EXPECT_EQ(a.within_two, 990u);
  EXPECT_TRUE(a.Passes()) << a.Summary();
  got[995] += 3 * kStep;
  a = Compare(got);
  EXPECT_FALSE(a.Passes()) << a.Summary();
}

TEST(Int8Agreement, FourStepsPassAndMoreFail) {
  std::vector<double> got = Reference();
  got[7] -= 4 * kStep;
  EXPECT_TRUE(Compare(got).Passes());
  got[7] -= 0.1 * kStep;
  const Int8Agreement a = Compare(got);
  EXPECT_FALSE(a.Passes());
  EXPECT_NEAR(a.max_steps, 4.1, 1e-9);
}

TEST(Int8Agreement, NanFails) {
  std::vector<double> got = Reference();
  got[3] = NAN;
  EXPECT_FALSE(Compare(got).Passes());
}

TEST(Int8Agreement, ArgmaxMustAgreeOnlyWhereTheMarginIsDecisive) {
  // Row 0's runner-up (class 2) holds 2 steps.
  std::vector<double> want = Reference();
  want[0] = 4 * kStep;  // a margin of exactly 2 steps: not decisive
  std::vector<double> got = want;
  got[0] -= 2.5 * kStep;  // class 2 leads now
  std::string error;
  Int8Agreement a = CompareInt8(got, want, kStep, 10, &error);
  EXPECT_EQ(a.decisive_rows, 99u);
  EXPECT_EQ(a.argmax_mismatches, 0u);
  EXPECT_TRUE(a.Passes()) << a.Summary();

  want[0] = 5 * kStep;  // a margin of 3 steps: decisive
  got = want;
  got[0] -= 2 * kStep;  // every element within 2 steps, but class 2 leads
  got[2] += 2 * kStep;
  a = CompareInt8(got, want, kStep, 10, &error);
  EXPECT_EQ(a.decisive_rows, 100u);
  EXPECT_EQ(a.argmax_mismatches, 1u);
  EXPECT_FALSE(a.Passes()) << a.Summary();
}

TEST(Int8Agreement, UnusableSizesAreAnError) {
  std::string error;
  CompareInt8({1, 2}, {1, 2, 3}, kStep, 1, &error);
  EXPECT_NE(error, "");
  error.clear();
  CompareInt8({1, 2, 3}, {1, 2, 3}, kStep, 2, &error);
  EXPECT_NE(error, "");
  error.clear();
  CompareInt8({1}, {1}, 0, 1, &error);
  EXPECT_NE(error, "");
}

}  // namespace
}  // namespace mlf::testing
