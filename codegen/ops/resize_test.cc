// Resize: the ONNX examples for nearest, linear and cubic, errors, and generated C
// against evaluate() over modes, coordinate transformations and dtypes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

// In the harness's namespace (codegen/ops/testing/op_harness.h): its helpers need no
// using-declarations.
namespace mlf::ops::testing {
namespace {

using ir::HostTensor;
using Shape = std::vector<int64_t>;

struct ResizeArgs {
  std::string mode = "nearest";
  std::string coord;    // empty: default
  std::string nearest;  // empty: default
  std::vector<double> scales, roi;
  Shape sizes, axes;
  double extrapolation = 0;
};

// X, [roi], [scales], [sizes] with constants; omitted inputs as ONNX does.
void AddResize(OpTest& t, DType d, const Shape& shape, const ResizeArgs& a) {
  t.Input("X", d, shape);
  if (a.roi.empty()) t.OmittedInput();
  else t.Constant("roi", MakeTensor(DType::kFloat32, {static_cast<int64_t>(a.roi.size())}, a.roi));
  if (a.scales.empty()) t.OmittedInput();
  else t.Constant("scales", MakeTensor(DType::kFloat32, {static_cast<int64_t>(a.scales.size())}, a.scales));
  if (!a.sizes.empty()) t.Constant("sizes", Int64s(a.sizes));
  t.Output("Y");
  t.Attr("mode", a.mode);
  if (!a.coord.empty()) t.Attr("coordinate_transformation_mode", a.coord);
  if (!a.nearest.empty()) t.Attr("nearest_mode", a.nearest);
  if (!a.axes.empty()) t.Attr("axes", a.axes);
  if (a.extrapolation != 0) t.Attr("extrapolation_value", a.extrapolation);
}

// A nearest Resize to `sizes`, with coordinate transformation and nearest
// modes `coord` and `nearest` ("": ONNX's defaults).
ResizeArgs NearestToSizes(Shape sizes, std::string coord = "", std::string nearest = "") {
  ResizeArgs a;
  a.sizes = std::move(sizes);
  a.coord = std::move(coord);
  a.nearest = std::move(nearest);
  return a;
}

HostTensor Iota1(const Shape& shape) {  // 1, 2, 3, ... as float32
  HostTensor t = HostTensor::Zeros(DType::kFloat32, shape);
  for (uint64_t i = 0; i < t.element_count(); ++i) t.SetDouble(i, static_cast<double>(i + 1));
  return t;
}

// 1 + rows[r] * width + cols[c]: the output of a nearest resize of a
// width-wide Iota1 image.
std::vector<double> Separable(const std::vector<int>& rows, const std::vector<int>& cols, int width) {
  std::vector<double> v;
  for (int r : rows) {
    for (int c : cols) v.push_back(1 + r * width + c);
  }
  return v;
}

// Checks evaluate() against `want` and the generated C against evaluate().
void ExpectResize(const HostTensor& x, const ResizeArgs& a, const Shape& out_shape, const std::vector<double>& want) {
  OpTest t("Resize");
  AddResize(t, x.dtype, x.shape, a);
  ExpectGeneratedMatches(t, {x}, 1e-5, true);
  EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, out_shape);
  auto y = t.Evaluate({x});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const Status close = testing::AllClose({(*y)[0]}, {MakeTensor(x.dtype, out_shape, want)}, 1e-6, 1e-6);
  EXPECT_TRUE(close.ok()) << close.ToString();
}

TEST(Resize, OnnxNearestExamples) {
  {
    SCOPED_TRACE("test_resize_upsample_scales_nearest");
    ResizeArgs a;
    a.scales = {1, 1, 2, 3};
    ExpectResize(Iota1({1, 1, 2, 2}), a, {1, 1, 4, 6}, Separable({0, 0, 1, 1}, {0, 0, 0, 1, 1, 1}, 2));
  }
  {
    SCOPED_TRACE("test_resize_downsample_scales_nearest");
    ResizeArgs a;
    a.scales = {1, 1, 0.6, 0.6};
    ExpectResize(Iota1({1, 1, 2, 4}), a, {1, 1, 1, 2}, {1, 3});
  }
  {
    SCOPED_TRACE("test_resize_upsample_sizes_nearest");
    ExpectResize(Iota1({1, 1, 2, 2}), NearestToSizes({1, 1, 7, 8}),
                 {1, 1, 7, 8}, Separable({0, 0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 1}, 2));
  }
  {
    SCOPED_TRACE("test_resize_downsample_sizes_nearest");
    ExpectResize(Iota1({1, 1, 2, 4}), NearestToSizes({1, 1, 1, 3}), {1, 1, 1, 3}, {1, 2, 4});
  }
  const std::vector<int> ceil = {0, 1, 1, 2, 2, 3, 3, 3}, floor = {0, 0, 0, 1, 1, 2, 2, 3};
  {
    SCOPED_TRACE("test_resize_upsample_sizes_nearest_ceil_half_pixel");
    ExpectResize(Iota1({1, 1, 4, 4}), NearestToSizes({1, 1, 8, 8}, "half_pixel", "ceil"),
                 {1, 1, 8, 8}, Separable(ceil, ceil, 4));
  }
  {
    SCOPED_TRACE("test_resize_upsample_sizes_nearest_floor_align_corners");
    ExpectResize(Iota1({1, 1, 4, 4}), NearestToSizes({1, 1, 8, 8}, "align_corners", "floor"),
                 {1, 1, 8, 8}, Separable(floor, floor, 4));
  }
  {
    SCOPED_TRACE("test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric");
    ExpectResize(Iota1({1, 1, 4, 4}), NearestToSizes({1, 1, 8, 8}, "asymmetric", "round_prefer_ceil"),
                 {1, 1, 8, 8}, Separable(ceil, ceil, 4));
  }
  {
    SCOPED_TRACE("test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn");
    ExpectResize(Iota1({1, 1, 4, 4}), NearestToSizes({1, 1, 3, 2}, "tf_half_pixel_for_nn"),
                 {1, 1, 3, 2}, {6, 8, 10, 12, 14, 16});
  }
}

TEST(Resize, OnnxLinearExamples) {
  {
    SCOPED_TRACE("test_resize_upsample_scales_linear");
    ResizeArgs a;
    a.mode = "linear";
    a.scales = {1, 1, 2, 2};
    ExpectResize(Iota1({1, 1, 2, 2}), a, {1, 1, 4, 4},
                 {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
  }
  {
    SCOPED_TRACE("test_resize_upsample_scales_linear_align_corners");
    ResizeArgs a;
    a.mode = "linear";
    a.coord = "align_corners";
    a.scales = {1, 1, 2, 2};
    const double t = 1.0 / 3;
    ExpectResize(Iota1({1, 1, 2, 2}), a, {1, 1, 4, 4},
                 {1, 1 + t, 1 + 2 * t, 2, 1 + 2 * t, 2, 2 + t, 2 + 2 * t, 2 + t, 2 + 2 * t, 3, 3 + t, 3, 3 + t,
                  3 + 2 * t, 4});
  }
  {
    SCOPED_TRACE("test_resize_downsample_scales_linear");
    ResizeArgs a;
    a.mode = "linear";
    a.scales = {1, 1, 0.6, 0.6};
    ExpectResize(Iota1({1, 1, 2, 4}), a, {1, 1, 1, 2}, {2.6666666666666665, 4.333333333333333});
  }
  {
    SCOPED_TRACE("test_resize_downsample_scales_linear_align_corners");
    ResizeArgs a;
    a.mode = "linear";
    a.coord = "align_corners";
    a.scales = {1, 1, 0.6, 0.6};
    // The resized length is 4 * 0.6 = 2.4, not 2 (ONNX's reference): 1 + 3 / 1.4.
    ExpectResize(Iota1({1, 1, 2, 4}), a, {1, 1, 1, 2}, {1, 1 + 3 / 1.4});
  }
  {
    SCOPED_TRACE("test_resize_downsample_sizes_linear_pytorch_half_pixel");
    ResizeArgs a;
    a.mode = "linear";
    a.coord = "pytorch_half_pixel";
    a.sizes = {1, 1, 3, 1};
    ExpectResize(Iota1({1, 1, 4, 4}), a, {1, 1, 3, 1}, {1.6666666666666667, 7, 12.333333333333334});
  }
  {
    SCOPED_TRACE("test_resize_tf_crop_and_resize");
    ResizeArgs a;
    a.mode = "linear";
    a.coord = "tf_crop_and_resize";
    a.roi = {0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7};
    a.sizes = {1, 1, 3, 3};
    a.extrapolation = 10;
    ExpectResize(Iota1({1, 1, 4, 4}), a, {1, 1, 3, 3}, {7.6, 10, 10, 12.4, 10, 10, 10, 10, 10});
  }
  {
    SCOPED_TRACE("half_pixel_symmetric (opset 19)");
    ResizeArgs a;
    a.mode = "linear";
    a.coord = "half_pixel_symmetric";
    a.scales = {1, 1, 1, 0.6};
    ExpectResize(Iota1({1, 1, 1, 4}), a, {1, 1, 1, 2}, {1 + 2.0 / 3, 3 + 1.0 / 3});
  }
}

TEST(Resize, GeneratedConfigurations) {
  struct Case {
    DType d;
    Shape shape;
    ResizeArgs args;
  };
  auto with = [](std::string mode, std::string coord, std::vector<double> scales, Shape sizes,
                 std::string nearest = "") {
    ResizeArgs a;
    a.mode = std::move(mode);
    a.coord = std::move(coord);
    a.scales = std::move(scales);
    a.sizes = std::move(sizes);
    a.nearest = std::move(nearest);
    return a;
  };
  std::vector<Case> cases = {
      // 2-D (NCHW) bilinear, up and down, every transformation.
      {DType::kFloat32, {1, 3, 5, 7}, with("linear", "half_pixel", {1, 1, 2, 2}, {})},
      {DType::kFloat32, {2, 2, 9, 6}, with("linear", "pytorch_half_pixel", {}, {2, 2, 4, 1})},
      {DType::kFloat32, {1, 2, 6, 6}, with("linear", "align_corners", {1, 1, 1.5, 0.7}, {})},
      {DType::kFloat32, {1, 1, 5, 4}, with("linear", "asymmetric", {1, 1, 1.7, 3}, {})},
      {DType::kFloat32, {1, 2, 7, 5}, with("linear", "half_pixel_symmetric", {1, 1, 0.6, 1.3}, {})},
      {DType::kFloat64, {1, 1, 4, 4}, with("linear", "tf_half_pixel_for_nn", {}, {1, 1, 3, 6})},
      // 1-D and 3-D (trilinear), NHWC (channels innermost, unchanged).
      {DType::kFloat32, {2, 3, 10}, with("linear", "half_pixel", {1, 1, 0.45}, {})},
      {DType::kFloat64, {1, 2, 3, 4, 5}, with("linear", "half_pixel", {}, {1, 2, 5, 3, 8})},
      {DType::kFloat32, {1, 6, 5, 3}, with("linear", "half_pixel", {1, 2, 2, 1}, {})},
      // Nearest, every rounding, several dtypes.
      {DType::kInt8, {1, 1, 5, 7}, with("nearest", "half_pixel", {1, 1, 2.5, 0.5}, {}, "round_prefer_floor")},
      {DType::kUInt16, {2, 3, 4}, with("nearest", "asymmetric", {1, 1.5, 3}, {}, "round_prefer_ceil")},
      {DType::kFloat16, {1, 2, 6, 6}, with("nearest", "align_corners", {}, {1, 2, 4, 9}, "floor")},
      {DType::kInt64, {1, 3, 4, 4}, with("nearest", "pytorch_half_pixel", {}, {1, 3, 7, 1}, "ceil")},
      {DType::kBool, {3, 5}, with("nearest", "tf_half_pixel_for_nn", {2, 0.8}, {})},
      {DType::kFloat32, {1, 4, 4, 3}, with("nearest", "half_pixel", {1, 2, 2, 1}, {})},  // NHWC
  };
  // tf_crop_and_resize with a roi partly outside the image (extrapolation).
  ResizeArgs crop = with("linear", "tf_crop_and_resize", {}, {1, 1, 5, 6});
  crop.roi = {0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3};
  crop.extrapolation = -1.5;
  cases.push_back({DType::kFloat32, {1, 1, 4, 5}, crop});
  ResizeArgs crop_nearest = crop;
  crop_nearest.mode = "nearest";
  cases.push_back({DType::kInt32, {1, 1, 4, 5}, crop_nearest});
  ResizeArgs crop_scales = with("linear", "tf_crop_and_resize", {1, 1, 2, 2}, {});
  crop_scales.roi = {0, 0, 0.25, 0, 1, 1, 0.75, 1};
  cases.push_back({DType::kFloat32, {1, 2, 4, 4}, crop_scales});
  // Attribute axes (opset 18): sizes and roi for the listed axes only.
  ResizeArgs axes = with("linear", "half_pixel", {}, {3, 7});
  axes.axes = {-1, 2};
  cases.push_back({DType::kFloat32, {2, 2, 5, 4}, axes});

  uint64_t seed = 100;
  for (const Case& c : cases) {
    OpTest t("Resize");
    AddResize(t, c.d, c.shape, c.args);
    SCOPED_TRACE(c.args.mode + " " + c.args.coord + " " + DTypeName(c.d) + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.shape, seed++)}, c.args.mode == "linear" ? 1e-5 : 0, seed % 3 == 0);
  }
}

// The ONNX backend cases' expected values (libonnx-testdata), first rows.
TEST(Resize, OnnxCubicExamples) {
  auto run = [](ResizeArgs a, double coeff_a, bool exclude, const Shape& out_shape) {
    OpTest t("Resize");
    a.mode = "cubic";
    AddResize(t, DType::kFloat32, {1, 1, 4, 4}, a);
    if (coeff_a != -0.75) t.Attr("cubic_coeff_a", coeff_a);
    if (exclude) t.Attr("exclude_outside", int64_t{1});
    ExpectGeneratedMatches(t, {Iota1({1, 1, 4, 4})}, 1e-5, true);
    EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, out_shape);
    auto y = t.Evaluate({Iota1({1, 1, 4, 4})});
    EXPECT_TRUE(y.ok());
    return y.ok() ? Values((*y)[0]) : std::vector<double>{};
  };
  auto expect_prefix = [](const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_GE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  };
  ResizeArgs up;
  up.scales = {1, 1, 2, 2};
  {
    SCOPED_TRACE("test_resize_upsample_scales_cubic");
    expect_prefix(run(up, -0.75, false, {1, 1, 8, 8}),
                  {0.47265625, 0.76953125, 1.24609375, 1.875, 2.28125, 2.91015625, 3.38671875, 3.68359375});
  }
  {
    SCOPED_TRACE("test_resize_upsample_scales_cubic_align_corners");
    up.coord = "align_corners";
    expect_prefix(run(up, -0.75, false, {1, 1, 8, 8}),
                  {1.0, 1.34110785, 1.80029154, 2.32944608, 2.67055392, 3.19970846, 3.65889215, 4.0});
  }
  {
    SCOPED_TRACE("test_resize_downsample_scales_cubic_A_n0p5_exclude_outside");
    ResizeArgs down;
    down.scales = {1, 1, 0.8, 0.8};
    expect_prefix(run(down, -0.5, true, {1, 1, 3, 3}), {1.36812675, 2.6695013, 4.01333666, 6.57362509, 7.875,
                                                        9.21883488, 11.94896603, 13.25034142, 14.59417629});
  }
}

