#include "codegen/kernels/packing.h"

#include <numeric>

#include "gtest/gtest.h"

namespace mlf::kernels {
namespace {

// Element (r, c) of a row-major m x k matrix holds 100 * r + c.
std::vector<float> Matrix(int64_t m, int64_t k) {
  std::vector<float> a(static_cast<size_t>(m * k));
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < k; ++c) a[r * k + c] = static_cast<float>(100 * r + c);
  }
  return a;
}

TEST(PackingTest, PanelsOfEightRowsKMajorThenTheTailRowMajor) {
  const std::vector<float> a = Matrix(10, 3);
  const std::vector<float> packed = PackGemmA(a.data(), 10, 3);
  ASSERT_EQ(packed.size(), 30u);
  // Panel 0: column 0 of rows 0-7, then column 1, then column 2.
  const std::vector<float> want_panel = {0,   100, 200, 300, 400, 500, 600, 700,  //
                                         1,   101, 201, 301, 401, 501, 601, 701,  //
                                         2,   102, 202, 302, 402, 502, 602, 702};
  EXPECT_EQ(std::vector<float>(packed.begin(), packed.begin() + 24), want_panel);
  // Rows 8 and 9 as they were.
  EXPECT_EQ(std::vector<float>(packed.begin() + 24, packed.end()),
            (std::vector<float>{800, 801, 802, 900, 901, 902}));
}

TEST(PackingTest, FewerThanEightRowsStayAsTheyAre) {
  const std::vector<float> a = Matrix(5, 4);
  EXPECT_EQ(PackGemmA(a.data(), 5, 4), a);
}

TEST(PackingTest, TwoFullPanels) {
  const std::vector<float> a = Matrix(16, 2);
  const std::vector<float> packed = PackGemmA(a.data(), 16, 2);
  EXPECT_EQ(packed[16], 800);  // panel 1, column 0, row 8
  EXPECT_EQ(packed[23], 1500);
  EXPECT_EQ(packed[24], 801);
  EXPECT_EQ(packed[31], 1501);
  EXPECT_EQ(std::accumulate(packed.begin(), packed.end(), 0.0),
            std::accumulate(a.begin(), a.end(), 0.0));
}

}  // namespace
}  // namespace mlf::kernels
