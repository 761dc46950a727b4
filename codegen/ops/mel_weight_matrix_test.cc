// MelWeightMatrix: the matrix against ONNX's definition worked by hand for a
// small case, the generated C against evaluate bit for bit, and errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/ops/op.h"
#include "codegen/ops/shape_test_util.h"
#include "codegen/ops/testing/op_harness.h"

namespace mlf::ops::testing {
namespace {

using Shape = std::vector<int64_t>;

OpTest Mel(double mel_bins, double dft_length, double rate, double lower, double upper,
           int64_t type = 1) {
  OpTest t("MelWeightMatrix", "m");
  t.Constant("num_mel_bins", MakeTensor(DType::kInt32, {}, {mel_bins}));
  t.Constant("dft_length", MakeTensor(DType::kInt64, {}, {dft_length}));
  t.Constant("sample_rate", MakeTensor(DType::kInt32, {}, {rate}));
  t.Constant("lower_edge_hertz", MakeTensor(DType::kFloat32, {}, {lower}));
  t.Constant("upper_edge_hertz", MakeTensor(DType::kFloat32, {}, {upper}));
  t.Output("y");
  if (type != 1) t.Attr("output_datatype", type);
  return t;
}

// 2 filters, dft_length 8 (5 bins), 8000 Hz, band 0..4000 Hz: mel(4000) =
// 2146.06, so the mel points k * 536.5 for k = 0..3 are 0, 426.8, 1113.8 and
// 2219.8 Hz, times 9 / 8000 and floored: edges 0, 0, 1, 2.
TEST(MelWeightMatrix, ValuesFollowTheDefinition) {
  OpTest t = Mel(2, 8, 8000, 0, 4000);
  ASSERT_TRUE(t.Infer().ok()) << t.Infer().ToString();
  EXPECT_EQ(t.graph().value(t.node().outputs[0]).shape, (Shape{5, 2}));
  auto y = t.Evaluate({});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  // Filter 0: edges 0, 0, 1 -> an empty rise (1 at bin 0), falls 1 at bin 0.
  // Filter 1: edges 0, 1, 2 -> rises 0 at bin 0 to 1 at bin 1, falls 1 at bin 1.
  EXPECT_EQ(Values((*y)[0]), (std::vector<double>{1, 0, 0, 1, 0, 0, 0, 0, 0, 0}));
}

TEST(MelWeightMatrix, GeneratedMatchesReference) {
  uint64_t k = 0;
  for (double bins : {1, 8, 20}) {
    for (double dft : {16, 64, 512}) {
      OpTest t = Mel(bins, dft, 16000, 20, 7600, ++k % 2 == 0 ? 11 : 1);
      SCOPED_TRACE("bins " + std::to_string(bins) + " dft " + std::to_string(dft));
      ExpectGeneratedMatches(t, {}, 0, k % 3 == 0);
    }
  }
}

TEST(MelWeightMatrix, Errors) {
  OpTest runtime("MelWeightMatrix", "m");
  runtime.Input("num_mel_bins", DType::kInt32, {});
  for (const char* name : {"dft_length", "sample_rate"}) {
    runtime.Constant(name, MakeTensor(DType::kInt32, {}, {16}));
  }
  runtime.Constant("lower", MakeTensor(DType::kFloat32, {}, {0}));
  runtime.Constant("upper", MakeTensor(DType::kFloat32, {}, {4}));
  runtime.Output("y");
  EXPECT_EQ(InferError(runtime), "node 'm' (MelWeightMatrix): input 0 (num_mel_bins) must be a constant");

  OpTest zero = Mel(0, 8, 8000, 0, 4000);
  EXPECT_EQ(InferError(zero),
            "node 'm' (MelWeightMatrix): num_mel_bins, dft_length and sample_rate must be 1 or "
            "more, got 0, 8, 8000");
  OpTest band = Mel(2, 8, 8000, 300, 300);
  EXPECT_EQ(InferError(band),
            "node 'm' (MelWeightMatrix): the band must satisfy 0 <= lower_edge_hertz < "
            "upper_edge_hertz");
  OpTest nyquist = Mel(2, 8, 8000, 0, 16000);
  EXPECT_EQ(InferError(nyquist),
            "node 'm' (MelWeightMatrix): upper_edge_hertz 16000.000000 lies above the "
            "spectrum's last bin (sample_rate / 2 for dft_length 8)");
  OpTest type = Mel(2, 8, 8000, 0, 4000, 7);
  EXPECT_EQ(InferError(type),
            "node 'm' (MelWeightMatrix): output_datatype 7 is not supported (1: float32, 11: "
            "float64)");
  OpTest huge = Mel(1 << 20, 1 << 20, 8000, 0, 4000);
  EXPECT_EQ(InferError(huge),
            "node 'm' (MelWeightMatrix): the matrix would have more than 16777216 elements");
}

}  // namespace
}  // namespace mlf::ops::testing