TEST(Resize, CubicGeneratedMatchesReference) {
  struct Case {
    DType d;
    Shape shape;
    std::vector<double> scales;
    Shape sizes;
    const char* coord;
    bool exclude;
  };
  const Case cases[] = {
      {DType::kFloat32, {1, 2, 5, 3}, {1, 1, 1.7, 2.5}, {}, "half_pixel", false},
      {DType::kFloat64, {2, 3, 6}, {1, 1, 0.5}, {}, "pytorch_half_pixel", true},
      {DType::kFloat32, {1, 1, 4, 7}, {}, {1, 1, 9, 3}, "half_pixel_symmetric", false},
      {DType::kFloat32, {3, 4}, {2, 1}, {}, "asymmetric", true},  // one resized axis, one copied
      {DType::kFloat64, {2, 2, 3}, {}, {2, 3, 5}, "align_corners", false},
      {DType::kFloat32, {1, 1, 5, 5}, {}, {1, 1, 3, 3}, "tf_half_pixel_for_nn", true},
  };
  uint64_t seed = 300;
  for (const Case& c : cases) {
    ResizeArgs a;
    a.mode = "cubic";
    a.coord = c.coord;
    a.scales = c.scales;
    a.sizes = c.sizes;
    OpTest t("Resize");
    AddResize(t, c.d, c.shape, a);
    if (c.exclude) t.Attr("exclude_outside", int64_t{1});
    t.Attr("cubic_coeff_a", -0.5 - 0.1 * static_cast<double>(seed % 3));
    SCOPED_TRACE(std::string(c.coord) + " " + DTypeName(c.d) + FormatShape(c.shape));
    ExpectGeneratedMatches(t, {RandomTensor(c.d, c.shape, seed++)}, 1e-5, seed % 2 == 0);
  }
  // Scale 1 on every axis: the identity, copied.
  ResizeArgs same;
  same.mode = "cubic";
  same.scales = {1, 1, 1};
  OpTest t("Resize");
  AddResize(t, DType::kFloat32, {2, 3, 4}, same);
  ExpectGeneratedMatches(t, {RandomTensor(DType::kFloat32, {2, 3, 4}, 8)}, 0);
}

