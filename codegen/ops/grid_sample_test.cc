// GridSample: the eight ONNX backend cases (every mode, padding mode and
// align_corners, PyTorch's values) through evaluate, hand-computed points,
// the generated C against evaluate over modes, paddings, odd sizes, points
// far outside and NaN, float64, and every error of infer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

OpTest Grid(DType d, const Shape& x, const Shape& grid, const std::string& mode, const std::string& padding,
            int64_t align) {
  OpTest t("GridSample", "gs");
  t.Input("X", d, x);
  t.Input("grid", d, grid);
  t.Output("Y");
  t.Attr("mode", mode);
  t.Attr("padding_mode", padding);
  t.Attr("align_corners", align);
  return t;
}

struct BackendCase {
  const char* name;
  const char* mode;
  const char* padding;
  int64_t align;
  Shape x_shape;
  std::vector<double> x;
  Shape grid_shape;
  std::vector<double> grid, y;
};

TEST(GridSample, BackendCases) {
  // libonnx-testdata's test_gridsample* (input_0, input_1, output_0; the
  // outputs are rounded to 4 decimals: compared at the backend runner's
  // rtol 1e-3, atol 1e-7).
  const BackendCase cases[] = {
      {"test_gridsample", "bilinear", "zeros", 0, {1, 1, 4, 4}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0}, {1, 6, 6, 2}, {-1.0, -1.0, -0.6000000238418579, -1.0, -0.20000000298023224, -1.0, 0.20000000298023224, -1.0, 0.6000000238418579, -1.0, 1.0, -1.0, -1.0, -0.6000000238418579, -0.6000000238418579, -0.6000000238418579, -0.20000000298023224, -0.6000000238418579, 0.20000000298023224, -0.6000000238418579, 0.6000000238418579, -0.6000000238418579, 1.0, -0.6000000238418579, -1.0, -0.20000000298023224, -0.6000000238418579, -0.20000000298023224, -0.20000000298023224, -0.20000000298023224, 0.20000000298023224, -0.20000000298023224, 0.6000000238418579, -0.20000000298023224, 1.0, -0.20000000298023224, -1.0, 0.20000000298023224, -0.6000000238418579, 0.20000000298023224, -0.20000000298023224, 0.20000000298023224, 0.20000000298023224, 0.20000000298023224, 0.6000000238418579, 0.20000000298023224, 1.0, 0.20000000298023224, -1.0, 0.6000000238418579, -0.6000000238418579, 0.6000000238418579, -0.20000000298023224, 0.6000000238418579, 0.20000000298023224, 0.6000000238418579, 0.6000000238418579, 0.6000000238418579, 1.0, 0.6000000238418579, -1.0, 1.0, -0.6000000238418579, 1.0, -0.20000000298023224, 1.0, 0.20000000298023224, 1.0, 0.6000000238418579, 1.0, 1.0, 1.0}, {0.0, 0.15000000596046448, 0.550000011920929, 0.949999988079071, 1.350000023841858, 0.75, 0.6000000238418579, 1.5, 2.299999952316284, 3.0999999046325684, 3.9000000953674316, 2.0999999046325684, 2.200000047683716, 4.699999809265137, 5.5, 6.300000190734863, 7.099999904632568, 3.700000047683716, 3.799999952316284, 7.900000095367432, 8.699999809265137, 9.5, 10.300000190734863, 5.300000190734863, 5.400000095367432, 11.100000381469727, 11.899999618530273, 12.699999809265137, 13.5, 6.900000095367432, 3.0, 6.150000095367432, 6.550000190734863, 6.949999809265137, 7.349999904632568, 3.75}},
      {"test_gridsample_aligncorners_true", "bilinear", "zeros", 1, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-1.0, -1.0, -0.5, -0.5, -0.20000000298023224, -0.20000000298023224, 0.0, 0.0, 0.0, 0.0, -0.20000000298023224, -0.20000000298023224, 0.5, 0.5, 1.0, 1.0}, {0.0, 1.25, 2.0, 2.5, 2.5, 2.0, 3.75, 5.0}},
      {"test_gridsample_bicubic", "bicubic", "zeros", 0, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-1.0, -1.0, -0.5, -0.5, -0.20000000298023224, -0.20000000298023224, 0.0, 0.0, 0.0, 0.0, -0.20000000298023224, -0.20000000298023224, 0.5, 0.5, 1.0, 1.0}, {-0.14059999585151672, 0.38280001282691956, 1.7555999755859375, 2.9688000679016113, 2.9688000679016113, 1.7555999755859375, 5.144499778747559, 1.3905999660491943}},
      {"test_gridsample_bilinear", "bilinear", "zeros", 0, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-1.0, -1.0, -0.5, -0.5, -0.20000000298023224, -0.20000000298023224, 0.0, 0.0, 0.0, 0.0, -0.20000000298023224, -0.20000000298023224, 0.5, 0.5, 1.0, 1.0}, {0.0, 0.5, 1.7000000476837158, 2.5, 2.5, 1.7000000476837158, 4.5, 1.25}},
      {"test_gridsample_border_padding", "bilinear", "border", 0, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-10.0, -10.0, -5.0, -5.0, -0.20000000298023224, -0.20000000298023224, 10.0, 10.0, 10.0, 10.0, -0.20000000298023224, -0.20000000298023224, 5.0, 5.0, 10.0, 10.0}, {0.0, 0.0, 1.7000000476837158, 5.0, 5.0, 1.7000000476837158, 5.0, 5.0}},
      {"test_gridsample_nearest", "nearest", "zeros", 0, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-1.0, -1.0, -0.5, -0.5, -0.20000000298023224, -0.20000000298023224, 0.0, 0.0, 0.0, 0.0, -0.20000000298023224, -0.20000000298023224, 0.5, 0.5, 1.0, 1.0}, {0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 5.0, 0.0}},
      {"test_gridsample_reflection_padding", "bilinear", "reflection", 0, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-10.0, -10.0, -5.0, -5.0, -0.20000000298023224, -0.20000000298023224, 10.0, 10.0, 10.0, 10.0, -0.20000000298023224, -0.20000000298023224, 5.0, 5.0, 10.0, 10.0}, {2.5, 0.0, 1.7000000476837158, 2.5, 2.5, 1.7000000476837158, 5.0, 2.5}},
      {"test_gridsample_zeros_padding", "bilinear", "zeros", 0, {1, 1, 3, 2}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}, {1, 2, 4, 2}, {-10.0, -10.0, -5.0, -5.0, -0.20000000298023224, -0.20000000298023224, 10.0, 10.0, 10.0, 10.0, -0.20000000298023224, -0.20000000298023224, 5.0, 5.0, 10.0, 10.0}, {0.0, 0.0, 1.7000000476837158, 0.0, 0.0, 1.7000000476837158, 0.0, 0.0}},
  };
  for (const BackendCase& c : cases) {
    SCOPED_TRACE(c.name);
    OpTest t = Grid(DType::kFloat32, c.x_shape, c.grid_shape, c.mode, c.padding, c.align);
    ASSERT_TRUE(t.Infer().ok());
    const Shape out = {c.x_shape[0], c.x_shape[1], c.grid_shape[1], c.grid_shape[2]};
    EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, out);
    const std::vector<HostTensor> in = {MakeTensor(DType::kFloat32, c.x_shape, c.x),
                                        MakeTensor(DType::kFloat32, c.grid_shape, c.grid)};
    auto y = t.Evaluate(in);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const std::vector<double> got = Values((*y)[0]);
    ASSERT_EQ(got.size(), c.y.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], c.y[i], 1e-7 + 1e-3 * std::fabs(c.y[i])) << i;
    ExpectGeneratedMatches(t, in, 1e-6);
  }
}

