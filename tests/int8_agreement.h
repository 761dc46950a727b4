// How closely an int8 model's output agrees with PyTorch's own int8 result
// (issue 14's criterion): measured in quantization steps of the output, at
// least 99% of the elements within 2 steps, none beyond 4, and the same
// argmax in every row where PyTorch's top-2 margin exceeds 2 steps (a row
// with a smaller margin may legitimately flip on a one-step difference).
#ifndef MLFKIT_TESTS_INT8_AGREEMENT_H_
#define MLFKIT_TESTS_INT8_AGREEMENT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace mlf::testing {

struct Int8Agreement {
  size_t elements = 0;         // compared
  size_t exact = 0;            // within 1e-3 steps (float32 rounding of the dequantized value)
  size_t within_two = 0;       // within 2 steps
  double max_steps = 0;        // the largest difference, in steps
  size_t rows = 0;             // argmax rows (size / row_length)
  size_t decisive_rows = 0;    // rows whose PyTorch top-2 margin exceeds 2 steps
  size_t argmax_mismatches = 0;  // decisive rows whose argmax differs

  // True when the criterion above holds. Sizes must agree (checked by
  // CompareInt8).
  bool Passes() const;
  // "within 2 steps 39/40, max 1.00 steps, exact 32, argmax 4/4 decisive rows equal"
  std::string Summary() const;
};

// Compares `got` with PyTorch's `want` (same length, a multiple of
// `row_length`: rows of class scores) in units of `step` (> 0). Returns an
// error text instead when the sizes or the step are unusable.
Int8Agreement CompareInt8(const std::vector<double>& got, const std::vector<double>& want, double step,
                          size_t row_length, std::string* error);

}  // namespace mlf::testing

#endif  // MLFKIT_TESTS_INT8_AGREEMENT_H_