TEST(Resize, ScalesOfOneCopyUnchangedAxes) {
  OpTest t("Resize");
  ResizeArgs a;
  a.scales = {1, 1, 1};
  AddResize(t, DType::kFloat32, {2, 3, 4}, a);
  ExpectGeneratedMatches(t, {RandomTensor(DType::kFloat32, {2, 3, 4}, 7)}, 0, true);
  EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, (Shape{2, 3, 4}));
}

TEST(Resize, Errors) {
  auto error = [](DType d, const ResizeArgs& a, const Shape& shape = {1, 1, 4, 4}) {
    OpTest t("Resize", "r");
    AddResize(t, d, shape, a);
    return InferError(t);
  };
  ResizeArgs cubic;
  cubic.mode = "cubic";
  cubic.scales = {1, 1, 2, 2};
  EXPECT_EQ(error(DType::kUInt8, cubic), "node 'r' (Resize): mode 'cubic' supports float32 and float64 data, got uint8");
  OpTest exclude("Resize", "r");
  AddResize(exclude, DType::kFloat32, {1, 1, 4, 4}, cubic);
  exclude.Attr("exclude_outside", int64_t{2});
  EXPECT_EQ(InferError(exclude), "node 'r' (Resize): exclude_outside 2 is invalid (0 or 1)");
  ResizeArgs mode;
  mode.mode = "bicubic";
  mode.scales = {1, 1, 2, 2};
  EXPECT_EQ(error(DType::kFloat32, mode), "node 'r' (Resize): unknown mode 'bicubic' (expected nearest, linear or cubic)");

  ResizeArgs linear;
  linear.mode = "linear";
  linear.scales = {1, 1, 2, 2};
  EXPECT_EQ(error(DType::kInt8, linear),
            "node 'r' (Resize): mode 'linear' supports float32 and float64 data, got int8");

  ResizeArgs both;
  both.scales = {1, 1, 2, 2};
  both.sizes = {1, 1, 8, 8};
  EXPECT_EQ(error(DType::kFloat32, both), "node 'r' (Resize): only one of input 2 (scales) and input 3 (sizes) may be given");

  ResizeArgs neither;
  EXPECT_EQ(error(DType::kFloat32, neither), "node 'r' (Resize): one of input 2 (scales) and input 3 (sizes) is required");

  ResizeArgs short_scales;
  short_scales.scales = {2, 2};
  EXPECT_EQ(error(DType::kFloat32, short_scales), "node 'r' (Resize): input 2 (scales) has 2 values, expected 4");

  ResizeArgs zero;
  zero.scales = {1, 1, 0, 2};
  EXPECT_EQ(error(DType::kFloat32, zero), "node 'r' (Resize): scale 0.000000 of axis 2 is not positive");

  ResizeArgs coord;
  coord.coord = "corners";
  coord.scales = {1, 1, 2, 2};
  EXPECT_EQ(error(DType::kFloat32, coord), "node 'r' (Resize): unknown coordinate_transformation_mode 'corners'");

  OpTest rt("Resize", "r");
  rt.Input("X", DType::kFloat32, {1, 1, 4, 4});
  rt.OmittedInput();
  rt.Input("scales", DType::kFloat32, {4});
  rt.Output("Y");
  EXPECT_EQ(InferError(rt), "node 'r' (Resize): input 2 (scales) must be a constant");

  OpTest aa("Resize", "r");
  AddResize(aa, DType::kFloat32, {1, 1, 4, 4}, linear);
  aa.Attr("antialias", int64_t{1});
  EXPECT_EQ(InferError(aa), "node 'r' (Resize): antialias=1 is not supported");
  EXPECT_EQ(aa.Infer().code(), StatusCode::kUnimplemented);
}

TEST(Resize, EmptyRoiAndScalesCountAsOmitted) {
  // test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn passes empty
  // roi and scales constants (opset 11).
  OpTest t("Resize");
  t.Input("X", DType::kFloat32, {1, 1, 4, 4});
  t.Constant("roi", HostTensor::Zeros(DType::kFloat32, {0}));
  t.Constant("scales", HostTensor::Zeros(DType::kFloat32, {0}));
  t.Constant("sizes", Int64s({1, 1, 3, 2}));
  t.Output("Y");
  t.Attr("coordinate_transformation_mode", std::string("tf_half_pixel_for_nn"));
  ExpectGeneratedMatches(t, {Iota1({1, 1, 4, 4})});
  auto y = t.Evaluate({Iota1({1, 1, 4, 4})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{6, 8, 10, 12, 14, 16}));
}

}  // namespace
}  // namespace mlf::ops::testing