TEST(GridSample, HandComputedPoints) {
  // X = [[0, 1], [2, 3]]; align_corners=1: (-1, -1) is pixel (0, 0), (1, 1)
  // pixel (1, 1), (0, 0) the mean of all four, (0.5, 0) is x = 0.75,
  // y = 0.5: (0.75 + 2.75) / 2.
  const HostTensor x = MakeTensor(DType::kFloat32, {1, 1, 2, 2}, {0, 1, 2, 3});
  const HostTensor g = MakeTensor(DType::kFloat32, {1, 1, 4, 2}, {-1, -1, 1, 1, 0, 0, 0.5, 0});
  OpTest aligned = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 4, 2}, "bilinear", "zeros", 1);
  ASSERT_TRUE(aligned.Infer().ok());
  EXPECT_EQ(Values((*aligned.Evaluate({x, g}))[0]), (std::vector<double>{0, 3, 1.5, 1.75}));
  OpTest half = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 4, 2}, "bilinear", "zeros", 0);
  ASSERT_TRUE(half.Infer().ok());
  // (-1, -1) -> (-0.5, -0.5): a quarter of pixel (0, 0) = 0; (1, 1) -> (1.5,
  // 1.5): a quarter of 3; (0.5, 0) -> (1, 0.5): column 1, (1 + 3) / 2.
  EXPECT_EQ(Values((*half.Evaluate({x, g}))[0]), (std::vector<double>{0, 0.75, 1.5, 2}));
  OpTest border = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 4, 2}, "bilinear", "border", 0);
  ASSERT_TRUE(border.Infer().ok());
  EXPECT_EQ(Values((*border.Evaluate({x, g}))[0]), (std::vector<double>{0, 3, 1.5, 2}));
  // Nearest rounds ties to even: x = 0.5 -> 0, y = 0.5 -> 0.
  OpTest nearest = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 4, 2}, "nearest", "zeros", 1);
  ASSERT_TRUE(nearest.Infer().ok());
  EXPECT_EQ(Values((*nearest.Evaluate({x, g}))[0]), (std::vector<double>{0, 3, 0, 1}));
}

