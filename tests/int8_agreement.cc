#include "tests/int8_agreement.h"

#include <cmath>
#include <cstdio>

namespace mlf::testing {
namespace {

// A tolerance for "within N steps": the dequantized values are float32
// products, off the step grid by an ulp or so.
constexpr double kGridSlack = 1e-3;

// The index of the largest value of want[begin, begin + n) and the margin to
// the second largest.
size_t TopOne(const std::vector<double>& v, size_t begin, size_t n, double* margin) {
  size_t best = begin;
  for (size_t i = begin; i < begin + n; ++i) {
    if (v[i] > v[best]) best = i;
  }
  double second = -INFINITY;
  for (size_t i = begin; i < begin + n; ++i) {
    if (i != best && v[i] > second) second = v[i];
  }
  *margin = v[best] - second;
  return best - begin;
}

}  // namespace

bool Int8Agreement::Passes() const {
  return elements > 0 && within_two * 100 >= elements * 99 && max_steps <= 4 + kGridSlack &&
         argmax_mismatches == 0;
}

std::string Int8Agreement::Summary() const {
  char text[200];
  std::snprintf(text, sizeof text, "within 2 steps %zu/%zu, max %.2f steps, exact %zu, argmax %zu/%zu decisive rows equal",
                within_two, elements, max_steps, exact, decisive_rows - argmax_mismatches, decisive_rows);
  return text;
}

Int8Agreement CompareInt8(const std::vector<double>& got, const std::vector<double>& want, double step,
                          size_t row_length, std::string* error) {
  Int8Agreement a;
  if (!(step > 0) || got.size() != want.size() || got.empty() || row_length == 0 ||
      got.size() % row_length != 0) {
    *error = "cannot compare: " + std::to_string(got.size()) + " values against " + std::to_string(want.size()) +
             ", rows of " + std::to_string(row_length) + ", step " + std::to_string(step);
    return a;
  }
  a.elements = got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const double steps = std::fabs(got[i] - want[i]) / step;
    if (steps < kGridSlack) ++a.exact;
    if (steps <= 2 + kGridSlack) ++a.within_two;
    // NaN compares false everywhere: make it the worst.
    a.max_steps = std::isnan(steps) ? INFINITY : std::fmax(a.max_steps, steps);
  }
  a.rows = got.size() / row_length;
  for (size_t r = 0; r < a.rows; ++r) {
    double margin = 0, unused = 0;
    const size_t want_top = TopOne(want, r * row_length, row_length, &margin);
    if (!(margin > (2 + kGridSlack) * step)) continue;
    ++a.decisive_rows;
    if (TopOne(got, r * row_length, row_length, &unused) != want_top) ++a.argmax_mismatches;
  }
  return a;
}

}  // namespace mlf::testing
