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

}  // namespace mlf::kernels
