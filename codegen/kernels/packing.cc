#include "codegen/kernels/packing.h"

#include <algorithm>

namespace mlf::kernels {

std::vector<float> PackGemmA(const float* a, int64_t m, int64_t k) {
  std::vector<float> out(static_cast<size_t>(m * k));
  const int64_t panels = m / kGemmPanelRows;
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t r = 0; r < kGemmPanelRows; ++r) {
        out[(p * k + c) * kGemmPanelRows + r] = a[(p * kGemmPanelRows + r) * k + c];
      }
    }
  }
  std::copy(a + panels * kGemmPanelRows * k, a + m * k, out.begin() + panels * kGemmPanelRows * k);
  return out;
}

std::vector<float> PackGemvW(const float* w, int64_t n, int64_t k) {
  std::vector<float> out(static_cast<size_t>(n * k));
  const int64_t steps = k / 16, tail = k % 16;
  for (int64_t j = 0; j < n; j += kGemvBlockRows) {
    const int64_t r = std::min(kGemvBlockRows, n - j);
    const float* block = w + j * k;
    float* to = out.data() + j * k;
    for (int64_t s = 0; s < steps; ++s) {
      for (int64_t c = 0; c < r; ++c) {
        std::copy(block + c * k + 16 * s, block + c * k + 16 * s + 16, to + (s * r + c) * 16);
      }
    }
    for (int64_t c = 0; c < r; ++c) {
      std::copy(block + c * k + 16 * steps, block + (c + 1) * k, to + steps * 16 * r + c * tail);
    }
  }
  return out;
}

}  // namespace mlf::kernels
