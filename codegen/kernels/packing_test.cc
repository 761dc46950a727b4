#include "codegen/kernels/packing.h"

#include <algorithm>
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

// W of 19 rows (a block of 16 and one of 3) by 37 columns (two steps of 16
// and a tail of 5).
TEST(PackingTest, GemvBlocksOfSixteenRowsStepMajorThenTheTails) {
  const std::vector<float> w = Matrix(19, 37);
  const std::vector<float> p = PackGemvW(w.data(), 19, 37);
  ASSERT_EQ(p.size(), w.size());
  // Block 0, step 0: row 0's elements 0-15, then row 1's, ...
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[15], 15);
  EXPECT_EQ(p[16], 100);
  EXPECT_EQ(p[16 * 15 + 15], 1515);
  // Step 1 starts after 16 x 16 floats: row 0's elements 16-31.
  EXPECT_EQ(p[256], 16);
  EXPECT_EQ(p[256 + 16 * 2 + 3], 219);
  // Then the tails (elements 32-36) of rows 0-15, row after row.
  EXPECT_EQ(p[512], 32);
  EXPECT_EQ(p[512 + 4], 36);
  EXPECT_EQ(p[512 + 5], 132);
  EXPECT_EQ(p[512 + 15 * 5 + 4], 1536);
  // Block 1 (rows 16-18) at 16 * 37: steps of 3 x 16, then 3 tails.
  const size_t b1 = 16 * 37;
  EXPECT_EQ(p[b1], 1600);
  EXPECT_EQ(p[b1 + 16], 1700);
  EXPECT_EQ(p[b1 + 32 + 15], 1815);
  EXPECT_EQ(p[b1 + 48], 1616);
  EXPECT_EQ(p[b1 + 96], 1632);
  EXPECT_EQ(p[b1 + 96 + 14], 1836);
  // A permutation: every element once.
  std::vector<float> sorted_p = p, sorted_w = w;
  std::sort(sorted_p.begin(), sorted_p.end());
  std::sort(sorted_w.begin(), sorted_w.end());
  EXPECT_EQ(sorted_p, sorted_w);
}

TEST(PackingTest, GemvRowsShorterThanAStepAreTailsOnly) {
  const std::vector<float> w = Matrix(3, 5);
  EXPECT_EQ(PackGemvW(w.data(), 3, 5), w);
}

}  // namespace
}  // namespace mlf::kernels