TEST(GridSample, GeneratedMatchesReference) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  uint64_t seed = 3;
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    for (const char* padding : {"zeros", "border", "reflection"}) {
      for (int64_t align : {0, 1}) {
        for (DType d : {DType::kFloat32, DType::kFloat64}) {
          SCOPED_TRACE(std::string(mode) + " " + padding + " " + std::to_string(align) + " " + DTypeName(d));
          // Odd sizes, two images, three channels; grid points in [-3, 3]
          // (inside, edges, far outside) plus NaN and huge ones.
          const Shape xs = {2, 3, 5, 3}, gs = {2, 4, 7, 2};
          HostTensor grid = RandomTensor(d, gs, seed++);
          for (uint64_t i = 0; i < grid.element_count(); ++i) grid.SetDouble(i, grid.GetDouble(i) * 3);
          grid.SetDouble(0, nan);
          grid.SetDouble(3, 1e30);
          grid.SetDouble(4, -1e30);
          grid.SetDouble(6, 1);
          grid.SetDouble(7, -1);
          OpTest t = Grid(d, xs, gs, mode, padding, align);
          ExpectGeneratedMatches(t, {RandomTensor(d, xs, seed++), grid}, d == DType::kFloat32 ? 1e-5 : 1e-12,
                                 seed % 7 == 0);
        }
      }
    }
  }
  // A 1x1 image (reflection with align_corners=1 has no span) and an empty grid.
  for (const char* padding : {"zeros", "border", "reflection"}) {
    OpTest one = Grid(DType::kFloat32, {1, 2, 1, 1}, {1, 2, 2, 2}, "bicubic", padding, 1);
    ExpectGeneratedMatches(one, {RandomTensor(DType::kFloat32, {1, 2, 1, 1}, 9), RandomTensor(DType::kFloat32, {1, 2, 2, 2}, 10)},
                           1e-5);
  }
  OpTest empty = Grid(DType::kFloat32, {1, 2, 3, 3}, {1, 0, 2, 2}, "bilinear", "zeros", 0);
  ExpectGeneratedMatches(empty, {RandomTensor(DType::kFloat32, {1, 2, 3, 3}, 11), HostTensor::Zeros(DType::kFloat32, {1, 0, 2, 2})});
}

TEST(GridSample, Errors) {
  OpTest mode = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 1, 2}, "linear", "zeros", 0);
  EXPECT_EQ(InferError(mode), "node 'gs' (GridSample): attribute 'mode' is 'linear' (bilinear, nearest or bicubic)");
  OpTest padding = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "edge", 0);
  EXPECT_EQ(InferError(padding),
            "node 'gs' (GridSample): attribute 'padding_mode' is 'edge' (zeros, border or reflection)");
  OpTest align = Grid(DType::kFloat32, {1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "zeros", 2);
  EXPECT_EQ(InferError(align), "node 'gs' (GridSample): attribute 'align_corners' is 2 (0 or 1)");
  OpTest rank = Grid(DType::kFloat32, {1, 1, 2, 2, 2}, {1, 1, 1, 1, 3}, "bilinear", "zeros", 0);
  EXPECT_EQ(InferError(rank), "node 'gs' (GridSample): input X must be 4-D (N, C, H, W), got shape [1, 1, 2, 2, 2]");
  OpTest grid = Grid(DType::kFloat32, {2, 1, 2, 2}, {1, 3, 3, 2}, "bilinear", "zeros", 0);
  EXPECT_EQ(InferError(grid), "node 'gs' (GridSample): input 1 (grid) has shape [1, 3, 3, 2], expected [2, H_out, W_out, 2]");
  OpTest dtype = Grid(DType::kInt32, {1, 1, 2, 2}, {1, 1, 1, 2}, "bilinear", "zeros", 0);
  EXPECT_EQ(InferError(dtype), "node 'gs' (GridSample): input X has dtype int32; supported: float32, float64");
  OpTest mixed("GridSample", "gs");
  mixed.Input("X", DType::kFloat32, {1, 1, 2, 2});
  mixed.Input("grid", DType::kFloat64, {1, 1, 1, 2});
  mixed.Output("Y");
  EXPECT_EQ(InferError(mixed), "node 'gs' (GridSample): input 1 (grid) has dtype float64, expected float32 like input X");
}

}  // namespace
}  // namespace mlf::ops::testing
