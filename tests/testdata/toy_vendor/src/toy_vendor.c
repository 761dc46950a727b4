#include "toy_vendor.h"

void toy_vendor_add(float* data, int32_t n, float value) {
  for (int32_t i = 0; i < n; ++i) data[i] += value;
}
