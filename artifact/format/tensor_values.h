// Reading and writing single elements of any DType as double, for tools that
// look at values (mlf run's summaries and comparisons, random inputs, tests).
// float16 and bfloat16 are converted exactly (IEEE half, upper half of float).
#ifndef MLFKIT_ARTIFACT_FORMAT_TENSOR_VALUES_H_
#define MLFKIT_ARTIFACT_FORMAT_TENSOR_VALUES_H_

#include <cstdint>
#include <string>

#include "artifact/format/dtype.h"

namespace mlf {

double ReadElement(DType dtype, const void* data, uint64_t index);
// Rounds to nearest for floats; saturates and truncates towards zero for integers.
void WriteElement(DType dtype, void* data, uint64_t index, double value);

float HalfToFloat(uint16_t half);
uint16_t FloatToHalf(float value);

// Fills `count` elements with reproducible pseudo-random values from `seed`
// (splitmix64): floats uniform in [-1, 1), signed integers in [-10, 10],
// unsigned in [0, 20], bool 0 or 1. The same seed gives the same bytes on
// every machine.
void FillRandom(DType dtype, void* data, uint64_t count, uint64_t seed);

// "%.9g" for floats, integers as integers (firmware output format).
std::string FormatElement(DType dtype, double value);

}  // namespace mlf

#endif  // MLFKIT_ARTIFACT_FORMAT_TENSOR_VALUES_H_
